import { offsetMinutes } from '../../../core/time';

/** A stretch of time `[from, to)` (epoch seconds) over which a zone keeps one UTC offset (seconds). */
export interface OffsetPeriod {
  from: number;
  to: number;
  offset: number;
}

/** Zones change offset at most a few times a year, never twice within a day: one probe a day finds every change. */
const PROBE = 86_400;

/** `[from, to)` split where the zone's UTC offset changes (DST, or a zone changing its standard time). */
export function offsetPeriods(tz: string, from: number, to: number): OffsetPeriod[] {
  if (from >= to) return [];
  const offsetAt = (seconds: number) => offsetMinutes(tz, new Date(seconds * 1000)) * 60;
  const periods: OffsetPeriod[] = [];
  let start = from;
  let offset = offsetAt(from);
  // Invariant: the offset at `probe` is `offset`.
  let probe = from;
  while (probe < to - 1) {
    const next = Math.min(probe + PROBE, to - 1);
    if (offsetAt(next) === offset) {
      probe = next;
      continue;
    }
    let unchanged = probe;
    let changed = next;
    while (changed - unchanged > 1) {
      const middle = Math.floor((unchanged + changed) / 2);
      if (offsetAt(middle) === offset) unchanged = middle;
      else changed = middle;
    }
    periods.push({ from: start, to: changed, offset });
    start = probe = changed;
    offset = offsetAt(changed);
  }
  periods.push({ from: start, to, offset });
  return periods;
}
