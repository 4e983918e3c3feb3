import type { ActionMap, ActionName } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

describe('POST /orders/{order}/mark-as-paid', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let customerId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'payer@example.com', first_name: 'Payer' });
    expect(res.status).toBe(200);
    customerId = res.body.data.id;
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const markPaid = (orderId: number, body: Record<string, unknown> = {}, user: TestUser = admin) =>
    app.as(user).post(`${BASE}/orders/${orderId}/mark-as-paid`).send(body);

  /** An unpaid order, as checkout leaves it: no invoice number yet. */
  const unpaidOrder = (over: Record<string, unknown> = {}) =>
    insertOrderRow(db(), customerId, NOW, {
      invoice_no: '',
      status: 'on-hold',
      payment_status: 'pending',
      total_amount: 2500,
      total_paid: 0,
      fulfillment_type: 'physical',
      ...over,
    });

  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  function recordOrderHooks() {
    const hooks = {
      paid: record('store/order/paid'),
      payment: record('store/order/payment_status_changed'),
      status: record('store/order/status_changed'),
    };
    return { ...hooks, off: () => Object.values(hooks).forEach((h) => h.off()) };
  }

  const orderRow = (id: number) => db()('store_orders').where({ id }).first();
  const transactionsOf = (id: number) => db()('store_order_transactions').where({ order_id: id }).orderBy('id');

  it('401 for anonymous callers, 403 without orders/manage, nothing changed', async () => {
    const id = await unpaidOrder();
    const anonymous = await app.http.post(`${BASE}/orders/${id}/mark-as-paid`).send({});
    expect(anonymous.status).toBe(401);
    const forbidden = await markPaid(id, {}, clerk);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('rest_forbidden');
    expect((await orderRow(id)).payment_status).toBe('pending');
    expect(await transactionsOf(id)).toHaveLength(0);
  });

  it('404 Order not found for a missing order', async () => {
    const res = await markPaid(999999);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Order not found' });
  });

  it('pays a physical order: charge for the amount due, processing, invoice number, customer stats, activity with the note, hooks', async () => {
    const fresh = await app.as(admin).post(`${BASE}/customers`).send({ email: 'first-buyer@example.com', first_name: 'First' });
    expect(fresh.status).toBe(200);
    const buyer: number = fresh.body.data.id;
    const id = await unpaidOrder({ customer_id: buyer });
    const hooks = recordOrderHooks();
    const res = await markPaid(id, { mark_paid_note: 'Paid at the counter' });
    hooks.off();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Order has been marked as paid' });

    const order = await orderRow(id);
    expect(order).toMatchObject({ payment_status: 'paid', status: 'processing', payment_method: 'offline', payment_method_title: 'Offline payment' });
    expect(Number(order.total_paid)).toBe(2500);
    expect(order.completed_at).toBeNull();
    expect(order.receipt_number).not.toBeNull();
    expect(order.invoice_no).toBe(`INV-${order.receipt_number}`);

    const [charge, ...others] = await transactionsOf(id);
    expect(others).toHaveLength(0);
    expect(charge).toMatchObject({ transaction_type: 'charge', status: 'succeeded', payment_method: 'offline', currency: 'USD' });
    expect(Number(charge.total)).toBe(2500);
    expect(JSON.parse(charge.meta)).toMatchObject({ note: 'Paid at the counter' });

    const activity = await db()('store_activities').where({ object_type: 'order', object_id: id }).first();
    expect(activity.title).toBe('Order marked as paid');
    expect(activity.content).toContain('25.00 USD');
    expect(activity.content).toContain('Paid at the counter');

    const customer = await db()('store_customers').where({ id: buyer }).first();
    expect([Number(customer.ltv), Number(customer.purchase_count), Number(customer.aov)]).toEqual([2500, 1, 2500]);
    expect(customer.first_purchase_date).toBe(NOW);

    expect(hooks.paid.calls.map(([o]) => [o.id, o.payment_status, o.total_paid])).toEqual([[id, 'paid', 2500]]);
    expect(hooks.payment.calls.map(([o, previous]) => [o.id, previous])).toEqual([[id, 'pending']]);
    expect(hooks.status.calls.map(([o, previous]) => [o.id, o.status, previous])).toEqual([[id, 'processing', 'on-hold']]);
  });

  it('works with the settings cache cold (SQLite: the settings are read through the transaction, not the pool)', async () => {
    const id = await unpaidOrder();
    const before = app.clock.now().toISOString();
    app.clock.advance(60_000);
    const res = await markPaid(id);
    app.clock.set(before);
    expect(res.status).toBe(200);
    expect((await orderRow(id)).invoice_no).toMatch(/^INV-\d+$/);
  });

  it('a digital order becomes completed with completed_at', async () => {
    const id = await unpaidOrder({ fulfillment_type: 'digital' });
    const res = await markPaid(id);
    expect(res.status).toBe(200);
    const order = await orderRow(id);
    expect(order.status).toBe('completed');
    expect(order.completed_at).toBe('2026-11-21 10:00:00');
  });

  it('an order an admin already completed stays completed and fires no status_changed', async () => {
    const id = await unpaidOrder({ status: 'completed' });
    const hooks = recordOrderHooks();
    expect((await markPaid(id)).status).toBe(200);
    hooks.off();
    expect((await orderRow(id)).status).toBe('completed');
    expect(hooks.status.calls).toHaveLength(0);
    expect(hooks.paid.calls).toHaveLength(1);
  });

  it('stores payment_method (title from the gateway), vendor_charge_id and transaction_type', async () => {
    const id = await unpaidOrder();
    const res = await markPaid(id, { payment_method: 'bank_transfer', vendor_charge_id: 'BT-778', transaction_type: 'signup_fee' });
    expect(res.status).toBe(200);
    expect(await orderRow(id)).toMatchObject({ payment_method: 'bank_transfer', payment_method_title: 'Bank transfer' });
    const [charge] = await transactionsOf(id);
    expect(charge).toMatchObject({ transaction_type: 'signup_fee', vendor_charge_id: 'BT-778', payment_method: 'bank_transfer', status: 'succeeded' });
  });

  it("updates the order's pending charge instead of writing a second one", async () => {
    const id = await unpaidOrder({ payment_method: 'cod', payment_method_title: 'Cash on delivery' });
    await db()('store_order_transactions').insert({
      uuid: `pending-${id}`,
      order_id: id,
      transaction_type: 'charge',
      vendor_charge_id: 'ch_pending',
      payment_method: 'cod',
      status: 'pending',
      total: 2500,
      meta: '{"source":"checkout"}',
      created_at: NOW,
      updated_at: NOW,
    });
    expect((await markPaid(id, { mark_paid_note: 'cash' })).status).toBe(200);
    const rows = await transactionsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ uuid: `pending-${id}`, status: 'succeeded', vendor_charge_id: 'ch_pending', payment_method: 'cod' });
    expect(JSON.parse(rows[0].meta)).toMatchObject({ source: 'checkout', note: 'cash' });
    expect(await orderRow(id)).toMatchObject({ payment_method: 'cod', payment_method_title: 'Cash on delivery' });
  });

  it('a partially paid order is charged only what is still due', async () => {
    const id = await unpaidOrder({ payment_status: 'partially-paid', total_amount: 3000, total_paid: 1000 });
    await db()('store_order_transactions').insert({
      uuid: `part-${id}`,
      order_id: id,
      transaction_type: 'charge',
      status: 'succeeded',
      total: 1000,
      created_at: NOW,
      updated_at: NOW,
    });
    expect((await markPaid(id)).status).toBe(200);
    const rows = await transactionsOf(id);
    expect(rows.map((t) => [t.status, Number(t.total)])).toEqual([
      ['succeeded', 1000],
      ['succeeded', 2000],
    ]);
    expect(Number((await orderRow(id)).total_paid)).toBe(3000);
  });

  it('423 Order has already been paid (paid, partially refunded, refunded), nothing changed, no hooks', async () => {
    for (const payment_status of ['paid', 'partially-refunded', 'refunded']) {
      const id = await unpaidOrder({ payment_status, total_paid: 2500, status: 'processing', invoice_no: 'KEEP-1' });
      const hooks = recordOrderHooks();
      const res = await markPaid(id, { mark_paid_note: 'again' });
      hooks.off();
      expect(res.status).toBe(423);
      expect(res.body).toEqual({ message: 'Order has already been paid' });
      expect(await orderRow(id)).toMatchObject({ payment_status, invoice_no: 'KEEP-1', receipt_number: null });
      expect(await transactionsOf(id)).toHaveLength(0);
      expect(hooks.paid.calls).toHaveLength(0);
    }
  });

  it('423 Unable to mark paid for canceled order', async () => {
    const id = await unpaidOrder({ status: 'canceled' });
    const res = await markPaid(id);
    expect(res.status).toBe(423);
    expect(res.body).toEqual({ message: 'Unable to mark paid for canceled order' });
    expect((await orderRow(id)).payment_status).toBe('pending');
    expect(await transactionsOf(id)).toHaveLength(0);
  });

  it('422 for a transaction type that is not a payment, or a note over 5000 characters', async () => {
    const id = await unpaidOrder();
    const refund = await markPaid(id, { transaction_type: 'refund' });
    expect(refund.status).toBe(422);
    expect(refund.body).toEqual({
      message: 'The transaction type must be one of: charge, signup_fee.',
      errors: { transaction_type: { in: 'The transaction type must be one of: charge, signup_fee.' } },
    });
    const long = await markPaid(id, { mark_paid_note: 'x'.repeat(5001) });
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual({ mark_paid_note: { max: 'The mark paid note field must not be greater than 5000 characters.' } });
    expect((await orderRow(id)).payment_status).toBe('pending');
  });

  it('10 concurrent calls: exactly one succeeds, the others get 423, one charge, one invoice number, paid fires once', async () => {
    const id = await unpaidOrder();
    const hooks = recordOrderHooks();
    const results = await Promise.all(Array.from({ length: 10 }, () => markPaid(id)));
    hooks.off();
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(423)]);
    expect(results.filter((r) => r.status === 423).every((r) => r.body.message === 'Order has already been paid')).toBe(true);
    const rows = await transactionsOf(id);
    expect(rows).toHaveLength(1);
    expect(Number((await orderRow(id)).total_paid)).toBe(2500);
    expect(hooks.paid.calls.map(([o]) => o.id)).toEqual([id]);
    expect(hooks.payment.calls).toHaveLength(1);
  });

  it('concurrent calls on different orders give strictly increasing, unique invoice numbers', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, () => unpaidOrder()));
    const results = await Promise.all(ids.map((id) => markPaid(id)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const receipts = (await db()('store_orders').whereIn('id', ids).select('receipt_number')).map((r) => Number(r.receipt_number));
    expect(new Set(receipts).size).toBe(ids.length);
  });
});
