/** UTC `YYYY-MM-DD HH:MM:SS`, the one timestamp format stored and returned. */
export function toTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Parses a stored UTC timestamp. */
export function fromTimestamp(value: string): Date {
  return new Date(`${value.replace(' ', 'T')}Z`);
}

/** Whether a string names an IANA time zone this runtime knows. */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || !value) return false;
  try {
    wallClockFormat(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * One formatter per zone: building an `Intl.DateTimeFormat` costs far more than using one (report buckets convert
 * hundreds of boundaries). Zone names come from requests (`user_tz`, in any letter case), so the cache is bounded.
 */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_ZONES = 1000;

export function wallClockFormat(zone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (wallClockFormats.size >= MAX_CACHED_ZONES) wallClockFormats.clear();
    wallClockFormats.set(zone, format);
  }
  return format;
}

/** The zone's offset from UTC in minutes at an instant (e.g. +60 for Europe/Berlin in winter). */
export function offsetMinutes(zone: string, at: Date): number {
  const parts = wallClockFormat(zone).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60000);
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** A wall-clock `YYYY-MM-DD[ HH:MM[:SS]]` read as if it were UTC; null when it is not a real calendar time. */
function parseWallClock(local: string): Date | null {
  const m = LOCAL.exec(local);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  const real =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return real ? date : null;
}

/**
 * A wall-clock time in `zone` (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM` or `YYYY-MM-DD HH:MM:SS`) as a UTC timestamp: how
 * `user_tz` shifts date filters. Unknown zones are treated as UTC. A time that occurs twice (clocks going back)
 * gives the earlier instant; a time that does not exist (clocks going forward) is moved forward by the gap, so
 * a day that starts at 01:00 because of a midnight DST change starts there, not in the previous day. A string that
 * is not a real calendar time (`2024-02-30`) throws a RangeError.
 */
export function zonedToUtc(local: string, zone = 'UTC'): string {
  const asUtc = typeof local === 'string' ? parseWallClock(local.trim()) : null;
  if (!asUtc) throw new RangeError(`not a date: ${local}`);
  if (!isTimeZone(zone) || zone === 'UTC') return toTimestamp(asUtc);
  const wall = asUtc.getTime();
  const day = 24 * 3600 * 1000;
  const before = offsetMinutes(zone, new Date(wall - day));
  const after = offsetMinutes(zone, new Date(wall + day));
  const candidates = [...new Set([before, after])]
    .map((offset) => wall - offset * 60000)
    .filter((instant) => wall - offsetMinutes(zone, new Date(instant)) * 60000 === instant);
  // No candidate: the time falls in a gap; read it with the offset in force before the change.
  const instant = candidates.length ? Math.min(...candidates) : wall - before * 60000;
  return toTimestamp(new Date(instant));
}

/** The UTC range covering whole local days `from`..`to` (inclusive) in `zone`; only the date part of each is used. */
export function localDayRange(from: string, to: string, zone = 'UTC'): [string, string] {
  const nextDay = typeof to === 'string' ? parseWallClock(to.slice(0, 10)) : null;
  if (!nextDay) throw new RangeError(`not a date: ${to}`);
  nextDay.setUTCDate(nextDay.getUTCDate() + 1);
  const end = fromTimestamp(zonedToUtc(toTimestamp(nextDay), zone));
  return [zonedToUtc(from.slice(0, 10), zone), toTimestamp(new Date(end.getTime() - 1000))];
}
