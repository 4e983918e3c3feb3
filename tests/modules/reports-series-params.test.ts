import qs from 'qs';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

/**
 * The series and distribution reports on an empty store (200 with zero-filled buckets, bands and cells), who may
 * read them (`reports/view` through ReportPolicy), and the standard parameters' 422s.
 */

const NOW = '2026-11-21T10:00:00Z';

const PATHS = [
  'revenue',
  'order-chart',
  'sales-report',
  'refund-chart',
  'order-value-distribution',
  'item-count-distribution',
  'order-completion-time',
  'fetch-new-vs-returning-customer',
  'fetch-report-by-day-and-hour',
];

const ZERO_SUMMARY = {
  orders: 0,
  gross_revenue: 0,
  net_revenue: 0,
  refund_amount: 0,
  refunded_orders: 0,
  tax_total: 0,
  shipping_total: 0,
  shipping_tax: 0,
  items_sold: 0,
  average_order_value: 0,
  average_net_value: 0,
};
const ZERO_CHANGES = Object.fromEntries(Object.keys(ZERO_SUMMARY).map((key) => [key, 0]));
const NO_CHANGES = Object.fromEntries(Object.keys(ZERO_SUMMARY).map((key) => [key, null]));

/** The last 30 local days ending today (2026-11-21): the default range. */
const LAST_30_DAYS = Array.from({ length: 30 }, (_, k) => new Date(Date.parse('2026-10-23T00:00:00Z') + k * 86_400_000).toISOString().slice(0, 10));

