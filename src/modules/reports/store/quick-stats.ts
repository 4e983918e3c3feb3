import type { Ctx } from '../../../core/context';
import { invalid } from '../../../core/errors';
import { aggregate } from '../engine/aggregate';
import { addDays, addMonths, parseDate, today } from '../engine/calendar';
import { parseReportParams } from '../params';
import { salesSummary, type SalesSummary } from '../summary';
import { dayInterval } from './inputs';
import { localDateOf, orderSpan } from './order-span';

const NAMED_RANGES = ['this_week', 'this_month', 'this_year', 'last_month', 'last_year', 'all_time'] as const;
type NamedRange = (typeof NAMED_RANGES)[number];
const RELATIVE = /^-(\d{1,4}) days?$/;
const MAX_DAYS = 3650;

/** `day_range`: `-N days` (N 0 to 3650), or one of the named ranges; absent means `-0 days`, today. */
type DayRange = { days: number } | { named: NamedRange };

function parseDayRange(value: unknown): DayRange {
  if (value === undefined || value === '') return { days: 0 };
  const choices = `-N days (N from 0 to ${MAX_DAYS}), ${NAMED_RANGES.join(', ')}`;
  if (typeof value !== 'string') throw invalid('day_range', 'string', `Invalid day_range: expected one text value: ${choices}.`);
  const relative = RELATIVE.exec(value.trim());
  if (relative && Number(relative[1]) <= MAX_DAYS) return { days: Number(relative[1]) };
  if ((NAMED_RANGES as readonly string[]).includes(value)) return { named: value as NamedRange };
  throw invalid('day_range', 'in', `Invalid day_range: expected ${choices}.`);
}

/** The local dates a day range covers, up to today; `all_time` starts at `firstOrder` (today when there is none). */
function rangeDates(range: DayRange, now: string, firstOrder: string | null): { from: string; to: string } {
  if ('days' in range) return { from: addDays(now, -range.days), to: now };
  const monthStart = `${now.slice(0, 7)}-01`;
  const yearStart = `${now.slice(0, 4)}-01-01`;
  switch (range.named) {
    case 'this_week': {
      // ISO weeks start on Monday (getUTCDay: Sunday is 0).
      const weekday = (parseDate(now)!.getUTCDay() + 6) % 7;
      return { from: addDays(now, -weekday), to: now };
    }
    case 'this_month':
      return { from: monthStart, to: now };
    case 'this_year':
      return { from: yearStart, to: now };
    case 'last_month':
      return { from: addMonths(monthStart, -1), to: addDays(monthStart, -1) };
    case 'last_year':
      return { from: addMonths(yearStart, -12), to: addDays(yearStart, -1) };
    case 'all_time':
      return { from: firstOrder && firstOrder < now ? firstOrder : now, to: now };
  }
}

/** `GET /reports/quick-order-stats`: the sales summary of a relative range of local days (standard filters apply). */
export async function quickOrderStats(ctx: Ctx, query: Record<string, unknown>): Promise<{ stats: SalesSummary; from_date: string; to_date: string }> {
  const range = parseDayRange(query.day_range);
  const { filters, tz } = await parseReportParams(ctx, query);
  const now = today(tz, ctx.clock.now());
  const first = 'named' in range && range.named === 'all_time' ? (await orderSpan(ctx, filters)).first : null;
  const { from, to } = rangeDates(range, now, first ? localDateOf(first, tz) : null);
  const [row] = await aggregate(ctx, { family: 'sales', filters, buckets: [dayInterval(from, to, tz)] });
  return { stats: salesSummary(row?.metrics ?? {}), from_date: from, to_date: to };
}
