/**
 * An order's stock state (src/modules/orders/stock-state.ts): checkout holds the stock, payment takes it, a cancel or a
 * delete gives back what the order held or took, and only that, once. Driven through the order endpoints.
 */
import { transaction } from '../../src/core/context';
import { holdOrderStock, releaseOrderStock } from '../../src/modules/orders/stock-state';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutOrders } from '../support/checkout-orders';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';

describe('order stock state', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;
  let co: ReturnType<typeof checkoutOrders>;
  let customerId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('stock-admin', ['administrator']);
    fx = orderFixtures(app, NOW);
    co = checkoutOrders(app, admin, NOW);
    customerId = await fx.customer();
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const managed = (stock: number, title = 'Blue mug') => fx.variation(1000, { variation: { title, manage_stock: 1, stock_quantity: stock } });
  const bulk = (body: Record<string, unknown>) => app.as(admin).post(`${BASE}/orders/do-bulk-action`).send(body);
  const cancel = (ids: number[], manageStock = true) =>
    bulk({ action: 'change_order_status', order_ids: ids, new_status: 'canceled', manage_stock: manageStock }).expect(200);
  const orderRow = async (id: number) => db()('store_orders').where({ id }).first();
  const unitsOf = async (orderId: number) =>
    ((await db()('store_order_items').where({ order_id: orderId }).orderBy('id')) as Array<{ stock_units: number | string }>).map((i) => Number(i.stock_units));

  describe('checkout holds (holdOrderStock)', () => {
    it('puts every managed line on hold, leaves unmanaged lines alone and records the units per line', async () => {
      const mug = await managed(10);
      const poster = await fx.variation(500);
      const id = await co.place(customerId, [
        { id: mug.id, quantity: 2 },
        { id: poster.id, quantity: 4 },
        { id: mug.id, quantity: 1 },
      ]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 3 });
      expect(await co.stockOf(poster.id)).toEqual({ quantity: 0, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('held');
      expect(await unitsOf(id)).toEqual([2, 0, 1]);
      const res = await app.as(admin).get(`${BASE}/products/${mug.product_id}`);
      expect(res.body.product.variations[0]).toMatchObject({ stock_quantity: 10, stock_on_hold: 3, stock_available: 7 });
    });

    it('refuses with 422 "Insufficient stock for <Product - Variation>." and the transaction rolls back', async () => {
      const mug = await managed(2, 'Red mug');
      const id = await co.place(customerId, [{ id: mug.id, quantity: 3 }], { hold: false });
      const error = await transaction(app.ctx(), (trx) => holdOrderStock(trx, app.ctx(), id)).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'invalid_state', status: 422, message: expect.stringMatching(/^Insufficient stock for Product \d+ - Red mug\.$/) });
      expect(await co.stockStateOf(id)).toBe('');
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 2, on_hold: 0 });
    });

    it('an order that already holds stock must release it before holding again', async () => {
      const mug = await managed(5);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 1 }]);
      await expect(transaction(app.ctx(), (trx) => holdOrderStock(trx, app.ctx(), id))).rejects.toThrow(`Order #${id} cannot hold stock: its stock is held`);
      await transaction(app.ctx(), async (trx, afterCommit) => {
        expect(await releaseOrderStock(trx, app.ctx(), id, afterCommit)).toBe('held');
        await holdOrderStock(trx, app.ctx(), id);
      });
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 5, on_hold: 1 });
      expect(await co.stockStateOf(id)).toBe('held');
    });
  });

  describe('POST /orders/{order}/mark-as-paid takes the held stock', () => {
    it('held → taken: the hold becomes a sale and store/variation/stock_changed fires', async () => {
      const mug = await managed(10);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 3 }]);
      const changed = fx.record('store/variation/stock_changed');
      const res = await app.as(admin).post(`${BASE}/orders/${id}/mark-as-paid`).send({});
      changed.off();
      expect(res.status).toBe(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 7, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('taken');
      expect(changed.calls.map(([v, previous]) => [v.id, v.stock_quantity, previous])).toEqual([[mug.id, 7, 10]]);
    });

    it('an order created by an admin (no stock state) is paid without touching stock, as before', async () => {
      const mug = await managed(10);
      const res = await app
        .as(admin)
        .post(`${BASE}/orders`)
        .send({ customer_id: customerId, order_items: [{ id: mug.id, quantity: 2 }] });
      await app.as(admin).post(`${BASE}/orders/${res.body.order_id}/mark-as-paid`).send({}).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.stockStateOf(res.body.order_id)).toBe('');
    });

    it('a variation that stopped managing stock since the hold is not taken, and nothing of it goes back later', async () => {
      const mug = await managed(10);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      await db()('store_product_variations').where({ id: mug.id }).update({ manage_stock: 0 });
      await app.as(admin).post(`${BASE}/orders/${id}/mark-as-paid`).send({}).expect(200);
      expect(await unitsOf(id)).toEqual([0]);
      await db()('store_product_variations').where({ id: mug.id }).update({ manage_stock: 1, stock_on_hold: 0 });
      await db()('store_orders').where({ id }).update({ payment_status: 'pending' });
      await cancel([id]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('released');
    });
  });

  describe('POST /orders/{order_id} on a checkout order', () => {
    const update = (id: number, body: Record<string, unknown>) =>
      app
        .as(admin)
        .post(`${BASE}/orders/${id}`)
        .send({ customer_id: customerId, ...body });
    const itemsOf = async (id: number) =>
      ((await db()('store_order_items').where({ order_id: id }).orderBy('id')) as Array<{ id: number; variation_id: number }>).map((i) => ({
        id: Number(i.id),
        variation_id: Number(i.variation_id),
      }));

    it('the hold follows the edited lines: released, then held again for the new quantities', async () => {
      const mug = await managed(10, 'Edited mug');
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      const [item] = await itemsOf(id);
      const res = await update(id, { order_items: [{ id: item.id, variation_id: mug.id, quantity: 5 }] });
      expect(res.status).toBe(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 5 });
      expect(await co.stockStateOf(id)).toBe('held');
    });

    it('more than is available: 422 Insufficient stock, and the order and its hold stay as they were', async () => {
      const mug = await managed(3, 'Scarce mug');
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      const [item] = await itemsOf(id);
      const res = await update(id, { order_items: [{ id: item.id, variation_id: mug.id, quantity: 4 }] });
      expect([res.status, res.body]).toEqual([422, { message: expect.stringMatching(/^Insufficient stock for Product \d+ - Scarce mug\.$/) }]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 3, on_hold: 2 });
      expect(await db()('store_order_items').where({ order_id: id }).pluck('quantity')).toEqual([2]);
    });

    it('canceled through the update: the hold is released', async () => {
      const mug = await managed(4, 'Canceled mug');
      const id = await co.place(customerId, [{ id: mug.id, quantity: 3 }]);
      const [item] = await itemsOf(id);
      const res = await update(id, { status: 'canceled', order_items: [{ id: item.id, variation_id: mug.id, quantity: 3 }] });
      expect(res.status).toBe(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 4, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('released');
    });
  });

  describe('POST /orders/do-bulk-action change_order_status → canceled', () => {
    it('a held (unpaid checkout) order: the hold is released, stock_quantity is untouched, coupon uses come back', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon();
      const id = await co.place(customerId, [{ id: mug.id, quantity: 4 }], { coupons: [coupon] });
      expect(await co.useCountOf(coupon.id)).toBe(1);
      const canceled = fx.record('store/order/canceled');
      await cancel([id]);
      canceled.off();
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('released');
      expect(await co.useCountOf(coupon.id)).toBe(0);
      expect(await unitsOf(id)).toEqual([0]);
      expect(await co.activities(id)).toContainEqual([
        'Order status changed',
        'From on-hold to canceled. Held stock was released. 1 coupon use was given back.',
      ]);
      expect(canceled.calls.map(([o]) => o.id)).toEqual([id]);
    });

    it('without manage_stock a hold is released all the same (a reservation must not outlive its checkout)', async () => {
      const mug = await managed(10);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 4 }]);
      await cancel([id], false);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('released');
    });

    it('a paid (taken) order: with manage_stock its units go back; without, they stay sold; coupon uses of a paid order stay', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon();
      const a = await co.place(customerId, [{ id: mug.id, quantity: 2 }], { coupons: [coupon] });
      const b = await co.place(customerId, [{ id: mug.id, quantity: 3 }]);
      for (const id of [a, b]) await app.as(admin).post(`${BASE}/orders/${id}/mark-as-paid`).send({}).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 5, on_hold: 0 });
      await cancel([a]);
      await cancel([b], false);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 7, on_hold: 0 });
      expect([await co.stockStateOf(a), await co.stockStateOf(b)]).toEqual(['released', 'taken']);
      expect(await co.useCountOf(coupon.id)).toBe(1);
      expect(await co.activities(a)).toContainEqual(['Order status changed', 'From processing to canceled. Stock was restored.']);
    });

    it('an order without a stock state is restocked as before, once: it is then released and a delete gives nothing back again', async () => {
      const mug = await managed(10);
      const res = await app
        .as(admin)
        .post(`${BASE}/orders`)
        .send({ customer_id: customerId, order_items: [{ id: mug.id, quantity: 2 }] });
      const id = res.body.order_id as number;
      await cancel([id]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 12, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('released');
      await bulk({ action: 'delete_orders', order_ids: [id] }).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 12, on_hold: 0 });
    });

    it('five concurrent cancels of one held order release its hold once', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon();
      const other = await co.place(customerId, [{ id: mug.id, quantity: 1 }]);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 3 }], { coupons: [coupon] });
      const canceled = fx.record('store/order/canceled');
      const answers = await Promise.all(Array.from({ length: 5 }, () => cancel([id])));
      canceled.off();
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 1 });
      expect(await co.useCountOf(coupon.id)).toBe(0);
      expect(canceled.calls.map(([o]) => o.id)).toEqual([id]);
      expect(await co.stockStateOf(other)).toBe('held');
    });

    it('two concurrent releases in separate transactions: one releases, the other finds nothing', async () => {
      const mug = await managed(10);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 3 }]);
      const release = () => transaction(app.ctx(), (trx, afterCommit) => releaseOrderStock(trx, app.ctx(), id, afterCommit));
      const outcomes = await Promise.all([release(), release()]);
      expect(outcomes.sort()).toEqual(['held', null].sort());
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
    });

    it('skips lines whose variation was deleted', async () => {
      const mug = await managed(10);
      const gone = await managed(10, 'Gone');
      const id = await co.place(customerId, [
        { id: mug.id, quantity: 1 },
        { id: gone.id, quantity: 1 },
      ]);
      await db()('store_product_variations').where({ id: gone.id }).delete();
      await cancel([id]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
    });
  });

  describe('POST /orders/do-bulk-action change_order_status, leaving canceled', () => {
    it('with manage_stock an unpaid order holds its stock again, a paid one takes it; coupon uses are counted again', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon({ max_uses: 1 });
      const unpaid = await co.place(customerId, [{ id: mug.id, quantity: 2 }], { coupons: [coupon] });
      const paid = await co.place(customerId, [{ id: mug.id, quantity: 3 }]);
      await app.as(admin).post(`${BASE}/orders/${paid}/mark-as-paid`).send({}).expect(200);
      await cancel([unpaid, paid]);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.useCountOf(coupon.id)).toBe(0);
      await bulk({ action: 'change_order_status', order_ids: [unpaid, paid], new_status: 'on-hold', manage_stock: true }).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 7, on_hold: 2 });
      expect([await co.stockStateOf(unpaid), await co.stockStateOf(paid)]).toEqual(['held', 'taken']);
      expect(await co.useCountOf(coupon.id)).toBe(1);
      expect(await co.activities(unpaid)).toContainEqual([
        'Order status changed',
        'From canceled to on-hold. Stock was put on hold. 1 coupon use was counted again.',
      ]);
      expect(await co.activities(paid)).toContainEqual(['Order status changed', 'From canceled to on-hold. Stock was reduced.']);
      await app.as(admin).post(`${BASE}/orders/${unpaid}/mark-as-paid`).send({}).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 5, on_hold: 0 });
    });

    it('without manage_stock nothing is held or taken again', async () => {
      const mug = await managed(10);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      await cancel([id]);
      await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'on-hold' }).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.stockStateOf(id)).toBe('released');
    });

    it('refuses the whole action with 422 when the stock to hold again is gone, changing nothing', async () => {
      const mug = await managed(3, 'Last mug');
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      await cancel([id]);
      await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      const res = await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'on-hold', manage_stock: true });
      expect([res.status, res.body]).toEqual([422, { message: expect.stringMatching(/^Insufficient stock for Product \d+ - Last mug\.$/) }]);
      expect((await orderRow(id)).status).toBe('canceled');
      expect(await co.stockStateOf(id)).toBe('released');
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 3, on_hold: 2 });
    });
  });

  describe('POST /orders/do-bulk-action delete_orders', () => {
    it('gives back an unpaid order held stock and coupon uses', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon();
      const id = await co.place(customerId, [{ id: mug.id, quantity: 4 }], { coupons: [coupon] });
      const res = await bulk({ action: 'delete_orders', order_ids: [id] });
      expect(res.status).toBe(200);
      expect(await orderRow(id)).toBeUndefined();
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
      expect(await co.useCountOf(coupon.id)).toBe(0);
      expect(await co.activities(id)).toContainEqual(['Order deleted', `Order #${id} was deleted. Held stock was released. 1 coupon use was given back.`]);
    });

    it('an unpaid order that took stock gives it back', async () => {
      const mug = await managed(10);
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }]);
      await app.as(admin).post(`${BASE}/orders/${id}/mark-as-paid`).send({}).expect(200);
      await db()('store_orders').where({ id }).update({ status: 'on-hold', payment_status: 'failed' });
      await bulk({ action: 'delete_orders', order_ids: [id] }).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 0 });
    });

    it('a paid test-mode order keeps its sale and its coupon uses (its goods are gone)', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon();
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }], { coupons: [coupon] });
      await db()('store_orders').where({ id }).update({ mode: 'test' });
      await app.as(admin).post(`${BASE}/orders/${id}/mark-as-paid`).send({}).expect(200);
      await bulk({ action: 'delete_orders', order_ids: [id] }).expect(200);
      expect(await orderRow(id)).toBeUndefined();
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 8, on_hold: 0 });
      expect(await co.useCountOf(coupon.id)).toBe(1);
    });

    it('a canceled order whose hold and coupon uses were already given back gives nothing twice', async () => {
      const mug = await managed(10);
      const coupon = await fx.coupon();
      const keep = await co.place(customerId, [{ id: mug.id, quantity: 1 }], { coupons: [coupon] });
      const id = await co.place(customerId, [{ id: mug.id, quantity: 2 }], { coupons: [coupon] });
      await cancel([id]);
      expect(await co.useCountOf(coupon.id)).toBe(1);
      await bulk({ action: 'delete_orders', order_ids: [id] }).expect(200);
      expect(await co.stockOf(mug.id)).toEqual({ quantity: 10, on_hold: 1 });
      expect(await co.useCountOf(coupon.id)).toBe(1);
      expect(await co.stockStateOf(keep)).toBe('held');
    });
  });
});
