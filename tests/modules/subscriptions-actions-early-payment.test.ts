import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { actionGateway, subscriptionFamilies, useGateways, type Family } from '../support/subscription-actions';
import { settleFirstPayment } from '../support/subscription-checkout';

const NOW = '2026-11-21 10:00:00';
const DAY = 24 * 3600 * 1000;

describe('early installment payments', () => {
  let app: TestApp;
  let admin: TestUser;
  const gateway = actionGateway();
  let fx: ReturnType<typeof subscriptionFamilies>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    useGateways(app, gateway);
    fx = subscriptionFamilies(app, NOW);
    await app.host.options.set('hourly_request_limits', { create: 100_000 });
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/checkout/1', vendor_charge_id: 'tp_1' };
    gateway.requests.length = 0;
    gateway.cancels.length = 0;
    await setSwitch(true);
  });

  async function setSwitch(enabled: boolean) {
    const res = await app.as(admin).put(`${BASE}/settings/store`).send({ early_payment_enabled: enabled });
    expect(res.status).toBe(200);
  }
  const installments = (over: Record<string, unknown> = {}) => fx.family({ subscription: { bill_times: 3, bill_count: 1, recurring_amount: 1500, ...over } });
  const linkFor = (f: Pick<Family, 'orderId' | 'subscriptionId'>) =>
    app.as(admin).post(`${BASE}/orders/${f.orderId}/subscriptions/${f.subscriptionId}/early-payment-link`);

  /** The link's path and query, as the page is served at the site's root. */
  async function pageUrl(f: Family): Promise<{ path: string; hash: string; token: string }> {
    const res = await linkFor(f);
    expect(res.status).toBe(200);
    const url = new URL(res.body.payment_url);
    return { path: `${url.pathname}${url.search}`, hash: url.searchParams.get('subscription_hash')!, token: url.searchParams.get('token')! };
  }
  const pay = (link: { hash: string; token: string }) =>
    app.http.post('/early-payment/').type('form').send({ subscription_hash: link.hash, token: link.token });
  const earlyOrders = (f: Family) => app.host.db('store_orders').where({ parent_id: f.orderId, type: 'renewal' }).orderBy('id');

  describe('POST /orders/{order}/subscriptions/{subscription}/early-payment-link', () => {
    it('all conditions hold: 200 with a signed payment URL on the site; nothing is written', async () => {
      const f = await installments();
      const before = await fx.snapshot();
      const res = await linkFor(f);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Early payment link generated.', payment_url: expect.any(String) });
      const url = new URL(res.body.payment_url);
      expect(`${url.origin}${url.pathname}`).toBe('http://store.test/early-payment/');
      expect(url.searchParams.get('subscription_hash')).toBe(f.uuid);
      expect(url.searchParams.get('token')).toMatch(/^\d+\.[A-Za-z0-9_-]+$/);
      expect(await fx.snapshot()).toEqual(before);
    });

    it('a trialing subscription qualifies too', async () => {
      expect((await linkFor(await installments({ status: 'trialing', bill_count: 0 }))).status).toBe(200);
    });

    it('1. the feature is off: 400, checked first', async () => {
      await setSwitch(false);
      const res = await linkFor({ orderId: 1, subscriptionId: 999_999 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Early payment is not enabled for this site.' });
    });

    it("2. the subscription is not the order's: 404 with the spec message", async () => {
      const f = await installments();
      const other = await installments();
      const res = await linkFor({ orderId: other.orderId, subscriptionId: f.subscriptionId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Invalid subscription for the specified order.' });
    });

    it.each([
      [{ bill_times: 0 }, 'Early payment is only available for installment subscriptions.'],
      [{ bill_times: 0, status: 'canceled', bill_count: 5 }, 'Early payment is only available for installment subscriptions.'],
      [{ status: 'paused' }, 'Subscription must be active to make early payments.'],
      [{ status: 'failing' }, 'Subscription must be active to make early payments.'],
      [{ status: 'canceled', bill_count: 3 }, 'Subscription must be active to make early payments.'],
      [{ bill_count: 3 }, 'All installments have already been paid.'],
      [{ status: 'completed', bill_count: 3 }, 'Subscription must be active to make early payments.'],
    ])('3-5. %j: 400 %s', async (over, message) => {
      const f = await installments(over);
      const res = await linkFor(f);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message });
    });
  });

  describe('the payment page /early-payment/', () => {
    it('GET shows the next installment with a form carrying the signed token', async () => {
      const f = await installments();
      const link = await pageUrl(f);
      const res = await app.http.get(link.path);

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Pay installment 2 of 3 early');
      expect(res.text).toContain('$15.00');
      expect(res.text).toContain(`name="token" value="${link.token}"`);
      expect(res.text).toContain('Sub Pay');
    });

    it('a tampered, foreign or expired token is the 404 page', async () => {
      const f = await installments();
      const other = await installments();
      const link = await pageUrl(f);
      const otherLink = await pageUrl(other);
      const tampered = link.token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      for (const path of [
        `/early-payment/?subscription_hash=${f.uuid}&token=${tampered}`,
        `/early-payment/?subscription_hash=${f.uuid}&token=${otherLink.token}`,
        `/early-payment/?subscription_hash=${f.uuid}`,
      ]) {
        const res = await app.http.get(path);
        expect(res.status).toBe(404);
        expect(res.text).toContain('This payment link is not valid or has expired.');
      }
      app.clock.advance(8 * DAY);
      try {
        expect((await app.http.get(link.path)).status).toBe(404);
      } finally {
        app.clock.advance(-8 * DAY);
      }
    });

    it('POST creates the installment order and sends the shopper to the gateway (303)', async () => {
      const f = await installments();
      const res = await pay(await pageUrl(f));

      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('https://pay.example/checkout/1');
      const [order] = await earlyOrders(f);
      expect(order).toMatchObject({
        type: 'renewal',
        parent_id: f.orderId,
        customer_id: f.customerId,
        status: 'on-hold',
        payment_status: 'pending',
        payment_method: 'subpay',
        total_amount: 1500,
        mode: 'test',
      });
      expect(JSON.parse(order.config)).toEqual({ subscription_id: f.subscriptionId, early_payment: true });
      const charges = await app.host.db('store_order_transactions').where({ order_id: order.id });
      expect(charges).toEqual([
        expect.objectContaining({ status: 'pending', subscription_id: f.subscriptionId, total: 1500, vendor_charge_id: expect.stringMatching(/^tp_1_/) }),
      ]);
      expect(await fx.count('store_order_items', { order_id: order.id })).toBe(1);
      expect(await fx.count('store_order_addresses', { order_id: order.id })).toBe(1);
      expect(gateway.requests.at(-1)).toMatchObject({ order: { id: order.id, total_amount: 1500, mode: 'test' }, transaction: { total: 1500 } });
    });

    it('opening the link again reuses the unpaid order', async () => {
      const f = await installments();
      const link = await pageUrl(f);
      await pay(link);
      await pay(link);
      const orders = await earlyOrders(f);
      expect(orders).toHaveLength(1);
      expect(gateway.requests.slice(-2).map((r) => r.order.id)).toEqual([orders[0].id, orders[0].id]);
    });

    it('the gateway pays it: it counts as the next installment once, even when reported twice', async () => {
      const f = await installments({ status: 'trialing' });
      await pay(await pageUrl(f));
      const [order] = await earlyOrders(f);
      const [charge] = await app.host.db('store_order_transactions').where({ order_id: order.id });
      const renewed = fx.record('store/subscription/renewed');

      expect(await settleFirstPayment(app, 'subpay', charge.vendor_charge_id, 1500)).toBe('paid');
      expect(await settleFirstPayment(app, 'subpay', charge.vendor_charge_id, 1500)).toBe('already_paid');
      renewed.off();

      const subscription = await fx.subscription(f.subscriptionId);
      expect(subscription).toMatchObject({ status: 'active', bill_count: 2, next_billing_date: '2026-12-21 10:00:00' });
      expect(subscription.config.early_payments).toEqual([{ order_id: order.id, amount: 1500, paid_at: NOW }]);
      expect(renewed.calls.map(([s, o]) => [s.id, o.id])).toEqual([[f.subscriptionId, order.id]]);
      expect((await app.host.db('store_orders').where({ id: order.id }).first()).payment_status).toBe('paid');
    });

    it('the last installment completes the plan and ends it at the gateway through a job', async () => {
      const f = await installments({ bill_count: 2 });
      await pay(await pageUrl(f));
      const [order] = await earlyOrders(f);
      const [charge] = await app.host.db('store_order_transactions').where({ order_id: order.id });
      await settleFirstPayment(app, 'subpay', charge.vendor_charge_id, 1500);

      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ status: 'completed', bill_count: 3, next_billing_date: null });
      expect(await fx.count('jobs', { name: 'store/subscriptions/end-at-gateway' })).toBe(1);
      await app.host.jobs.runDue();
      expect(gateway.cancels.map((s) => s.id)).toEqual([f.subscriptionId]);
      const notes = await app.host
        .db('store_activities')
        .where({ object_type: 'subscription', object_id: f.subscriptionId, title: 'Sub Pay subscription ended' });
      expect(notes).toHaveLength(1);
    });

    it('an admin marking the installment order paid counts it as well', async () => {
      const f = await installments();
      await pay(await pageUrl(f));
      const [order] = await earlyOrders(f);
      const res = await app.as(admin).post(`${BASE}/orders/${order.id}/mark-as-paid`).send({ payment_method: 'bank_transfer' });
      expect(res.status).toBe(200);
      expect((await fx.subscription(f.subscriptionId)).bill_count).toBe(2);
    });

    it('an offline method leaves the order pending and shows its receipt', async () => {
      const f = await installments({ current_payment_method: 'bank_transfer' });
      const res = await pay(await pageUrl(f));
      const [order] = await earlyOrders(f);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`http://store.test/receipt/?order_hash=${order.uuid}`);
      expect(order.payment_status).toBe('pending');
    });

    it('a gateway answering with an on-site client secret cannot be paid here: 409 page, the order stays for another try', async () => {
      const f = await installments();
      gateway.next = { kind: 'onsite', client_secret: 'pi_secret', vendor_charge_id: 'pi_1' };
      const res = await pay(await pageUrl(f));
      expect(res.status).toBe(409);
      expect(res.text).toContain('Sub Pay takes payments on the checkout page only.');
      expect(await earlyOrders(f)).toHaveLength(1);
    });

    it('the gateway fails to start: 502 page', async () => {
      const f = await installments();
      gateway.next = new Error('socket hang up');
      const res = await pay(await pageUrl(f));
      expect(res.status).toBe(502);
      expect(res.text).toContain('Sub Pay could not start the payment.');
    });

    it('conditions are checked again: feature off (403 page), subscription no longer active (409 page); no order is made', async () => {
      const f = await installments();
      const link = await pageUrl(f);
      await setSwitch(false);
      const off = await pay(link);
      expect(off.status).toBe(403);
      expect(off.text).toContain('Early payment is not enabled for this site.');
      await setSwitch(true);
      await app.host.db('store_subscriptions').where({ id: f.subscriptionId }).update({ status: 'canceled' });
      const canceled = await app.http.get(link.path);
      expect(canceled.status).toBe(409);
      expect(canceled.text).toContain('Subscription must be active to make early payments.');
      expect((await pay(link)).status).toBe(409);
      expect(await earlyOrders(f)).toHaveLength(0);
    });
  });
});
