import type { ReportParams } from '../params';
import type { Interval } from '../types';

/** A report's local date range (inclusive, in the report zone) and its UTC interval: the range asked for, or its comparison. */
export interface Period {
  startDate: string;
  endDate: string;
  range: Interval;
}

/**
 * Reads the same figures for the range and, with a `compareType`, for the comparison range (its own buckets);
 * `previous` is null without one.
 */
export async function withComparison<T>(params: ReportParams, read: (period: Period) => Promise<T>): Promise<{ current: T; previous: T | null }> {
  const current = await read({ startDate: params.startDate, endDate: params.endDate, range: params.range });
  const previous = params.compare ? await read(params.compare) : null;
  return { current, previous };
}
