/**
 * Time (`src/core/time.ts`): timestamps are stored and returned as UTC `YYYY-MM-DD HH:MM:SS`; a caller's
 * `user_tz` only shifts date filters.
 *
 * - `toTimestamp(date)` / `fromTimestamp(text)`: Date ↔ stored UTC text.
 * - `isTimeZone(value)`: an IANA zone name this runtime knows.
 * - `zonedToUtc(local, zone)`: a wall-clock time in `zone` as a UTC timestamp (unknown zones are UTC).
 * - `localDayRange(from, to, zone)`: the UTC range `[first second, last second]` of whole local days.
 */
import { fromTimestamp, isTimeZone, localDayRange, toTimestamp, zonedToUtc } from '../../src/core/time';

describe('toTimestamp', () => {
  it.each<[string, string]>([
    ['2024-01-02T03:04:05.678Z', '2024-01-02 03:04:05'],
    ['2024-01-02T03:04:05.999Z', '2024-01-02 03:04:05'], // milliseconds are dropped, not rounded
    ['2024-07-15T10:00:00+02:00', '2024-07-15 08:00:00'], // always UTC
    ['1999-12-31T23:59:59Z', '1999-12-31 23:59:59'],
    ['1970-01-01T00:00:00Z', '1970-01-01 00:00:00'],
  ])('%s → %s', (iso, text) => {
    expect(toTimestamp(new Date(iso))).toBe(text);
  });

  it('throws on an invalid date', () => {
    expect(() => toTimestamp(new Date('nope'))).toThrow(RangeError);
  });
});

describe('fromTimestamp', () => {
  it.each<[string, string]>([
    ['2024-01-02 03:04:05', '2024-01-02T03:04:05.000Z'],
    ['2024-02-29 23:59:59', '2024-02-29T23:59:59.000Z'],
    ['2024-01-02T03:04:05', '2024-01-02T03:04:05.000Z'],
  ])('%s is read as UTC → %s', (text, iso) => {
    expect(fromTimestamp(text).toISOString()).toBe(iso);
  });

  it.each(['2024-01-02 03:04:05', '2000-01-01 00:00:00', '2038-01-19 03:14:08'])('round-trips %s', (text) => {
    expect(toTimestamp(fromTimestamp(text))).toBe(text);
  });

  it.each(['', 'yesterday', '2024-13-01 00:00:00'])('%j is an Invalid Date', (text) => {
    expect(Number.isNaN(fromTimestamp(text).getTime())).toBe(true);
  });
});

