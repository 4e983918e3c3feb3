import { timeBuckets } from '../../src/modules/reports/buckets';
import { addDays } from '../../src/modules/reports/engine/calendar';
import { fromTimestamp } from '../../src/core/time';
import type { Bucket } from '../../src/modules/reports/types';

const hours = (bucket: Bucket) => (fromTimestamp(bucket.to).getTime() - fromTimestamp(bucket.from).getTime()) / 3_600_000;

/** Consecutive buckets share their boundary: the series tiles the range. */
function expectContiguous(buckets: Bucket[]) {
  for (let i = 1; i < buckets.length; i += 1) expect(buckets[i].from).toBe(buckets[i - 1].to);
}

describe('report time buckets (timeBuckets)', () => {
  describe('groupKey default: daily up to 91 days, monthly up to 365, yearly beyond', () => {
    it.each([
      [91, 'daily', 91],
      [92, 'monthly', 4],
      [365, 'monthly', 13],
      [366, 'yearly', 2],
    ])('%i days → %s (%i buckets)', (days, applied, count) => {
      const startDate = '2025-01-15';
      const result = timeBuckets({ startDate, endDate: addDays(startDate, days - 1) }, 'UTC', 'default');
      expect(result.applied).toBe(applied);
      expect(result.buckets).toHaveLength(count);
      expectContiguous(result.buckets);
      expect(result.buckets[0].from).toBe('2025-01-15 00:00:00');
      expect(result.buckets.at(-1)!.to).toBe(`${addDays(startDate, days)} 00:00:00`);
    });

    it('a single day is one daily bucket labelled with its date', () => {
      expect(timeBuckets({ startDate: '2026-11-25', endDate: '2026-11-25' }, 'UTC', 'default')).toEqual({
        applied: 'daily',
        buckets: [{ from: '2026-11-25 00:00:00', to: '2026-11-26 00:00:00', year: '2026', group: '2026-11-25' }],
      });
    });

    it('the dimension group keys use the default rule for their time axis', () => {
      expect(timeBuckets({ startDate: '2026-01-01', endDate: '2026-03-31' }, 'UTC', 'billing_country').applied).toBe('daily');
      expect(timeBuckets({ startDate: '2026-01-01', endDate: '2026-04-02' }, 'UTC', 'payment_status').applied).toBe('monthly');
      expect(timeBuckets({ startDate: '2024-01-01', endDate: '2026-04-01' }, 'UTC', 'payment_method').applied).toBe('yearly');
    });
  });

  describe('monthly and yearly buckets are clipped to the range', () => {
    it('monthly: the first and last month are partial, labels YYYY-MM', () => {
      const { applied, buckets } = timeBuckets({ startDate: '2026-01-15', endDate: '2026-03-10' }, 'UTC', 'monthly');
      expect(applied).toBe('monthly');
      expect(buckets).toEqual([
        { from: '2026-01-15 00:00:00', to: '2026-02-01 00:00:00', year: '2026', group: '2026-01' },
        { from: '2026-02-01 00:00:00', to: '2026-03-01 00:00:00', year: '2026', group: '2026-02' },
        { from: '2026-03-01 00:00:00', to: '2026-03-11 00:00:00', year: '2026', group: '2026-03' },
      ]);
    });

    it('monthly applies even to a few days', () => {
      const { applied, buckets } = timeBuckets({ startDate: '2026-02-27', endDate: '2026-03-02' }, 'UTC', 'monthly');
      expect(applied).toBe('monthly');
      expect(buckets.map((b) => b.group)).toEqual(['2026-02', '2026-03']);
    });

    it('yearly: labels YYYY, first and last year partial', () => {
      const { applied, buckets } = timeBuckets({ startDate: '2024-06-15', endDate: '2026-02-01' }, 'UTC', 'yearly');
      expect(applied).toBe('yearly');
      expect(buckets).toEqual([
        { from: '2024-06-15 00:00:00', to: '2025-01-01 00:00:00', year: '2024', group: '2024' },
        { from: '2025-01-01 00:00:00', to: '2026-01-01 00:00:00', year: '2025', group: '2025' },
        { from: '2026-01-01 00:00:00', to: '2026-02-02 00:00:00', year: '2026', group: '2026' },
      ]);
    });

    it('a leap day and the turn of a year are ordinary days', () => {
      const { buckets } = timeBuckets({ startDate: '2024-02-28', endDate: '2024-03-01' }, 'UTC', 'default');
      expect(buckets.map((b) => b.group)).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
      const turn = timeBuckets({ startDate: '2025-12-31', endDate: '2026-01-01' }, 'UTC', 'default').buckets;
      expect(turn.map((b) => [b.year, b.group])).toEqual([
        ['2025', '2025-12-31'],
        ['2026', '2026-01-01'],
      ]);
    });
  });

  describe('buckets are local calendar days in the time zone, DST-correct', () => {
    it('Europe/Berlin: the spring-forward day has 23 hours, the fall-back day 25', () => {
      const spring = timeBuckets({ startDate: '2026-03-28', endDate: '2026-03-30' }, 'Europe/Berlin', 'default').buckets;
      expect(spring.map((b) => [b.from, b.to])).toEqual([
        ['2026-03-27 23:00:00', '2026-03-28 23:00:00'],
        ['2026-03-28 23:00:00', '2026-03-29 22:00:00'],
        ['2026-03-29 22:00:00', '2026-03-30 22:00:00'],
      ]);
      expect(spring.map(hours)).toEqual([24, 23, 24]);
      const fall = timeBuckets({ startDate: '2026-10-24', endDate: '2026-10-26' }, 'Europe/Berlin', 'default').buckets;
      expect(fall.map(hours)).toEqual([24, 25, 24]);
      expect(fall[1]).toEqual({ from: '2026-10-24 22:00:00', to: '2026-10-25 23:00:00', year: '2026', group: '2026-10-25' });
    });

    it('America/New_York: 23 hours on 2026-03-08, 25 hours on 2026-11-01', () => {
      const spring = timeBuckets({ startDate: '2026-03-07', endDate: '2026-03-09' }, 'America/New_York', 'default').buckets;
      expect(spring.map(hours)).toEqual([24, 23, 24]);
      expect(spring[1]).toMatchObject({ from: '2026-03-08 05:00:00', to: '2026-03-09 04:00:00', group: '2026-03-08' });
      const fall = timeBuckets({ startDate: '2026-10-31', endDate: '2026-11-02' }, 'America/New_York', 'default').buckets;
      expect(fall.map(hours)).toEqual([24, 25, 24]);
      expect(fall[1]).toMatchObject({ from: '2026-11-01 04:00:00', to: '2026-11-02 05:00:00', group: '2026-11-01' });
    });

    it('a monthly bucket spanning a DST change starts and ends on local midnights', () => {
      const { buckets } = timeBuckets({ startDate: '2026-03-01', endDate: '2026-04-30' }, 'Europe/Berlin', 'monthly');
      expect(buckets.map((b) => [b.group, b.from, b.to])).toEqual([
        ['2026-03', '2026-02-28 23:00:00', '2026-03-31 22:00:00'],
        ['2026-04', '2026-03-31 22:00:00', '2026-04-30 22:00:00'],
      ]);
    });

    it('Asia/Kolkata (+5:30) and Asia/Kathmandu (+5:45): days start off the UTC hour', () => {
      const kolkata = timeBuckets({ startDate: '2026-11-24', endDate: '2026-11-25' }, 'Asia/Kolkata', 'default').buckets;
      expect(kolkata.map((b) => [b.group, b.from, b.to])).toEqual([
        ['2026-11-24', '2026-11-23 18:30:00', '2026-11-24 18:30:00'],
        ['2026-11-25', '2026-11-24 18:30:00', '2026-11-25 18:30:00'],
      ]);
      const kathmandu = timeBuckets({ startDate: '2026-11-25', endDate: '2026-11-25' }, 'Asia/Kathmandu', 'default').buckets;
      expect(kathmandu).toEqual([{ from: '2026-11-24 18:15:00', to: '2026-11-25 18:15:00', year: '2026', group: '2026-11-25' }]);
    });

    it('a local year west of UTC: the 2026 bucket starts on 2026-01-01 05:00 UTC in New York', () => {
      const { buckets } = timeBuckets({ startDate: '2025-12-01', endDate: '2026-12-31' }, 'America/New_York', 'default');
      expect(buckets.map((b) => [b.year, b.group, b.from, b.to])).toEqual([
        ['2025', '2025', '2025-12-01 05:00:00', '2026-01-01 05:00:00'],
        ['2026', '2026', '2026-01-01 05:00:00', '2027-01-01 05:00:00'],
      ]);
    });

    it('91 local days are 91 buckets in every zone, contiguous', () => {
      for (const zone of ['UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Kolkata', 'Asia/Kathmandu', 'Pacific/Chatham']) {
        const { applied, buckets } = timeBuckets({ startDate: '2026-01-01', endDate: '2026-04-01' }, zone, 'default');
        expect(applied).toBe('daily');
        expect(buckets).toHaveLength(91);
        expectContiguous(buckets);
      }
    });
  });
});
