import { transaction } from '../../src/core/context';
import { settleGatewayPayment } from '../../src/modules/payments/settle';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { signedEvent, type FakeStripe } from '../support/fakes/stripe-server';
import { orderFixtures } from '../support/order-writes';
import { WEBHOOK_SECRET, configureStripe, paidStripeOrder, startStripe, stripeStore, unpaidStripeOrder } from '../support/stripe-orders';

const NOW = '2026-11-21 10:00:00';

describe('POST /webhooks/stripe', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakeStripe;
  let stop: () => Promise<void>;
  let serial = 0;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    ({ fake, stop } = await stripeStore(app, admin));
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(async () => {
    fake.reset();
    await configureStripe(app, admin);
  });

  const db = () => app.host.db;
  const fx = () => orderFixtures(app, NOW);
  const nowSeconds = () => Math.floor(app.clock.now().getTime() / 1000);
  const eventId = () => `evt_${++serial}_${Date.now()}`;

  /** Sends a delivery as Stripe does: the exact JSON bytes and their signature. */
  const post = (body: string, signature?: string) => {
    const req = app.http.post(`${BASE}/webhooks/stripe`).set('Content-Type', 'application/json');
    return (signature === undefined ? req : req.set('Stripe-Signature', signature)).send(body);
  };
  const deliver = (event: { id: string; type: string; object: Record<string, unknown> }, timestamp = nowSeconds()) => {
    const { body, signature } = signedEvent(event, WEBHOOK_SECRET, timestamp);
    return post(body, signature);
  };
  const eventRows = () => db()('store_webhook_events').orderBy('id');
  const orderRow = (id: number) => db()('store_orders').where({ id }).first();
  const chargeRow = (id: number) => db()('store_order_transactions').where({ id }).first();
  const refundRows = (orderId: number) => db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' }).orderBy('id');

  /** An order placed with the on-site flow and paid in the browser: its intent succeeded at the fake. */
  async function paidInBrowser(price = 2599) {
    const order = await unpaidStripeOrder(app, admin, { price, now: NOW });
    const start = await startStripe(app, order);
    if (start.kind !== 'onsite') throw new Error('expected an on-site start');
    const intent = fake.pay(start.vendor_charge_id);
    return { order, intent };
  }

  describe('payment_intent.succeeded', () => {
    it('marks the order paid with the exact amount received and fires store/order/paid once', async () => {
      const { order, intent } = await paidInBrowser(2599);
      const paid = fx().record('store/order/paid');
      const id = eventId();
      const res = await deliver({ id, type: 'payment_intent.succeeded', object: intent });
      paid.off();

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', status: 'completed', total_paid: 2599 });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'succeeded', total: 2599, vendor_charge_id: intent.id });
      expect(paid.calls).toHaveLength(1);
      expect(paid.calls[0][0]).toMatchObject({ id: order.orderId, payment_status: 'paid' });
      expect(await eventRows()).toEqual([
        expect.objectContaining({ gateway: 'stripe', event_id: id, event_type: 'payment_intent.succeeded', outcome: 'paid' }),
      ]);
    });

    it('a payment in another currency than the charge settles nothing: the order stays pending and an error activity says why', async () => {
      const { order, intent } = await paidInBrowser(2599);
      const id = eventId();
      const res = await deliver({ id, type: 'payment_intent.succeeded', object: { ...intent, currency: 'eur' } });

      expect(res.status).toBe(200);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending', total_paid: 0 });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'pending' });
      expect((await eventRows()).filter((row) => row.event_id === id)).toEqual([expect.objectContaining({ outcome: 'currency_mismatch' })]);
      const titles = await db()('store_activities').where({ object_type: 'order', object_id: order.orderId }).pluck('title');
      expect(titles).toContain('Payment in another currency');
    });

    it('the same event delivered again is applied once: the second answer says duplicate', async () => {
      const { order, intent } = await paidInBrowser();
      const paid = fx().record('store/order/paid');
      const event = { id: eventId(), type: 'payment_intent.succeeded', object: intent };
      const first = await deliver(event);
      const second = await deliver(event);
      paid.off();

      expect([first.body, second.body]).toEqual([
        { received: true, duplicate: false },
        { received: true, duplicate: true },
      ]);
      expect(paid.calls).toHaveLength(1);
      expect(await db()('store_webhook_events').where({ event_id: event.id })).toHaveLength(1);
      expect(Number((await orderRow(order.orderId)).total_paid)).toBe(intent.amount);
    });

    it('five deliveries of the same event at once: one effect', async () => {
      const { order, intent } = await paidInBrowser();
      const paid = fx().record('store/order/paid');
      const event = { id: eventId(), type: 'payment_intent.succeeded', object: intent };
      const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
      paid.off();

      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
      expect(paid.calls).toHaveLength(1);
      expect(await db()('store_order_transactions').where({ order_id: order.orderId, status: 'succeeded' })).toHaveLength(1);
      expect(await db()('store_webhook_events').where({ event_id: event.id })).toHaveLength(1);
    });

    it('racing the browser return: the order is paid once, the loser answers already_paid', async () => {
      const { order, intent } = await paidInBrowser();
      const paid = fx().record('store/order/paid');
      const id = eventId();
      const [webhook, browser] = await Promise.all([
        deliver({ id, type: 'payment_intent.succeeded', object: intent }),
        transaction(app.ctx(), (trx, afterCommit) =>
          settleGatewayPayment(app.ctx(), trx, afterCommit, { method: 'stripe', vendor_charge_id: String(intent.id), amount: Number(intent.amount_received) }),
        ),
      ]);
      paid.off();

      expect(webhook.status).toBe(200);
      const outcomes = [(await db()('store_webhook_events').where({ event_id: id }).first()).outcome, browser].sort();
      expect(outcomes).toEqual(['already_paid', 'paid']);
      expect(paid.calls).toHaveLength(1);
      expect(Number((await orderRow(order.orderId)).total_paid)).toBe(intent.amount);
    });

    it('an order canceled before the money arrived stays canceled; the ledger shows the payment and a warning is logged', async () => {
      const { order, intent } = await paidInBrowser(1800);
      await db()('store_orders').where({ id: order.orderId }).update({ status: 'canceled' });
      const paid = fx().record('store/order/paid');
      const res = await deliver({ id: eventId(), type: 'payment_intent.succeeded', object: intent });
      paid.off();

      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(await orderRow(order.orderId)).toMatchObject({ status: 'canceled', payment_status: 'pending', total_paid: 1800 });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'succeeded', total: 1800 });
      expect(paid.calls).toHaveLength(0);
      expect((await eventRows()).at(-1)).toMatchObject({ outcome: 'paid_after_cancel' });
      const activity = await db()('store_activities').where({ object_type: 'order', object_id: order.orderId, title: 'Payment received for a canceled order' });
      expect(activity).toHaveLength(1);
    });

    it('an intent the store does not know is recorded and ignored', async () => {
      const intent = fake.paidIntent(500);
      const res = await deliver({ id: eventId(), type: 'payment_intent.succeeded', object: intent });
      expect(res.body).toEqual({ received: true, duplicate: false });
      expect((await eventRows()).at(-1)).toMatchObject({ outcome: 'unknown_charge' });
    });
  });

  describe('rejected deliveries: 400, nothing written', () => {
    it.each([
      ['signed with another secret (forged)', () => signedEvent(sample(), 'whsec_someone_else', nowSeconds())],
      [
        'a tampered body (amount changed after signing)',
        () => {
          const signed = signedEvent(sample(), WEBHOOK_SECRET, nowSeconds());
          return { ...signed, body: signed.body.replace(/"amount_received":\d+/, '"amount_received":1') };
        },
      ],
      ['a timestamp more than 300 s old (replayed)', () => signedEvent(sample(), WEBHOOK_SECRET, nowSeconds() - 301)],
      ['a signature header that is not Stripe’s format', () => ({ body: JSON.stringify(sample()), signature: 'sha256=abc' })],
    ])('%s', async (_name, make) => {
      const { order, intent } = await paidInBrowser();
      currentIntent = intent;
      const before = (await eventRows()).length;
      const { body, signature } = make();
      const res = await post(body, signature);

      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/Stripe/);
      expect(await eventRows()).toHaveLength(before);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending', total_paid: 0 });
    });

    it('a missing Stripe-Signature header', async () => {
      const before = (await eventRows()).length;
      const res = await post(JSON.stringify(sample()));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'The Stripe-Signature header is missing.' });
      expect(await eventRows()).toHaveLength(before);
    });

    it('a gateway that takes no webhooks: 404', async () => {
      const res = await app.http.post(`${BASE}/webhooks/cod`).set('Content-Type', 'application/json').send('{}');
      expect(res.status).toBe(404);
    });

    it('a timestamp 299 s old is still accepted', async () => {
      const { order, intent } = await paidInBrowser();
      const res = await deliver({ id: eventId(), type: 'payment_intent.succeeded', object: intent }, nowSeconds() - 299);
      expect(res.status).toBe(200);
      expect((await orderRow(order.orderId)).payment_status).toBe('paid');
    });
  });

  let currentIntent: Record<string, unknown> = {};
  function sample() {
    return { id: `evt_sample_${serial}`, type: 'payment_intent.succeeded', object: currentIntent };
  }

  describe('hosted checkout', () => {
    it('checkout.session.completed (paid) settles the session’s charge, which then holds the PaymentIntent id', async () => {
      await configureStripe(app, admin, { checkout_mode: 'hosted' });
      const order = await unpaidStripeOrder(app, admin, { price: 1500, currency: 'JPY', now: NOW });
      const start = await startStripe(app, order);
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      const session = fake.completeSession(String(start.vendor_charge_id));
      const res = await deliver({ id: eventId(), type: 'checkout.session.completed', object: session });

      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_paid: 1500, currency: 'JPY' });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'succeeded', total: 1500, vendor_charge_id: session.payment_intent });
    });

    it('an unpaid session (a delayed payment method) changes nothing yet', async () => {
      await configureStripe(app, admin, { checkout_mode: 'hosted' });
      const order = await unpaidStripeOrder(app, admin, { price: 1500, now: NOW });
      const start = await startStripe(app, order);
      const session = fake.sessions.get(String(start.kind === 'redirect' && start.vendor_charge_id))!;
      await deliver({ id: eventId(), type: 'checkout.session.completed', object: session });
      expect((await eventRows()).at(-1)).toMatchObject({ outcome: 'awaiting_payment' });
      expect((await orderRow(order.orderId)).payment_status).toBe('pending');
    });
  });

  describe('payment_intent.payment_failed', () => {
    it('notes the failure on the order, which stays pending for another try', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 900, now: NOW });
      const start = await startStripe(app, order);
      const intent: Record<string, unknown> = {
        ...fake.paymentIntents.get(String(start.kind === 'onsite' && start.vendor_charge_id))!,
        last_payment_error: { message: 'Your card was declined.' },
      };
      const res = await deliver({ id: eventId(), type: 'payment_intent.payment_failed', object: intent });

      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending' });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'pending' });
      const [activity] = await db()('store_activities').where({ object_type: 'order', object_id: order.orderId, title: 'Payment failed' });
      expect(activity.content).toBe(
        `Stripe payment ${String(intent.id)} of 9.00 USD failed: Your card was declined. The order stays pending; the shopper may try again.`,
      );
    });
  });

  describe('refunds', () => {
    const refund = (orderId: number, transaction_id: number, amount: string) =>
      app.as(admin).post(`${BASE}/orders/${orderId}/refund`).send({ refund_info: { transaction_id, amount } });

    function recordRefundHooks() {
      const hooks = { refunded: fx().record('store/order/refunded'), partial: fx().record('store/order/partially_refunded') };
      return { ...hooks, off: () => Object.values(hooks).forEach((h) => h.off()) };
    }

    it('charge.refunded settles a refund whose answer was lost (its refunds fetched from Stripe), once', async () => {
      const { orderId, chargeId, intentId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
      fake.behaviour = 'lose';
      expect((await refund(orderId, chargeId, '10.00')).status).toBe(502);
      fake.behaviour = 'normal';
      const [pending] = await refundRows(orderId);
      expect(pending).toMatchObject({ status: 'pending', vendor_charge_id: '' });
      const [stripeRefund] = [...fake.refunds.values()];
      const intent = fake.paymentIntents.get(intentId)!;
      const charge = { id: intent.latest_charge, object: 'charge', payment_intent: intentId, amount: 3000, amount_refunded: 1000, refunded: false };

      const hooks = recordRefundHooks();
      const event = { id: eventId(), type: 'charge.refunded', object: charge };
      const first = await deliver(event);
      const again = await deliver({ ...event, id: eventId() });
      hooks.off();

      expect(first.body).toEqual({ received: true, duplicate: false });
      expect(again.body).toEqual({ received: true, duplicate: false });
      expect(fake.calls('GET', '/v1/refunds')[0].query).toEqual({ charge: intent.latest_charge, limit: '100' });
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ id: pending.id, status: 'refunded', vendor_charge_id: stripeRefund.id })]);
      expect(await orderRow(orderId)).toMatchObject({ payment_status: 'partially-refunded', total_refund: 1000 });
      expect(hooks.refunded.calls).toHaveLength(1);
      expect(hooks.partial.calls).toHaveLength(1);
      expect((await eventRows()).slice(-2).map((e) => e.outcome)).toEqual(['settled', 'already_settled']);
    });

    it('the refund’s webhook arriving before Stripe’s answer: the refund is recorded once', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
      let webhook: { status: number; body: unknown } | null = null;
      fake.beforeAnswer = async (request, body) => {
        if (request.path === '/v1/refunds') webhook = await deliver({ id: eventId(), type: 'refund.created', object: body });
      };
      const hooks = recordRefundHooks();
      const res = await refund(orderId, chargeId, '5.00');
      hooks.off();

      expect(webhook).toMatchObject({ status: 200, body: { received: true, duplicate: false } });
      expect((await eventRows()).at(-1)).toMatchObject({ outcome: 'settled' });
      expect(res.status).toBe(200);
      expect(res.body.fluent_cart_refund.status).toBe('success');
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'refunded', total: 500 })]);
      expect(await orderRow(orderId)).toMatchObject({ payment_status: 'partially-refunded', total_refund: 500 });
      expect(hooks.refunded.calls).toHaveLength(1);
      expect(await db()('store_activities').where({ object_type: 'order', object_id: orderId, title: 'Order refunded' })).toHaveLength(1);
    });

    it('refund.updated settles a refund Stripe had accepted as pending', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
      fake.refundStatus = 'pending';
      expect((await refund(orderId, chargeId, '30.00')).status).toBe(200);
      const [stripeRefund] = [...fake.refunds.values()];
      const res = await deliver({ id: eventId(), type: 'refund.updated', object: { ...stripeRefund, status: 'succeeded' } });

      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'refunded', vendor_charge_id: stripeRefund.id, total: 3000 })]);
      expect(await orderRow(orderId)).toMatchObject({ payment_status: 'refunded', total_refund: 3000 });
    });

    it('refund.failed releases the reservation: the row failed, the order unchanged', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
      fake.refundStatus = 'pending';
      await refund(orderId, chargeId, '12.00');
      const [stripeRefund] = [...fake.refunds.values()];
      await deliver({ id: eventId(), type: 'refund.failed', object: { ...stripeRefund, status: 'failed', failure_reason: 'expired_or_canceled_card' } });

      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'failed', vendor_charge_id: stripeRefund.id })]);
      expect(await orderRow(orderId)).toMatchObject({ payment_status: 'paid', total_refund: 0 });
    });

    it('a refund made in the Stripe dashboard is recorded as a new refund of the charge', async () => {
      const { orderId, chargeId, intentId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
      const stripeRefund = fake.dashboardRefund(intentId, 700);
      const hooks = recordRefundHooks();
      const res = await deliver({ id: eventId(), type: 'refund.created', object: stripeRefund });
      hooks.off();

      expect(res.body).toEqual({ received: true, duplicate: false });
      const [row] = await refundRows(orderId);
      expect(row).toMatchObject({ status: 'refunded', total: 700, vendor_charge_id: stripeRefund.id, payment_method: 'stripe' });
      expect(JSON.parse(row.meta)).toMatchObject({ parent_transaction_id: chargeId });
      expect(await orderRow(orderId)).toMatchObject({ payment_status: 'partially-refunded', total_refund: 700 });
      expect(hooks.refunded.calls).toHaveLength(1);
    });

    it('a refund larger than what is left of the charge is not recorded; a warning is', async () => {
      const { orderId, intentId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
      const stripeRefund = { ...fake.dashboardRefund(intentId, 3000), amount: 3500 };
      await deliver({ id: eventId(), type: 'refund.created', object: stripeRefund });

      expect(await refundRows(orderId)).toHaveLength(0);
      expect((await eventRows()).at(-1)).toMatchObject({ outcome: 'unknown' });
      expect(await db()('store_activities').where({ object_type: 'order', object_id: orderId, title: 'Refund not recorded' })).toHaveLength(1);
    });
  });

  it('an event type the store does not handle is recorded as ignored', async () => {
    const res = await deliver({ id: eventId(), type: 'customer.created', object: { id: 'cus_1', object: 'customer' } });
    expect(res.body).toEqual({ received: true, duplicate: false });
    expect((await eventRows()).at(-1)).toMatchObject({ event_type: 'customer.created', outcome: 'ignored' });
  });
});