describe('isTimeZone', () => {
  it.each(['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Etc/GMT+5'])('%s is a zone', (zone) => {
    expect(isTimeZone(zone)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an unknown name', 'Mars/Olympus_Mons'],
    ['a city without its region', 'New_York'],
    ['the empty string', ''],
    ['an injection attempt', "UTC'; DROP TABLE x"],
    ['a number', 5],
    ['null', null],
    ['undefined', undefined],
    ['an object', { zone: 'UTC' }],
  ])('%s is not', (_title, value) => {
    expect(isTimeZone(value)).toBe(false);
  });
});

describe('zonedToUtc', () => {
  it.each<[string, string, string, string]>([
    ['New York in winter (EST, UTC-5)', '2024-01-15 10:00:00', 'America/New_York', '2024-01-15 15:00:00'],
    ['New York in summer (EDT, UTC-4)', '2024-07-15 10:00:00', 'America/New_York', '2024-07-15 14:00:00'],
    ['New York, a bare date is local midnight', '2024-01-15', 'America/New_York', '2024-01-15 05:00:00'],
    ['New York, late evening is the next UTC day', '2024-01-15 22:30:00', 'America/New_York', '2024-01-16 03:30:00'],
    ['Kolkata (UTC+5:30, no DST)', '2024-01-15 10:00:00', 'Asia/Kolkata', '2024-01-15 04:30:00'],
    ['Kolkata, local midnight is the previous UTC day', '2024-07-01', 'Asia/Kolkata', '2024-06-30 18:30:00'],
    ['Berlin in winter (UTC+1)', '2024-01-15 10:00:00', 'Europe/Berlin', '2024-01-15 09:00:00'],
    ['Berlin in summer (UTC+2)', '2024-07-15 10:00:00', 'Europe/Berlin', '2024-07-15 08:00:00'],
    ['Kathmandu (UTC+5:45)', '2024-01-15 00:00:00', 'Asia/Kathmandu', '2024-01-14 18:15:00'],
    ['UTC', '2024-01-15 10:00:00', 'UTC', '2024-01-15 10:00:00'],
    ['the default zone is UTC', '2024-01-15 10:00:00', undefined as unknown as string, '2024-01-15 10:00:00'],
    ['an unknown zone is UTC', '2024-01-15 10:00:00', 'Mars/Olympus_Mons', '2024-01-15 10:00:00'],
    ['an empty zone is UTC', '2024-01-15 10:00:00', '', '2024-01-15 10:00:00'],
    ['HH:MM without seconds', '2024-01-15 10:30', 'America/New_York', '2024-01-15 15:30:00'],
    ['a leap day', '2024-02-29 12:00:00', 'Asia/Kolkata', '2024-02-29 06:30:00'],
  ])('%s: %s → %s', (_title, local, zone, utc) => {
    expect(zone === undefined ? zonedToUtc(local) : zonedToUtc(local, zone)).toBe(utc);
  });

  describe('daylight-saving changes', () => {
    it.each<[string, string, string, string]>([
      ['the hour before New York springs forward', '2024-03-10 01:59:59', 'America/New_York', '2024-03-10 06:59:59'],
      ['a New York time that does not exist moves forward by the gap (02:30 → 03:30 EDT)', '2024-03-10 02:30:00', 'America/New_York', '2024-03-10 07:30:00'],
      ['the first New York time after springing forward', '2024-03-10 03:00:00', 'America/New_York', '2024-03-10 07:00:00'],
      ['a New York time that occurs twice gives the earlier instant (EDT)', '2024-11-03 01:30:00', 'America/New_York', '2024-11-03 05:30:00'],
      ['after the repeated hour', '2024-11-03 02:00:00', 'America/New_York', '2024-11-03 07:00:00'],
      ['Santiago skips midnight: the day starts at 01:00 -03', '2024-09-08', 'America/Santiago', '2024-09-08 04:00:00'],
      ['Santiago repeats 23:00-24:00: the earlier instant', '2024-04-06 23:30:00', 'America/Santiago', '2024-04-07 02:30:00'],
      ['Lord Howe shifts by 30 minutes', '2024-10-06 02:15:00', 'Australia/Lord_Howe', '2024-10-05 15:45:00'],
    ])('%s', (_title, local, zone, utc) => {
      expect(zonedToUtc(local, zone)).toBe(utc);
    });
  });

  it.each(['', 'yesterday', '2024-02-30', '2023-02-29', '2024-13-01', '2024-01-15 24:00:00', '2024-01-15 10:60:00', '15/01/2024', '2024-1-5'])(
    '%j is not a date: RangeError',
    (local) => {
      expect(() => zonedToUtc(local, 'America/New_York')).toThrow(RangeError);
    },
  );
});

describe('localDayRange', () => {
  it.each<[string, string, string, string, [string, string]]>([
    ['one UTC day', '2024-01-15', '2024-01-15', 'UTC', ['2024-01-15 00:00:00', '2024-01-15 23:59:59']],
    ['a UTC month', '2024-01-01', '2024-01-31', 'UTC', ['2024-01-01 00:00:00', '2024-01-31 23:59:59']],
    ['a New York winter day', '2024-01-15', '2024-01-15', 'America/New_York', ['2024-01-15 05:00:00', '2024-01-16 04:59:59']],
    ['a New York summer day', '2024-07-15', '2024-07-15', 'America/New_York', ['2024-07-15 04:00:00', '2024-07-16 03:59:59']],
    ['a Kolkata day', '2024-01-15', '2024-01-15', 'Asia/Kolkata', ['2024-01-14 18:30:00', '2024-01-15 18:29:59']],
    ['New York across spring-forward (23-hour day)', '2024-03-10', '2024-03-10', 'America/New_York', ['2024-03-10 05:00:00', '2024-03-11 03:59:59']],
    ['New York across fall-back (25-hour day)', '2024-11-03', '2024-11-03', 'America/New_York', ['2024-11-03 04:00:00', '2024-11-04 04:59:59']],
    ['Santiago: the day whose midnight does not exist', '2024-09-08', '2024-09-08', 'America/Santiago', ['2024-09-08 04:00:00', '2024-09-09 02:59:59']],
    ['the end of a year', '2024-12-31', '2024-12-31', 'UTC', ['2024-12-31 00:00:00', '2024-12-31 23:59:59']],
    ['only the date part of timestamps is used', '2024-01-15 13:45:00', '2024-01-16 08:00:00', 'UTC', ['2024-01-15 00:00:00', '2024-01-16 23:59:59']],
    ['an unknown zone is UTC', '2024-01-15', '2024-01-15', 'Nowhere/Land', ['2024-01-15 00:00:00', '2024-01-15 23:59:59']],
  ])('%s', (_title, from, to, zone, range) => {
    expect(localDayRange(from, to, zone)).toEqual(range);
  });

  it('defaults to UTC', () => {
    expect(localDayRange('2024-02-28', '2024-02-29')).toEqual(['2024-02-28 00:00:00', '2024-02-29 23:59:59']);
  });

  it.each<[string, string]>([
    ['not a date', '2024-01-31'],
    ['2024-01-01', 'not a date'],
    ['2024-01-01', '2024-02-30'],
  ])('%s .. %s: RangeError', (from, to) => {
    expect(() => localDayRange(from, to, 'UTC')).toThrow(RangeError);
  });
});
