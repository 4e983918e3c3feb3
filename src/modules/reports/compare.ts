import { addDays, addMonths, dayCount } from './engine/calendar';

export const COMPARE_TYPES = ['previous_period', 'previous_month', 'previous_quarter', 'previous_year', 'custom'] as const;
export type CompareType = (typeof COMPARE_TYPES)[number];

const MONTHS_BACK: Partial<Record<CompareType, number>> = { previous_month: 1, previous_quarter: 3, previous_year: 12 };

/**
 * The local date range a report is compared with: `previous_period` the same number of days right before,
 * `previous_month`/`_quarter`/`_year` the range shifted back 1/3/12 calendar months (days clamped to the month's
 * end), `custom` the same number of days from `compareDate`.
 */
export function comparisonRange(
  type: CompareType,
  range: { startDate: string; endDate: string },
  compareDate?: string,
): { startDate: string; endDate: string } {
  const days = dayCount(range.startDate, range.endDate);
  if (type === 'custom') {
    if (!compareDate) throw new RangeError('custom comparison without compareDate');
    return { startDate: compareDate, endDate: addDays(compareDate, days - 1) };
  }
  const months = MONTHS_BACK[type];
  if (months) return { startDate: addMonths(range.startDate, -months), endDate: addMonths(range.endDate, -months) };
  const endDate = addDays(range.startDate, -1);
  return { startDate: addDays(endDate, -(days - 1)), endDate };
}

/**
 * Percent change rounded to 2 decimals; from 0 it is 0 (still 0) or 100 (anything else). Measured against the
 * size of `previous` so that a rise from a negative figure (net revenue after refunds) reads as a rise.
 */
function change(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) / Math.abs(previous)) * 10_000) / 100;
}

/** For every numeric key the percent change from `previous` to `current`; every key `null` without a comparison. */
export function fluctuations<T extends Record<string, number>>(current: T, previous: T | null): Record<keyof T, number | null> {
  const keys = Object.keys(current) as (keyof T)[];
  return Object.fromEntries(keys.map((key) => [key, previous ? change(current[key], previous[key] ?? 0) : null])) as Record<keyof T, number | null>;
}
