import { invalid } from '../../../core/errors';
import { zonedToUtc } from '../../../core/time';
import { addDays, parseDate } from '../engine/calendar';
import type { Interval } from '../types';

/**
 * What the store reports read beside the standard parameters (`day_range`, `start_date`, `params[created_at]`, …):
 * local dates, and the UTC interval of a run of local days.
 */

const DATE_INPUT = /^(\d{4}-\d{2}-\d{2})(?:[ T]([01]\d|2[0-3]):[0-5]\d:[0-5]\d)?$/;
/** The years the standard parameters accept too (summary slots and buckets stay bounded inside them). */
const FIRST_YEAR = 1970;
const LAST_YEAR = 2099;

/** A real date `YYYY-MM-DD` (a time after it is accepted and ignored) between 1970 and 2099, or null. */
export function localDate(value: unknown): string | null {
  const match = typeof value === 'string' ? DATE_INPUT.exec(value.trim()) : null;
  const parsed = match ? parseDate(match[1]) : null;
  if (!match || !parsed) return null;
  const year = parsed.getUTCFullYear();
  return year >= FIRST_YEAR && year <= LAST_YEAR ? match[1] : null;
}

/** `localDate` of a parameter, or a 422 naming it; absent or empty gives undefined. */
export function dateParameter(field: string, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  const date = localDate(value);
  if (!date) throw invalid(field, 'date', `Invalid ${field}: expected a real date as YYYY-MM-DD between ${FIRST_YEAR} and ${LAST_YEAR}.`);
  return date;
}

/** The half-open UTC interval covering the local days `startDate`..`endDate` (inclusive) in `tz`. */
export function dayInterval(startDate: string, endDate: string, tz: string): Interval {
  return { from: zonedToUtc(startDate, tz), to: zonedToUtc(addDays(endDate, 1), tz) };
}

/** The named report parameters (`params[...]`) as an object (none: empty); any other shape is a 422. */
export function namedParams(query: Record<string, unknown>): Record<string, unknown> {
  const params = query.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw invalid('params', 'array', 'Invalid params: expected named report parameters such as params[per_page].');
  }
  return params as Record<string, unknown>;
}
