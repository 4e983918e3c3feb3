import qs from 'qs';
import { rebuildReports } from '../../src/modules/reports/sync/rebuild';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

/**
 * The store reports on an empty store (every endpoint answers 200 with zero-filled data), who may read them
 * (`reports/view` through ReportPolicy), the 422 of every endpoint-specific parameter, and a store of three
 * hand-made orders: buckets follow `user_tz`, currencies stay apart, lines without a product are named.
 */

const NOW = '2026-11-21T10:00:00Z';
const TODAY = '2026-11-21';

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

describe('store reports: empty store, permissions and parameters', () => {
  let app: TestApp;
  let admin: TestUser;
  let productManager: TestUser;
  let orderManager: TestUser;

  const get = (user: TestUser, path: string, query: Record<string, unknown> = {}) =>
    app.as(user).get(`${BASE}/reports/${path}${Object.keys(query).length ? `?${qs.stringify(query)}` : ''}`);

  beforeAll(async () => {
    app = await startTestApp();
    app.clock.set(new Date(NOW));
    admin = await app.createUser('reports-admin', ['administrator']);
    productManager = await app.createUser('reports-products', ['product_manager']);
    orderManager = await app.createUser('reports-orders', ['order_manager']);
  }, 60_000);
  afterAll(() => app.close());

  describe('on an empty store every endpoint answers 200 with empty, zero-filled data', () => {
    it('GET /reports/overview: 30 zero months ending with the current one, the quarters they touch, no countries', async () => {
      const { body } = await get(admin, 'overview').expect(200);
      const { data } = body;
      expect(data.gross_revenue).toHaveLength(30);
      expect(data.gross_revenue[0]).toEqual({ year: '2024', month: 6, group: '2024-06', total: 0 });
      expect(data.gross_revenue[29]).toEqual({ year: '2026', month: 11, group: '2026-11', total: 0 });
      expect(data.net_revenue.map((m: { group: string }) => m.group)).toEqual(data.gross_revenue.map((m: { group: string }) => m.group));
      expect(data.gross_revenue_quarterly.map((q: { group: string }) => q.group)).toEqual([
        '2024-Q2',
        '2024-Q3',
        '2024-Q4',
        '2025-Q1',
        '2025-Q2',
        '2025-Q3',
        '2025-Q4',
        '2026-Q1',
        '2026-Q2',
        '2026-Q3',
        '2026-Q4',
      ]);
      expect(data.gross_revenue_quarterly[0]).toEqual({ year: '2024', quarter: 2, group: '2024-Q2', total: 0 });
      expect(data.net_revenue_quarterly).toHaveLength(11);
      expect(data.gross_summary).toEqual({ current: 0, previous: 0, fluctuation: 0 });
      expect(data.net_summary).toEqual({ current: 0, previous: 0, fluctuation: 0 });
      expect(data.top_country_gross).toEqual([]);
      expect(data.top_country_net).toEqual([]);
    });

    it('GET /reports/fetch-report-meta: the store currency, no first order, the payment mode', async () => {
      const { body } = await get(admin, 'fetch-report-meta').expect(200);
      expect(body).toEqual({ currencies: { USD: { code: 'USD', sign: '$' } }, min_date: null, storeMode: 'test', first_order_date: null });
    });

    it('GET /reports/quick-order-stats: today by default, zero stats', async () => {
      const { body } = await get(admin, 'quick-order-stats').expect(200);
      expect(body).toEqual({ stats: ZERO_SUMMARY, from_date: TODAY, to_date: TODAY });
      const allTime = await get(admin, 'quick-order-stats', { day_range: 'all_time' }).expect(200);
      expect(allTime.body).toEqual({ stats: ZERO_SUMMARY, from_date: TODAY, to_date: TODAY });
    });

    it('GET /reports/sales-growth: without orders the range is the current month', async () => {
      const { body } = await get(admin, 'sales-growth').expect(200);
      expect(body).toEqual({ sales_data: [{ year: '2026', group: '2026-11', gross_revenue: 0, net_revenue: 0, orders: 0, growth: null }] });
    });

    it('GET /reports/report-overview: zero summary, no payment methods', async () => {
      const { body } = await get(admin, 'report-overview').expect(200);
      expect(body).toEqual({ data: ZERO_SUMMARY, orders_by_payment_method: [] });
      const condition = await get(admin, 'report-overview', { params: { created_at: { column: 'created_at', operator: '>=', value: '2026-01-01' } } }).expect(
        200,
      );
      expect(condition.body).toEqual({ data: ZERO_SUMMARY, orders_by_payment_method: [] });
    });

    it('GET /reports/search-repeat-customer: an empty page', async () => {
      const { body } = await get(admin, 'search-repeat-customer').expect(200);
      expect(body).toEqual({ repeat_customers: { current_page: 1, data: [], per_page: 10, total: 0, last_page: 1, from: null, to: null } });
    });

    it('GET /reports/top-products-sold, fetch-top-sold-products and fetch-top-sold-variants: empty lists', async () => {
      expect((await get(admin, 'top-products-sold').expect(200)).body).toEqual({ top_products_sold: [] });
      expect((await get(admin, 'fetch-top-sold-products').expect(200)).body).toEqual({ data: [] });
      expect((await get(admin, 'fetch-top-sold-variants').expect(200)).body).toEqual({ data: [] });
    });

    it('GET /reports/revenue-by-group and fetch-order-by-group: 30 zero days by default, no rows per dimension', async () => {
      const revenue = await get(admin, 'revenue-by-group').expect(200);
      expect(revenue.body.appliedGroupKey).toBe('daily');
      expect(revenue.body.data).toHaveLength(30);
      expect(revenue.body.data[0]).toEqual({ year: '2026', group: '2026-10-23', ...ZERO_SUMMARY });
      expect(revenue.body.data[29].group).toBe(TODAY);
      const orders = await get(admin, 'fetch-order-by-group', { params: { groupKey: 'yearly' } }).expect(200);
      expect(orders.body).toEqual({ appliedGroupKey: 'yearly', data: [{ year: '2026', group: '2026', orders: 0, items_sold: 0, gross_revenue: 0 }] });
      const countries = await get(admin, 'revenue-by-group', { params: { groupKey: 'billing_country' } }).expect(200);
      expect(countries.body).toEqual({ data: [], appliedGroupKey: 'billing_country' });
    });
  });

  describe('who may read the reports', () => {
    const paths = [
      'overview',
      'fetch-report-meta',
      'quick-order-stats',
      'sales-growth',
      'report-overview',
      'search-repeat-customer',
      'top-products-sold',
      'revenue-by-group',
      'fetch-order-by-group',
      'fetch-top-sold-products',
      'fetch-top-sold-variants',
    ];

    it.each(paths)('GET /reports/%s: 401 without a login, 403 without reports/view, 200 with it', async (path) => {
      const anonymous = await app.http.get(`${BASE}/reports/${path}`).expect(401);
      expect(anonymous.body.code).toBe('rest_forbidden');
      await get(orderManager, path).expect(403);
      await get(productManager, path).expect(200);
    });
  });

  describe('bad parameters get a 422 naming them', () => {
    const refused = async (path: string, query: Record<string, unknown>, field: string) => {
      const { body } = await get(admin, path, query).expect(422);
      expect(body.message).toEqual(expect.any(String));
      expect(Object.keys(body.errors)).toContain(field);
      return body;
    };

    it('GET /reports/quick-order-stats: day_range other than -N days (0-3650) or a named range', async () => {
      for (const day_range of ['yesterday', '-3651 days', '-1 weeks', '+7 days', '7 days', '-7', 'ALL_TIME']) {
        await refused('quick-order-stats', { day_range }, 'day_range');
      }
      await refused('quick-order-stats', { day_range: ['this_week'] }, 'day_range');
      for (const day_range of ['-3650 days', '-1 day', 'this_week', 'this_month', 'this_year', 'last_month', 'last_year']) {
        await get(admin, 'quick-order-stats', { day_range }).expect(200);
      }
    });

    it('GET /reports/quick-order-stats: the named ranges cover the expected local days', async () => {
      const range = async (day_range: string) => {
        const { body } = await get(admin, 'quick-order-stats', { day_range }).expect(200);
        return [body.from_date, body.to_date];
      };
      // 2026-11-21 is a Saturday.
      expect(await range('-6 days')).toEqual(['2026-11-15', TODAY]);
      expect(await range('this_week')).toEqual(['2026-11-16', TODAY]);
      expect(await range('this_month')).toEqual(['2026-11-01', TODAY]);
      expect(await range('this_year')).toEqual(['2026-01-01', TODAY]);
      expect(await range('last_month')).toEqual(['2026-10-01', '2026-10-31']);
      expect(await range('last_year')).toEqual(['2025-01-01', '2025-12-31']);
      const kiritimati = await get(admin, 'quick-order-stats', { day_range: '-0 days', user_tz: 'Pacific/Kiritimati' }).expect(200);
      expect([kiritimati.body.from_date, kiritimati.body.to_date]).toEqual(['2026-11-22', '2026-11-22']);
    });

    it('GET /reports/sales-growth: start_date and end_date must be real dates, the end not before the start', async () => {
      await refused('sales-growth', { start_date: '2026-02-30' }, 'start_date');
      await refused('sales-growth', { end_date: 'yesterday' }, 'end_date');
      await refused('sales-growth', { start_date: ['2026-01-01'] }, 'start_date');
      await refused('sales-growth', { start_date: '2026-05-01', end_date: '2026-04-30' }, 'end_date');
      const { body } = await get(admin, 'sales-growth', { start_date: '2026-01-15', end_date: '2026-03-01 12:00:00' }).expect(200);
      expect(body.sales_data.map((m: { group: string }) => m.group)).toEqual(['2026-01', '2026-02', '2026-03']);
    });

    it('GET /reports/report-overview: params[created_at] needs column created_at, a known operator and real dates', async () => {
      const condition = (created_at: unknown) => ({ params: { created_at } });
      await refused('report-overview', condition('2026-01-01'), 'params.created_at');
      await refused('report-overview', condition({ column: 'updated_at', operator: '=', value: '2026-01-01' }), 'params.created_at.column');
      await refused('report-overview', condition({ operator: '=', value: '2026-01-01' }), 'params.created_at.column');
      await refused('report-overview', condition({ column: 'created_at', operator: '!=', value: '2026-01-01' }), 'params.created_at.operator');
      await refused('report-overview', condition({ column: 'created_at', value: '2026-01-01' }), 'params.created_at.operator');
      await refused('report-overview', condition({ column: 'created_at', operator: '=' }), 'params.created_at.value');
      await refused('report-overview', condition({ column: 'created_at', operator: '>', value: '2026-13-01' }), 'params.created_at.value');
      await refused('report-overview', condition({ column: 'created_at', operator: '=', value: ['2026-01-01', '2026-01-02'] }), 'params.created_at.value');
      await refused('report-overview', condition({ column: 'created_at', operator: 'between', value: '2026-01-01' }), 'params.created_at.value');
      await refused('report-overview', condition({ column: 'created_at', operator: 'between', value: ['2026-01-01'] }), 'params.created_at.value');
      await refused(
        'report-overview',
        condition({ column: 'created_at', operator: 'between', value: ['2026-02-01', '2026-01-01'] }),
        'params.created_at.value',
      );
      await get(admin, 'report-overview', condition({ column: 'created_at', operator: 'between', value: ['2026-01-01', '2026-01-01'] })).expect(200);
    });

    it('GET /reports/search-repeat-customer: params[per_page] 1-200 and params[current_page] from 1, whole numbers', async () => {
      for (const per_page of ['0', '201', 'abc', '-1', '1.5']) await refused('search-repeat-customer', { params: { per_page } }, 'params.per_page');
      for (const current_page of ['0', 'x', '-2']) await refused('search-repeat-customer', { params: { current_page } }, 'params.current_page');
      await refused('search-repeat-customer', { params: 'per_page' }, 'params');
      const { body } = await get(admin, 'search-repeat-customer', { params: { per_page: '200', current_page: '3' } }).expect(200);
      expect(body.repeat_customers).toMatchObject({ current_page: 3, per_page: 200, data: [] });
    });

    it('the standard parameters are checked on every store report, never replaced by a default', async () => {
      await refused('revenue-by-group', { params: { groupKey: 'daily' } }, 'params.groupKey');
      await refused('fetch-order-by-group', { params: { startDate: '2026-11-31' } }, 'params.startDate');
      await refused('overview', { params: { currency: 'dollars' } }, 'params.currency');
      await refused('top-products-sold', { params: { startDate: '2026-11-10', endDate: '2026-11-01' } }, 'params.endDate');
      await refused('fetch-report-meta', { params: { endDate: 'soon' } }, 'params.endDate');
      await refused('quick-order-stats', { params: { orderStatus: ['paid'] } }, 'params.orderStatus');
      await refused('fetch-top-sold-variants', { params: { variation_ids: ['x'] } }, 'params.variation_ids');
      const zone = await get(admin, 'report-overview', { user_tz: 'Mars/Olympus' }).expect(422);
      expect(Object.keys(zone.body.errors)).toEqual(['user_tz']);
    });
  });
});

