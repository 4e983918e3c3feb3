import { minorUnits } from '../../src/core/money';
import { fromTimestamp } from '../../src/core/time';
import { computeCustomerStats } from '../../src/modules/customers/ltv';
import { OTHER_MODE_SHARE, convertPrice, orderCurrency, orderMode, shopperTime } from '../../src/modules/demo/scale-order-shape';
import { rngFor } from '../../src/modules/demo/rng';
import { seedScale } from '../../src/modules/demo/scale';
import { REPORT_PAYMENT_STATUSES } from '../../src/modules/reports/types';
import { savePaymentSettings } from '../../src/modules/settings/payment-settings';
import { startTestApp, type TestApp } from '../support/app';

type Row = Record<string, string | number | null>;

const ADDRESS_FIELDS = ['name', 'company_name', 'address_1', 'address_2', 'city', 'state', 'postcode', 'country', 'phone', 'email'];
const fields = (row: Row) => Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, row[f]]));
const ms = (value: string | number | null) => fromTimestamp(String(value)).getTime();
const HOUR = 3_600_000;

describe('seed --scale N: what the reports need (addresses, currencies, modes, renewals, times, report facts)', () => {
  let app: TestApp;
  let output: string[];
  let orders: Row[];
  const db = () => app.database.db;
  const seed = (flags: Record<string, string | boolean>) => app.host.commands.get('seed')!.run(flags);

  beforeAll(async () => {
    app = await startTestApp();
    // A live store with a catalogue: orders are written in the live mode, of the catalogue's variations.
    await seed({ demo: true });
    await savePaymentSettings(app.ctx(), { mode: 'live' });
    output = await seed({ scale: '200', seed: '5' });
    orders = (await db()('store_orders').orderBy('id')) as Row[];
  }, 120_000);
  afterAll(() => app.close());

  it('says what each part wrote, the order addresses and the rebuilt report facts last', () => {
    expect(output[0]).toMatch(/^Scale seed \(seed 5\): 200 customers/);
    expect(output[5]).toMatch(/^ {2}order addresses: [\d,]+ store_order_addresses in \d+\.\d s/);
    expect(output[6]).toMatch(/^ {2}reports: [\d,]+ store_report_orders in \d+\.\d s/);
    expect(output).toHaveLength(7);
  });

  it('every order has its billing address, a copy of the customer’s; physical orders ship, a few of them abroad', async () => {
    const customerAddresses = (await db()('store_customer_addresses').where({ is_primary: 1 })) as Row[];
    const primary = new Map(customerAddresses.map((a) => [`${a.customer_id}:${a.type}`, fields(a)]));
    const addresses = (await db()('store_order_addresses').orderBy('id')) as Row[];
    const byOrder = new Map<number, Row[]>();
    for (const a of addresses) byOrder.set(Number(a.order_id), [...(byOrder.get(Number(a.order_id)) ?? []), a]);
    let gifts = 0;
    let physical = 0;
    for (const o of orders) {
      const own = byOrder.get(Number(o.id)) ?? [];
      const billing = own.find((a) => a.type === 'billing');
      const shipping = own.find((a) => a.type === 'shipping');
      expect([o.id, own.length]).toEqual([o.id, o.fulfillment_type === 'physical' ? 2 : 1]);
      expect(fields(billing!)).toEqual(primary.get(`${o.customer_id}:billing`));
      expect(billing!.created_at).toBe(o.created_at);
      if (o.fulfillment_type !== 'physical') continue;
      physical += 1;
      if (shipping!.country === billing!.country) {
        expect(fields(shipping!)).toEqual(primary.get(`${o.customer_id}:shipping`));
      } else {
        gifts += 1;
        expect(shipping).toMatchObject({ email: billing!.email, address_1: expect.any(String), city: expect.any(String) });
        expect(String(shipping!.address_1).length).toBeGreaterThan(3);
      }
    }
    // One physical order in twenty is a gift sent abroad.
    expect(gifts / physical).toBeGreaterThan(0.02);
    expect(gifts / physical).toBeLessThan(0.09);
    expect(new Set(addresses.filter((a) => a.type === 'billing').map((a) => a.country)).size).toBeGreaterThanOrEqual(5);
  });

  it('most one-time orders are in the store currency, some in EUR, GBP and JPY, priced in that currency’s minor units', async () => {
    const purchases = orders.filter((o) => o.type === 'payment');
    const byCurrency = new Map<string, number>();
    for (const o of purchases) byCurrency.set(String(o.currency), (byCurrency.get(String(o.currency)) ?? 0) + 1);
    expect([...byCurrency.keys()].sort()).toEqual(['EUR', 'GBP', 'JPY', 'USD']);
    expect(byCurrency.get('USD')! / purchases.length).toBeGreaterThan(0.78);
    expect(byCurrency.get('JPY')!).toBeGreaterThan(20);
    // Subscriptions bill in the store currency.
    expect(new Set(orders.filter((o) => o.type !== 'payment').map((o) => o.currency))).toEqual(new Set(['USD']));

    const items = (await db()('store_order_items').select('order_id', 'unit_price', 'quantity', 'line_total')) as Row[];
    const linesOf = new Map<number, Row[]>();
    for (const i of items) linesOf.set(Number(i.order_id), [...(linesOf.get(Number(i.order_id)) ?? []), i]);
    const charges = (await db()('store_order_transactions').select('order_id', 'currency', 'payment_mode')) as Row[];
    for (const o of purchases) {
      const lines = linesOf.get(Number(o.id))!;
      expect([o.id, lines.reduce((sum, l) => sum + Number(l.line_total), 0) + Number(o.shipping_total)]).toEqual([o.id, Number(o.total_amount)]);
      if (o.currency === 'USD') continue;
      // Converted prices are whole tens of minor units: ¥3,600, €22.10.
      for (const l of lines) expect([o.id, Number(l.unit_price) % 10]).toEqual([o.id, 0]);
      expect(Number(o.shipping_total) % 10).toBe(0);
    }
    const orderOf = new Map(orders.map((o) => [Number(o.id), o]));
    for (const c of charges)
      expect([c.order_id, c.currency, c.payment_mode]).toEqual([c.order_id, orderOf.get(Number(c.order_id))!.currency, orderOf.get(Number(c.order_id))!.mode]);

    // A yen price is about 150 times the dollar price in yen units (no minor units), a euro price 0.92 times.
    expect(minorUnits('JPY')).toBe(0);
    expect(convertPrice(2400, 'USD', 'JPY')).toBe(3600);
    expect(convertPrice(2400, 'USD', 'EUR')).toBe(2210);
    expect(convertPrice(3600, 'JPY', 'USD')).toBe(2400);
    expect(convertPrice(0, 'USD', 'GBP')).toBe(0);
  });

  it('customers’ statistics hold each currency apart, as recalculating them from the orders gives', async () => {
    const customers = (await db()('store_customers').where('purchase_count', '>', 0).orderBy('id')) as Row[];
    const mixed = customers.filter((c) => Object.keys(JSON.parse(String(c.purchase_value))).length > 1);
    expect(mixed.length).toBeGreaterThan(20);
    for (const c of customers.slice(0, 60)) {
      const stats = await computeCustomerStats(db(), Number(c.id));
      expect([c.id, JSON.parse(String(c.purchase_value)), Number(c.ltv), Number(c.purchase_count)]).toEqual([
        c.id,
        stats.purchase_value,
        stats.ltv,
        stats.purchase_count,
      ]);
    }
  });

  it('orders follow the store’s payment mode, a few percent the other one; a subscription’s orders share one mode', async () => {
    const test = orders.filter((o) => o.mode === 'test').length;
    expect(orders.filter((o) => o.mode !== 'live' && o.mode !== 'test')).toEqual([]);
    expect(test / orders.length).toBeGreaterThan(OTHER_MODE_SHARE / 3);
    expect(test / orders.length).toBeLessThan(OTHER_MODE_SHARE * 2);
    const modeOf = new Map(orders.map((o) => [Number(o.id), o.mode]));
    for (const o of orders.filter((r) => r.type === 'renewal')) expect([o.id, o.mode]).toEqual([o.id, modeOf.get(Number(o.parent_id))]);
    expect(orderMode(() => 0.5, 'test')).toBe('test');
    expect(orderMode(() => 0, 'test')).toBe('live');
    expect(orderMode(() => 0, 'live')).toBe('test');
  });

  it('renewal orders point at their subscription’s first order, of the same customer', () => {
    const byId = new Map(orders.map((o) => [Number(o.id), o]));
    const renewals = orders.filter((o) => o.type === 'renewal');
    expect(renewals.length).toBeGreaterThan(200);
    for (const r of renewals) {
      const parent = byId.get(Number(r.parent_id))!;
      expect([r.id, parent.type, parent.customer_id]).toEqual([r.id, 'subscription', r.customer_id]);
      expect(ms(r.created_at)).toBeGreaterThanOrEqual(ms(parent.created_at));
    }
  });

  it('orders are placed at the hours shoppers buy at and complete minutes (digital) or days (physical) later', () => {
    const purchases = orders.filter((o) => o.type === 'payment');
    const perHour = new Array<number>(24).fill(0);
    for (const o of purchases) perHour[new Date(ms(o.created_at)).getUTCHours()] += 1;
    expect(perHour.every((n) => n > 0)).toBe(true);
    // Most customers are in Europe and America: 18:00–21:00 UTC is busier than 04:00–07:00 UTC.
    const busy = perHour.slice(18, 22).reduce((a, b) => a + b, 0);
    const quiet = perHour.slice(4, 8).reduce((a, b) => a + b, 0);
    expect(busy).toBeGreaterThan(2 * quiet);

    const now = app.clock.now().getTime();
    const completed = purchases.filter((o) => o.status === 'completed');
    expect(completed.length).toBeGreaterThan(purchases.length / 2);
    for (const o of completed) {
      const took = ms(o.completed_at) - ms(o.created_at);
      expect(ms(o.completed_at)).toBeLessThanOrEqual(now);
      if (o.fulfillment_type === 'physical') expect([o.id, took >= 24 * HOUR && took <= 10 * 24 * HOUR]).toEqual([o.id, true]);
      else expect([o.id, took >= 0 && took < 24 * HOUR]).toEqual([o.id, true]);
      expect(String(o.updated_at) >= String(o.completed_at)).toBe(true);
    }
    // A physical order placed in the last day cannot have arrived yet.
    for (const o of purchases.filter((r) => r.fulfillment_type === 'physical' && ms(r.created_at) > now - 24 * HOUR)) expect(o.status).not.toBe('completed');

    // The local-hour curve: a time moves within its local day and stays inside the bounds it is given.
    const rng = rngFor(1, 'test', 1);
    const noon = Date.parse('2026-06-10T12:00:00Z');
    for (let i = 0; i < 200; i++) {
      const moved = shopperTime(rng, noon, 'DE', noon - 2 * HOUR, noon + 2 * HOUR);
      expect(moved === noon || Math.abs(moved - noon) <= 2 * HOUR).toBe(true);
      const free = shopperTime(rng, noon, 'US', 0, Infinity);
      expect(Math.floor((free - 6 * HOUR) / (24 * HOUR))).toBe(Math.floor((noon - 6 * HOUR) / (24 * HOUR)));
    }
    expect(orderCurrency(() => 0.99, 'USD')).toBe('USD');
    expect(orderCurrency(() => 0, 'EUR')).toBe('EUR');
  });

  it('the report facts count exactly the counted orders, with their amounts, once the seeding is done', async () => {
    const counted = orders.filter((o) => (REPORT_PAYMENT_STATUSES as readonly string[]).includes(String(o.payment_status)));
    const facts = (await db()('store_report_orders').orderBy('order_id')) as Row[];
    expect(facts.map((f) => Number(f.order_id))).toEqual(counted.map((o) => Number(o.id)));
    const byId = new Map(counted.map((o) => [Number(o.id), o]));
    for (const f of facts) {
      const o = byId.get(Number(f.order_id))!;
      expect([f.order_id, f.currency, f.mode, Number(f.gross), Number(f.refund), Number(f.tax), Number(f.shipping_tax)]).toEqual([
        o.id,
        o.currency,
        o.mode,
        Number(o.total_paid),
        Number(o.total_refund),
        Number(o.tax_total),
        Number(o.shipping_tax),
      ]);
    }
    // The daily sales summary adds up to the facts, per currency and mode.
    const summed = (await db()('store_report_sales')
      .where({ grain: 'd' })
      .groupBy('mode', 'currency')
      .select('mode', 'currency')
      .sum({ gross: 'gross', orders: 'orders' })) as Row[];
    const expected = new Map<string, { gross: number; orders: number }>();
    for (const o of counted) {
      const key = `${o.mode}:${o.currency}`;
      const entry = expected.get(key) ?? { gross: 0, orders: 0 };
      entry.gross += Number(o.total_paid);
      entry.orders += 1;
      expected.set(key, entry);
    }
    expect(new Map(summed.map((s) => [`${s.mode}:${s.currency}`, { gross: Number(s.gross), orders: Number(s.orders) }]))).toEqual(expected);
  });

  it('a store in the test mode gets test orders, and seeding without orders builds no report facts', async () => {
    await savePaymentSettings(app.ctx(), { mode: 'test' });
    const report = await seedScale(app.ctx(), { customers: 20, seed: 9 });
    const ids = report.customers.map((c) => c.id);
    const fresh = (await db()('store_orders').whereIn('customer_id', ids).select('mode')) as Row[];
    expect(fresh.filter((o) => o.mode === 'test').length / fresh.length).toBeGreaterThan(0.9);
    expect(report.parts.map((p) => p.name)).toEqual(['customers', 'orders', 'subscriptions', 'taxes', 'order addresses', 'reports']);
    const before = Number(((await db()('store_report_orders').count({ n: '*' }).first()) as { n: number | string }).n);
    const alone = await seedScale(app.ctx(), { customers: 5, seed: 10, orders: false });
    expect(alone.parts.map((p) => p.name)).toEqual(['customers']);
    expect(Number(((await db()('store_report_orders').count({ n: '*' }).first()) as { n: number | string }).n)).toBe(before);
  }, 60_000);
});
