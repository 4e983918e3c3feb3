import type { GatewayResult, GatewayTransaction, PaymentGateway } from '../../src/gateways/gateway';
import type { ActionMap, ActionName } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

type FakeMode = 'success' | 'failed' | 'throw';

/** An online gateway registered through `store/payment_gateways`: it records its calls and answers as told. */
function fakeGateway() {
  const calls: Array<{ transaction: GatewayTransaction; amount: number }> = [];
  const state = { mode: 'success' as FakeMode };
  const gateway: PaymentGateway = {
    key: 'fakepay',
    title: 'Fake Pay',
    capabilities: { refund: true, capture: true },
    async refund(_ctx, transaction, amount): Promise<GatewayResult> {
      calls.push({ transaction, amount });
      if (state.mode === 'throw') throw new Error('socket hang up');
      if (state.mode === 'failed') return { status: 'failed', message: 'Charge has already been refunded at Fake Pay.' };
      return { status: 'success', message: 'Refunded at Fake Pay.', vendor_id: `re_${transaction.order_id}_${calls.length}` };
    },
    capture: async () => ({ status: 'success', message: 'Captured.' }),
  };
  return { gateway, calls, state };
}

describe('POST /orders/{order_id}/refund', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let productManager: TestUser;
  let orderManager: TestUser;
  let customerId: number;
  const fake = fakeGateway();

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    productManager = await app.createUser('pm', ['product_manager']);
    orderManager = await app.createUser('om', ['order_manager']);
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, fake.gateway]);
    const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'refunds@example.com', first_name: 'Refund' });
    expect(res.status).toBe(200);
    customerId = res.body.data.id;
  });
  afterAll(() => app.close());
  beforeEach(() => {
    fake.state.mode = 'success';
    fake.calls.length = 0;
  });

  const db = () => app.host.db;
  const refund = (orderId: number, refund_info: Record<string, unknown> | undefined, user: TestUser = admin) =>
    app
      .as(user)
      .post(`${BASE}/orders/${orderId}/refund`)
      .send(refund_info === undefined ? {} : { refund_info });

  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  function recordRefundHooks() {
    const hooks = {
      refunded: record('store/order/refunded'),
      full: record('store/order/fully_refunded'),
      partial: record('store/order/partially_refunded'),
      payment: record('store/order/payment_status_changed'),
    };
    return { ...hooks, off: () => Object.values(hooks).forEach((h) => h.off()) };
  }

  /** An order paid through mark-as-paid; returns the order id and its charge's id. */
  async function paidOrder(total: number, paymentMethod = 'offline', customer = customerId): Promise<{ orderId: number; chargeId: number }> {
    const orderId = await insertOrderRow(db(), customer, NOW, {
      invoice_no: '',
      status: 'on-hold',
      payment_status: 'pending',
      total_amount: total,
      total_paid: 0,
    });
    const res = await app
      .as(admin)
      .post(`${BASE}/orders/${orderId}/mark-as-paid`)
      .send({ payment_method: paymentMethod, vendor_charge_id: `ch_${orderId}` });
    expect(res.status).toBe(200);
    const charge = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge' }).first();
    return { orderId, chargeId: Number(charge.id) };
  }

  const orderRow = (id: number) => db()('store_orders').where({ id }).first();
  const refundRows = (id: number) => db()('store_order_transactions').where({ order_id: id, transaction_type: 'refund' }).orderBy('id');

  it('401 for anonymous callers, 403 without orders/can_refund', async () => {
    const { orderId, chargeId } = await paidOrder(1000);
    const anonymous = await app.http.post(`${BASE}/orders/${orderId}/refund`).send({ refund_info: { transaction_id: chargeId, amount: '1' } });
    expect(anonymous.status).toBe(401);
    for (const user of [clerk, productManager]) {
      const res = await refund(orderId, { transaction_id: chargeId, amount: '1' }, user);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('rest_forbidden');
    }
    expect(await refundRows(orderId)).toHaveLength(0);
    expect((await refund(orderId, { transaction_id: chargeId, amount: '1' }, orderManager)).status).toBe(200);
  });

  it('422 Transaction ID is required / Refund amount is required, and clear 422s for ill-formed amounts', async () => {
    const { orderId, chargeId } = await paidOrder(1000);
    const cases: Array<[Record<string, unknown> | undefined, string, Record<string, Record<string, string>>]> = [
      [undefined, 'Transaction ID is required', { 'refund_info.transaction_id': { required: 'Transaction ID is required' } }],
      [{ amount: '5' }, 'Transaction ID is required', { 'refund_info.transaction_id': { required: 'Transaction ID is required' } }],
      [{ transaction_id: '', amount: '5' }, 'Transaction ID is required', { 'refund_info.transaction_id': { required: 'Transaction ID is required' } }],
      [{ transaction_id: chargeId }, 'Refund amount is required', { 'refund_info.amount': { required: 'Refund amount is required' } }],
      [{ transaction_id: chargeId, amount: '' }, 'Refund amount is required', { 'refund_info.amount': { required: 'Refund amount is required' } }],
    ];
    for (const [body, message, errors] of cases) {
      const res = await refund(orderId, body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message, errors });
    }
    const wrongId = await refund(orderId, { transaction_id: 'abc', amount: '5' });
    expect(wrongId.status).toBe(422);
    expect(wrongId.body.message).toBe('The transaction ID must be an integer.');
    const badFormat = 'The refund amount must be a decimal amount with at most two decimal places, e.g. 12.50.';
    for (const amount of ['abc', '1.234', '1e3', '12,50', ' ', 0.1 + 0.2]) {
      const res = await refund(orderId, { transaction_id: chargeId, amount });
      expect([amount, res.status, res.body]).toEqual([amount, 422, { message: badFormat, errors: { 'refund_info.amount': { numeric: badFormat } } }]);
    }
    for (const amount of ['0', '0.00', '-5', -1]) {
      const res = await refund(orderId, { transaction_id: chargeId, amount });
      expect([amount, res.status, res.body.message]).toEqual([amount, 422, 'The refund amount must be greater than zero.']);
    }
    expect(await refundRows(orderId)).toHaveLength(0);
    expect(Number((await orderRow(orderId)).total_refund)).toBe(0);
  });

  it('404 Order not found', async () => {
    const res = await refund(999999, { transaction_id: 1, amount: '1' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Order not found' });
  });

  it('400 Order can not be refunded: unpaid order, foreign or non-charge transaction, nothing left', async () => {
    const unpaid = await insertOrderRow(db(), customerId, NOW, { payment_status: 'pending', status: 'on-hold', total_paid: 0 });
    const other = await paidOrder(1000);
    const { orderId, chargeId } = await paidOrder(1000);
    const attempts: Array<[number, Record<string, unknown>]> = [
      [unpaid, { transaction_id: chargeId, amount: '1' }],
      [orderId, { transaction_id: other.chargeId, amount: '1' }],
      [orderId, { transaction_id: 999999, amount: '1' }],
    ];
    for (const [id, body] of attempts) {
      const res = await refund(id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Order can not be refunded' });
    }
    const full = await refund(orderId, { transaction_id: chargeId, amount: '10.00' });
    expect(full.status).toBe(200);
    const [refundRow] = await refundRows(orderId);
    for (const body of [
      { transaction_id: chargeId, amount: '0.01' },
      { transaction_id: Number(refundRow.id), amount: '0.01' },
    ]) {
      const res = await refund(orderId, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Order can not be refunded' });
    }
    expect(await refundRows(orderId)).toHaveLength(1);
    expect(await refundRows(unpaid)).toHaveLength(0);
  });

  it('a partial then a full refund through an offline gateway: rows, totals, statuses, customer stats, activity, hooks', async () => {
    const created = await app.as(admin).post(`${BASE}/customers`).send({ email: 'partial@example.com', first_name: 'Partial' });
    const buyer: number = created.body.data.id;
    const { orderId, chargeId } = await paidOrder(5000, 'offline', buyer);
    const statusBefore = (await orderRow(orderId)).status;

    const hooks = recordRefundHooks();
    const first = await refund(orderId, { transaction_id: String(chargeId), amount: '12.34' });
    hooks.off();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      fluent_cart_refund: { status: 'success', message: expect.stringContaining('Refund of 12.34 USD recorded') },
      gateway_refund: { status: 'skipped', message: 'Offline payment refunds are made outside the store; the refund was recorded only.' },
      subscription_cancel: { status: 'skipped', message: 'Canceling the subscription was not requested.' },
    });
    const [row] = await refundRows(orderId);
    expect(row).toMatchObject({ status: 'refunded', payment_method: 'offline', currency: 'USD' });
    expect(Number(row.total)).toBe(1234);
    expect(JSON.parse(row.meta)).toMatchObject({ parent_transaction_id: chargeId, gateway_status: 'skipped' });
    let order = await orderRow(orderId);
    expect([Number(order.total_paid), Number(order.total_refund), order.payment_status, order.status, order.refunded_at]).toEqual([
      5000,
      1234,
      'partially-refunded',
      statusBefore,
      NOW,
    ]);
    let customer = await db()('store_customers').where({ id: buyer }).first();
    expect([Number(customer.ltv), Number(customer.purchase_count)]).toEqual([5000 - 1234, 1]);
    const refundInfo = { amount: 1234, transaction_id: chargeId, refund_transaction_id: Number(row.id) };
    expect(hooks.refunded.calls.map(([o, r]) => [o.id, o.total_refund, r])).toEqual([[orderId, 1234, refundInfo]]);
    expect(hooks.partial.calls.map(([o, r]) => [o.id, r])).toEqual([[orderId, refundInfo]]);
    expect(hooks.full.calls).toHaveLength(0);
    expect(hooks.payment.calls.map(([o, previous]) => [o.payment_status, previous])).toEqual([['partially-refunded', 'paid']]);
    const activity = await db()('store_activities').where({ object_type: 'order', object_id: orderId, title: 'Order refunded' }).first();
    expect(activity.content).toContain('12.34 USD');

    const more = await refund(orderId, { transaction_id: chargeId, amount: '37.67' });
    expect(more.status).toBe(422);
    expect(more.body).toEqual({
      message: 'The refund amount can not be more than 37.66, what is left to refund of this transaction.',
      errors: { 'refund_info.amount': { max: 'The refund amount can not be more than 37.66, what is left to refund of this transaction.' } },
    });

    const hooks2 = recordRefundHooks();
    const rest = await refund(orderId, { transaction_id: chargeId, amount: 37.66 });
    hooks2.off();
    expect(rest.status).toBe(200);
    order = await orderRow(orderId);
    expect([Number(order.total_paid), Number(order.total_refund), order.payment_status, order.status]).toEqual([5000, 5000, 'refunded', statusBefore]);
    customer = await db()('store_customers').where({ id: buyer }).first();
    expect(Number(customer.ltv)).toBe(0);
    expect(hooks2.full.calls).toHaveLength(1);
    expect(hooks2.partial.calls).toHaveLength(0);
    expect(hooks2.payment.calls.map(([o, previous]) => [o.payment_status, previous])).toEqual([['refunded', 'partially-refunded']]);
  });

  it('an online gateway refunds the amount in cents; its refund id is kept', async () => {
    const { orderId, chargeId } = await paidOrder(2000, 'fakepay');
    const res = await refund(orderId, { transaction_id: chargeId, amount: '0.29' });
    expect(res.status).toBe(200);
    expect(res.body.gateway_refund).toEqual({ status: 'success', message: 'Refunded at Fake Pay.' });
    expect(fake.calls).toEqual([
      { transaction: expect.objectContaining({ id: chargeId, order_id: orderId, vendor_charge_id: `ch_${orderId}`, total: 2000 }), amount: 29 },
    ]);
    const [row] = await refundRows(orderId);
    expect(row).toMatchObject({ status: 'refunded', vendor_charge_id: `re_${orderId}_1`, payment_method: 'fakepay' });
    expect(Number(row.total)).toBe(29);
  });

  it('a gateway refusal records nothing on the order: 502, the refund row failed, no hooks', async () => {
    const { orderId, chargeId } = await paidOrder(2000, 'fakepay');
    fake.state.mode = 'failed';
    const hooks = recordRefundHooks();
    const res = await refund(orderId, { transaction_id: chargeId, amount: '5' });
    hooks.off();
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      fluent_cart_refund: { status: 'failed', message: 'The refund was not recorded because the payment gateway refused it.' },
      gateway_refund: { status: 'failed', message: 'Charge has already been refunded at Fake Pay.' },
      subscription_cancel: { status: 'skipped', message: 'Canceling the subscription was not requested.' },
    });
    const [row] = await refundRows(orderId);
    expect(row.status).toBe('failed');
    const order = await orderRow(orderId);
    expect([Number(order.total_refund), order.payment_status, order.refunded_at]).toEqual([0, 'paid', null]);
    expect(hooks.refunded.calls).toHaveLength(0);
    expect(hooks.payment.calls).toHaveLength(0);
    expect(await db()('store_activities').where({ object_type: 'order', object_id: orderId, title: 'Refund failed' }).first()).toBeTruthy();

    fake.state.mode = 'success';
    const retry = await refund(orderId, { transaction_id: chargeId, amount: '20' });
    expect(retry.status).toBe(200);
    expect(Number((await orderRow(orderId)).total_refund)).toBe(2000);
  });

  it('a gateway that does not answer leaves the refund pending and its amount reserved', async () => {
    const { orderId, chargeId } = await paidOrder(2000, 'fakepay');
    fake.state.mode = 'throw';
    const res = await refund(orderId, { transaction_id: chargeId, amount: '15' });
    expect(res.status).toBe(502);
    expect(res.body.fluent_cart_refund.status).toBe('pending');
    expect(res.body.gateway_refund).toEqual({ status: 'failed', message: 'The payment gateway could not be reached.' });
    expect(JSON.stringify(res.body)).not.toContain('socket hang up');
    expect(app.logger.entries.some((e) => e.level === 'error' && e.msg === 'gateway refund failed')).toBe(true);
    const [row] = await refundRows(orderId);
    expect(row.status).toBe('pending');
    expect(Number((await orderRow(orderId)).total_refund)).toBe(0);

    fake.state.mode = 'success';
    const tooMuch = await refund(orderId, { transaction_id: chargeId, amount: '20' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.message).toBe('The refund amount can not be more than 5.00, what is left to refund of this transaction.');
  });

  it("cancelSubscription 'true' on an order without a subscription: skipped; the refund still happens", async () => {
    const { orderId, chargeId } = await paidOrder(1000);
    const res = await refund(orderId, { transaction_id: chargeId, amount: '1', cancelSubscription: 'true' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['fluent_cart_refund', 'gateway_refund', 'subscription_cancel']);
    expect(res.body.subscription_cancel).toEqual({
      status: 'skipped',
      message: 'The order has no subscription to cancel.',
    });
    expect(res.body.fluent_cart_refund.status).toBe('success');
  });

  it('accepts a form-encoded body', async () => {
    const { orderId, chargeId } = await paidOrder(1000);
    const res = await app
      .as(admin)
      .post(`${BASE}/orders/${orderId}/refund`)
      .type('form')
      .send(`refund_info[transaction_id]=${chargeId}&refund_info[amount]=2.50`);
    expect(res.status).toBe(200);
    expect(Number((await orderRow(orderId)).total_refund)).toBe(250);
  });

  it('10 concurrent partial refunds whose sum exceeds the charge never refund more than it', async () => {
    const { orderId, chargeId } = await paidOrder(2000, 'fakepay');
    const hooks = recordRefundHooks();
    const results = await Promise.all(Array.from({ length: 10 }, () => refund(orderId, { transaction_id: chargeId, amount: '3.00' })));
    hooks.off();
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(6);
    expect(results.filter((r) => r.status === 422)).toHaveLength(4);
    const rows = await refundRows(orderId);
    expect(rows.map((r) => [r.status, Number(r.total)])).toEqual(Array(6).fill(['refunded', 300]));
    expect(fake.calls.reduce((sum, c) => sum + c.amount, 0)).toBe(1800);
    const order = await orderRow(orderId);
    expect([Number(order.total_paid), Number(order.total_refund), order.payment_status]).toEqual([2000, 1800, 'partially-refunded']);
    expect(hooks.refunded.calls).toHaveLength(6);
  });
});
