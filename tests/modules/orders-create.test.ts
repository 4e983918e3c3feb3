import { deleteProduct } from '../../src/modules/products/service';
import { createTaxClass } from '../../src/modules/tax-classes/service';
import { presentAppliedCoupon, presentOrder, presentOrderItem, type OrderRow } from '../../src/modules/order-records/presenter';
import type { OrderTaxContext } from '../../src/modules/orders/totals';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';

describe('POST /orders', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('order-admin', ['administrator']);
    fx = orderFixtures(app, NOW);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const post = (body: Record<string, unknown>, user: TestUser = admin) => app.as(user).post(`${BASE}/orders`).send(body);
  const orderOf = async (id: number) => presentOrder((await db()('store_orders').where({ id }).first()) as OrderRow);
  const itemsOf = async (id: number) =>
    ((await db()('store_order_items').where({ order_id: id }).orderBy('cart_index')) as Array<Record<string, unknown>>).map(presentOrderItem);
  const configOf = async (id: number) => JSON.parse((await db()('store_orders').where({ id }).first('config')).config as string);

  async function created(body: Record<string, unknown>): Promise<number> {
    const res = await post(body);
    expect(res.status).toBe(200);
    return res.body.order_id as number;
  }

  it('creates the order from the catalogue: titles, prices and fulfilment copied, totals computed in exact cents', async () => {
    const customerId = await fx.customer({ address: true });
    const mug = await fx.variation(3333, { title: 'Mug' });
    const ebook = await fx.variation(1999, { title: 'E-book', fulfillment_type: 'digital' });
    const fired = fx.record('store/order/created');
    const res = await post({
      customer_id: customerId,
      order_items: [
        { id: mug.id, quantity: 3 },
        { variation_id: ebook.id, quantity: 1 },
      ],
    });
    fired.off();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Order created successfully!', order_id: expect.any(Number), uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const order = await orderOf(res.body.order_id);
    expect(order).toMatchObject({
      uuid: res.body.uuid,
      customer_id: customerId,
      status: 'on-hold',
      payment_status: 'pending',
      shipping_status: 'unshipped',
      type: 'payment',
      fulfillment_type: 'physical',
      currency: 'USD',
      subtotal: 11998,
      manual_discount_total: 0,
      coupon_discount_total: 0,
      shipping_total: 0,
      tax_total: 0,
      total_amount: 11998,
      total_paid: 0,
      invoice_no: '',
      receipt_number: null,
      created_at: NOW,
    });
    const items = await itemsOf(res.body.order_id);
    expect(
      items.map((i) => [
        i.post_title,
        i.title,
        i.variation_id,
        i.post_id,
        i.quantity,
        i.unit_price,
        i.subtotal,
        i.line_total,
        i.fulfillment_type,
        i.payment_type,
      ]),
    ).toEqual([
      ['Mug', expect.stringMatching(/^Variation/), mug.id, mug.product_id, 3, 3333, 9999, 9999, 'physical', 'onetime'],
      ['E-book', expect.stringMatching(/^Variation/), ebook.id, ebook.product_id, 1, 1999, 1999, 1999, 'digital', 'onetime'],
    ]);
    expect(items[0].other_info).toEqual({ sku: expect.stringMatching(/^SKU-/), payment_type: 'onetime' });
    expect(items[0].item_cost).toBe(100);
    expect(fired.calls.map(([o]) => [o.id, o.total_amount])).toEqual([[res.body.order_id, 11998]]);
    const addresses = await db()('store_order_addresses').where({ order_id: res.body.order_id }).orderBy('type');
    expect(addresses.map((a) => [a.type, a.city])).toEqual([
      ['billing', 'Los Angeles'],
      ['shipping', 'San Diego'],
    ]);
    const activity = await db()('store_activities').where({ object_type: 'order', object_id: res.body.order_id }).first();
    expect(activity).toMatchObject({ title: 'Order created', content: 'Order created with 2 item(s), total 119.98 USD.' });
  });

  it('never trusts totals the client sends', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await created({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 2 }],
      subtotal: 1,
      total_amount: 5,
      tax_total: 99,
      shipping_total: 7,
      manual_discount_total: 300,
      coupon_discount_total: 12,
      discount_tax: 3,
      shipping_tax: 4,
      fulfillment_type: 'digital',
    });
    expect(await orderOf(id)).toMatchObject({
      subtotal: 2000,
      total_amount: 2000,
      tax_total: 0,
      shipping_total: 0,
      manual_discount_total: 0,
      coupon_discount_total: 0,
      discount_tax: 0,
      shipping_tax: 0,
      fulfillment_type: 'physical',
    });
  });

  it('takes a unit price override, and keeps its copies when the product is deleted later', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000, { title: 'Soon gone' });
    const other = await fx.variation(500);
    const id = await created({
      customer_id: customerId,
      order_items: [
        { id: v.id, quantity: 1, unit_price: 2500 },
        { id: other.id, quantity: 2, price: 450 },
      ],
    });
    await deleteProduct(app.ctx(), v.product_id);
    const items = await itemsOf(id);
    expect(items.map((i) => [i.post_title, i.unit_price, i.subtotal])).toEqual([
      ['Soon gone', 2500, 2500],
      [expect.any(String), 450, 900],
    ]);
    expect((await orderOf(id)).total_amount).toBe(3400);
  });

  it('is digital when no item is physical, and stores the given fields', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000, { fulfillment_type: 'digital' });
    const res = await post({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 1 }],
      status: 'processing',
      invoice_no: 'MANUAL-7',
      type: 'payment',
      payment_method: 'bank_transfer',
      currency: 'eur',
      rate: 1.25,
      note: 'Phone order',
      uuid: 'my-own-uuid',
      ip_address: '10.0.0.9',
      completed_at: '2026-11-20 08:00:00',
      user_tz: 'Europe/Berlin',
      trigger: 'admin',
    });
    expect(res.status).toBe(200);
    expect(res.body.uuid).toBe('my-own-uuid');
    expect(await orderOf(res.body.order_id)).toMatchObject({
      fulfillment_type: 'digital',
      shipping_status: '',
      status: 'processing',
      invoice_no: 'MANUAL-7',
      payment_method: 'bank_transfer',
      payment_method_title: 'Bank transfer',
      currency: 'EUR',
      rate: 1.25,
      note: 'Phone order',
      ip_address: '10.0.0.9',
      completed_at: '2026-11-20 08:00:00',
    });
    expect(await configOf(res.body.order_id)).toMatchObject({ user_tz: 'Europe/Berlin', discount: null, shipping: [] });
    const again = await post({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], uuid: 'my-own-uuid' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ message: 'The uuid has already been taken.', errors: { uuid: { unique: 'The uuid has already been taken.' } } });
  });

  it('applies a percentage discount rounded half up (10% of 99.99 is 10.00) and a fixed one in cents', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(3333);
    const w = await fx.variation(1);
    const pct = await created({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 3 }],
      discount: { type: 'percentage', value: 10, label: 'Loyalty', reason: 'Regular', action: 'apply' },
    });
    expect(await orderOf(pct)).toMatchObject({ subtotal: 9999, manual_discount_total: 1000, total_amount: 8999 });
    expect((await itemsOf(pct))[0]).toMatchObject({ discount_total: 1000, line_total: 8999 });
    expect((await configOf(pct)).discount).toEqual({ type: 'percentage', label: 'Loyalty', reason: 'Regular', action: 'apply', value: 10 });

    const eighth = await created({ customer_id: customerId, order_items: [{ id: v.id, quantity: 3 }], discount: { type: 'percentage', value: '12.5' } });
    expect((await orderOf(eighth)).manual_discount_total).toBe(1250);

    const fixed = await created({
      customer_id: customerId,
      order_items: [
        { id: v.id, quantity: 1 },
        { id: w.id, quantity: 1 },
      ],
      discount: { type: 'fixed', value: 334 },
    });
    expect(await orderOf(fixed)).toMatchObject({ manual_discount_total: 334, total_amount: 3000 });
    expect((await itemsOf(fixed)).map((i) => i.discount_total)).toEqual([334, 0]);

    const capped = await created({ customer_id: customerId, order_items: [{ id: w.id, quantity: 5 }], discount: { type: 'amount', value: 99999 } });
    expect(await orderOf(capped)).toMatchObject({ manual_discount_total: 5, total_amount: 0 });
  });

  it('applies coupons through the coupon calculator, stores them and counts their use', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(3333);
    const pct = await fx.coupon({ amount: 10, priority: 1 });
    const fixed = await fx.coupon({ type: 'fixed', amount: 500, priority: 2 });
    const res = await post({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 3 }],
      applied_coupon: [
        { coupon_id: pct.id, code: pct.code.toLowerCase(), discounted_amount: 0, stackable: 1 },
        { coupon_id: fixed.id, code: fixed.code, discounted_amount: 99999, stackable: 1, notes: 'phone' },
      ],
      discount: { type: 'fixed', value: 99 },
    });
    expect(res.status).toBe(200);
    const order = await orderOf(res.body.order_id);
    expect(order).toMatchObject({ subtotal: 9999, coupon_discount_total: 1500, manual_discount_total: 99, total_amount: 8400 });
    const applied = (await db()('store_applied_coupons').where({ order_id: order.id }).orderBy('id')).map(presentAppliedCoupon);
    expect(applied.map((a) => [a.coupon_id, a.code, a.type, a.amount, a.discounted_amount, a.customer_id, a.use_count, a.notes])).toEqual([
      [pct.id, pct.code, 'percentage', 1000, 1000, customerId, 1, ''],
      [fixed.id, fixed.code, 'fixed', 500, 500, customerId, 1, 'phone'],
    ]);
    for (const c of [pct, fixed]) expect(Number((await db()('store_coupons').where({ id: c.id }).first()).use_count)).toBe(1);
  });

  it('refuses coupons that are unknown, mismatched, used up or refused by the calculator, and changes nothing', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const used = await fx.coupon({ max_uses: 1 });
    await db()('store_coupons').where({ id: used.id }).update({ use_count: 1 });
    const expired = await fx.coupon({ ends_at: '2026-01-01 00:00:00' });
    const minimum = await fx.coupon({ min_purchase_amount: 5000 });
    const single = await fx.coupon({ stackable: 0, priority: 1 });
    const other = await fx.coupon({ priority: 5 });
    const entry = (c: { id: number; code: string }) => ({ coupon_id: c.id, code: c.code, discounted_amount: 0, stackable: 1 });
    const cases: Array<[unknown[], string, Record<string, string>]> = [
      [[{ ...entry(used), code: 'NOPE' }], 'applied_coupon.0.code', { exists: 'The selected coupon code is invalid.' }],
      [[{ ...entry(used), coupon_id: expired.id }], 'applied_coupon.0.coupon_id', { exists: 'The coupon id does not belong to the coupon code.' }],
      [[entry(used)], 'applied_coupon.0.code', { usage_limit: 'This coupon has reached its usage limit.' }],
      [[entry(expired)], 'applied_coupon.0.code', { expired: 'This coupon has expired.' }],
      [[entry(minimum)], 'applied_coupon.0.code', { min_purchase: 'The minimum spend for this coupon is 50.00.' }],
      [[entry(single), entry(other)], 'applied_coupon.1.code', { not_stackable: 'This coupon cannot be combined with other coupons.' }],
      [[entry(other), entry(other)], 'applied_coupon.1.code', { duplicate: 'This coupon has already been applied.' }],
    ];
    const orders = await fx.count('store_orders');
    for (const [coupons, field, error] of cases) {
      const res = await post({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], applied_coupon: coupons });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: Object.values(error)[0], errors: { [field]: error } });
    }
    expect(await fx.count('store_orders')).toBe(orders);
    expect(await fx.count('store_applied_coupons', { customer_id: customerId })).toBe(0);
    expect(Number((await db()('store_coupons').where({ id: single.id }).first()).use_count)).toBe(0);
  });

  it('refuses a coupon the customer has used max_per_customer times', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const once = await fx.coupon({ max_per_customer: 1 });
    const body = {
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 1 }],
      applied_coupon: [{ coupon_id: once.id, code: once.code, discounted_amount: 100, stackable: 1 }],
    };
    expect((await post(body)).status).toBe(200);
    const again = await post(body);
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ 'applied_coupon.0.code': { customer_usage_limit: 'You have already used this coupon the maximum number of times.' } });
    expect((await post({ ...body, customer_id: await fx.customer() })).status).toBe(200);
  });

  it('adds the shipping entries, and a free-shipping coupon waives them', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const d = await fx.variation(300, { fulfillment_type: 'digital' });
    const id = await created({
      customer_id: customerId,
      order_items: [
        { id: v.id, quantity: 2 },
        { id: d.id, quantity: 1 },
      ],
      shipping: [
        { type: 'custom', rate_name: 'Courier', custom_price: 650 },
        { type: 'custom', rate_name: 'Insurance', custom_price: 100 },
      ],
    });
    expect(await orderOf(id)).toMatchObject({ shipping_total: 750, total_amount: 3050 });
    expect((await itemsOf(id)).map((i) => i.shipping_charge)).toEqual([750, 0]);
    expect((await configOf(id)).shipping).toEqual([
      { type: 'custom', rate_name: 'Courier', custom_price: 650 },
      { type: 'custom', rate_name: 'Insurance', custom_price: 100 },
    ]);

    const free = await fx.coupon({ type: 'free_shipping', amount: 0 });
    const waived = await created({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 1 }],
      shipping: [{ type: 'custom', rate_name: 'Courier', custom_price: 650 }],
      applied_coupon: [{ coupon_id: free.id, code: free.code, discounted_amount: 0, stackable: 1 }],
    });
    expect(await orderOf(waived)).toMatchObject({ shipping_total: 650, coupon_discount_total: 650, total_amount: 1000 });
    expect(Number((await db()('store_applied_coupons').where({ order_id: waived }).first()).discounted_amount)).toBe(650);
  });

  it('asks the store/order/tax filter for tax (0 without a tax module) and adds exclusive tax to the total', async () => {
    const customerId = await fx.customer({ address: true });
    await createTaxClass(app.ctx(), { slug: 'reduced' });
    const v = await fx.variation(2000, { variation: { tax_class: 'reduced' } });
    const untaxed = await created({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    expect(await orderOf(untaxed)).toMatchObject({ tax_total: 0, shipping_tax: 0, total_amount: 2000 });

    const contexts: OrderTaxContext[] = [];
    // a tax module reads its rates through the order's transaction (on SQLite the only connection)
    const off = app.host.hooks.addFilter('store/order/tax', async (_tax, context) => {
      contexts.push(context);
      const variation = await context.db('store_product_variations').where({ id: context.items[0].variation_id }).first('tax_class');
      return { tax_total: variation.tax_class === 'reduced' ? 190 : 0, shipping_tax: 19, inclusive: false };
    });
    const id = await created({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 1 }],
      discount: { type: 'fixed', value: 100 },
      shipping: [{ type: 'custom', rate_name: 'Post', custom_price: 500 }],
    });
    off();
    expect(await orderOf(id)).toMatchObject({ tax_total: 190, shipping_tax: 19, total_amount: 2000 - 100 + 500 + 190 + 19 });
    expect(Number((await db()('store_orders').where({ id }).first('tax_behavior')).tax_behavior)).toBe(1);
    expect((await itemsOf(id))[0]).toMatchObject({ tax_amount: 190, line_total: 2090 });
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      order_id: null,
      currency: 'USD',
      shipping_total: 500,
      items: [
        {
          cart_index: 0,
          variation_id: v.id,
          product_id: v.product_id,
          tax_class: 'reduced',
          quantity: 1,
          unit_price: 2000,
          subtotal: 2000,
          discount_total: 100,
          taxable: 1900,
        },
      ],
      billing_address: { country: 'US', state: 'CA', city: 'Los Angeles', postcode: '90001' },
      shipping_address: { country: 'US', state: 'CA', city: 'San Diego', postcode: '92101' },
      customer: { id: customerId },
    });
  });

  it('records an order created paid through the payments ledger: charge, invoice number, status by fulfilment, statistics, hooks', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(2500);
    const d = await fx.variation(900, { fulfillment_type: 'digital' });
    const events: string[] = [];
    const listen = (name: 'store/order/created' | 'store/order/status_changed' | 'store/order/payment_status_changed' | 'store/order/paid') =>
      app.host.hooks.addAction(name, (...args: [{ payment_status: string }, ...unknown[]]) => {
        events.push(`${name}:${args[0].payment_status}`);
      });
    const offs = [
      listen('store/order/created'),
      listen('store/order/status_changed'),
      listen('store/order/payment_status_changed'),
      listen('store/order/paid'),
    ];
    const res = await post({ customer_id: customerId, order_items: [{ id: v.id, quantity: 2 }], payment_status: 'paid', payment_method: 'cod' });
    const digital = await post({ customer_id: customerId, order_items: [{ id: d.id, quantity: 1 }], payment_status: 'paid' });
    offs.forEach((off) => off());
    expect(res.status).toBe(200);
    const order = await orderOf(res.body.order_id);
    expect(order).toMatchObject({
      payment_status: 'paid',
      status: 'processing',
      total_amount: 5000,
      total_paid: 5000,
      payment_method: 'cod',
      invoice_no: expect.stringMatching(/^INV-\d+$/),
    });
    expect(order.receipt_number).toEqual(expect.any(Number));
    const charges = await db()('store_order_transactions').where({ order_id: order.id });
    expect(charges.map((t) => [t.transaction_type, t.status, Number(t.total), t.payment_method])).toEqual([['charge', 'succeeded', 5000, 'cod']]);
    expect(await orderOf(digital.body.order_id)).toMatchObject({ status: 'completed', payment_status: 'paid', total_paid: 900 });
    const stats = await db()('store_customers').where({ id: customerId }).first();
    expect([Number(stats.ltv), Number(stats.purchase_count)]).toEqual([5900, 2]);
    expect(events.slice(0, 4)).toEqual([
      'store/order/created:paid',
      'store/order/status_changed:paid',
      'store/order/payment_status_changed:paid',
      'store/order/paid:paid',
    ]);
    expect(events.filter((e) => e.startsWith('store/order/paid'))).toHaveLength(2);
  });

  it('creates failed orders without a transaction; a canceled paid order is refused by the ledger and nothing is stored', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const failed = await created({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], payment_status: 'failed' });
    expect((await orderOf(failed)).payment_status).toBe('failed');
    expect(await fx.count('store_order_transactions', { order_id: failed })).toBe(0);
    const orders = await fx.count('store_orders');
    const canceled = await post({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], payment_status: 'paid', status: 'canceled' });
    expect(canceled.status).toBe(423);
    expect(canceled.body).toEqual({ message: 'Unable to mark paid for canceled order' });
    expect(await fx.count('store_orders')).toBe(orders);
  });

  describe('validation (422, nothing stored)', () => {
    let customerId: number;
    let variationId: number;
    beforeAll(async () => {
      customerId = await fx.customer();
      variationId = (await fx.variation(1000)).id;
    });
    const valid = () => ({ customer_id: customerId, order_items: [{ id: variationId, quantity: 1 }] });
    const long = (n: number) => 'x'.repeat(n);
    const maxChars = (label: string, n: number) => ({ max: `The ${label} field must not be greater than ${n} characters.` });
    const coupon = { coupon_id: 1, code: 'X', discounted_amount: 0, stackable: 1 };

    const cases: Array<[string, Record<string, unknown>, string, Record<string, string>]> = [
      ['status max 50', { status: long(51) }, 'status', maxChars('status', 50)],
      ['invoice_no max 100', { invoice_no: long(101) }, 'invoice_no', maxChars('invoice no', 100)],
      ['fulfillment_type max 50', { fulfillment_type: long(51) }, 'fulfillment_type', maxChars('fulfillment type', 50)],
      ['type max 50', { type: long(51) }, 'type', maxChars('type', 50)],
      ['payment_method max 50', { payment_method: long(51) }, 'payment_method', maxChars('payment method', 50)],
      ['payment_method_title max 50', { payment_method_title: long(51) }, 'payment_method_title', maxChars('payment method title', 50)],
      ['payment_status max 50', { payment_status: long(51) }, 'payment_status', maxChars('payment status', 50)],
      ['currency max 10', { currency: long(11) }, 'currency', maxChars('currency', 10)],
      ['note max 5000', { note: long(5001) }, 'note', maxChars('note', 5000)],
      ['uuid max 100', { uuid: long(101) }, 'uuid', maxChars('uuid', 100)],
      ['ip_address max 100', { ip_address: long(101) }, 'ip_address', maxChars('ip address', 100)],
      ['completed_at max 100', { completed_at: long(101) }, 'completed_at', maxChars('completed at', 100)],
      ['refunded_at max 100', { refunded_at: long(101) }, 'refunded_at', maxChars('refunded at', 100)],
      ['user_tz max 50', { user_tz: long(51) }, 'user_tz', maxChars('user tz', 50)],
      ['discount.type max 100', { discount: { type: long(101), value: 1 } }, 'discount.type', maxChars('type', 100)],
      ['discount.label max 100', { discount: { type: 'fixed', label: long(101), value: 1 } }, 'discount.label', maxChars('label', 100)],
      ['discount.reason max 100', { discount: { type: 'fixed', reason: long(101), value: 1 } }, 'discount.reason', maxChars('reason', 100)],
      ['discount.action max 100', { discount: { type: 'fixed', action: long(101), value: 1 } }, 'discount.action', maxChars('action', 100)],
      ['discount.value numeric', { discount: { type: 'fixed', value: true } }, 'discount.value', { numeric: 'The value field must be a number.' }],
      ['discount must be an object', { discount: 'ten' }, 'discount', { array: 'The discount field must be an array.' }],
      ['shipping.type max 100', { shipping: [{ type: long(101), custom_price: 1 }] }, 'shipping.0.type', maxChars('type', 100)],
      ['shipping.rate_name max 100', { shipping: [{ rate_name: long(101), custom_price: 1 }] }, 'shipping.0.rate_name', maxChars('rate name', 100)],
      [
        'shipping.custom_price cents',
        { shipping: [{ custom_price: 1.5 }] },
        'shipping.0.custom_price',
        { integer: 'The custom price field must be an integer.' },
      ],
      ['shipping.custom_price required', { shipping: [{ rate_name: 'Post' }] }, 'shipping.0.custom_price', { required: 'The custom price field is required.' }],
      ['shipping is an array', { shipping: { custom_price: 1 } }, 'shipping', { array: 'The shipping field must be an array.' }],
      [
        'applied_coupon.code required',
        { applied_coupon: [{ ...coupon, code: undefined }] },
        'applied_coupon.0.code',
        { required: 'The code field is required.' },
      ],
      ['applied_coupon.code max 100', { applied_coupon: [{ ...coupon, code: long(101) }] }, 'applied_coupon.0.code', maxChars('code', 100)],
      [
        'applied_coupon.coupon_id min 1',
        { applied_coupon: [{ ...coupon, coupon_id: 0 }] },
        'applied_coupon.0.coupon_id',
        { min: 'The coupon id field must be at least 1.' },
      ],
      [
        'applied_coupon.discounted_amount required',
        { applied_coupon: [{ ...coupon, discounted_amount: undefined }] },
        'applied_coupon.0.discounted_amount',
        { required: 'The discounted amount field is required.' },
      ],
      [
        'applied_coupon.stackable 0/1',
        { applied_coupon: [{ ...coupon, stackable: 2 }] },
        'applied_coupon.0.stackable',
        { in: 'The stackable field must be 0 or 1.' },
      ],
      [
        'applied_coupon.max_per_customer min 1',
        { applied_coupon: [{ ...coupon, max_per_customer: 0 }] },
        'applied_coupon.0.max_per_customer',
        { min: 'The max per customer field must be at least 1.' },
      ],
      [
        'applied_coupon.min_purchase_amount cents',
        { applied_coupon: [{ ...coupon, min_purchase_amount: 9.5 }] },
        'applied_coupon.0.min_purchase_amount',
        { integer: 'The min purchase amount field must be an integer.' },
      ],
      ['applied_coupon.notes max 100', { applied_coupon: [{ ...coupon, notes: long(101) }] }, 'applied_coupon.0.notes', maxChars('notes', 100)],
      ['subtotal numeric', { subtotal: 'a lot' }, 'subtotal', { numeric: 'The subtotal field must be a number.' }],
      ['total_amount numeric', { total_amount: '12' }, 'total_amount', { numeric: 'The total amount field must be a number.' }],
      ['rate numeric', { rate: 'one' }, 'rate', { numeric: 'The rate field must be a number.' }],
      ['rate above 0', { rate: 0 }, 'rate', { min: 'The rate field must be at least 0.000001.' }],
      ['trigger string', { trigger: 5 }, 'trigger', { string: 'The trigger field must be a string.' }],
      ['status known', { status: 'shipped' }, 'status', { in: 'The selected status is invalid.' }],
      ['type known', { type: 'gift' }, 'type', { in: 'The selected type is invalid.' }],
      ['fulfillment_type known', { fulfillment_type: 'virtual' }, 'fulfillment_type', { in: 'The selected fulfillment type is invalid.' }],
      ['payment_status settable', { payment_status: 'refunded' }, 'payment_status', { in: 'The selected payment status is invalid.' }],
      ['currency code', { currency: 'DOLLAR' }, 'currency', { currency: 'The currency field must be a valid ISO 4217 code.' }],
      [
        'completed_at date',
        { completed_at: '2026-02-30 10:00:00' },
        'completed_at',
        { date: 'The completed at field must be a valid date (YYYY-MM-DD HH:MM:SS, UTC).' },
      ],
      ['refunded_at date', { refunded_at: 'yesterday' }, 'refunded_at', { date: 'The refunded at field must be a valid date (YYYY-MM-DD HH:MM:SS, UTC).' }],
      ['user_tz zone', { user_tz: 'Mars/Olympus' }, 'user_tz', { timezone: 'The user tz field must be a valid timezone.' }],
      ['discount.type known', { discount: { type: 'bogus', value: 5 } }, 'discount.type', { in: 'The discount type must be fixed or percentage.' }],
      [
        'fixed discount cents',
        { discount: { type: 'fixed', value: 5.5 } },
        'discount.value',
        { integer: 'A fixed discount value must be a whole number of cents, at least 0.' },
      ],
      [
        'fixed discount not negative',
        { discount: { type: 'fixed', value: -5 } },
        'discount.value',
        { integer: 'A fixed discount value must be a whole number of cents, at least 0.' },
      ],
      [
        'percentage at most 100',
        { discount: { type: 'percentage', value: 100.01 } },
        'discount.value',
        { between: 'A percentage discount value must be between 0 and 100, with at most two decimals.' },
      ],
      [
        'percentage two decimals',
        { discount: { type: 'percentage', value: '10.125' } },
        'discount.value',
        { between: 'A percentage discount value must be between 0 and 100, with at most two decimals.' },
      ],
    ];

    it.each(cases)('%s', async (_name, over, field, error) => {
      const orders = await fx.count('store_orders');
      const res = await post({ ...valid(), ...over });
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual(error);
      const first = Object.values(res.body.errors as Record<string, Record<string, string>>)[0];
      expect(res.body.message).toBe(Object.values(first)[0]);
      expect(await fx.count('store_orders')).toBe(orders);
    });

    it('accepts every limit at its maximum', async () => {
      const res = await post({
        ...valid(),
        invoice_no: long(100),
        payment_method: long(50),
        payment_method_title: long(50),
        currency: 'usd',
        note: long(5000),
        uuid: long(100),
        ip_address: long(100),
        user_tz: 'America/Argentina/ComodRivadavia',
        discount: { type: 'fixed', label: long(100), reason: long(100), action: long(100), value: 0 },
        shipping: [{ type: long(100), rate_name: long(100), custom_price: 0 }],
      });
      expect(res.status).toBe(200);
      const order = await orderOf(res.body.order_id);
      expect([order.invoice_no.length, order.note.length, order.uuid.length, order.ip_address.length, order.payment_method_title.length]).toEqual([
        100, 5000, 100, 100, 50,
      ]);
    });

    it('needs an existing customer and non-empty items referencing existing variations', async () => {
      const orders = await fx.count('store_orders');
      const missing = await post({});
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({
        message: 'The customer id field is required.',
        errors: { customer_id: { required: 'The customer id field is required.' }, order_items: { required: 'The order items field is required.' } },
      });
      const empty = await post({ customer_id: customerId, order_items: [] });
      expect(empty.body.errors).toEqual({ order_items: { min: 'The order items field must have at least one item.' } });
      const quantity = await post({ customer_id: customerId, order_items: [{ id: variationId, quantity: 0 }, { id: variationId }] });
      expect(quantity.body.errors).toEqual({
        'order_items.0.quantity': { min: 'The quantity field must be at least 1.' },
        'order_items.1.quantity': { required: 'The quantity field is required.' },
      });
      const unknown = await post({ customer_id: 999999, order_items: [{ quantity: 1 }, { id: 999999, quantity: 1 }, { variation_id: 999998, quantity: 1 }] });
      expect(unknown.status).toBe(422);
      expect(unknown.body).toEqual({
        message: 'The selected customer id is invalid.',
        errors: {
          customer_id: { exists: 'The selected customer id is invalid.' },
          'order_items.0.variation_id': { required: 'The variation id field is required.' },
          'order_items.1.id': { exists: 'The selected id is invalid.' },
          'order_items.2.variation_id': { exists: 'The selected variation id is invalid.' },
        },
      });
      const notJson = await app.as(admin).post(`${BASE}/orders`).set('Content-Type', 'application/json').send('{"customer_id":');
      expect(notJson.status).toBe(400);
      expect(await fx.count('store_orders')).toBe(orders);
    });
  });

  it('needs orders/create: 401 without credentials, 403 without the permission', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const body = { customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] };
    const orders = await fx.count('store_orders');
    expect((await app.http.post(`${BASE}/orders`).send(body)).status).toBe(401);
    const clerk = await app.createUser('orders-clerk', ['customer_service']);
    const denied = await post(body, clerk);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
    expect(await fx.count('store_orders')).toBe(orders);
    const manager = await app.createUser('orders-manager', ['order_manager']);
    expect((await post(body, manager)).status).toBe(200);
  });

  it('never counts a coupon past max_uses, whatever the concurrency (one of 8 parallel orders wins)', async () => {
    const customers = [];
    for (let i = 0; i < 8; i++) customers.push(await fx.customer({ address: true }));
    const v = await fx.variation(1000);
    const last = await fx.coupon({ max_uses: 1, type: 'fixed', amount: 100 });
    const results = await Promise.all(
      customers.map((customerId) =>
        post({
          customer_id: customerId,
          order_items: [{ id: v.id, quantity: 1 }],
          applied_coupon: [{ coupon_id: last.id, code: last.code, discounted_amount: 100, stackable: 1 }],
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of results.filter((r) => r.status === 422))
      expect(r.body.errors).toEqual({ 'applied_coupon.0.code': { usage_limit: 'This coupon has reached its usage limit.' } });
    expect(Number((await db()('store_coupons').where({ id: last.id }).first()).use_count)).toBe(1);
    expect(await fx.count('store_applied_coupons', { coupon_id: last.id })).toBe(1);
  });

  it('creates parallel orders with coupons and addresses without deadlocks', async () => {
    const customers = [];
    for (let i = 0; i < 8; i++) customers.push(await fx.customer({ address: true }));
    const v = await fx.variation(1000);
    const open = await fx.coupon({ amount: 10 });
    const results = await Promise.all(
      customers.map((customerId) =>
        post({
          customer_id: customerId,
          order_items: [{ id: v.id, quantity: 1 }],
          applied_coupon: [{ coupon_id: open.id, code: open.code, discounted_amount: 100, stackable: 1 }],
          payment_status: 'paid',
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(Number((await db()('store_coupons').where({ id: open.id }).first()).use_count)).toBe(8);
    const invoices = await db()('store_orders')
      .whereIn(
        'id',
        results.map((r) => r.body.order_id as number),
      )
      .pluck('receipt_number');
    expect(new Set(invoices.map(Number)).size).toBe(8);
    expect(await fx.count('store_order_addresses')).toBeGreaterThanOrEqual(16);
  });
});
