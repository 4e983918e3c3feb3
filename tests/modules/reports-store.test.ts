import type { Knex } from 'knex';
import qs from 'qs';
import { seedDemo } from '../../src/modules/demo/seed';
import { seedScale } from '../../src/modules/demo/scale';
import { savePaymentSettings } from '../../src/modules/settings/payment-settings';
import { rebuildReports } from '../../src/modules/reports/sync/rebuild';
import { EXCLUDED_BY_ALL, REPORT_PAYMENT_STATUSES, type ReportFilters } from '../../src/modules/reports/types';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { loadCountedOrders, matches, netOf, salesTotals, type FoldOrder } from '../support/report-fold';

/**
 * The store reports against a plain fold: a generated store (the demo catalogue, a live payment mode, `seedScale`
 * with 300 customers: several currencies, some test-mode orders, countries, refunds, tax and shipping; then some
 * orders without a payment method or billing address and one product deleted), its report facts rebuilt, and every
 * endpoint's figures compared with sums over the raw order rows, each order put in its local day with `Intl`
 * (never with the report code's boundaries).
 */

const NOW = '2026-11-21 10:00:00';
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata'];
const SIGNS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥' };

type Row = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------------
// The plain fold

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The local date of a stored UTC timestamp in `tz`, by `Intl` (en-CA writes YYYY-MM-DD). */
function localDay(timestamp: string, tz: string): string {
  let format = dayFormats.get(tz);
  if (!format) dayFormats.set(tz, (format = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(new Date(`${timestamp.replace(' ', 'T')}Z`));
}

const filtersFor = (currency: string, overrides: Partial<ReportFilters> = {}): ReportFilters => ({
  mode: 'live',
  currency,
  excludeStatuses: [...EXCLUDED_BY_ALL],
  types: ['payment', 'subscription', 'renewal'],
  paymentStatuses: [...REPORT_PAYMENT_STATUSES],
  variationIds: [],
  ...overrides,
});

/** The orders passing the filters whose local date in `tz` lies in `from`..`to` (inclusive; open ends when undefined). */
function within(orders: FoldOrder[], filters: ReportFilters, tz: string, from?: string, to?: string): FoldOrder[] {
  return orders.filter((order) => {
    if (!matches(order, filters)) return false;
    const day = localDay(order.created_at, tz);
    return (from === undefined || day >= from) && (to === undefined || day <= to);
  });
}

const average = (total: number, count: number) => (count ? Math.round(total / count) : 0);

function summary(orders: FoldOrder[]) {
  const totals = salesTotals(orders);
  const net = netOf(orders);
  return {
    orders: totals.orders,
    gross_revenue: totals.gross,
    net_revenue: net,
    refund_amount: totals.refund,
    refunded_orders: totals.refunded_orders,
    tax_total: totals.tax,
    shipping_total: totals.shipping_total,
    shipping_tax: totals.shipping_tax,
    items_sold: totals.items,
    average_order_value: average(totals.gross, totals.orders),
    average_net_value: average(net, totals.orders),
  };
}

const gross = (orders: FoldOrder[]) => orders.reduce((sum, order) => sum + order.gross, 0);

function percent(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) / Math.abs(previous)) * 10_000) / 100;
}

