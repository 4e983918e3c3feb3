import { mulDivRound } from '../../src/core/money';
import type { ActionMap } from '../../src/host/contract';
import { onOrderEvent } from '../../src/modules/order-records/order-events';
import { NO_TAX, type OrderTax, type OrderTaxContext, type TaxRateShare } from '../../src/modules/orders/totals';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

type Row = Record<string, unknown>;

/** A record as stored, with its numbers as numbers and its meta parsed. */
const stored = (row: Row) => ({
  id: Number(row.id),
  order_id: Number(row.order_id),
  tax_rate_id: row.tax_rate_id === null ? null : Number(row.tax_rate_id),
  order_tax: Number(row.order_tax),
  shipping_tax: Number(row.shipping_tax),
  total_tax: Number(row.total_tax),
  meta: JSON.parse(String(row.meta)) as Row,
  filed_at: row.filed_at as string | null,
});

async function insertRate(app: TestApp, fields: Row): Promise<number> {
  const [id] = await app.host.db('store_tax_rates').insert({ priority: 1, created_at: NOW, updated_at: NOW, ...fields });
  return Number(id);
}

describe('order tax records: paying and refunding an order', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let fx: ReturnType<typeof orderFixtures>;
  let stateRate: number;
  let cityRate: number;
  let taxing = true;
  let failNextEvent = false;

  /**
   * Fixed tax whatever the store's rates, answered after the tax engine: California 6% on the lines and on shipping,
   * Los Angeles 2.25% on the lines only, each rounded half up per line, exclusive; none while `taxing` is off.
   */
  async function californiaTax(_engine: OrderTax, context: OrderTaxContext): Promise<OrderTax> {
    if (!taxing) return NO_TAX;
    const state = context.items.map((item) => mulDivRound(item.taxable, 600, 10000));
    const city = context.items.map((item) => mulDivRound(item.taxable, 225, 10000));
    const shipping = mulDivRound(context.shipping_total, 600, 10000);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const share = (tax_rate_id: number, name: string, rate: string, order_tax: number, shipping_tax: number): TaxRateShare => ({
      tax_rate_id,
      name,
      rate,
      country: 'US',
      state: 'CA',
      is_compound: 0,
      order_tax,
      shipping_tax,
    });
    return {
      tax_total: sum(state) + sum(city),
      shipping_tax: shipping,
      inclusive: false,
      lines: context.items.map((item, i) => ({ cart_index: item.cart_index, tax_amount: state[i] + city[i] })),
      rates: [share(stateRate, 'CA State Tax', '6.0000', sum(state), shipping), share(cityRate, 'LA County', '2.2500', sum(city), 0)],
      tax_country: 'US',
    };
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('tax-admin', ['administrator']);
    clerk = await app.createUser('tax-clerk', ['customer_service']);
    fx = orderFixtures(app, NOW);
    stateRate = await insertRate(app, { country: 'US', state: 'CA', rate: '6.0000', name: 'CA State Tax' });
    cityRate = await insertRate(app, { country: 'US', state: 'CA', city: 'Los Angeles', rate: '2.2500', name: 'LA County', priority: 2 });
    await app.host.options.set('store_settings', { store_vat_number: 'US-EIN-12-3456789' });
    app.host.hooks.addFilter('store/order/tax', californiaTax, { priority: 1000 });
    // Runs after the tax records' listener (registered at start-up), inside the same transaction.
    onOrderEvent(app.host, async () => {
      if (!failNextEvent) return;
      failNextEvent = false;
      throw new Error('a later listener failed');
    });
  });
  afterAll(() => app.close());
  beforeEach(() => {
    taxing = true;
  });

  const db = () => app.host.db;
  const recordsOf = async (orderId: number) => (await db()('store_order_tax_rates').where({ order_id: orderId }).orderBy('id')).map(stored);

  /** An order of 3 × 33.33 plus 5.00 shipping to Los Angeles: 6.00 + 2.25 % on 99.99, 6 % on the shipping. */
  async function taxedOrder(): Promise<number> {
    const customerId = await fx.customer({ address: true });
    const variation = await fx.variation(3333);
    const res = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({
        customer_id: customerId,
        order_items: [{ id: variation.id, quantity: 3 }],
        shipping: [{ type: 'custom', rate_name: 'Post', custom_price: 500 }],
      });
    expect(res.status).toBe(200);
    return res.body.order_id as number;
  }

  const markPaid = (orderId: number) => app.as(admin).post(`${BASE}/orders/${orderId}/mark-as-paid`).send({ payment_method: 'offline' });

  async function paidOrder(): Promise<{ orderId: number; chargeId: number }> {
    const orderId = await taxedOrder();
    expect((await markPaid(orderId)).status).toBe(200);
    const charge = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge' }).first('id');
    return { orderId, chargeId: Number(charge.id) };
  }

  const refund = (orderId: number, chargeId: number, amount: string) =>
    app
      .as(admin)
      .post(`${BASE}/orders/${orderId}/refund`)
      .send({ refund_info: { transaction_id: chargeId, amount } });

  describe('paying an order', () => {
    it('writes one record per rate share: order and shipping tax, their total, the rate, meta with the share, country and VAT number; unfiled', async () => {
      const orderId = await taxedOrder();
      const order = await db()('store_orders').where({ id: orderId }).first();
      expect([Number(order.tax_total), Number(order.shipping_tax), Number(order.total_amount)]).toEqual([825, 30, 9999 + 500 + 825 + 30]);
      expect(await recordsOf(orderId)).toEqual([]);

      expect((await markPaid(orderId)).status).toBe(200);
      const share = { country: 'US', state: 'CA', is_compound: 0 };
      expect(await recordsOf(orderId)).toEqual([
        {
          id: expect.any(Number),
          order_id: orderId,
          tax_rate_id: stateRate,
          order_tax: 600,
          shipping_tax: 30,
          total_tax: 630,
          meta: {
            rates: [{ ...share, tax_rate_id: stateRate, name: 'CA State Tax', rate: '6.0000', order_tax: 600, shipping_tax: 30 }],
            tax_country: 'US',
            store_vat_number: 'US-EIN-12-3456789',
          },
          filed_at: null,
        },
        {
          id: expect.any(Number),
          order_id: orderId,
          tax_rate_id: cityRate,
          order_tax: 225,
          shipping_tax: 0,
          total_tax: 225,
          meta: {
            rates: [{ ...share, tax_rate_id: cityRate, name: 'LA County', rate: '2.2500', order_tax: 225, shipping_tax: 0 }],
            tax_country: 'US',
            store_vat_number: 'US-EIN-12-3456789',
          },
          filed_at: null,
        },
      ]);
      const row = await db()('store_order_tax_rates').where({ order_id: orderId }).first('created_at', 'updated_at');
      expect(row).toEqual({ created_at: NOW, updated_at: NOW });
    });

    it('writes nothing for an order priced without tax', async () => {
      taxing = false;
      const orderId = await taxedOrder();
      expect((await db()('store_orders').where({ id: orderId }).first('tax_data')).tax_data).toBeNull();
      expect((await markPaid(orderId)).status).toBe(200);
      expect(await recordsOf(orderId)).toEqual([]);
    });

    it('writes the records in the payment transaction: when the payment fails after them, neither the payment nor a record stays', async () => {
      const orderId = await taxedOrder();
      failNextEvent = true;
      const res = await markPaid(orderId);
      expect(res.status).toBe(500);
      expect(await recordsOf(orderId)).toEqual([]);
      const order = await db()('store_orders').where({ id: orderId }).first();
      expect([order.payment_status, Number(order.total_paid)]).toEqual(['pending', 0]);
      expect(await db()('store_order_transactions').where({ order_id: orderId, status: 'succeeded' })).toEqual([]);

      expect((await markPaid(orderId)).status).toBe(200);
      expect((await recordsOf(orderId)).map((r) => r.total_tax)).toEqual([630, 225]);
    });

    it('writes them once: paying what a grown order still owes adds no second set', async () => {
      const { orderId } = await paidOrder();
      const first = await recordsOf(orderId);
      const item = await db()('store_order_items').where({ order_id: orderId }).first('id', 'variation_id');
      const { customer_id } = await db()('store_orders').where({ id: orderId }).first('customer_id');
      const updated = await app
        .as(admin)
        .post(`${BASE}/orders/${orderId}`)
        .send({ customer_id, order_items: [{ id: item.id, variation_id: item.variation_id, quantity: 4 }] });
      expect(updated.status).toBe(200);
      expect((await db()('store_orders').where({ id: orderId }).first('payment_status')).payment_status).toBe('partially-paid');
      expect((await markPaid(orderId)).status).toBe(200);
      expect(await recordsOf(orderId)).toEqual(first);
    });
  });

  describe('refunding an order', () => {
    it('partial refunds reverse their share of each record, the last one exactly what is left', async () => {
      const { orderId, chargeId } = await paidOrder();
      const [state, city] = await recordsOf(orderId);
      const paid = 11354;

      expect((await refund(orderId, chargeId, '30.00')).status).toBe(200);
      const firstRefund = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' }).orderBy('id', 'desc').first('id');
      let records = await recordsOf(orderId);
      // 600 × 3000 / 11354 = 158.5 → 159; 30 × 3000 / 11354 = 7.9 → 8; 225 × 3000 / 11354 = 59.4 → 59
      expect(records.slice(2)).toEqual([
        {
          id: expect.any(Number),
          order_id: orderId,
          tax_rate_id: stateRate,
          order_tax: -159,
          shipping_tax: -8,
          total_tax: -167,
          meta: {
            rates: [{ ...(state.meta.rates as Row[])[0], order_tax: -159, shipping_tax: -8 }],
            tax_country: 'US',
            store_vat_number: 'US-EIN-12-3456789',
            refund_transaction_id: Number(firstRefund.id),
            reverses: state.id,
          },
          filed_at: null,
        },
        expect.objectContaining({
          tax_rate_id: cityRate,
          order_tax: -59,
          shipping_tax: 0,
          total_tax: -59,
          meta: expect.objectContaining({ reverses: city.id }),
        }),
      ]);

      expect((await refund(orderId, chargeId, '30.00')).status).toBe(200);
      records = await recordsOf(orderId);
      // cumulative 6000: 317.07 → 317 (158 more), 15.85 → 16 (8 more), 118.9 → 119 (60 more)
      expect(records.slice(4).map((r) => [r.tax_rate_id, r.order_tax, r.shipping_tax, r.total_tax])).toEqual([
        [stateRate, -158, -8, -166],
        [cityRate, -60, 0, -60],
      ]);

      expect((await refund(orderId, chargeId, '53.54')).status).toBe(200);
      records = await recordsOf(orderId);
      expect(records.slice(6).map((r) => [r.tax_rate_id, r.order_tax, r.shipping_tax, r.total_tax])).toEqual([
        [stateRate, -283, -14, -297],
        [cityRate, -106, 0, -106],
      ]);
      const net = (rateId: number) =>
        records.filter((r) => r.tax_rate_id === rateId).reduce((sum, r) => [sum[0] + r.order_tax, sum[1] + r.shipping_tax], [0, 0]);
      expect([net(stateRate), net(cityRate)]).toEqual([
        [0, 0],
        [0, 0],
      ]);
      expect(Number((await db()('store_orders').where({ id: orderId }).first('total_refund')).total_refund)).toBe(paid);
    });

    it('a refund too small to move a cent of tax writes no record', async () => {
      const { orderId, chargeId } = await paidOrder();
      expect((await refund(orderId, chargeId, '0.01')).status).toBe(200);
      expect(await recordsOf(orderId)).toHaveLength(2);
    });

    it('parallel refunds on one order leave records that follow the refunds one by one and reverse exactly in the end', async () => {
      const { orderId, chargeId } = await paidOrder();
      const originals = await recordsOf(orderId);
      const results = await Promise.all(Array.from({ length: 6 }, () => refund(orderId, chargeId, '15.00')));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect((await refund(orderId, chargeId, '23.54')).status).toBe(200);

      const reversals = (await recordsOf(orderId)).slice(2);
      const byRefund = new Map<number, typeof reversals>();
      for (const r of reversals) byRefund.set(r.meta.refund_transaction_id as number, [...(byRefund.get(r.meta.refund_transaction_id as number) ?? []), r]);
      expect(byRefund.size).toBe(7);
      const refunded = [1500, 3000, 4500, 6000, 7500, 9000, 11354];
      let step = 0;
      const so_far = new Map<number, [number, number]>();
      for (const group of byRefund.values()) {
        for (const r of group) {
          const before = so_far.get(r.meta.reverses as number) ?? [0, 0];
          so_far.set(r.meta.reverses as number, [before[0] - r.order_tax, before[1] - r.shipping_tax]);
        }
        for (const original of originals) {
          const expected = [mulDivRound(original.order_tax, refunded[step], 11354), mulDivRound(original.shipping_tax, refunded[step], 11354)];
          expect([step, original.tax_rate_id, so_far.get(original.id) ?? [0, 0]]).toEqual([step, original.tax_rate_id, expected]);
        }
        step++;
      }
      expect(originals.map((o) => so_far.get(o.id))).toEqual([
        [600, 30],
        [225, 0],
      ]);
    });
  });

  describe('POST /taxes (mark as filed)', () => {
    const mark = (body: unknown, user: TestUser = admin) =>
      app
        .as(user)
        .post(`${BASE}/taxes`)
        .send(body as object);
    const snapshot = async () => (await db()('store_order_tax_rates').orderBy('id')).map(stored);

    it('files only the unfiled records among the ids: message, filing time, activity per order, store/taxes/filed with the ids that changed', async () => {
      const a = await paidOrder();
      const b = await paidOrder();
      const [a1, a2] = await recordsOf(a.orderId);
      const [b1, b2] = await recordsOf(b.orderId);
      await db()('store_order_tax_rates').where({ id: a2.id }).update({ filed_at: '2026-10-01 00:00:00' });
      const fired: Array<ActionMap['store/taxes/filed']> = [];
      const off = app.host.hooks.addAction('store/taxes/filed', (...args) => {
        fired.push(args);
      });
      app.clock.set(new Date('2026-11-22T08:30:00Z'));
      const res = await mark({ ids: [a1.id, a2.id, b2.id, b2.id, 999999] });
      app.clock.set(new Date('2026-11-21T10:00:00Z'));
      off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Taxes marked as filed successfully' });
      const filed = Object.fromEntries((await snapshot()).map((r) => [r.id, r.filed_at]));
      expect([filed[a1.id], filed[a2.id], filed[b1.id], filed[b2.id]]).toEqual(['2026-11-22 08:30:00', '2026-10-01 00:00:00', null, '2026-11-22 08:30:00']);
      expect(fired).toEqual([[[a1.id, b2.id]]]);
      const activities = await db()('store_activities').where({ title: 'Tax filed' }).orderBy('id').select('object_type', 'object_id', 'content');
      expect(activities).toEqual([
        { object_type: 'order', object_id: a.orderId, content: `Tax records #${a1.id} marked as filed.` },
        { object_type: 'order', object_id: b.orderId, content: `Tax records #${b2.id} marked as filed.` },
      ]);

      const again = await mark({ ids: [a1.id] });
      expect(again.body).toEqual({ message: 'Taxes marked as filed successfully' });
      expect(await db()('store_activities').where({ title: 'Tax filed' })).toHaveLength(2);
    });

    it('parallel calls naming the same records file each record once', async () => {
      const { orderId } = await paidOrder();
      const ids = (await recordsOf(orderId)).map((r) => r.id);
      const fired: number[][] = [];
      const off = app.host.hooks.addAction('store/taxes/filed', (changed) => {
        fired.push(changed);
      });
      const results = await Promise.all(Array.from({ length: 5 }, () => mark({ ids })));
      off();
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(fired.flat().sort((x, y) => x - y)).toEqual(ids);
      expect(await db()('store_activities').where({ title: 'Tax filed', object_id: orderId })).toHaveLength(1);
    });

    it("400 'No IDs provided to mark!' without ids, with none, or with something other than an array; nothing changes", async () => {
      await paidOrder();
      const before = await snapshot();
      for (const body of [{}, { ids: [] }, { ids: 5 }, { ids: '1,2' }, { ids: { 0: 1 } }, { ids: null }]) {
        const res = await mark(body);
        expect([body, res.status, res.body]).toEqual([body, 400, { message: 'No IDs provided to mark!' }]);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('422 naming the entry when an id is not an id; nothing changes', async () => {
      const { orderId } = await paidOrder();
      const [record] = await recordsOf(orderId);
      const before = await snapshot();
      for (const ids of [[record.id, 'abc'], [record.id, 0], [1.5], [record.id, null], [-3]]) {
        const res = await mark({ ids });
        const field = `ids.${ids.findIndex((id) => !(Number.isInteger(id) && (id as number) > 0))}`;
        expect([ids, res.status, Object.keys(res.body.errors ?? {})]).toEqual([ids, 422, [field]]);
        expect(typeof res.body.message).toBe('string');
      }
      const tooMany = await mark({ ids: Array.from({ length: 1001 }, (_, i) => i + 1) });
      expect([tooMany.status, tooMany.body.errors]).toEqual([422, { ids: { max: 'The ids field must not have more than 1000 items.' } }]);
      expect(await snapshot()).toEqual(before);
    });

    it('form bodies send the ids as text', async () => {
      const { orderId } = await paidOrder();
      const ids = (await recordsOf(orderId)).map((r) => r.id);
      const res = await app
        .as(admin)
        .post(`${BASE}/taxes`)
        .type('form')
        .send(ids.map((id) => `ids[]=${id}`).join('&'));
      expect(res.status).toBe(200);
      expect((await recordsOf(orderId)).map((r) => r.filed_at)).toEqual([NOW, NOW]);
    });

    it('401 for anonymous callers, 403 without orders/manage', async () => {
      const { orderId } = await paidOrder();
      const ids = (await recordsOf(orderId)).map((r) => r.id);
      expect((await app.http.post(`${BASE}/taxes`).send({ ids })).status).toBe(401);
      const res = await mark({ ids }, clerk);
      expect([res.status, res.body.code]).toEqual([403, 'rest_forbidden']);
      expect((await recordsOf(orderId)).map((r) => r.filed_at)).toEqual([null, null]);
    });
  });
});

describe('GET /taxes', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let productManager: TestUser;
  const rates: Record<string, number> = {};
  const orders: number[] = [];
  /** The fixture records' ids in insertion order (ids ascending). */
  const ids: number[] = [];

  /** [order, rate, order_tax, shipping_tax, filed_at, created_at] */
  const RECORDS: Array<[number, string | null, number, number, string | null, string]> = [
    [0, 'ca', 600, 30, '2026-04-01 09:00:00', '2026-01-15 12:00:00'],
    [0, 'la', 225, 0, '2026-04-01 09:00:00', '2026-01-15 12:00:00'],
    [1, 'de', 1900, 95, null, '2026-02-10 08:30:00'],
    // 03:00 UTC on 1 March is still 28 February in New York
    [2, 'gb', 2000, 0, null, '2026-03-01 03:00:00'],
    [3, 'ny', 400, 20, '2026-07-01 09:00:00', '2026-03-20 10:00:00'],
    // a product-category override's own rate: no rate row
    [4, null, 500, 0, null, '2026-05-05 10:00:00'],
    [0, 'ca', -159, -8, null, '2026-06-01 10:00:00'],
    ...Array.from({ length: 10 }, (_, i): [number, string, number, number, null, string] => [5, 'ny', 100 + i, 0, null, `2026-08-${String(i + 10)} 10:00:00`]),
  ];
  const RATES: Record<string, Row> = {
    ca: { country: 'US', state: 'CA', rate: '6.0000', name: 'CA State Tax' },
    la: { country: 'US', state: 'CA', city: 'Los Angeles', postcode: '90001', rate: '2.2500', name: 'LA County', priority: 2 },
    ny: { country: 'US', state: 'NY', rate: '4.0000', name: 'NY State' },
    de: { country: 'DE', rate: '19.0000', name: 'MwSt', group: 'EU', for_shipping: '7.0000' },
    gb: { country: 'GB', rate: '20.0000', name: 'VAT 100%_off' },
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('list-admin', ['administrator']);
    clerk = await app.createUser('list-clerk', ['customer_service']);
    productManager = await app.createUser('list-pm', ['product_manager']);
    const fx = orderFixtures(app, NOW);
    for (const [key, fields] of Object.entries(RATES)) rates[key] = await insertRate(app, fields);
    const customerId = await fx.customer();
    for (let i = 0; i < 6; i++) orders.push(await insertOrder(app.host.db, customerId, NOW, { total_amount: 10000 + i }));
    for (const [order, rate, orderTax, shippingTax, filedAt, createdAt] of RECORDS) {
      const share = rate ? { tax_rate_id: rates[rate], ...RATES[rate] } : { tax_rate_id: null, name: 'Books', rate: '5', country: 'DE', state: '' };
      const [id] = await app.host.db('store_order_tax_rates').insert({
        order_id: orders[order],
        tax_rate_id: rate ? rates[rate] : null,
        order_tax: orderTax,
        shipping_tax: shippingTax,
        total_tax: orderTax + shippingTax,
        meta: JSON.stringify({ rates: [{ ...share, order_tax: orderTax, shipping_tax: shippingTax }], tax_country: share.country, store_vat_number: '' }),
        filed_at: filedAt,
        created_at: createdAt,
        updated_at: filedAt ?? createdAt,
      });
      ids.push(Number(id));
    }
  });
  afterAll(() => app.close());

  const list = (query: string, user: TestUser = admin) => app.as(user).get(`${BASE}/taxes${query ? `?${query}` : ''}`);
  /** The fixture indexes (0-based, as in RECORDS) of the records a query answers, in the answer's order. */
  const found = async (query: string) => {
    const res = await list(query);
    expect([query, res.status]).toEqual([query, 200]);
    return (res.body.taxes.data as Row[]).map((r) => ids.indexOf(r.id as number));
  };
  const adv = (groups: unknown) => `filter_type=advanced&advanced_filters=${encodeURIComponent(JSON.stringify(groups))}`;
  const all = RECORDS.map((_, i) => i);
  const desc = (indexes: number[]) => [...indexes].sort((a, b) => b - a);

  it('answers {taxes: page} newest first, 10 to a page, with the spec fields', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    const page = res.body.taxes;
    expect({ ...page, data: undefined }).toEqual({ current_page: 1, per_page: 10, total: 17, last_page: 2, from: 1, to: 10, data: undefined });
    expect(page.data.map((r: Row) => ids.indexOf(r.id as number))).toEqual(desc(all).slice(0, 10));
    const de = (await list('per_page=200')).body.taxes.data.find((r: Row) => r.id === ids[2]);
    expect(de).toEqual({
      id: ids[2],
      order_id: orders[1],
      tax_rate_id: rates.de,
      shipping_tax: 95,
      order_tax: 1900,
      total_tax: 1995,
      meta: {
        rates: [
          { tax_rate_id: rates.de, country: 'DE', rate: '19.0000', name: 'MwSt', group: 'EU', for_shipping: '7.0000', order_tax: 1900, shipping_tax: 95 },
        ],
        tax_country: 'DE',
        store_vat_number: '',
      },
      filed_at: null,
      created_at: '2026-02-10 08:30:00',
      updated_at: '2026-02-10 08:30:00',
    });
  });

  it('clamps page sizes and pages instead of refusing them', async () => {
    const sizes: Array<[string, number]> = [
      ['per_page=0', 1],
      ['per_page=-5', 1],
      ['per_page=500', 200],
      ['per_page=abc', 10],
      ['per_page=3', 3],
    ];
    for (const [query, size] of sizes) {
      const res = await list(query);
      expect([query, res.status, res.body.taxes.per_page]).toEqual([query, 200, size]);
    }
    const second = (await list('page=2')).body.taxes;
    expect([second.current_page, second.from, second.to, second.data.length]).toEqual([2, 11, 17, 7]);
    const beyond = (await list('page=99')).body.taxes;
    expect([beyond.current_page, beyond.data, beyond.from, beyond.to, beyond.total]).toEqual([99, [], null, null, 17]);
    expect((await list('page=-1')).body.taxes.current_page).toBe(1);
  });

  it('sorts by a record column in either direction (ties by id), anything else by id', async () => {
    expect(await found('sort_by=id&sort_type=asc&per_page=3')).toEqual([0, 1, 2]);
    expect(await found('sort_by=total_tax&sort_type=desc&per_page=3')).toEqual([3, 2, 0]);
    expect(await found('sort_by=total_tax&sort_type=asc&per_page=2')).toEqual([6, 7]);
    expect(await found('sort_by=filed_at&sort_type=desc&per_page=3')).toEqual([4, 1, 0]);
    expect(await found('sort_by=__proto__&per_page=2')).toEqual([16, 15]);
    expect(await found('sort_by=meta&sort_type=asc&per_page=2')).toEqual([0, 1]);
  });

  it('active_view: filed or not_filed; anything else is a 422', async () => {
    expect(await found('active_view=filed')).toEqual([4, 1, 0]);
    const notFiled = await list('active_view=not_filed&per_page=200');
    expect(notFiled.body.taxes.total).toBe(14);
    expect(notFiled.body.taxes.data.map((r: Row) => ids.indexOf(r.id as number))).toEqual(desc(all.filter((i) => ![0, 1, 4].includes(i))));
    for (const view of ['paid', 'all', '']) {
      const res = await list(`active_view=${view}`);
      expect([view, res.status, res.body.message]).toEqual([view, 422, 'The active view must be one of: filed, not_filed.']);
    }
  });

  it('search: a number finds that record id or the records of that order id', async () => {
    const byNumber = (n: number) => desc(all.filter((i) => ids[i] === n || orders[RECORDS[i][0]] === n));
    expect(byNumber(ids[3])).toContain(3);
    expect(await found(`search=${ids[3]}`)).toEqual(byNumber(ids[3]));
    expect(byNumber(orders[0])).toEqual(expect.arrayContaining([6, 1, 0]));
    expect(await found(`search=${orders[0]}`)).toEqual(byNumber(orders[0]));
    expect(await found(`search=%23${ids[5]}`)).toEqual([5]);
    expect(await found('search=987654321')).toEqual([]);
  });

  it("search: text finds the start of the rate's country, state, postcode or name, case-insensitively; never the middle", async () => {
    expect(await found('search=de')).toEqual([2]);
    expect(await found('search=ca')).toEqual([6, 1, 0]);
    expect(await found('search=la%20coun')).toEqual([1]);
    expect(await found('search=9000')).toEqual([1]);
    expect(await found('search=mwst')).toEqual([2]);
    expect(await found('search=State')).toEqual([]);
    expect(await found('search=County')).toEqual([]);
    expect(await found('search=VAT%20100%25_')).toEqual([3]);
    expect(await found('search=VAT%20100_')).toEqual([]);
    expect(await found('search=%25')).toEqual([]);
  });

  it('search: the operator syntax on record columns; bare dates are whole days in user_tz', async () => {
    expect(await found(`search=${encodeURIComponent(`id = ${ids[4]}`)}`)).toEqual([4]);
    expect(await found(`search=${encodeURIComponent(`order_id > ${orders[4]}`)}&per_page=200`)).toEqual(desc(all.slice(7)));
    expect(await found(`search=${encodeURIComponent('total_tax >= 1995')}`)).toEqual([3, 2]);
    expect(await found(`search=${encodeURIComponent('total_tax < 0')}`)).toEqual([6]);
    expect(await found(`search=${encodeURIComponent('shipping_tax :: 1-30')}`)).toEqual([4, 0]);
    expect(await found(`search=${encodeURIComponent(`tax_rate_id = ${rates.gb}`)}`)).toEqual([3]);
    expect(await found(`search=${encodeURIComponent('created_at = 2026-03-01')}`)).toEqual([3]);
    expect(await found(`search=${encodeURIComponent('created_at = 2026-03-01')}&user_tz=America/New_York`)).toEqual([]);
    expect(await found(`search=${encodeURIComponent('created_at = 2026-02-28')}&user_tz=America/New_York`)).toEqual([3]);
    expect(await found(`search=${encodeURIComponent('filed_at :: 2026-04-01 - 2026-06-30')}`)).toEqual([1, 0]);
    // a column outside the list is free text: no rate starts with it
    expect(await found(`search=${encodeURIComponent('meta ~ MwSt')}`)).toEqual([]);
  });

  it('advanced filters: country, state and name of the rate, filed_at filed/not_filed; groups are alternatives', async () => {
    expect(await found(adv([[{ property: 'country', operator: '=', value: 'de' }]]))).toEqual([2]);
    expect(await found(adv([[{ property: 'state', operator: '=', value: 'CA' }]]))).toEqual([6, 1, 0]);
    expect(await found(adv([[{ property: 'name', operator: 'starts_with', value: 'LA' }]]))).toEqual([1]);
    expect(await found(adv([[{ property: 'name', operator: 'contains', value: 'State' }]]) + '&per_page=200')).toEqual(desc([0, 4, 6, ...all.slice(7)]));
    expect(await found(adv([[{ property: 'filed_at', operator: 'in', value: ['filed'] }]]))).toEqual([4, 1, 0]);
    expect(await found(adv([[{ property: 'filed_at', operator: 'not_in', value: ['filed'] }]]) + '&per_page=200')).toEqual(
      desc(all.filter((i) => ![0, 1, 4].includes(i))),
    );
    expect(
      await found(
        adv([
          [
            { property: 'state', operator: '=', value: 'CA' },
            { property: 'filed_at', operator: 'in', value: ['not_filed'] },
          ],
          [{ property: 'country', operator: '=', value: 'GB' }],
        ]),
      ),
    ).toEqual([6, 3]);
    // without filter_type=advanced the filters are not applied
    expect(
      (await list(adv([[{ property: 'country', operator: '=', value: 'DE' }]]).replace('filter_type=advanced', 'filter_type=simple'))).body.taxes.total,
    ).toBe(17);
  });

  it('advanced filters: bad JSON, an unknown property, operator or value is a 422 naming advanced_filters', async () => {
    const bad: Array<[string, string]> = [
      ['filter_type=advanced&advanced_filters=%7Bnope', 'The advanced filters field must be valid JSON.'],
      [adv([[{ property: 'total', operator: '=', value: 1 }]]), 'Unknown advanced filter "total". Known filters: filed_at, country, state, name.'],
      [adv([[{ property: 'country', operator: 'in', value: 'DE' }]]), expect.stringContaining('The operator "in" is not supported for country')],
      [adv([[{ property: 'filed_at', operator: 'in', value: ['yes'] }]]), 'The value of the filed_at filter must be one or more of: filed, not_filed.'],
    ] as Array<[string, string]>;
    for (const [query, message] of bad) {
      const res = await list(query);
      expect([query, res.status, res.body.message, Object.keys(res.body.errors)]).toEqual([query, 422, message, ['advanced_filters']]);
    }
    const res = await list('filter_type=complex');
    expect([res.status, Object.keys(res.body.errors)]).toEqual([422, ['filter_type']]);
  });

  it('with[]: the order and the tax rate of each record, one query each for the whole page', async () => {
    const statements: string[] = [];
    const listen = (q: { sql: string }) => statements.push(q.sql);
    app.host.db.on('query', listen);
    const res = await list('with[]=order&with[]=tax_rate&per_page=200');
    app.host.db.removeListener('query', listen);
    expect(res.status).toBe(200);
    const data = res.body.taxes.data as Row[];
    const de = data.find((r) => r.id === ids[2])!;
    expect(de.order).toMatchObject({ id: orders[1], total_amount: 10001, currency: 'USD', payment_status: 'paid' });
    expect(de.tax_rate).toEqual({
      id: rates.de,
      class_id: 0,
      country: 'DE',
      state: '',
      postcode: '',
      city: '',
      rate: '19.0000',
      name: 'MwSt',
      group: 'EU',
      priority: 1,
      is_compound: 0,
      for_shipping: 7,
      for_order: 0,
      formatted_state: '',
      created_at: NOW,
      updated_at: NOW,
    });
    expect((data.find((r) => r.id === ids[0])!.tax_rate as Row).formatted_state).toBe('California');
    const override = data.find((r) => r.id === ids[5])!;
    expect([override.tax_rate, (override.order as Row).id]).toEqual([null, orders[4]]);
    expect(statements.filter((sql) => /store_orders/.test(sql))).toHaveLength(1);
    expect(statements.filter((sql) => /store_tax_rates/.test(sql))).toHaveLength(1);

    const one = (await list('with[]=order&per_page=1')).body.taxes.data[0];
    expect(Object.keys(one)).toContain('order');
    expect(Object.keys(one)).not.toContain('tax_rate');
    const bad = await list('with[]=customer');
    expect([bad.status, bad.body.message]).toEqual([422, 'The with field accepts order, tax_rate.']);
  });

  it('select[]: only those fields (and id); an unknown field is a 422', async () => {
    const res = await list('select[]=order_id,total_tax&per_page=1&sort_type=asc');
    expect(res.body.taxes.data).toEqual([{ id: ids[0], order_id: orders[0], total_tax: 630 }]);
    const withRelation = await list('select[]=filed_at&with[]=tax_rate&per_page=1&sort_type=asc');
    expect(withRelation.body.taxes.data[0]).toEqual({ id: ids[0], filed_at: '2026-04-01 09:00:00', tax_rate: expect.objectContaining({ id: rates.ca }) });
    const bad = await list('select[]=order_id,password');
    expect([bad.status, bad.body.errors]).toEqual([422, { select: { in: expect.stringContaining('unknown fields: password') } }]);
  });

  it('include_ids[]: records added to a filtered answer whatever the filters', async () => {
    expect(await found(`active_view=filed&include_ids[]=${ids[3]}&include_ids[]=${ids[5]}`)).toEqual([5, 4, 3, 1, 0]);
    expect(await found(`search=mwst&include_ids[]=${ids[0]}`)).toEqual([2, 0]);
    const res = await list('include_ids[]=0');
    expect([res.status, Object.keys(res.body.errors)]).toEqual([422, ['include_ids.0']]);
  });

  it('counts the unfiltered list and each view once per 5 s, and again once this process filed records', async () => {
    const total = async () => (await list('active_view=not_filed')).body.taxes.total as number;
    expect(await total()).toBe(14);
    await app.host.db('store_order_tax_rates').insert({ order_id: orders[0], order_tax: 1, total_tax: 1, meta: '{}', created_at: NOW, updated_at: NOW });
    expect(await total()).toBe(14);
    const filed = await app
      .as(admin)
      .post(`${BASE}/taxes`)
      .send({ ids: [ids[2], ids[3]] });
    expect(filed.status).toBe(200);
    expect(await total()).toBe(13);
  });

  it('needs orders/view: 401 anonymous, 403 without it', async () => {
    expect((await app.http.get(`${BASE}/taxes`)).status).toBe(401);
    const denied = await list('', productManager);
    expect([denied.status, denied.body.code]).toEqual([403, 'rest_forbidden']);
    expect((await list('', clerk)).status).toBe(200);
  });
});
