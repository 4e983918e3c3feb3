/**
 * The unpaid-order sweep (src/modules/orders/expire-unpaid.ts, job `store/orders/expire-unpaid` every 5 minutes):
 * checkout orders still waiting for an online payment after `unpaid_order_ttl_minutes` are canceled, their held stock
 * and coupon uses given back, their cart reopened; everything else is left alone.
 */
import { transaction } from '../../src/core/context';
import { expireUnpaidOrder, expireUnpaidOrders } from '../../src/modules/checkout/expire-unpaid';
import { markPaidInTransaction } from '../../src/modules/orders/payments';
import { settleGatewayPayment } from '../../src/modules/payments/settle';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutOrders } from '../support/checkout-orders';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';
const MINUTE = 60_000;

describe('unpaid checkout orders expire', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;
  let co: ReturnType<typeof checkoutOrders>;
  let customerId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('expiry-admin', ['administrator']);
    fx = orderFixtures(app, NOW);
    co = checkoutOrders(app, admin, NOW);
    customerId = await fx.customer();
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const managed = (stock: number) => fx.variation(1000, { variation: { title: 'Lamp', manage_stock: 1, stock_quantity: stock } });
  const statusOf = async (id: number) =>
    (await db()('store_orders').where({ id }).first('status', 'payment_status')) as { status: string; payment_status: string };
  /** Runs due jobs until none is left, as the worker loop does. */
  const runJobs = async () => {
    while ((await app.host.jobs.runDue(50)) > 0);
  };
  const setTtl = (minutes: number) => app.as(admin).put(`${BASE}/settings/store`).send({ unpaid_order_ttl_minutes: minutes });
  /** Every open order of earlier tests is canceled so that each test counts only its own. */
  const sweepEverything = () => expireUnpaidOrders(app.ctx());

  beforeEach(async () => {
    await setTtl(60).expect(200);
    app.clock.advance(24 * 60 * MINUTE);
    await sweepEverything();
  });

  it('the scheduled job cancels an online checkout order unpaid for an hour: stock, coupon uses, cart, activity, hooks once', async () => {
    const lamp = await managed(5);
    const coupon = await fx.coupon();
    const id = await co.place(customerId, [{ id: lamp.id, quantity: 2 }], { coupons: [coupon] });
    const now = app.clock.now().toISOString().slice(0, 19).replace('T', ' ');
    await db()('store_carts').insert({
      cart_hash: `h-${id}`,
      order_id: id,
      stage: 'intended',
      cart_data: '{}',
      checkout_data: '{}',
      expires_at: now,
      created_at: now,
      updated_at: now,
    });
    const canceled = fx.record('store/order/canceled');
    const changed = fx.record('store/order/status_changed');

    app.clock.advance(59 * MINUTE);
    await runJobs();
    expect(await statusOf(id)).toEqual({ status: 'on-hold', payment_status: 'pending' });

    app.clock.advance(6 * MINUTE);
    await runJobs();
    await runJobs();
    canceled.off();
    changed.off();
    expect(await statusOf(id)).toEqual({ status: 'canceled', payment_status: 'pending' });
    expect(await co.stockOf(lamp.id)).toEqual({ quantity: 5, on_hold: 0 });
    expect(await co.stockStateOf(id)).toBe('released');
    expect(await co.useCountOf(coupon.id)).toBe(0);
    expect(
      await db()('store_carts')
        .where({ cart_hash: `h-${id}` })
        .first('stage', 'order_id'),
    ).toEqual({ stage: 'draft', order_id: null });
    expect(await co.activities(id)).toContainEqual([
      'Order canceled',
      'Not paid within 60 minutes: canceled automatically. Held stock was released. 1 coupon use was given back.',
    ]);
    expect(canceled.calls.map(([o, previous]) => [o.id, o.status, previous])).toEqual([[id, 'canceled', 'on-hold']]);
    expect(changed.calls.map(([o, previous]) => [o.id, previous])).toEqual([[id, 'on-hold']]);
  });

  it('leaves offline methods, admin orders, paid, authorized, canceled and recently written orders alone', async () => {
    const lamp = await managed(50);
    const line = [{ id: lamp.id, quantity: 1 }];
    const due = await co.place(customerId, line, { method: 'paypal' });
    const cod = await co.place(customerId, line, { method: 'cod' });
    const bank = await co.place(customerId, line, { method: 'bank_transfer' });
    const paid = await co.place(customerId, line);
    await app.as(admin).post(`${BASE}/orders/${paid}/mark-as-paid`).send({}).expect(200);
    const authorized = await co.place(customerId, line);
    await db()('store_orders').where({ id: authorized }).update({ payment_status: 'authorized' });
    const byAdmin = await app.as(admin).post(`${BASE}/orders`).send({ customer_id: customerId, order_items: line });
    app.clock.advance(61 * MINUTE);
    const touched = await co.place(customerId, line);
    app.clock.advance(30 * MINUTE);

    expect(await sweepEverything()).toBe(1);
    expect(await statusOf(due)).toEqual({ status: 'canceled', payment_status: 'pending' });
    for (const id of [cod, bank, authorized, byAdmin.body.order_id as number, touched]) expect((await statusOf(id)).status).toBe('on-hold');
    expect(await statusOf(paid)).toEqual({ status: 'processing', payment_status: 'paid' });
    expect(await co.stockOf(lamp.id)).toEqual({ quantity: 49, on_hold: 4 });
  });

  it('counts from the last write of the order (a checkout placed again rewrites it), not from its creation', async () => {
    const lamp = await managed(5);
    const id = await co.place(customerId, [{ id: lamp.id, quantity: 1 }]);
    app.clock.advance(50 * MINUTE);
    // Any write of the order counts; here an admin's shipping-status change.
    await app
      .as(admin)
      .post(`${BASE}/orders/do-bulk-action`)
      .send({ action: 'change_shipping_status', order_ids: [id], new_status: 'unshippable' })
      .expect(200);
    app.clock.advance(50 * MINUTE);
    expect(await sweepEverything()).toBe(0);
    app.clock.advance(11 * MINUTE);
    expect(await sweepEverything()).toBe(1);
  });

  it('unpaid_order_ttl_minutes: 0 never expires; the setting is validated', async () => {
    const lamp = await managed(5);
    const id = await co.place(customerId, [{ id: lamp.id, quantity: 1 }]);
    const saved = await setTtl(0);
    expect(saved.status).toBe(200);
    expect(saved.body.settings.unpaid_order_ttl_minutes).toBe(0);
    app.clock.advance(7 * 24 * 60 * MINUTE);
    await runJobs();
    expect((await statusOf(id)).status).toBe('on-hold');
    for (const value of [-1, 1.5, 'soon', 525601]) {
      const res = await setTtl(value as number);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['unpaid_order_ttl_minutes']);
    }
    expect((await app.as(admin).get(`${BASE}/settings/store`)).body.settings.unpaid_order_ttl_minutes).toBe(0);
  });

  it('works through a backlog batch after batch in one sweep', async () => {
    const lamp = await managed(20);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await co.place(customerId, [{ id: lamp.id, quantity: 1 }]));
    app.clock.advance(61 * MINUTE);
    expect(await expireUnpaidOrders(app.ctx(), { batch: 2 })).toBe(5);
    for (const id of ids) expect((await statusOf(id)).status).toBe('canceled');
    expect(await co.stockOf(lamp.id)).toEqual({ quantity: 20, on_hold: 0 });
  });

  it('an order that cannot be canceled is logged and left for the next sweep; the others go on', async () => {
    const broken = await managed(5);
    const fine = await managed(5);
    const a = await co.place(customerId, [{ id: broken.id, quantity: 2 }]);
    const b = await co.place(customerId, [{ id: fine.id, quantity: 2 }]);
    await db()('store_product_variations').where({ id: broken.id }).update({ stock_on_hold: 1 });
    app.clock.advance(61 * MINUTE);
    expect(await sweepEverything()).toBe(1);
    expect((await statusOf(a)).status).toBe('on-hold');
    expect(await co.stockStateOf(a)).toBe('held');
    expect((await statusOf(b)).status).toBe('canceled');
    expect(app.logger.entries.filter((e) => e.msg === 'unpaid order could not be canceled').map((e) => (e.obj as { orderId: number }).orderId)).toEqual([a]);
    await db()('store_product_variations').where({ id: broken.id }).update({ stock_on_hold: 2 });
    expect(await sweepEverything()).toBe(1);
    expect(await co.stockOf(broken.id)).toEqual({ quantity: 5, on_hold: 0 });
  });

  it('a payment and the expiry arriving together: exactly one wins, and stock ends consistent', async () => {
    const lamp = await managed(5);
    const id = await co.place(customerId, [{ id: lamp.id, quantity: 2 }]);
    app.clock.advance(61 * MINUTE);
    const paid = fx.record('store/order/paid');
    const canceled = fx.record('store/order/canceled');
    const [expired, payment] = await Promise.allSettled([
      expireUnpaidOrder(app.ctx(), id, 60),
      transaction(app.ctx(), (trx, afterCommit) => markPaidInTransaction(app.ctx(), trx, afterCommit, id, {})),
    ]);
    paid.off();
    canceled.off();
    const status = await statusOf(id);
    if (status.status === 'canceled') {
      expect([expired, payment.status]).toEqual([{ status: 'fulfilled', value: true }, 'rejected']);
      expect(await co.stockOf(lamp.id)).toEqual({ quantity: 5, on_hold: 0 });
      expect([paid.calls.length, canceled.calls.length]).toEqual([0, 1]);
    } else {
      expect([expired, payment.status]).toEqual([{ status: 'fulfilled', value: false }, 'fulfilled']);
      expect(await co.stockOf(lamp.id)).toEqual({ quantity: 3, on_hold: 0 });
      expect([paid.calls.length, canceled.calls.length]).toEqual([1, 0]);
    }
  });

  it('money arriving for an expired order (settleGatewayPayment) is recorded for a refund; the stock stays released', async () => {
    const lamp = await managed(5);
    const id = await co.place(customerId, [{ id: lamp.id, quantity: 2 }], { vendorChargeId: 'pi_late_1' });
    app.clock.advance(61 * MINUTE);
    expect(await sweepEverything()).toBe(1);
    const paid = fx.record('store/order/paid');
    const outcome = await transaction(app.ctx(), (trx, afterCommit) =>
      settleGatewayPayment(app.ctx(), trx, afterCommit, { method: 'stripe', vendor_charge_id: 'pi_late_1', amount: 2000 }),
    );
    paid.off();
    expect(outcome).toBe('paid_after_cancel');
    expect((await statusOf(id)).status).toBe('canceled');
    expect(await co.stockStateOf(id)).toBe('released');
    expect(await co.stockOf(lamp.id)).toEqual({ quantity: 5, on_hold: 0 });
    const charge = await db()('store_order_transactions').where({ order_id: id }).first('status', 'total');
    expect([charge.status, Number(charge.total)]).toEqual(['succeeded', 2000]);
    expect(paid.calls).toEqual([]);
    expect((await co.activities(id)).map(([title]) => title)).toContain('Payment received for a canceled order');
  });
});
