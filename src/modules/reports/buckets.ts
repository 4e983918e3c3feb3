import { zonedToUtc } from '../../core/time';
import { addDays, addMonths, dayCount } from './engine/calendar';
import type { GroupKey } from './params';
import type { Bucket } from './types';

export type AppliedInterval = 'daily' | 'monthly' | 'yearly';

/** Spec: with `default` the interval is daily up to 91 days, monthly up to 365 days, yearly beyond. */
const DAILY_UP_TO = 91;
const MONTHLY_UP_TO = 365;

function intervalFor(days: number, groupKey: GroupKey): AppliedInterval {
  if (groupKey === 'monthly' || groupKey === 'yearly') return groupKey;
  if (days <= DAILY_UP_TO) return 'daily';
  return days <= MONTHLY_UP_TO ? 'monthly' : 'yearly';
}

/** The first local date of the next bucket after the one holding `date`. */
function nextStart(date: string, applied: AppliedInterval): string {
  if (applied === 'daily') return addDays(date, 1);
  if (applied === 'monthly') return addMonths(`${date.slice(0, 7)}-01`, 1);
  return `${String(Number(date.slice(0, 4)) + 1).padStart(4, '0')}-01-01`;
}

function label(date: string, applied: AppliedInterval): string {
  return applied === 'daily' ? date : applied === 'monthly' ? date.slice(0, 7) : date.slice(0, 4);
}

/**
 * The time buckets of a report over the local dates `startDate`..`endDate` (inclusive) in `tz`: local calendar
 * days, months or years, the first and last clipped to the range, each the half-open UTC interval between its
 * local boundaries (so a DST day is 23 or 25 hours long). The dimension group keys use the `default` rule.
 */
export function timeBuckets(range: { startDate: string; endDate: string }, tz: string, groupKey: GroupKey): { applied: AppliedInterval; buckets: Bucket[] } {
  const applied = intervalFor(dayCount(range.startDate, range.endDate), groupKey);
  const end = addDays(range.endDate, 1);
  const buckets: Bucket[] = [];
  let from = range.startDate;
  let fromUtc = zonedToUtc(from, tz);
  while (from < end) {
    const next = nextStart(from, applied);
    const to = next < end ? next : end;
    const toUtc = zonedToUtc(to, tz);
    buckets.push({ from: fromUtc, to: toUtc, year: from.slice(0, 4), group: label(from, applied) });
    from = to;
    fromUtc = toUtc;
  }
  return { applied, buckets };
}
