import { wallClockFormat } from '../../core/time';

/**
 * Stored UTC timestamps written as wall-clock time in a zone, for the `_local` date columns. An export converts
 * millions of dates, and `Intl.DateTimeFormat#formatToParts` costs microseconds each: offsets only change on
 * quarter-hour boundaries (every zone's transitions fall on them), so one is computed per zone and quarter hour.
 */
const QUARTER_HOUR = 15 * 60 * 1000;
const MAX_CACHED_OFFSETS = 100_000;

const offsets = new Map<string, number>();

/** The zone's offset from UTC in milliseconds at an instant on a quarter-hour boundary. */
function offsetAt(zone: string, quarter: number): number {
  const key = `${zone}|${quarter}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const at = quarter * QUARTER_HOUR;
    const parts = wallClockFormat(zone).formatToParts(at);
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    offset = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - at;
    if (offsets.size >= MAX_CACHED_OFFSETS) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** A stored `YYYY-MM-DD HH:MM:SS` (UTC) as the same format in `zone`; null and unreadable values give null. */
export function utcToZone(value: string | null, zone: string): string | null {
  if (!value) return null;
  const instant = Date.parse(`${value.slice(0, 10)}T${value.slice(11, 19)}Z`);
  if (Number.isNaN(instant)) return null;
  if (zone === 'UTC') return value.slice(0, 19);
  return new Date(instant + offsetAt(zone, Math.floor(instant / QUARTER_HOUR))).toISOString().slice(0, 19).replace('T', ' ');
}