describe('store reports: three hand-made orders', () => {
  let app: TestApp;
  let admin: TestUser;
  const get = async (path: string, query: Record<string, unknown>) => {
    const res = await app.as(admin).get(`${BASE}/reports/${path}?${qs.stringify(query)}`);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('hand-admin', ['administrator']);
    const db = app.database.db;
    const [customer] = await db('store_customers').insert({
      email: 'hand@example.com',
      uuid: 'hand-made',
      created_at: '2026-11-01 00:00:00',
      updated_at: '2026-11-01 00:00:00',
    });
    const order = (created_at: string, currency: string, total_paid: number) =>
      insertOrder(db, Number(customer), created_at, { mode: 'live', currency, total_amount: total_paid, total_paid }, [
        { post_id: null, variation_id: null, post_title: 'Gift wrap', title: 'Gift wrap', quantity: 2, line_total: total_paid },
      ]);
    // 20:00 UTC is 01:30 the next day in Kolkata (UTC+5:30) and 15:00 the same day in New York (UTC-5).
    await order('2026-11-20 20:00:00', 'USD', 1500);
    await order('2026-11-21 03:00:00', 'USD', 2500);
    await order('2026-11-20 20:00:00', 'EUR', 9900);
    await rebuildReports(app.ctx());
  }, 60_000);
  afterAll(() => app.close());

  it('daily buckets are the caller time zone days: user_tz moves an order to its local day', async () => {
    const days = async (user_tz: string) => {
      const { data } = await get('fetch-order-by-group', { user_tz, params: { filterMode: 'live', startDate: '2026-11-20', endDate: '2026-11-21' } });
      return data.map(({ group, gross_revenue }: { group: string; gross_revenue: number }) => [group, gross_revenue]);
    };
    expect(await days('UTC')).toEqual([
      ['2026-11-20', 1500],
      ['2026-11-21', 2500],
    ]);
    expect(await days('Asia/Kolkata')).toEqual([
      ['2026-11-20', 0],
      ['2026-11-21', 4000],
    ]);
    expect(await days('America/New_York')).toEqual([
      ['2026-11-20', 4000],
      ['2026-11-21', 0],
    ]);
  });

  it('a currency is never summed with another', async () => {
    const usd = await get('quick-order-stats', { day_range: '-1 days', params: { filterMode: 'live' } });
    expect(usd.stats).toMatchObject({ orders: 2, gross_revenue: 4000 });
    const eur = await get('quick-order-stats', { day_range: '-1 days', params: { filterMode: 'live', currency: 'eur' } });
    expect(eur.stats).toMatchObject({ orders: 1, gross_revenue: 9900 });
    const meta = await get('fetch-report-meta', { params: { filterMode: 'live' } });
    expect(Object.keys(meta.currencies)).toEqual(['EUR', 'USD']);
  });

  it('lines without a catalogue product are ranked as one product, named as such', async () => {
    const query = { params: { filterMode: 'live', startDate: '2026-11-01', endDate: '2026-11-21' } };
    const { data } = await get('fetch-top-sold-products', query);
    expect(data).toEqual([{ rank: 1, product_id: 0, title: 'Items without a product', quantity: 4, orders: 2, revenue: 4000 }]);
    const variants = await get('fetch-top-sold-variants', query);
    expect(variants.data).toEqual([{ rank: 1, product_id: 0, variation_id: 0, title: 'Items without a product', quantity: 4, orders: 2, revenue: 4000 }]);
  });
});
