import { presentAppliedCoupon, presentOrder, presentOrderItem, type OrderRow } from '../../src/modules/order-records/presenter';
import { createOrder } from '../../src/modules/orders/write';
import type { CreateOrderBody } from '../../src/modules/orders/write-schemas';
import { deleteProduct } from '../../src/modules/products/service';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';

describe('POST /orders/{order_id}', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('update-admin', ['administrator']);
    fx = orderFixtures(app, NOW);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const update = (id: number, body: Record<string, unknown>, user: TestUser = admin) => app.as(user).post(`${BASE}/orders/${id}`).send(body);
  const orderOf = async (id: number) => presentOrder((await db()('store_orders').where({ id }).first()) as OrderRow);
  const itemsOf = async (id: number) =>
    ((await db()('store_order_items').where({ order_id: id }).orderBy('cart_index')) as Array<Record<string, unknown>>).map(presentOrderItem);
  const appliedOf = async (id: number) => (await db()('store_applied_coupons').where({ order_id: id }).orderBy('id')).map(presentAppliedCoupon);
  const useCount = async (couponId: number) => Number((await db()('store_coupons').where({ id: couponId }).first()).use_count);
  /** Every stored row of an order: what "unchanged" is compared with. */
  const snapshot = async (id: number) => ({
    order: await db()('store_orders').where({ id }).first(),
    items: await db()('store_order_items').where({ order_id: id }).orderBy('id'),
    coupons: await db()('store_applied_coupons').where({ order_id: id }).orderBy('id'),
  });

  /** The order's only item, sent back with another quantity (replacing it, not adding a line). */
  async function same(orderId: number, quantity: number, over: Record<string, unknown> = {}) {
    const [item] = await itemsOf(orderId);
    return [{ id: item.id, variation_id: item.variation_id as number, quantity, ...over }];
  }

  async function order(body: Partial<CreateOrderBody> & Pick<CreateOrderBody, 'customer_id' | 'order_items'>): Promise<number> {
    return (await createOrder(app.ctx(), body as CreateOrderBody)).order_id;
  }

  it('replaces the items sent, keeps the others, removes deletedItems and recomputes every total', async () => {
    const customerId = await fx.customer();
    const [a, b, c, d] = await Promise.all([fx.variation(1000), fx.variation(250), fx.variation(400), fx.variation(3333)]);
    const id = await order({
      customer_id: customerId,
      order_items: [
        { id: a.id, quantity: 1 },
        { id: b.id, quantity: 2 },
        { id: c.id, quantity: 1 },
      ],
    });
    const [itemA, itemB, itemC] = await itemsOf(id);
    const res = await update(id, {
      customer_id: customerId,
      order_items: [
        { id: itemA.id, variation_id: a.id, quantity: 3 },
        { variation_id: d.id, quantity: 3 },
      ],
      deletedItems: [itemC.id],
      subtotal: 1,
      total_amount: 1,
    });
    expect(res.status).toBe(200);
    const stored = await orderOf(id);
    expect(res.body).toEqual({ message: 'Order updated successfully', order: stored });
    expect(stored).toMatchObject({ subtotal: 3000 + 500 + 9999, total_amount: 13499 });
    const items = await itemsOf(id);
    expect(items.map((i) => [i.id, i.variation_id, i.quantity, i.cart_index, i.subtotal])).toEqual([
      [itemA.id, a.id, 3, 0, 3000],
      [itemB.id, b.id, 2, 1, 500],
      [expect.any(Number), d.id, 3, 2, 9999],
    ]);
    expect(items[2].id).not.toBe(itemC.id);
    const activity = await db()('store_activities').where({ object_type: 'order', object_id: id, title: 'Order updated' }).first();
    expect(activity.content).toBe('2 item(s) kept, 1 added, 1 removed; total 19.00 USD → 134.99 USD.');
  });

  it("keeps a stored item's own title and price when the catalogue changes, unless a price is sent", async () => {
    const customerId = await fx.customer();
    const a = await fx.variation(1000, { title: 'Original title' });
    const b = await fx.variation(700);
    const id = await order({ customer_id: customerId, order_items: [{ id: a.id, quantity: 1 }] });
    const [item] = await itemsOf(id);
    await db()('store_product_variations').where({ id: a.id }).update({ price: 5000 });
    await deleteProduct(app.ctx(), a.product_id);
    const res = await update(id, { customer_id: customerId, order_items: [{ id: item.id, variation_id: a.id, quantity: 2 }] });
    expect(res.status).toBe(200);
    expect((await itemsOf(id)).map((i) => [i.id, i.post_title, i.unit_price, i.subtotal])).toEqual([[item.id, 'Original title', 1000, 2000]]);
    await update(id, { customer_id: customerId, order_items: [{ id: item.id, variation_id: a.id, quantity: 2, unit_price: 900 }] }).expect(200);
    expect((await orderOf(id)).total_amount).toBe(1800);
    // the same item id switched to another variation takes that variation's copies
    await update(id, { customer_id: customerId, order_items: [{ id: item.id, variation_id: b.id, quantity: 1 }] }).expect(200);
    expect((await itemsOf(id)).map((i) => [i.id, i.variation_id, i.unit_price])).toEqual([[item.id, b.id, 700]]);
  });

  it('answers 404, and 400 for subscription orders and a completed status, changing nothing', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const body = { customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] };
    const missing = await update(999999, body);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Order not found' });
    for (const type of ['subscription', 'renewal']) {
      const id = await insertOrder(db(), customerId, NOW, { type, status: 'processing' });
      const before = await snapshot(id);
      const res = await update(id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Subscription Order cannot be edited' });
      expect(await snapshot(id)).toEqual(before);
    }
    const id = await order(body);
    const before = await snapshot(id);
    const completed = await update(id, { ...body, status: 'completed' });
    expect(completed.status).toBe(400);
    expect(completed.body).toEqual({ message: 'Completed status can not be updated' });
    expect(await snapshot(id)).toEqual(before);
  });

  it('edits a completed order without a status (the spec refuses only a requested completed status)', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000, { fulfillment_type: 'digital' });
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], status: 'completed' });
    const res = await update(id, { customer_id: customerId, order_items: await same(id, 2), note: 'Second licence' });
    expect(res.status).toBe(200);
    expect(res.body.order).toMatchObject({ status: 'completed', note: 'Second licence', total_amount: 2000 });
  });

  it('derives the fulfilment type and a starting shipping status from the lines', async () => {
    const customerId = await fx.customer();
    const ebook = await fx.variation(500, { fulfillment_type: 'digital' });
    const mug = await fx.variation(700);
    const id = await order({ customer_id: customerId, order_items: [{ id: ebook.id, quantity: 1 }] });
    expect(await orderOf(id)).toMatchObject({ fulfillment_type: 'digital', shipping_status: '' });
    await update(id, { customer_id: customerId, order_items: [{ variation_id: mug.id, quantity: 1 }], fulfillment_type: 'digital' }).expect(200);
    expect(await orderOf(id)).toMatchObject({ fulfillment_type: 'physical', shipping_status: 'unshipped' });
    const [, mugItem] = await itemsOf(id);
    await update(id, { customer_id: customerId, order_items: await same(id, 2), deletedItems: [mugItem.id] }).expect(200);
    expect(await orderOf(id)).toMatchObject({ fulfillment_type: 'digital', shipping_status: '', total_amount: 1000 });
  });

  it('refuses items and deletedItems that are not the order’s, or both updated and deleted (422, nothing changed)', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    const otherId = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    const [mine] = await itemsOf(id);
    const [foreign] = await itemsOf(otherId);
    const before = await snapshot(id);
    const cases: Array<[Record<string, unknown>, Record<string, Record<string, string>>]> = [
      [
        { order_items: [{ id: foreign.id, variation_id: v.id, quantity: 1 }] },
        { 'order_items.0.id': { exists: 'The selected item is not part of this order.' } },
      ],
      [
        {
          order_items: [
            { id: mine.id, variation_id: v.id, quantity: 1 },
            { id: mine.id, variation_id: v.id, quantity: 2 },
          ],
        },
        { 'order_items.1.id': { distinct: 'The id field has a duplicate value.' } },
      ],
      [
        { order_items: [{ id: v.id, quantity: 1 }], deletedItems: [foreign.id] },
        { deletedItems: { exists: 'The selected deleted items are not part of this order.' } },
      ],
      [
        { order_items: [{ id: mine.id, variation_id: v.id, quantity: 1 }], deletedItems: [mine.id] },
        { deletedItems: { prohibited: 'An item cannot be both updated and deleted.' } },
      ],
      [{ order_items: [{ id: v.id, quantity: 1 }], deletedItems: ['one'] }, { 'deletedItems.0': { integer: 'The deletedItems field must be an integer.' } }],
      [{ order_items: [] }, { order_items: { min: 'The order items field must have at least one item.' } }],
    ];
    for (const [over, errors] of cases) {
      const res = await update(id, { customer_id: customerId, ...over });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(errors);
      expect(await snapshot(id)).toEqual(before);
    }
    const noCustomer = await update(id, { order_items: [{ id: v.id, quantity: 1 }] });
    expect(noCustomer.body).toEqual({
      message: 'The customer id field is required.',
      errors: { customer_id: { required: 'The customer id field is required.' } },
    });
    const badCustomer = await update(id, { customer_id: 999999, order_items: [{ id: v.id, quantity: 1 }], note: 'x'.repeat(5001) });
    expect(badCustomer.body.errors).toEqual({ note: { max: 'The note field must not be greater than 5000 characters.' } });
  });

  it('keeps the discount and shipping when absent, replaces them when sent and clears them with null', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(3333);
    const id = await order({
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 3 }],
      discount: { type: 'percentage', value: 10 },
      shipping: [{ type: 'custom', rate_name: 'Courier', custom_price: 500 }],
    });
    expect(await orderOf(id)).toMatchObject({ manual_discount_total: 1000, shipping_total: 500, total_amount: 9499 });
    await update(id, { customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] }).expect(200);
    // an item sent without its item id is a new line; the same 10% (of 133.32: 13.332 → 13.33) and shipping apply
    expect(await orderOf(id)).toMatchObject({ subtotal: 13332, manual_discount_total: 1333, shipping_total: 500, total_amount: 12499 });
    await update(id, {
      customer_id: customerId,
      order_items: [{ id: v.id, quantity: 1 }],
      discount: { type: 'fixed', value: 2 },
      shipping: [{ rate_name: 'Pickup', custom_price: 0 }],
    }).expect(200);
    expect(await orderOf(id)).toMatchObject({ subtotal: 16665, manual_discount_total: 2, shipping_total: 0, total_amount: 16663 });
    await update(id, { customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], discount: null, shipping: null }).expect(200);
    expect(await orderOf(id)).toMatchObject({ subtotal: 19998, manual_discount_total: 0, shipping_total: 0, total_amount: 19998 });
    const config = JSON.parse((await db()('store_orders').where({ id }).first('config')).config);
    expect(config).toMatchObject({ discount: null, shipping: [] });
  });

  it('keeps the shipping total and manual discount of an order written elsewhere until the body replaces them', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await insertOrder(
      db(),
      customerId,
      NOW,
      { status: 'processing', payment_status: 'pending', total_paid: 0, subtotal: 2000, shipping_total: 450, manual_discount_total: 300, total_amount: 2150 },
      [{ variation_id: v.id, post_id: v.product_id, quantity: 2, unit_price: 1000, subtotal: 2000, line_total: 1700, fulfillment_type: 'physical' }],
    );
    await update(id, { customer_id: customerId, order_items: await same(id, 3) }).expect(200);
    expect(await orderOf(id)).toMatchObject({ subtotal: 3000, shipping_total: 450, manual_discount_total: 300, total_amount: 3150 });
    await update(id, { customer_id: customerId, order_items: await same(id, 3), shipping: [], discount: null }).expect(200);
    expect(await orderOf(id)).toMatchObject({ shipping_total: 0, manual_discount_total: 0, total_amount: 3000 });
  });

  it('keeps applied coupons when absent (even expired since), replaces them as sent and moves their use counts', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const first = await fx.coupon({ amount: 10 });
    const second = await fx.coupon({ type: 'fixed', amount: 300 });
    const entry = (c: { id: number; code: string }) => ({ coupon_id: c.id, code: c.code, discounted_amount: 0, stackable: 1 as const });
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], applied_coupon: [entry(first)] });
    expect(await useCount(first.id)).toBe(1);
    await db()('store_coupons').where({ id: first.id }).update({ ends_at: '2026-01-01 00:00:00', max_uses: 1 });

    await update(id, { customer_id: customerId, order_items: await same(id, 2) }).expect(200);
    expect(await orderOf(id)).toMatchObject({ coupon_discount_total: 200, total_amount: 1800 });
    expect((await appliedOf(id)).map((a) => [a.coupon_id, a.discounted_amount])).toEqual([[first.id, 200]]);
    expect(await useCount(first.id)).toBe(1);

    const fired = fx.record('store/order/updated');
    await update(id, { customer_id: customerId, order_items: await same(id, 2), applied_coupon: [entry(first), entry(second)] }).expect(200);
    expect((await appliedOf(id)).map((a) => [a.coupon_id, a.discounted_amount])).toEqual([
      [first.id, 200],
      [second.id, 300],
    ]);
    expect([await useCount(first.id), await useCount(second.id)]).toEqual([1, 1]);

    await update(id, { customer_id: customerId, order_items: await same(id, 2), applied_coupon: [entry(second)] }).expect(200);
    expect([await useCount(first.id), await useCount(second.id)]).toEqual([0, 1]);
    expect(await orderOf(id)).toMatchObject({ coupon_discount_total: 300, total_amount: 1700 });

    // the first coupon is expired now: adding it back is refused like any new coupon
    const refused = await update(id, { customer_id: customerId, order_items: await same(id, 2), applied_coupon: [entry(second), entry(first)] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ 'applied_coupon.1.code': { expired: 'This coupon has expired.' } });

    await update(id, { customer_id: customerId, order_items: await same(id, 2), applied_coupon: [] }).expect(200);
    fired.off();
    expect(await appliedOf(id)).toEqual([]);
    expect([await useCount(first.id), await useCount(second.id)]).toEqual([0, 0]);
    expect(fired.calls.map(([o, previous]) => [previous.coupon_discount_total, o.coupon_discount_total])).toEqual([
      [200, 500],
      [500, 300],
      [300, 0],
    ]);
  });

  it('follows the ledger on a paid order: a higher total makes it partially paid, payment_status paid charges the rest', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 2 }], payment_status: 'paid' });
    expect(await orderOf(id)).toMatchObject({ payment_status: 'paid', status: 'processing', total_paid: 2000 });
    const changes = fx.record('store/order/payment_status_changed');
    const paid = fx.record('store/order/paid');

    await update(id, { customer_id: customerId, order_items: await same(id, 3), payment_status: 'pending', total_paid: 9999 }).expect(200);
    expect(await orderOf(id)).toMatchObject({ payment_status: 'partially-paid', total_amount: 3000, total_paid: 2000 });

    const res = await update(id, { customer_id: customerId, order_items: await same(id, 3), payment_status: 'paid' });
    expect(res.status).toBe(200);
    expect(res.body.order).toMatchObject({ payment_status: 'paid', total_amount: 3000, total_paid: 3000 });
    const charges = await db()('store_order_transactions').where({ order_id: id }).orderBy('id');
    expect(charges.map((t) => [t.transaction_type, t.status, Number(t.total)])).toEqual([
      ['charge', 'succeeded', 2000],
      ['charge', 'succeeded', 1000],
    ]);
    await update(id, { customer_id: customerId, order_items: await same(id, 2), payment_status: 'paid' }).expect(200);
    expect(await orderOf(id)).toMatchObject({ payment_status: 'paid', total_amount: 2000, total_paid: 3000 });
    changes.off();
    paid.off();
    expect(changes.calls.map(([o, previous]) => [previous, o.payment_status])).toEqual([
      ['paid', 'partially-paid'],
      ['partially-paid', 'paid'],
    ]);
    expect(paid.calls).toHaveLength(1);
    expect(Number((await db()('store_customers').where({ id: customerId }).first()).ltv)).toBe(3000);
  });

  it('lets an unpaid order be set pending or failed, and ignores those on a paid one', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    await update(id, { customer_id: customerId, order_items: await same(id, 1), payment_status: 'failed' }).expect(200);
    expect((await orderOf(id)).payment_status).toBe('failed');
    await update(id, { customer_id: customerId, order_items: await same(id, 1), payment_status: 'refunded' }).expect(200);
    expect((await orderOf(id)).payment_status).toBe('failed');
    const paidId = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }], payment_status: 'paid' });
    await update(paidId, { customer_id: customerId, order_items: await same(paidId, 1), payment_status: 'failed' }).expect(200);
    expect((await orderOf(paidId)).payment_status).toBe('paid');
  });

  it('fires updated with the previous order, status_changed and canceled when the status changes', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    const updated = fx.record('store/order/updated');
    const status = fx.record('store/order/status_changed');
    const canceled = fx.record('store/order/canceled');
    await update(id, { customer_id: customerId, order_items: await same(id, 1), status: 'processing' }).expect(200);
    await update(id, { customer_id: customerId, order_items: await same(id, 1), note: 'no status change' }).expect(200);
    await update(id, { customer_id: customerId, order_items: await same(id, 1), status: 'canceled' }).expect(200);
    updated.off();
    status.off();
    canceled.off();
    expect(updated.calls.map(([o, previous]) => [previous.status, o.status])).toEqual([
      ['on-hold', 'processing'],
      ['processing', 'processing'],
      ['processing', 'canceled'],
    ]);
    expect(status.calls.map(([o, previous]) => [previous, o.status])).toEqual([
      ['on-hold', 'processing'],
      ['processing', 'canceled'],
    ]);
    expect(canceled.calls.map(([o, previous]) => [o.id, previous])).toEqual([[id, 'processing']]);
    const log = await db()('store_activities').where({ object_type: 'order', object_id: id, title: 'Order updated' }).orderBy('id');
    expect(log.map((a) => a.content)).toEqual([
      '1 item(s) kept, 0 added, 0 removed; status on-hold → processing.',
      '1 item(s) kept, 0 added, 0 removed.',
      '1 item(s) kept, 0 added, 0 removed; status processing → canceled.',
    ]);
  });

  it('moves the order to another customer: addresses, statistics and customer_changed follow', async () => {
    const from = await fx.customer({ address: true });
    const to = await fx.customer();
    await db()('store_customer_addresses').insert({
      customer_id: to,
      type: 'billing',
      is_primary: 1,
      primary_slot: 'billing',
      name: 'New owner',
      city: 'Berlin',
      country: 'DE',
      postcode: '10115',
      meta: '{}',
      created_at: NOW,
      updated_at: NOW,
    });
    const v = await fx.variation(1000);
    const id = await order({ customer_id: from, order_items: [{ id: v.id, quantity: 1 }], payment_status: 'paid' });
    expect(Number((await db()('store_customers').where({ id: from }).first()).ltv)).toBe(1000);
    const moved = fx.record('store/order/customer_changed');
    await update(id, { customer_id: to, order_items: await same(id, 1) }).expect(200);
    moved.off();
    expect((await orderOf(id)).customer_id).toBe(to);
    expect(moved.calls.map(([o, previous]) => [o.customer_id, previous])).toEqual([[to, from]]);
    expect((await db()('store_order_addresses').where({ order_id: id })).map((a) => [a.type, a.city])).toEqual([['billing', 'Berlin']]);
    const ltv = async (customerId: number) => Number((await db()('store_customers').where({ id: customerId }).first()).ltv);
    expect([await ltv(from), await ltv(to)]).toEqual([0, 1000]);
  });

  it('needs orders/manage: 401 without credentials, 403 without the permission', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    const body = { customer_id: customerId, order_items: [{ id: v.id, quantity: 5 }] };
    const before = await snapshot(id);
    expect((await app.http.post(`${BASE}/orders/${id}`).send(body)).status).toBe(401);
    const clerk = await app.createUser('update-clerk', ['customer_service']);
    expect((await update(id, body, clerk)).status).toBe(403);
    expect(await snapshot(id)).toEqual(before);
    const manager = await app.createUser('update-manager', ['order_manager']);
    expect((await update(id, body, manager)).status).toBe(200);
  });

  it('serialises parallel updates of one order: the stored totals always match the stored items', async () => {
    const customerId = await fx.customer();
    const v = await fx.variation(1000);
    const w = await fx.variation(1);
    const id = await order({ customer_id: customerId, order_items: [{ id: v.id, quantity: 1 }] });
    const [item] = await itemsOf(id);
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((quantity) =>
        update(id, {
          customer_id: customerId,
          order_items: [
            { id: item.id, variation_id: v.id, quantity },
            { variation_id: w.id, quantity },
          ],
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const items = await itemsOf(id);
    expect(items).toHaveLength(7);
    const stored = await orderOf(id);
    expect(stored.subtotal).toBe(items.reduce((sum, i) => sum + i.subtotal, 0));
    expect(stored.total_amount).toBe(stored.subtotal);
  });
});
