/**
 * Arithmetic on local calendar dates (`YYYY-MM-DD`), done on UTC midnights so no zone or DST can shift a day.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** The UTC midnight of a real calendar date, or null (`2026-02-30`, `2026-13-01`, wrong shape). */
export function parseDate(value: string): Date | null {
  const match = DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
}

export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function mustParse(value: string): Date {
  const date = parseDate(value);
  if (!date) throw new RangeError(`not a date: ${value}`);
  return date;
}

export function addDays(value: string, days: number): string {
  return formatDate(new Date(mustParse(value).getTime() + days * DAY_MS));
}

/** Days from `from` to `to` inclusive (1 for the same day). */
export function dayCount(from: string, to: string): number {
  return Math.round((mustParse(to).getTime() - mustParse(from).getTime()) / DAY_MS) + 1;
}

/** The same day `months` calendar months later (negative: earlier), clamped to the end of a shorter month. */
export function addMonths(value: string, months: number): string {
  const date = mustParse(value);
  const index = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const result = new Date(Date.UTC(year, month, Math.min(date.getUTCDate(), last)));
  result.setUTCFullYear(year);
  return formatDate(result);
}

/** Today's date in `zone`. */
export function today(zone: string, now: Date): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}
