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
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC in minutes at an instant (e.g. +60 for Europe/Berlin in winter). */
function offsetMinutes(zone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60000);
}

/**
 * A wall-clock time in `zone` (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`) as a UTC timestamp: how `user_tz`
 * shifts date filters. Unknown zones are treated as UTC.
 */
export function zonedToUtc(local: string, zone = 'UTC'): string {
  const text = /^\d{4}-\d{2}-\d{2}$/.test(local) ? `${local} 00:00:00` : local;
  const asUtc = fromTimestamp(text);
  if (Number.isNaN(asUtc.getTime())) throw new RangeError(`not a date: ${local}`);
  if (!isTimeZone(zone) || zone === 'UTC') return toTimestamp(asUtc);
  const first = new Date(asUtc.getTime() - offsetMinutes(zone, asUtc) * 60000);
  const settled = new Date(asUtc.getTime() - offsetMinutes(zone, first) * 60000);
  return toTimestamp(settled);
}

/** The UTC range covering whole local days `from`..`to` (inclusive) in `zone`. */
export function localDayRange(from: string, to: string, zone = 'UTC'): [string, string] {
  const nextDay = fromTimestamp(`${to.slice(0, 10)} 00:00:00`);
  nextDay.setUTCDate(nextDay.getUTCDate() + 1);
  const end = fromTimestamp(zonedToUtc(toTimestamp(nextDay), zone));
  return [zonedToUtc(from.slice(0, 10), zone), toTimestamp(new Date(end.getTime() - 1000))];
}
