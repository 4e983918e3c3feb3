import qs from 'qs';
import { parseReportParams, type ReportParams } from '../../src/modules/reports/params';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

/**
 * The standard report parameters (`params[startDate]`, … and `user_tz`): every rule and every 422, first through
 * `parseReportParams`, then through a real report endpoint.
 */

const ALL_TYPES = ['payment', 'subscription', 'renewal'];
const ALL_PAYMENTS = ['paid', 'partially-paid', 'refunded', 'partially-refunded'];

describe('report parameters', () => {
  let app: TestApp;
  let admin: TestUser;
  const parse = (params: unknown, rest: Record<string, unknown> = {}) => parseReportParams(app.ctx(), { params, ...rest });
  /** The 422's `errors`, or a failure when the parameters were accepted. */
  async function refused(params: unknown, rest: Record<string, unknown> = {}): Promise<Record<string, Record<string, string>>> {
    const error = await parse(params, rest).then(
      () => null,
      (caught: unknown) => caught as { status: number; code: string; details: { errors: Record<string, Record<string, string>> } },
    );
    expect(error).not.toBeNull();
    expect(error!.status).toBe(422);
    expect(error!.code).toBe('validation_error');
    return error!.details.errors;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('report-admin', ['administrator']);
  }, 60_000);
  afterAll(() => app.close());
  afterEach(async () => {
    app.clock.set('2026-11-21T10:00:00Z');
    app.host.site.timezone = 'UTC';
    await app.host.options.set('store_settings', {});
    await app.host.options.set('payment_settings', {});
  });

  describe('defaults', () => {
    it('the last 30 days up to today in UTC, every type, status but on-hold/failed, report payment status; the store currency and payment mode', async () => {
      const params = await parse(undefined);
      expect(params).toEqual<ReportParams>({
        startDate: '2026-10-23',
        endDate: '2026-11-21',
        range: { from: '2026-10-23 00:00:00', to: '2026-11-22 00:00:00' },
        tz: 'UTC',
        groupKey: 'default',
        filters: {
          mode: 'test',
          currency: 'USD',
          excludeStatuses: ['on-hold', 'failed'],
          types: ALL_TYPES,
          paymentStatuses: ALL_PAYMENTS,
          variationIds: [],
        },
        compare: null,
        subscriptionType: 'subscription',
      });
      expect(await parse({})).toEqual(params);
    });

    it('currency and filterMode follow the store settings and the payment mode', async () => {
      await app.host.options.set('store_settings', { currency: 'EUR' });
      await app.host.options.set('payment_settings', { mode: 'live' });
      expect((await parse({})).filters).toMatchObject({ currency: 'EUR', mode: 'live' });
    });

    it('empty values count as not given', async () => {
      const params = await parse({ startDate: '', endDate: '', groupKey: '', currency: '', compareType: '', orderTypes: '' });
      expect(params).toEqual(await parse({}));
    });
  });

  describe('time zone', () => {
    it("the site's zone sets today and the range's UTC instants", async () => {
      app.clock.set('2026-11-21T20:00:00Z'); // 2026-11-22 01:30 in Kolkata
      app.host.site.timezone = 'Asia/Kolkata';
      const params = await parse({});
      expect(params).toMatchObject({ tz: 'Asia/Kolkata', startDate: '2026-10-24', endDate: '2026-11-22' });
      expect(params.range).toEqual({ from: '2026-10-23 18:30:00', to: '2026-11-22 18:30:00' });
    });

    it('user_tz wins over the site zone; a range over a DST change ends on the local midnight', async () => {
      app.host.site.timezone = 'Asia/Kolkata';
      const params = await parse({ startDate: '2026-10-01', endDate: '2026-10-31' }, { user_tz: 'Europe/Berlin' });
      expect(params.tz).toBe('Europe/Berlin');
      expect(params.range).toEqual({ from: '2026-09-30 22:00:00', to: '2026-10-31 23:00:00' });
    });

    it('an unknown user_tz is a 422, not UTC', async () => {
      expect(await refused({}, { user_tz: 'Mars/Olympus' })).toEqual({
        user_tz: { timezone: 'Invalid user_tz: expected an IANA time zone such as Europe/Berlin.' },
      });
      expect(await refused({}, { user_tz: ['UTC'] })).toHaveProperty('user_tz');
    });
  });

  describe('startDate and endDate', () => {
    it('local dates, inclusive; a time after the date is accepted and ignored', async () => {
      const params = await parse({ startDate: '2026-01-01 13:45:00', endDate: '2026-01-31T23:59:59' });
      expect(params).toMatchObject({ startDate: '2026-01-01', endDate: '2026-01-31', range: { from: '2026-01-01 00:00:00', to: '2026-02-01 00:00:00' } });
    });

    it('only startDate: the range ends today; only endDate: the 30 days up to it', async () => {
      expect(await parse({ startDate: '2026-11-01' })).toMatchObject({ startDate: '2026-11-01', endDate: '2026-11-21' });
      expect(await parse({ endDate: '2026-02-28' })).toMatchObject({ startDate: '2026-01-30', endDate: '2026-02-28' });
    });

    it('custom ranges of any length work (no tier gate), a single day included', async () => {
      expect(await parse({ startDate: '2020-01-01', endDate: '2026-11-21' })).toMatchObject({ startDate: '2020-01-01', endDate: '2026-11-21' });
      expect(await parse({ startDate: '2026-11-21', endDate: '2026-11-21' })).toMatchObject({
        range: { from: '2026-11-21 00:00:00', to: '2026-11-22 00:00:00' },
      });
    });

    it.each(['2026-13-01', '2026-02-30', '2026-2-1', 'yesterday', '2026-01-01 25:00:00', '20260101', '1969-12-31', '2100-01-01'])(
      '%s is refused',
      async (value) => {
        const errors = await refused({ startDate: value, endDate: '2026-11-21' });
        expect(Object.keys(errors)).toEqual(['params.startDate']);
        expect(errors['params.startDate'].date).toMatch(/^Invalid startDate: expected /);
      },
    );

    it('an end before the start is a 422 naming endDate', async () => {
      expect(await refused({ startDate: '2026-11-10', endDate: '2026-11-09' })).toEqual({
        'params.endDate': { after_or_equal: 'Invalid endDate: expected a date on or after startDate.' },
      });
    });

    it('a start after today without an end is a 422, not an empty or swapped range', async () => {
      expect(await refused({ startDate: '2026-12-01' })).toHaveProperty(['params.startDate', 'before_or_equal']);
    });
  });

  describe('groupKey, currency, filterMode, subscriptionType', () => {
    it.each(['default', 'monthly', 'yearly', 'billing_country', 'shipping_country', 'payment_method', 'payment_status'])('groupKey %s', async (groupKey) => {
      expect((await parse({ groupKey })).groupKey).toBe(groupKey);
    });

    it('an unknown groupKey is a 422 listing the accepted keys', async () => {
      expect(await refused({ groupKey: 'weekly' })).toEqual({
        'params.groupKey': {
          in: 'Invalid groupKey: expected one of default, monthly, yearly, billing_country, shipping_country, payment_method, payment_status.',
        },
      });
    });

    it('currency is upper-cased; anything but three letters is refused', async () => {
      expect((await parse({ currency: 'eur' })).filters.currency).toBe('EUR');
      for (const currency of ['EURO', 'E1R', '€']) expect(await refused({ currency })).toHaveProperty(['params.currency', 'regex']);
    });

    it('filterMode live or test', async () => {
      expect((await parse({ filterMode: 'live' })).filters.mode).toBe('live');
      expect((await parse({ filterMode: 'test' })).filters.mode).toBe('test');
      expect(await refused({ filterMode: 'sandbox' })).toEqual({ 'params.filterMode': { in: 'Invalid filterMode: expected one of live, test.' } });
    });

    it('subscriptionType is echoed', async () => {
      expect((await parse({ subscriptionType: 'renewal' })).subscriptionType).toBe('renewal');
    });
  });

  describe('orderTypes, orderStatus, paymentStatus, variation_ids', () => {
    it('orderTypes: one-time is the stored type payment; a single value is a list of one', async () => {
      expect((await parse({ orderTypes: ['one-time', 'renewal'] })).filters.types).toEqual(['payment', 'renewal']);
      expect((await parse({ orderTypes: 'renewal' })).filters.types).toEqual(['renewal']);
      expect((await parse({ orderTypes: ['payment', 'one-time'] })).filters.types).toEqual(['payment']);
      expect(await refused({ orderTypes: ['one-time', 'gift'] })).toEqual({
        'params.orderTypes': { in: 'Invalid orderTypes: gift; expected any of one-time, subscription, renewal.' },
      });
    });

    it('orderStatus: all, empty or absent leave out on-hold and failed; a list counts only those statuses', async () => {
      for (const orderStatus of [['all'], [], undefined, ['all', 'on-hold']]) {
        expect((await parse({ orderStatus })).filters.excludeStatuses).toEqual(['on-hold', 'failed']);
      }
      expect((await parse({ orderStatus: ['completed', 'processing'] })).filters.excludeStatuses).toEqual([
        'draft',
        'pending',
        'on-hold',
        'canceled',
        'failed',
      ]);
      expect((await parse({ orderStatus: 'on-hold' })).filters.excludeStatuses).toEqual(['draft', 'pending', 'processing', 'completed', 'canceled', 'failed']);
      expect(await refused({ orderStatus: ['completed', 'shipped'] })).toHaveProperty(['params.orderStatus', 'in']);
    });

    it('paymentStatus: a subset of the report statuses, underscore spellings accepted; others refused, never widened', async () => {
      expect((await parse({ paymentStatus: ['partially_refunded', 'paid'] })).filters.paymentStatuses).toEqual(['partially-refunded', 'paid']);
      expect((await parse({ paymentStatus: [] })).filters.paymentStatuses).toEqual(ALL_PAYMENTS);
      expect(await refused({ paymentStatus: ['paid', 'pending'] })).toEqual({
        'params.paymentStatus': { in: 'Invalid paymentStatus: pending; expected any of paid, partially-paid, refunded, partially-refunded.' },
      });
    });

    it('variation_ids: positive whole numbers, duplicates dropped, at most 100', async () => {
      expect((await parse({ variation_ids: ['3', '5', '3'] })).filters.variationIds).toEqual([3, 5]);
      expect((await parse({ variation_ids: '7' })).filters.variationIds).toEqual([7]);
      for (const bad of [['0'], ['-1'], ['abc'], ['1.5']]) expect(await refused({ variation_ids: bad })).toHaveProperty(['params.variation_ids', 'integer']);
      const many = Array.from({ length: 101 }, (_, i) => String(i + 1));
      expect(await refused({ variation_ids: many })).toHaveProperty(['params.variation_ids', 'max']);
    });
  });

  describe('compareType and compareDate', () => {
    const range = { startDate: '2026-03-01', endDate: '2026-03-31' };
    it.each([
      ['previous_period', '2026-01-29', '2026-02-28'],
      ['previous_month', '2026-02-01', '2026-02-28'],
      ['previous_quarter', '2025-12-01', '2025-12-31'],
      ['previous_year', '2025-03-01', '2025-03-31'],
    ])('%s', async (compareType, startDate, endDate) => {
      const params = await parse({ ...range, compareType });
      expect(params.compare).toEqual({ type: compareType, startDate, endDate, range: { from: `${startDate} 00:00:00`, to: `${addOne(endDate)} 00:00:00` } });
    });

    it('month shifts clamp to the shorter month; the comparison uses the same zone', async () => {
      expect((await parse({ startDate: '2024-02-29', endDate: '2024-02-29', compareType: 'previous_year' })).compare).toMatchObject({
        startDate: '2023-02-28',
        endDate: '2023-02-28',
      });
      const kolkata = await parse({ startDate: '2026-05-31', endDate: '2026-05-31', compareType: 'previous_quarter' }, { user_tz: 'Asia/Kolkata' });
      expect(kolkata.compare).toEqual({
        type: 'previous_quarter',
        startDate: '2026-02-28',
        endDate: '2026-02-28',
        range: { from: '2026-02-27 18:30:00', to: '2026-02-28 18:30:00' },
      });
    });

    it('custom: the same number of days from compareDate', async () => {
      expect((await parse({ ...range, compareType: 'custom', compareDate: '2025-07-10' })).compare).toMatchObject({
        startDate: '2025-07-10',
        endDate: '2025-08-09',
      });
    });

    it('custom without compareDate, a bad compareDate or an unknown compareType are refused', async () => {
      expect(await refused({ ...range, compareType: 'custom' })).toHaveProperty(['params.compareDate', 'required']);
      expect(await refused({ ...range, compareType: 'custom', compareDate: '2025-02-30' })).toHaveProperty(['params.compareDate', 'date']);
      expect(await refused({ ...range, compareType: 'last_week' })).toEqual({
        'params.compareType': { in: 'Invalid compareType: expected one of previous_period, previous_month, previous_quarter, previous_year, custom.' },
      });
    });
  });

  describe('shapes', () => {
    it('a scalar sent as a list or an object, a list holding objects, and params itself not an object are refused by name', async () => {
      expect(await refused({ groupKey: ['monthly'] })).toEqual({ 'params.groupKey': { string: 'Invalid groupKey: expected a single text value.' } });
      expect(await refused({ startDate: { from: '2026-01-01' } })).toHaveProperty(['params.startDate', 'string']);
      expect(await refused({ orderTypes: { a: 'renewal' } })).toHaveProperty(['params.orderTypes', 'array']);
      expect(await refused({ orderTypes: [['renewal']] })).toHaveProperty(['params.orderTypes', 'array']);
      expect(await refused('2026-01-01')).toHaveProperty(['params', 'array']);
    });

    it('one 422 names every bad parameter', async () => {
      const errors = await refused({ groupKey: 'weekly', currency: 'EURO', orderTypes: ['gift'], startDate: '2026-02-30' });
      expect(Object.keys(errors).sort()).toEqual(['params.currency', 'params.groupKey', 'params.orderTypes', 'params.startDate']);
    });
  });

  describe('through GET /reports/fetch-order-by-group', () => {
    const get = (query: Record<string, unknown>) => app.as(admin).get(`${BASE}/reports/fetch-order-by-group?${qs.stringify(query)}`);

    it('good parameters answer 200', async () => {
      await get({
        params: { startDate: '2026-11-01', endDate: '2026-11-21', groupKey: 'billing_country', orderTypes: 'one-time', orderStatus: ['all'] },
      }).expect(200);
      await get({ params: { compareType: 'previous_year' }, user_tz: 'Asia/Kathmandu' }).expect(200);
    });

    it('bad parameters answer 422 with the message and every field named, never 500', async () => {
      const res = await get({ params: { groupKey: 'weekly', endDate: '2026-02-30' } }).expect(422);
      expect(res.body.message).toMatch(/^Invalid /);
      expect(res.body.errors).toEqual({
        'params.endDate': { date: 'Invalid endDate: expected a real date as YYYY-MM-DD.' },
        'params.groupKey': {
          in: 'Invalid groupKey: expected one of default, monthly, yearly, billing_country, shipping_country, payment_method, payment_status.',
        },
      });
      const backwards = await get({ params: { startDate: '2026-11-10', endDate: '2026-11-01' } }).expect(422);
      expect(backwards.body.errors).toHaveProperty(['params.endDate', 'after_or_equal']);
      await get({ user_tz: 'Nowhere/City' }).expect(422);
      await get({ params: { groupKey: ['a', 'b'] } }).expect(422);
      await get({ params: 'x' }).expect(422);
      await get({ params: { variation_ids: ['1', 'x'] } }).expect(422);
    });

    it('the query-string spellings: a single orderTypes value, params[orderStatus][]=all', async () => {
      await app
        .as(admin)
        .get(`${BASE}/reports/fetch-order-by-group?params[orderTypes]=renewal&params[orderStatus][]=all&params[paymentStatus][]=partially_paid`)
        .expect(200);
      await app.as(admin).get(`${BASE}/reports/fetch-order-by-group?params[orderTypes][x]=renewal`).expect(422);
    });

    it('without reports/view: 401 anonymous, 403 for a customer', async () => {
      await app.http.get(`${BASE}/reports/fetch-order-by-group`).expect(401);
      const customer = await app.createUser('report-customer', ['customer']);
      await app.as(customer).get(`${BASE}/reports/fetch-order-by-group`).expect(403);
    });
  });
});

function addOne(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