describe('series reports: empty store, permissions and parameters', () => {
  let app: TestApp;
  let admin: TestUser;
  let productManager: TestUser;
  let orderManager: TestUser;

  const get = (user: TestUser, path: string, query: Record<string, unknown> = {}) =>
    app.as(user).get(`${BASE}/reports/${path}${Object.keys(query).length ? `?${qs.stringify(query)}` : ''}`);

  beforeAll(async () => {
    app = await startTestApp();
    app.clock.set(new Date(NOW));
    admin = await app.createUser('series-admin', ['administrator']);
    productManager = await app.createUser('series-products', ['product_manager']);
    orderManager = await app.createUser('series-orders', ['order_manager']);
  });
  afterAll(() => app.close());

  describe('on an empty store every endpoint answers 200 with zero-filled data', () => {
    it('GET /reports/revenue: the last 30 days by default, each day zero, no comparison', async () => {
      const { body } = await get(admin, 'revenue').expect(200);
      expect(body).toEqual({
        revenueReport: LAST_30_DAYS.map((day) => ({ year: '2026', group: day, gross_revenue: 0, net_revenue: 0, orders: 0 })),
        summary: ZERO_SUMMARY,
        previousSummary: null,
        fluctuations: NO_CHANGES,
        previousMetrics: null,
        appliedGroupKey: 'daily',
      });
    });

    it('GET /reports/revenue with a comparison: both periods zero-filled, no change', async () => {
      const { body } = await get(admin, 'revenue', { params: { startDate: '2026-01-01', endDate: '2026-12-31', compareType: 'previous_year' } }).expect(200);
      const months = (year: string) => Array.from({ length: 12 }, (_, k) => `${year}-${String(k + 1).padStart(2, '0')}`);
      expect(body.revenueReport.map((row: { group: string }) => row.group)).toEqual(months('2026'));
      expect(body.previousMetrics).toEqual(months('2025').map((group) => ({ year: '2025', group, gross_revenue: 0, net_revenue: 0, orders: 0 })));
      expect(body.previousSummary).toEqual(ZERO_SUMMARY);
      expect(body.fluctuations).toEqual(ZERO_CHANGES);
      expect(body.appliedGroupKey).toBe('monthly');
    });

    it('GET /reports/revenue by a dimension: no rows', async () => {
      const { body } = await get(admin, 'revenue', { params: { groupKey: 'billing_country' } }).expect(200);
      expect(body.revenueReport).toEqual([]);
      expect(body.appliedGroupKey).toBe('billing_country');
    });

    it('GET /reports/order-chart and /reports/sales-report: zero buckets', async () => {
      const chart = await get(admin, 'order-chart', { params: { groupKey: 'yearly', startDate: '2024-05-01' } }).expect(200);
      expect(chart.body).toEqual({
        orderChartData: ['2024', '2025', '2026'].map((year) => ({ year, group: year, orders: 0 })),
        summary: ZERO_SUMMARY,
        previousSummary: null,
        fluctuations: NO_CHANGES,
      });
      const sales = await get(admin, 'sales-report').expect(200);
      const zeroGraph = LAST_30_DAYS.map((day) => ({ year: '2026', group: day, value: 0 }));
      expect(sales.body).toEqual({
        graphs: { gross_revenue: zeroGraph, net_revenue: zeroGraph, orders: zeroGraph, items_sold: zeroGraph },
        summaryData: ZERO_SUMMARY,
        previousSummary: null,
        fluctuations: NO_CHANGES,
      });
    });

    it('GET /reports/refund-chart: zero buckets, zero average', async () => {
      const { body } = await get(admin, 'refund-chart', { params: { compareType: 'previous_period' } }).expect(200);
      const zero = { total_refunds: 0, total_refund_amount: 0, average_refund: 0 };
      expect(body).toEqual({
        summary: zero,
        previousSummary: zero,
        chartData: LAST_30_DAYS.map((day) => ({ year: '2026', group: day, refund_count: 0, refund_amount: 0 })),
        fluctuations: { total_refunds: 0, total_refund_amount: 0, average_refund: 0 },
        previousMetrics: expect.arrayContaining([{ year: '2026', group: '2026-09-23', refund_count: 0, refund_amount: 0 }]),
      });
      expect(body.previousMetrics).toHaveLength(30);
    });

    it('GET /reports/order-value-distribution, item-count-distribution, order-completion-time: every band, zero', async () => {
      const value = await get(admin, 'order-value-distribution').expect(200);
      expect(value.body.data.map((band: { label: string }) => band.label)).toEqual([
        '0-10',
        '10-25',
        '25-50',
        '50-100',
        '100-250',
        '250-500',
        '500-1000',
        '1000+',
      ]);
      expect(value.body.data.every((band: Record<string, unknown>) => band.orders === 0 && band.gross_revenue === 0 && band.percentage === 0)).toBe(true);
      const items = await get(admin, 'item-count-distribution').expect(200);
      expect(items.body.data.map((band: { label: string }) => band.label)).toEqual(['0', '1', '2', '3', '4', '5', '6-10', '11+']);
      expect(items.body.data.every((band: Record<string, unknown>) => band.orders === 0 && band.percentage === 0)).toBe(true);
      const completion = await get(admin, 'order-completion-time').expect(200);
      expect(completion.body).toEqual({
        data: {
          bands: ['under 1 hour', '1-24 hours', '1-3 days', '3-7 days', '7-14 days', '14+ days'].map((label, index) => ({
            band: index + 1,
            label,
            orders: 0,
            percentage: 0,
          })),
          completed_orders: 0,
          average_seconds: 0,
        },
      });
    });

    it('GET /reports/fetch-new-vs-returning-customer: zero buckets and totals', async () => {
      const { body } = await get(admin, 'fetch-new-vs-returning-customer', { user_tz: 'Asia/Kolkata' }).expect(200);
      const zero = { new_customers: 0, returning_orders: 0, new_revenue: 0, returning_revenue: 0 };
      expect(body).toEqual({ newVsReturning: { series: LAST_30_DAYS.map((day) => ({ year: '2026', group: day, ...zero })), summary: zero } });
    });

    it('GET /reports/fetch-report-by-day-and-hour: 168 zero cells, Monday 00 first', async () => {
      const { body } = await get(admin, 'fetch-report-by-day-and-hour', { user_tz: 'Europe/Berlin' }).expect(200);
      expect(body.data).toHaveLength(168);
      expect(body.data[0]).toEqual({ day: 0, day_name: 'Monday', hour: 0, orders: 0, gross_revenue: 0 });
      expect(body.data[167]).toEqual({ day: 6, day_name: 'Sunday', hour: 23, orders: 0, gross_revenue: 0 });
      expect(body.max_orders).toBe(0);
    });
  });

  describe('who may read the reports', () => {
    it.each(PATHS)('GET /reports/%s: 401 without a login, 403 without reports/view, 200 with it', async (path) => {
      const anonymous = await app.http.get(`${BASE}/reports/${path}`).expect(401);
      expect(anonymous.body.code).toBe('rest_forbidden');
      await get(orderManager, path).expect(403);
      await get(productManager, path).expect(200);
    });
  });

  describe('bad parameters get a 422 naming them, never a 500 or a default', () => {
    const refused = async (path: string, query: Record<string, unknown>, field: string) => {
      const { body } = await get(admin, path, query).expect(422);
      expect(body.message).toEqual(expect.any(String));
      expect({ query, fields: Object.keys(body.errors) }).toEqual({ query, fields: expect.arrayContaining([field]) });
      return body;
    };

    it.each([
      ['an unknown groupKey', { params: { groupKey: 'daily' } }, 'params.groupKey'],
      ['an end before the start', { params: { startDate: '2026-11-10', endDate: '2026-11-01' } }, 'params.endDate'],
      ['a malformed startDate', { params: { startDate: '2026/11/01' } }, 'params.startDate'],
      ['a date that does not exist', { params: { endDate: '2026-02-30' } }, 'params.endDate'],
      ['a word for a date', { params: { startDate: 'yesterday' } }, 'params.startDate'],
      ['a start after today without an end', { params: { startDate: '2026-12-01' } }, 'params.startDate'],
      ['an unknown user_tz', { user_tz: 'Mars/Olympus' }, 'user_tz'],
      ['an unknown orderTypes value', { params: { orderTypes: ['one-time', 'gift'] } }, 'params.orderTypes'],
      ['an unknown orderStatus', { params: { orderStatus: ['shipped'] } }, 'params.orderStatus'],
      ['a paymentStatus the reports do not count', { params: { paymentStatus: ['pending'] } }, 'params.paymentStatus'],
      ['a variation id that is not a number', { params: { variation_ids: ['12', 'abc'] } }, 'params.variation_ids'],
      ['more than 100 variation ids', { params: { variation_ids: Array.from({ length: 101 }, (_, k) => String(k + 1)) } }, 'params.variation_ids'],
      ['an unknown compareType', { params: { compareType: 'last_week' } }, 'params.compareType'],
      ['a custom comparison without compareDate', { params: { compareType: 'custom' } }, 'params.compareDate'],
      ['a currency that is not a code', { params: { currency: 'US$' } }, 'params.currency'],
      ['an unknown filterMode', { params: { filterMode: 'sandbox' } }, 'params.filterMode'],
      ['a list where one value is expected', { params: { groupKey: ['monthly', 'yearly'] } }, 'params.groupKey'],
      ['an object where a date is expected', { params: { startDate: { from: '2026-01-01' } } }, 'params.startDate'],
      ['params that are not named parameters', { params: 'startDate' }, 'params'],
    ])('GET /reports/revenue: %s', async (_, query, field) => {
      await refused('revenue', query, field);
    });

    it('every bad parameter is named in the one answer', async () => {
      const body = await refused('revenue', { params: { groupKey: 'weekly', startDate: '2026-13-01', orderTypes: 'gift' } }, 'params.groupKey');
      expect(Object.keys(body.errors).sort()).toEqual(['params.groupKey', 'params.orderTypes', 'params.startDate']);
    });

    it.each(PATHS)('GET /reports/%s reads the standard parameters too', async (path) => {
      await refused(path, { params: { groupKey: 'weekly' } }, 'params.groupKey');
      await refused(path, { params: { startDate: '2026-11-10', endDate: '2026-11-01' } }, 'params.endDate');
    });
  });
});
