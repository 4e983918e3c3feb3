import type { GatewayResult, PaymentGateway } from '../../src/gateways/gateway';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

/**
 * Amounts are minor units of the order's currency (ISO 4217): yen for JPY (no decimals), fils for KWD (three). A
 * refund's `refund_info.amount` is read in that currency's decimals, and amounts are written back the same way.
 */
describe('POST /orders/{order_id}/refund in currencies without two decimals', () => {
  let app: TestApp;
  let admin: TestUser;
  let customerId: number;
  const refunded: number[] = [];
  let serial = 0;
  const gateway: PaymentGateway = {
    key: 'fakepay',
    title: 'Fake Pay',
    capabilities: { refund: true, capture: false },
    async refund(_ctx, _transaction, amount): Promise<GatewayResult> {
      refunded.push(amount);
      return { status: 'success', message: 'Refunded.', vendor_id: `re_${++serial}` };
    },
    capture: async () => ({ status: 'failed', message: 'No captures.' }),
  };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, gateway]);
    customerId = (await app.as(admin).post(`${BASE}/customers`).send({ email: 'yen@example.com', first_name: 'Yen' })).body.data.id;
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const refund = (orderId: number, chargeId: number, amount: unknown) =>
    app
      .as(admin)
      .post(`${BASE}/orders/${orderId}/refund`)
      .send({ refund_info: { transaction_id: chargeId, amount } });
  const activities = async (orderId: number) =>
    ((await db()('store_activities').where({ object_type: 'order', object_id: orderId }).orderBy('id')) as Array<{ content: string }>).map((a) => a.content);

  async function paidOrder(currency: string, total: number): Promise<{ orderId: number; chargeId: number }> {
    const orderId = await insertOrder(db(), customerId, NOW, { currency, status: 'on-hold', payment_status: 'pending', total_amount: total, total_paid: 0 });
    const paid = await app
      .as(admin)
      .post(`${BASE}/orders/${orderId}/mark-as-paid`)
      .send({ payment_method: 'fakepay', vendor_charge_id: `ch_${orderId}` });
    expect(paid.status).toBe(200);
    const charge = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge' }).first();
    return { orderId, chargeId: Number(charge.id) };
  }

  it('JPY: "1000" is 1000 yen, at the gateway and in the ledger; texts write yen without decimals', async () => {
    const { orderId, chargeId } = await paidOrder('JPY', 5000);
    refunded.length = 0;
    const res = await refund(orderId, chargeId, '1000');
    expect(res.status).toBe(200);
    expect(res.body.fluent_cart_refund.message).toMatch(/^Refund of 1000 JPY recorded/);
    expect(refunded).toEqual([1000]);
    const order = await db()('store_orders').where({ id: orderId }).first();
    expect([Number(order.total_paid), Number(order.total_refund), order.payment_status]).toEqual([5000, 1000, 'partially-refunded']);
    const contents = await activities(orderId);
    expect(contents).toContainEqual(expect.stringMatching(/^Payment of 5000 JPY recorded by Fake Pay/));
    expect(contents).toContainEqual(expect.stringMatching(/^Refund of 1000 JPY recorded/));
  });

  it('JPY: a fraction of a yen is refused; the most that is left is written in yen', async () => {
    const { orderId, chargeId } = await paidOrder('JPY', 5000);
    for (const amount of ['10.5', '10.0', 0.5]) {
      const res = await refund(orderId, chargeId, amount);
      expect([amount, res.status, res.body.errors]).toEqual([
        amount,
        422,
        { 'refund_info.amount': { numeric: 'The refund amount must be a whole number of JPY, e.g. 1250.' } },
      ]);
    }
    expect((await refund(orderId, chargeId, 1500)).status).toBe(200);
    const tooMuch = await refund(orderId, chargeId, '3501');
    expect([tooMuch.status, tooMuch.body.message]).toEqual([422, 'The refund amount can not be more than 3500, what is left to refund of this transaction.']);
    expect((await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' })).map((r) => Number(r.total))).toEqual([1500]);
  });

  it('KWD: three decimals: "1.5" is 1500 fils, "1.2345" is refused, amounts are written with three decimals', async () => {
    const { orderId, chargeId } = await paidOrder('KWD', 12345);
    refunded.length = 0;
    const bad = await refund(orderId, chargeId, '1.2345');
    expect([bad.status, bad.body.message]).toEqual([422, 'The refund amount must be a decimal amount with at most three decimal places, e.g. 12.500.']);
    const res = await refund(orderId, chargeId, '1.5');
    expect(res.status).toBe(200);
    expect(res.body.fluent_cart_refund.message).toMatch(/^Refund of 1.500 KWD recorded/);
    expect(refunded).toEqual([1500]);
    const tooMuch = await refund(orderId, chargeId, '10.846');
    expect(tooMuch.body.message).toBe('The refund amount can not be more than 10.845, what is left to refund of this transaction.');
    expect(await activities(orderId)).toContainEqual(expect.stringMatching(/^Payment of 12.345 KWD recorded by Fake Pay/));
  });

  it('USD keeps two decimals', async () => {
    const { orderId, chargeId } = await paidOrder('USD', 1000);
    const bad = await refund(orderId, chargeId, '1.005');
    expect(bad.body.message).toBe('The refund amount must be a decimal amount with at most two decimal places, e.g. 12.50.');
    const res = await refund(orderId, chargeId, '1.5');
    expect(res.body.fluent_cart_refund.message).toMatch(/^Refund of 1.50 USD recorded/);
  });
});