/** Calendar arithmetic on plain numbers: month index `year*12 + month-1` ↔ `YYYY-MM`, and day lists. */
const monthLabel = (index: number) => `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
const monthIndex = (label: string) => Number(label.slice(0, 4)) * 12 + Number(label.slice(5, 7)) - 1;
const quarterLabel = (month: string) => `${month.slice(0, 4)}-Q${Math.floor((Number(month.slice(5, 7)) - 1) / 3) + 1}`;

function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Orders grouped by a label (a local day, month, quarter or dimension value). */
function byLabel(orders: FoldOrder[], label: (order: FoldOrder) => string): Map<string, FoldOrder[]> {
  const groups = new Map<string, FoldOrder[]>();
  for (const order of orders) {
    const key = label(order);
    const members = groups.get(key);
    if (members) members.push(order);
    else groups.set(key, [order]);
  }
  return groups;
}

/** Dimension groups as the reports answer them: `''` is `unknown`, largest gross first, then by name. */
function dimensionGroups(orders: FoldOrder[], dimension: 'billing_country' | 'shipping_country' | 'payment_method' | 'payment_status') {
  return [...byLabel(orders, (order) => order[dimension] || 'unknown')]
    .map(([group, members]) => ({ group, members }))
    .sort((a, b) => gross(b.members) - gross(a.members) || a.group.localeCompare(b.group));
}

// ---------------------------------------------------------------------------------------------------------------
// The generated store

/**
 * What the generated store leaves out, added in the order tables themselves (then rebuilt): some orders without a
 * payment method, and some without a billing address, which the reports show as `unknown`. Deterministic by id.
 */
async function blankSome(db: Knex): Promise<void> {
  const ids = ((await db('store_orders').select('id')) as Array<{ id: number }>).map((row) => Number(row.id));
  await db('store_orders')
    .whereIn(
      'id',
      ids.filter((id) => id % 13 === 0),
    )
    .update({ payment_method: '' });
  await db('store_order_addresses')
    .whereIn(
      'order_id',
      ids.filter((id) => id % 10 === 0),
    )
    .where('type', 'billing')
    .delete();
}

describe('store reports: every figure against a fold over the raw orders', () => {
  let app: TestApp;
  let admin: TestUser;
  let orders: FoldOrder[];
  let currencies: string[];
  let deletedProduct: { id: number; title: string };

  const get = async (path: string, query: Record<string, unknown> = {}) => {
    const res = await app.as(admin).get(`${BASE}/reports/${path}?${qs.stringify(query)}`);
    expect({ path, query, status: res.status }).toEqual({ path, query, status: 200 });
    return res.body;
  };

  beforeAll(async () => {
    app = await startTestApp();
    app.clock.set(`${NOW.replace(' ', 'T')}Z`);
    admin = await app.createUser('fold-admin', ['administrator']);
    const ctx = app.ctx();
    await seedDemo(ctx);
    await savePaymentSettings(ctx, { mode: 'live' });
    await seedScale(ctx, { customers: 300, seed: 7, orders: true });
    await blankSome(app.database.db);
    const tote = (await app.database.db('store_products').where('slug', 'canvas-tote-bag').first('id', 'title')) as Row;
    deletedProduct = { id: Number(tote.id), title: String(tote.title) };
    await app.database.db('store_products').where('id', deletedProduct.id).delete();
    // The changes above were written straight to the tables, past the per-order sync: the facts are rebuilt after them.
    await rebuildReports(ctx);
    orders = await loadCountedOrders(app.database.db);
    currencies = [...new Set(orders.filter((order) => order.mode === 'live').map((order) => order.currency))].sort();
  }, 300_000);
  afterAll(() => app.close());

  it('the generated store has what the comparisons need: thousands of counted orders, four currencies, both modes, countries, refunds, tax, shipping', () => {
    expect(orders.length).toBeGreaterThan(2000);
    expect(currencies).toEqual(['EUR', 'GBP', 'JPY', 'USD']);
    expect(new Set(orders.map((order) => order.billing_country)).size).toBeGreaterThan(6);
    expect(orders.some((order) => order.billing_country === '' && order.payment_method === '')).toBe(true);
    expect(new Set(orders.map((order) => order.mode))).toEqual(new Set(['live', 'test']));
    expect(new Set(orders.map((order) => order.type))).toEqual(new Set(['payment', 'subscription', 'renewal']));
    for (const figure of ['refund', 'tax', 'shipping_total', 'shipping_tax'] as const) expect(orders.some((order) => order[figure] > 0)).toBe(true);
    expect(orders.some((order) => order.lines.some((line) => line.product_id === deletedProduct.id))).toBe(true);
  });

  describe('GET /reports/overview', () => {
    function expectedOverview(currency: string, tz: string) {
      const counted = within(orders, filtersFor(currency), tz);
      const current = monthIndex(localDay(NOW, tz));
      const months = Array.from({ length: 30 }, (_, k) => monthLabel(current - 29 + k));
      const perMonth = byLabel(counted, (order) => localDay(order.created_at, tz).slice(0, 7));
      const perQuarter = byLabel(counted, (order) => quarterLabel(localDay(order.created_at, tz)));
      const quarters = [...new Set(months.map(quarterLabel))];
      const net = (list: FoldOrder[] = []) => netOf(list);
      const grossOf = (list: FoldOrder[] = []) => gross(list);
      const lastYear = months.slice(-12).flatMap((month) => perMonth.get(month) ?? []);
      const yearBefore = months.slice(-24, -12).flatMap((month) => perMonth.get(month) ?? []);
      const countries = dimensionGroups(lastYear, 'billing_country').map(({ group, members }) => ({
        country: group,
        gross: gross(members),
        net: netOf(members),
      }));
      const top = (measure: 'gross' | 'net') =>
        [...countries]
          .sort((a, b) => b[measure] - a[measure] || a.country.localeCompare(b.country))
          .slice(0, 5)
          .map((country) => ({ country: country.country, total: country[measure] }));
      const monthly = (measure: (list?: FoldOrder[]) => number) =>
        months.map((month) => ({ year: month.slice(0, 4), month: Number(month.slice(5, 7)), group: month, total: measure(perMonth.get(month)) }));
      const quarterly = (measure: (list?: FoldOrder[]) => number) =>
        quarters.map((quarter) => ({ year: quarter.slice(0, 4), quarter: Number(quarter.slice(-1)), group: quarter, total: measure(perQuarter.get(quarter)) }));
      const yoy = (measure: (list?: FoldOrder[]) => number) => ({
        current: measure(lastYear),
        previous: measure(yearBefore),
        fluctuation: percent(measure(lastYear), measure(yearBefore)),
      });
      return {
        gross_revenue: monthly(grossOf),
        gross_revenue_quarterly: quarterly(grossOf),
        net_revenue: monthly(net),
        net_revenue_quarterly: quarterly(net),
        gross_summary: yoy(grossOf),
        net_summary: yoy(net),
        top_country_gross: top('gross'),
        top_country_net: top('net'),
      };
    }

    it.each(ZONES)('30 months, their quarters, year over year and top countries per currency (in %s)', async (tz) => {
      for (const currency of currencies) {
        const { data } = await get('overview', { user_tz: tz, params: { currency, filterMode: 'live' } });
        const withoutNames = {
          ...data,
          top_country_gross: data.top_country_gross.map(({ country, total }: Row) => ({ country, total })),
          top_country_net: data.top_country_net.map(({ country, total }: Row) => ({ country, total })),
        };
        expect({ currency, tz, overview: withoutNames }).toEqual({ currency, tz, overview: expectedOverview(currency, tz) });
        expect(data.gross_summary.current).toBeGreaterThan(0);
        expect(data.top_country_gross.length).toBe(5);
        for (const country of data.top_country_gross) {
          expect(country.country_name).toEqual(country.country === 'unknown' ? 'Unknown' : expect.stringMatching(/^[A-Z][a-z]/));
        }
      }
    });

    it('the date range parameters do not move the fixed periods; the filters apply', async () => {
      const plain = await get('overview');
      const ranged = await get('overview', { params: { currency: 'USD', filterMode: 'live', startDate: '2026-01-01', endDate: '2026-01-31' } });
      expect(ranged).toEqual(plain);
      const renewals = await get('overview', { params: { currency: 'USD', filterMode: 'live', orderTypes: ['renewal'] } });
      const expected = within(orders, filtersFor('USD', { types: ['renewal'] }), 'UTC', '2025-12-01', '2026-11-30');
      expect(renewals.data.gross_summary.current).toBe(gross(expected));
    });
  });

  describe('GET /reports/fetch-report-meta', () => {
    it('the currencies counted in the mode plus the store currency, and the first counted order', async () => {
      for (const [mode, tz] of [
        ['live', 'UTC'],
        ['test', 'Asia/Kolkata'],
      ]) {
        const inMode = orders.filter((order) => order.mode === mode);
        const first = inMode.map((order) => order.created_at).sort()[0];
        const body = await get('fetch-report-meta', { user_tz: tz, params: { filterMode: mode } });
        expect(body).toEqual({
          currencies: Object.fromEntries(
            [...new Set([...inMode.map((order) => order.currency), 'USD'])].sort().map((code) => [code, { code, sign: expect.any(String) }]),
          ),
          min_date: localDay(first, tz),
          storeMode: 'live',
          first_order_date: first,
        });
        for (const code of Object.keys(body.currencies)) expect(body.currencies[code].sign).toBe(SIGNS[code]);
      }
    });
  });

  describe('GET /reports/quick-order-stats', () => {
    // 2026-11-21 is a Saturday.
    const RANGES: Array<[string, string, string]> = [
      ['-0 days', '2026-11-21', '2026-11-21'],
      ['-29 days', '2026-10-23', '2026-11-21'],
      ['-400 days', '2025-10-17', '2026-11-21'],
      ['this_week', '2026-11-16', '2026-11-21'],
      ['this_month', '2026-11-01', '2026-11-21'],
      ['this_year', '2026-01-01', '2026-11-21'],
      ['last_month', '2026-10-01', '2026-10-31'],
      ['last_year', '2025-01-01', '2025-12-31'],
    ];

    it.each(RANGES)('day_range %s covers %s to %s', async (day_range, from, to) => {
      for (const currency of currencies) {
        const body = await get('quick-order-stats', { day_range, params: { currency, filterMode: 'live' } });
        expect(body).toEqual({ stats: summary(within(orders, filtersFor(currency), 'UTC', from, to)), from_date: from, to_date: to });
      }
    });

    it('all_time starts at the first counted order of the currency and mode', async () => {
      const live = orders.filter((order) => order.mode === 'live' && order.currency === 'EUR');
      const first = localDay(live.map((order) => order.created_at).sort()[0], 'Asia/Kolkata');
      const body = await get('quick-order-stats', { day_range: 'all_time', user_tz: 'Asia/Kolkata', params: { currency: 'EUR', filterMode: 'live' } });
      const expected = summary(within(orders, filtersFor('EUR'), 'Asia/Kolkata'));
      expect(body).toEqual({ stats: expected, from_date: first, to_date: '2026-11-21' });
      expect(expected.orders).toBeGreaterThan(100);
    });
  });

  describe('GET /reports/sales-growth', () => {
    function expectedGrowth(currency: string, tz: string, from: string, to: string) {
      const counted = within(orders, filtersFor(currency), tz, from, to);
      const perMonth = byLabel(counted, (order) => localDay(order.created_at, tz).slice(0, 7));
      const months: string[] = [];
      for (let index = monthIndex(from); index <= monthIndex(to); index += 1) months.push(monthLabel(index));
      return months.map((month, i) => {
        const list = perMonth.get(month) ?? [];
        const previous = i ? gross(perMonth.get(months[i - 1]) ?? []) : 0;
        return {
          year: month.slice(0, 4),
          group: month,
          gross_revenue: gross(list),
          net_revenue: netOf(list),
          orders: list.length,
          growth: i ? percent(gross(list), previous) : null,
        };
      });
    }

    it('monthly from the first to the last counted order by default', async () => {
      for (const currency of currencies) {
        const dates = orders.filter((order) => order.mode === 'live' && order.currency === currency).map((order) => localDay(order.created_at, 'UTC'));
        const [first, last] = [dates.reduce((a, b) => (a < b ? a : b)), dates.reduce((a, b) => (a > b ? a : b))];
        const { sales_data } = await get('sales-growth', { params: { currency, filterMode: 'live' } });
        expect(sales_data).toEqual(expectedGrowth(currency, 'UTC', first, last));
        expect(sales_data.length).toBeGreaterThan(30);
      }
    });

    it('between start_date and end_date, in the caller time zone', async () => {
      const { sales_data } = await get('sales-growth', {
        start_date: '2025-03-15',
        end_date: '2026-02-10',
        user_tz: 'America/New_York',
        params: { filterMode: 'live' },
      });
      expect(sales_data).toEqual(expectedGrowth('USD', 'America/New_York', '2025-03-15', '2026-02-10'));
    });
  });

  describe('GET /reports/report-overview', () => {
    function expectedOverview(currency: string, tz: string, from?: string, to?: string) {
      const counted = within(orders, filtersFor(currency), tz, from, to);
      return {
        data: summary(counted),
        orders_by_payment_method: dimensionGroups(counted, 'payment_method').map(({ group, members }) => ({
          payment_method: group,
          orders: members.length,
          gross_revenue: gross(members),
          net_revenue: netOf(members),
        })),
      };
    }

    const condition = (operator: string, value: unknown) => ({ column: 'created_at', operator, value });

    it('the standard range without params[created_at]', async () => {
      const body = await get('report-overview', { params: { filterMode: 'live', startDate: '2026-02-01', endDate: '2026-06-30' } });
      expect(body).toEqual(expectedOverview('USD', 'UTC', '2026-02-01', '2026-06-30'));
      expect(body.orders_by_payment_method.map((m: Row) => m.payment_method)).toContain('unknown');
    });

    it.each([
      ['=', '2026-05-04', '2026-05-04', '2026-05-04'],
      ['>', '2026-09-30', '2026-10-01', undefined],
      ['>=', '2026-09-30', '2026-09-30', undefined],
      ['<', '2024-06-01', undefined, '2024-05-31'],
      ['<=', '2024-06-01', undefined, '2024-06-01'],
      ['between', ['2025-01-01', '2025-12-31'], '2025-01-01', '2025-12-31'],
    ] as Array<[string, unknown, string | undefined, string | undefined]>)('operator %s %j on local days', async (operator, value, from, to) => {
      for (const [currency, tz] of [
        ['USD', 'Asia/Kolkata'],
        ['EUR', 'UTC'],
      ]) {
        const body = await get('report-overview', { user_tz: tz, params: { currency, filterMode: 'live', created_at: condition(operator, value) } });
        expect({ currency, tz, body }).toEqual({ currency, tz, body: expectedOverview(currency, tz, from, to) });
      }
    });
  });

  describe('GET /reports/search-repeat-customer', () => {
    it('customers with more than one purchase, most purchases first, paged', async () => {
      const customers = ((await app.database.db('store_customers').where('purchase_count', '>', 1)) as Row[])
        .map((c): Row & { id: number; purchase_count: number } => ({ ...c, id: Number(c.id), purchase_count: Number(c.purchase_count) }))
        .sort((a, b) => b.purchase_count - a.purchase_count || b.id - a.id);
      expect(customers.length).toBeGreaterThan(30);
      const body = await get('search-repeat-customer', { params: { per_page: '25', current_page: '2' } });
      const page = customers.slice(25, 50);
      expect(body.repeat_customers).toMatchObject({
        current_page: 2,
        per_page: 25,
        total: customers.length,
        from: 26,
        to: 50,
        last_page: Math.ceil(customers.length / 25),
      });
      expect(body.repeat_customers.data).toEqual(
        page.map((c) => ({
          id: c.id,
          full_name: `${c.first_name} ${c.last_name}`,
          email: c.email,
          purchase_count: c.purchase_count,
          ltv: Number(c.ltv),
          aov: Number(c.aov),
          purchase_value: JSON.parse(String(c.purchase_value)),
          first_purchase_date: c.first_purchase_date,
          last_purchase_date: c.last_purchase_date,
        })),
      );
      const first = await get('search-repeat-customer');
      expect(first.repeat_customers.data.map((c: Row) => c.id)).toEqual(customers.slice(0, 10).map((c) => c.id));
    });
  });

  describe('top products and variations', () => {
    const RANGE = { startDate: '2025-06-01', endDate: '2026-11-21' };

    /** Quantity, orders (one per order and variation) and revenue per product or variation, from the orders' lines. */
    function sold(currency: string, perVariation: boolean, range = RANGE) {
      const totals = new Map<string, { product_id: number; variation_id: number; quantity: number; orders: number; revenue: number }>();
      for (const order of within(orders, filtersFor(currency), 'UTC', range.startDate, range.endDate)) {
        for (const line of order.lines) {
          const key = perVariation ? `${line.product_id}:${line.variation_id}` : `${line.product_id}`;
          const entry = totals.get(key) ?? {
            product_id: line.product_id,
            variation_id: perVariation ? line.variation_id : 0,
            quantity: 0,
            orders: 0,
            revenue: 0,
          };
          totals.set(key, entry);
          entry.quantity += line.quantity;
          entry.orders += 1;
          entry.revenue += line.revenue;
        }
      }
      return [...totals.values()].sort(
        (a, b) => b.quantity - a.quantity || b.revenue - a.revenue || a.product_id - b.product_id || a.variation_id - b.variation_id,
      );
    }

    async function productTitle(productId: number): Promise<string> {
      const product = (await app.database.db('store_products').where('id', productId).first('title')) as Row | undefined;
      if (product) return String(product.title);
      const item = (await app.database.db('store_order_items').where('post_id', productId).orderBy('id', 'desc').first('post_title')) as Row;
      return String(item.post_title);
    }

    async function variantTitle(productId: number, variationId: number): Promise<string> {
      const variation = (await app.database.db('store_product_variations').where('id', variationId).first('title')) as Row | undefined;
      const item = (await app.database.db('store_order_items').where('variation_id', variationId).first('post_title', 'title')) as Row;
      const product = variation ? await productTitle(productId) : String(item.post_title);
      const title = variation ? String(variation.title) : String(item.title);
      return title && title !== product ? `${product} – ${title}` : product;
    }

    it('GET /reports/top-products-sold: the ten products sold in the largest quantities', async () => {
      for (const currency of currencies) {
        const body = await get('top-products-sold', { params: { ...RANGE, currency, filterMode: 'live' } });
        const expected = await Promise.all(
          sold(currency, false)
            .slice(0, 10)
            .map(async ({ product_id, quantity, orders: count, revenue }) => ({
              product_id,
              title: await productTitle(product_id),
              quantity,
              orders: count,
              revenue,
            })),
        );
        expect(body).toEqual({ top_products_sold: expected });
        expect(expected.length).toBeGreaterThan(currency === 'USD' ? 5 : 0);
      }
    });

    it('GET /reports/fetch-top-sold-products: twenty ranked, a deleted product named by its order lines', async () => {
      const body = await get('fetch-top-sold-products', { params: { ...RANGE, filterMode: 'live' } });
      const expected = await Promise.all(
        sold('USD', false)
          .slice(0, 20)
          .map(async ({ product_id, quantity, orders: count, revenue }, index) => ({
            rank: index + 1,
            product_id,
            title: await productTitle(product_id),
            quantity,
            orders: count,
            revenue,
          })),
      );
      expect(body).toEqual({ data: expected });
      expect(body.data.find((row: Row) => row.product_id === deletedProduct.id)?.title).toBe(deletedProduct.title);
    });

    it('GET /reports/fetch-top-sold-variants: twenty ranked variations with product and variation titles', async () => {
      for (const currency of currencies) {
        const body = await get('fetch-top-sold-variants', { params: { ...RANGE, currency, filterMode: 'live' } });
        const expected = await Promise.all(
          sold(currency, true)
            .slice(0, 20)
            .map(async ({ product_id, variation_id, quantity, orders: count, revenue }, index) => ({
              rank: index + 1,
              product_id,
              variation_id,
              title: await variantTitle(product_id, variation_id),
              quantity,
              orders: count,
              revenue,
            })),
        );
        expect(body).toEqual({ data: expected });
        expect(body.data.some((row: Row) => row.product_id === deletedProduct.id)).toBe(true);
      }
    });

    it('variation_ids limits to the orders containing one of them', async () => {
      const variation = sold('USD', true)[0].variation_id;
      const body = await get('fetch-top-sold-variants', { params: { ...RANGE, filterMode: 'live', variation_ids: [String(variation)] } });
      const containing = within(orders, filtersFor('USD', { variationIds: [variation] }), 'UTC', RANGE.startDate, RANGE.endDate);
      const expectedQuantity = containing
        .flatMap((order) => order.lines)
        .filter((line) => line.variation_id === variation)
        .reduce((sum, line) => sum + line.quantity, 0);
      expect(body.data.find((row: Row) => row.variation_id === variation).quantity).toBe(expectedQuantity);
      const products = new Set(containing.flatMap((order) => order.lines.map((line) => `${line.product_id}:${line.variation_id}`)));
      expect(body.data.length).toBe(Math.min(20, products.size));
    });
  });

  describe('GET /reports/revenue-by-group and GET /reports/fetch-order-by-group', () => {
    const TIME_CASES: Array<{ name: string; params: Row; applied: string; from: string; to: string }> = [
      { name: 'default over 30 days: daily', params: {}, applied: 'daily', from: '2026-10-23', to: '2026-11-21' },
      {
        name: 'default over 91 days: daily',
        params: { startDate: '2026-08-23', endDate: '2026-11-21' },
        applied: 'daily',
        from: '2026-08-23',
        to: '2026-11-21',
      },
      {
        name: 'default over 200 days: monthly',
        params: { startDate: '2026-03-10', endDate: '2026-09-25' },
        applied: 'monthly',
        from: '2026-03-10',
        to: '2026-09-25',
      },
      {
        name: 'default over three years: yearly',
        params: { startDate: '2023-11-01', endDate: '2026-11-21' },
        applied: 'yearly',
        from: '2023-11-01',
        to: '2026-11-21',
      },
      {
        name: 'monthly',
        params: { groupKey: 'monthly', startDate: '2026-01-15', endDate: '2026-03-10' },
        applied: 'monthly',
        from: '2026-01-15',
        to: '2026-03-10',
      },
      {
        name: 'yearly',
        params: { groupKey: 'yearly', startDate: '2025-07-01', endDate: '2026-02-01' },
        applied: 'yearly',
        from: '2025-07-01',
        to: '2026-02-01',
      },
    ];

    function timeGroups(currency: string, tz: string, applied: string, from: string, to: string, overrides: Partial<ReportFilters> = {}) {
      const width = applied === 'daily' ? 10 : applied === 'monthly' ? 7 : 4;
      const labels = [...new Set(daysBetween(from, to).map((day) => day.slice(0, width)))];
      const groups = byLabel(within(orders, filtersFor(currency, overrides), tz, from, to), (order) => localDay(order.created_at, tz).slice(0, width));
      return labels.map((group) => ({ year: group.slice(0, 4), group, members: groups.get(group) ?? [] }));
    }

    it.each(TIME_CASES.map((c) => [c.name, c] as const))('time buckets: %s, zero-filled, in the caller time zone', async (_, c) => {
      for (const tz of ZONES) {
        for (const currency of currencies) {
          const query = { user_tz: tz, params: { ...c.params, currency, filterMode: 'live' } };
          const groups = timeGroups(currency, tz, c.applied, c.from, c.to);
          const revenue = await get('revenue-by-group', query);
          expect({ tz, currency, revenue }).toEqual({
            tz,
            currency,
            revenue: { appliedGroupKey: c.applied, data: groups.map(({ year, group, members }) => ({ year, group, ...summary(members) })) },
          });
          const byOrders = await get('fetch-order-by-group', query);
          expect(byOrders).toEqual({
            appliedGroupKey: c.applied,
            data: groups.map(({ year, group, members }) => ({
              year,
              group,
              orders: members.length,
              items_sold: members.reduce((sum, order) => sum + order.items, 0),
              gross_revenue: gross(members),
            })),
          });
        }
      }
    });

    it.each(['billing_country', 'shipping_country', 'payment_method', 'payment_status'] as const)(
      'groupKey %s: one row per value present, largest gross revenue first',
      async (groupKey) => {
        for (const [currency, tz] of [
          ['USD', 'UTC'],
          ['EUR', 'Asia/Kolkata'],
        ]) {
          const params = { groupKey, currency, filterMode: 'live', startDate: '2025-01-01', endDate: '2026-06-30' };
          const groups = dimensionGroups(within(orders, filtersFor(currency), tz, params.startDate, params.endDate), groupKey);
          expect(groups.length).toBeGreaterThan(2);
          const revenue = await get('revenue-by-group', { user_tz: tz, params });
          expect(revenue).toEqual({ appliedGroupKey: groupKey, data: groups.map(({ group, members }) => ({ year: null, group, ...summary(members) })) });
          const byOrders = await get('fetch-order-by-group', { user_tz: tz, params });
          expect(byOrders.data).toEqual(
            groups.map(({ group, members }) => ({
              year: null,
              group,
              orders: members.length,
              items_sold: members.reduce((sum, order) => sum + order.items, 0),
              gross_revenue: gross(members),
            })),
          );
        }
      },
    );

    it('the standard filters: order types, order statuses, payment statuses, test mode', async () => {
      const cases: Array<[Row, Partial<ReportFilters>]> = [
        [{ orderTypes: ['renewal'] }, { types: ['renewal'] }],
        [{ orderTypes: 'one-time' }, { types: ['payment'] }],
        [{ orderStatus: ['completed'] }, { excludeStatuses: ['draft', 'pending', 'on-hold', 'processing', 'canceled', 'failed'] }],
        [{ orderStatus: ['all'] }, {}],
        [{ paymentStatus: ['refunded', 'partially_refunded'] }, { paymentStatuses: ['refunded', 'partially-refunded'] }],
        [{ filterMode: 'test' }, { mode: 'test' }],
      ];
      for (const [params, overrides] of cases) {
        const query = { params: { filterMode: 'live', groupKey: 'monthly', startDate: '2025-11-01', endDate: '2026-11-21', ...params } };
        const groups = timeGroups('USD', 'UTC', 'monthly', '2025-11-01', '2026-11-21', overrides);
        expect(groups.some(({ members }) => members.length > 0)).toBe(true);
        const body = await get('revenue-by-group', query);
        expect({ params, body }).toEqual({
          params,
          body: { appliedGroupKey: 'monthly', data: groups.map(({ year, group, members }) => ({ year, group, ...summary(members) })) },
        });
      }
    });
  });

  describe('currencies are never summed together', () => {
    it('each currency answers its own orders; the currencies add up to all orders; a currency without orders answers zeros', async () => {
      const params = { filterMode: 'live', groupKey: 'payment_status', startDate: '2023-11-01', endDate: '2026-11-21' };
      let total = 0;
      for (const currency of currencies) {
        const { data } = await get('revenue-by-group', { params: { ...params, currency } });
        const figure = data.reduce((sum: number, row: Row) => sum + Number(row.gross_revenue), 0);
        expect(figure).toBe(gross(within(orders, filtersFor(currency), 'UTC')));
        total += figure;
      }
      expect(total).toBe(gross(orders.filter((order) => order.mode === 'live' && !['on-hold', 'failed'].includes(order.status))));
      const francs = await get('quick-order-stats', { day_range: 'all_time', params: { currency: 'chf', filterMode: 'live' } });
      expect(francs.stats.orders).toBe(0);
      expect((await get('overview', { params: { currency: 'CHF', filterMode: 'live' } })).data.gross_summary).toEqual({
        current: 0,
        previous: 0,
        fluctuation: 0,
      });
    });
  });
});
