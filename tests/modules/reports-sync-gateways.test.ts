/**
 * The order writers the gateways drive keep the report facts and summaries equal to a rebuild: an online checkout
 * settled by the gateway's notification, a second payment of a paid order, a refund made in the gateway's dashboard,
 * a capture of an authorised charge, and the expiry of an unpaid checkout.
 */
import { transaction } from '../../src/core/context';
import type { PaymentGateway } from '../../src/gateways/gateway';
import { expireUnpaidOrders } from '../../src/modules/checkout/expire-unpaid';
import { settleGatewayRefund } from '../../src/modules/payments/refund-settle';
import { settleGatewayPayment } from '../../src/modules/payments/settle';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm, testGateway } from '../support/checkout';
import { expectRebuildAgrees } from './reports-sync-fixtures';

type Row = Record<string, unknown>;

describe('report sync: gateway-driven order changes', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let lamp: { id: number; product_id: number };
  let usMethod: number;
  const online = testGateway('testpay');
  const capturing: PaymentGateway = {
    key: 'holdpay',
    title: 'Hold Pay',
    capabilities: { refund: false, capture: true },
    refund: async () => ({ status: 'failed', message: 'n/a' }),
    capture: async (_ctx, charge) => ({ status: 'success', message: 'Captured.', vendor_id: `cap_${charge.id}` }),
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, online, capturing]);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    lamp = await fx.variation(12_000, { title: 'Lamp' });
    usMethod = await fx.shippingMethod({ title: 'US Standard', charge_amount: 500 }, ['US']);
  }, 120_000);
  afterAll(() => app.close());

  const db = () => app.host.db;
  const factOf = async (orderId: number) => (await db()('store_report_orders').where({ order_id: orderId }).first()) as Row | undefined;

  /** An order placed at checkout with the online test gateway: pending, its charge carrying the gateway's payment id. */
  async function placeOnline(): Promise<{ orderId: number; vendorChargeId: string; total: number }> {
    const cart = await fx.cartWith([[lamp.id, 1]]);
    const res = await fx.place(cart, guestForm({ payment_method: 'testpay', fc_selected_shipping_method: usMethod }));
    expect(res.status).toBe(200);
    const order = await fx.orderOfCart(cart);
    const charge = (await db()('store_order_transactions').where({ order_id: order.id, transaction_type: 'charge' }).first()) as Row;
    return { orderId: Number(order.id), vendorChargeId: String(charge.vendor_charge_id), total: Number(order.total_amount) };
  }

  const settle = (vendorChargeId: string, amount: number) =>
    transaction(app.ctx(), (trx, afterCommit) =>
      settleGatewayPayment(app.ctx(), trx, afterCommit, { method: 'testpay', vendor_charge_id: vendorChargeId, amount }),
    );

  it('a payment the gateway reports, a second payment of the paid order and a refund made at the gateway', async () => {
    const { orderId, vendorChargeId, total } = await placeOnline();
    expect(await factOf(orderId)).toBeUndefined();
    await expectRebuildAgrees(app, 'placed');

    expect(await settle(vendorChargeId, total)).toBe('paid');
    expect(await factOf(orderId)).toMatchObject({ gross: total, refund: 0, payment_status: 'paid', shipping_total: 500 });
    await expectRebuildAgrees(app, 'paid');

    // An earlier attempt's charge the gateway completes later: money the ledger takes on top.
    await db()('store_order_transactions').insert({
      uuid: `second-${orderId}`,
      order_id: orderId,
      transaction_type: 'charge',
      vendor_charge_id: 'tp_late',
      payment_method: 'testpay',
      status: 'pending',
      currency: 'USD',
      total: 700,
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    });
    expect(await settle('tp_late', 700)).toBe('paid_twice');
    expect(await factOf(orderId)).toMatchObject({ gross: total + 700 });
    await expectRebuildAgrees(app, 'paid twice');

    const outcome = await transaction(app.ctx(), (trx, afterCommit) =>
      settleGatewayRefund(app.ctx(), trx, afterCommit, {
        method: 'testpay',
        charge_vendor_id: vendorChargeId,
        refund_vendor_id: 're_dashboard',
        amount: 2500,
        status: 'succeeded',
      }),
    );
    expect(outcome).toBe('settled');
    expect(await factOf(orderId)).toMatchObject({ gross: total + 700, refund: 2500, payment_status: 'partially-refunded' });
    await expectRebuildAgrees(app, 'refunded at the gateway');
  });

  it('a capture of an authorised charge (bulk capture_payments) makes the order counted', async () => {
    const created = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({ customer_id: await fx.customer({ address: true }), order_items: [{ variation_id: lamp.id, quantity: 2 }], payment_method: 'holdpay' });
    expect(created.status).toBe(200);
    const orderId = Number(created.body.order_id);
    const order = (await db()('store_orders').where({ id: orderId }).first()) as Row;
    await db()('store_order_transactions').insert({
      uuid: `auth-${orderId}`,
      order_id: orderId,
      transaction_type: 'charge',
      vendor_charge_id: `pi_${orderId}`,
      payment_method: 'holdpay',
      status: 'authorized',
      currency: 'USD',
      total: Number(order.total_amount),
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    });
    const res = await app
      .as(admin)
      .post(`${BASE}/orders/do-bulk-action`)
      .send({ action: 'capture_payments', order_ids: [orderId] });
    expect(res.status).toBe(200);
    expect(await factOf(orderId)).toMatchObject({ gross: Number(order.total_amount), payment_status: 'paid', items: 2 });
    await expectRebuildAgrees(app, 'captured');
  });

  it('an unpaid checkout that expires stays out of the reports', async () => {
    const { orderId } = await placeOnline();
    expect((await app.as(admin).put(`${BASE}/settings/store`).send({ unpaid_order_ttl_minutes: 30 })).status).toBe(200);
    app.clock.advance(31 * 60 * 1000);
    expect(await expireUnpaidOrders(app.ctx())).toBeGreaterThanOrEqual(1);
    expect(((await db()('store_orders').where({ id: orderId }).first('status')) as Row).status).toBe('canceled');
    expect(await factOf(orderId)).toBeUndefined();
    await expectRebuildAgrees(app, 'expired');
  });
});
