import { AppError } from '../../src/core/errors';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import type { FakeStripe } from '../support/fakes/stripe-server';
import { PUBLISHABLE_KEY, SECRET_KEY, configureStripe, paidStripeOrder, startStripe, stripe, stripeStore, unpaidStripeOrder } from '../support/stripe-orders';

const NOW = '2026-11-21 10:00:00';

describe('Stripe gateway (the real stripe SDK against a local fake)', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakeStripe;
  let stop: () => Promise<void>;

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

  describe('availableAtCheckout', () => {
    it('needs the gateway enabled and the keys of the current mode (no publishable key for hosted)', async () => {
      const available = () => stripe(app).availableAtCheckout!(app.ctx());
      expect(await available()).toBe(true);
      await configureStripe(app, admin, { enabled: false });
      expect(await available()).toBe(false);
      await configureStripe(app, admin, { test_publishable_key: '' });
      expect(await available()).toBe(false);
      await configureStripe(app, admin, { test_publishable_key: '', checkout_mode: 'hosted' });
      expect(await available()).toBe(true);
      await configureStripe(app, admin, { test_secret_key: '' });
      expect(await available()).toBe(false);
    });
  });

  describe('startPayment, on-site', () => {
    it('creates a PaymentIntent for the pending charge (USD in cents) and answers its client secret', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 1999, now: NOW });
      const start = await startStripe(app, order);

      const [call] = fake.calls('POST', '/v1/payment_intents');
      const intent = fake.paymentIntents.get(String(start.kind === 'onsite' && start.vendor_charge_id))!;
      expect(start).toEqual({ kind: 'onsite', client_secret: intent.client_secret, vendor_charge_id: intent.id });
      expect(call.body).toEqual({
        amount: '1999',
        currency: 'usd',
        automatic_payment_methods: { enabled: 'true' },
        metadata: { order_uuid: order.uuid, order_id: String(order.orderId), transaction_uuid: order.transactionUuid },
        receipt_email: order.request.customer.email,
        description: `Order ${order.uuid}`,
      });
      expect(call).toMatchObject({ key: SECRET_KEY, idempotencyKey: `store-pi-${order.transactionUuid}-1999-usd`, stripeVersion: '2026-10-28.endive' });
    });

    it('sends a zero-decimal currency as is: ¥1,500 is 1500 yen', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 1500, currency: 'JPY', now: NOW });
      await startStripe(app, order);
      expect(fake.calls('POST', '/v1/payment_intents')[0].body).toMatchObject({ amount: '1500', currency: 'jpy' });
    });

    it('a retried checkout gets the same intent back (idempotency key); a changed amount gets a new one', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 2500, now: NOW });
      const first = await startStripe(app, order);
      const again = await startStripe(app, order);
      expect(again).toEqual(first);
      expect(fake.paymentIntents.size).toBe(1);
      const changed = await startStripe(app, { ...order, request: { ...order.request, transaction: { ...order.request.transaction, total: 3000 } } });
      expect(changed).not.toEqual(first);
      expect(fake.paymentIntents.size).toBe(2);
    });

    it('a refusal carries Stripe’s reason; no answer is a plain "try again"; the charge stays pending either way', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 1000, now: NOW });
      fake.failNext({ status: 400, error: { type: 'invalid_request_error', code: 'amount_too_small', message: 'Amount must be at least $0.50 usd' } });
      await expect(startStripe(app, order)).rejects.toMatchObject({
        constructor: AppError,
        status: 502,
        message: 'Stripe refused the payment: Amount must be at least $0.50 usd',
      });
      fake.behaviour = 'hang';
      await expect(startStripe(app, order)).rejects.toMatchObject({ status: 502, message: 'Stripe could not be reached. Please try again in a moment.' });
      // One try and two retries, all with the same key.
      const tries = fake.calls('POST', '/v1/payment_intents').slice(1);
      expect(tries).toHaveLength(3);
      expect(new Set(tries.map((t) => t.idempotencyKey)).size).toBe(1);
      expect(await db()('store_order_transactions').where({ id: order.chargeId }).first()).toMatchObject({ status: 'pending', vendor_charge_id: '' });
    });
  });

  describe('startPayment, hosted', () => {
    beforeEach(() => configureStripe(app, admin, { checkout_mode: 'hosted' }));

    it('creates a Checkout Session with the order lines and redirects to it', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 1250, quantity: 2, now: NOW });
      const start = await startStripe(app, order);

      const [session] = [...fake.sessions.values()];
      expect(start).toEqual({ kind: 'redirect', redirect_url: session.url, vendor_charge_id: session.id });
      const metadata = { order_uuid: order.uuid, order_id: String(order.orderId), transaction_uuid: order.transactionUuid };
      const [call] = fake.calls('POST', '/v1/checkout/sessions');
      expect(call.body).toEqual({
        mode: 'payment',
        line_items: [{ quantity: '2', price_data: { currency: 'usd', unit_amount: '1250', product_data: { name: 'Poster' } } }],
        success_url: order.request.urls.success_url,
        cancel_url: order.request.urls.cancel_url,
        client_reference_id: order.uuid,
        customer_email: order.request.customer.email,
        metadata,
        payment_intent_data: { metadata, receipt_email: order.request.customer.email },
      });
      expect(call.idempotencyKey).toBe(`store-cs-${order.transactionUuid}-2500-usd`);
      expect(await db()('store_order_transactions').where({ id: order.chargeId }).first('vendor_charge_id')).toEqual({ vendor_charge_id: session.id });
    });

    it('one line of the amount due when the lines do not add up to it (shipping, tax, discounts)', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 1000, currency: 'JPY', now: NOW });
      await startStripe(app, { ...order, request: { ...order.request, transaction: { ...order.request.transaction, total: 1350 } } });
      expect(fake.calls('POST', '/v1/checkout/sessions')[0].body.line_items).toEqual([
        { quantity: '1', price_data: { currency: 'jpy', unit_amount: '1350', product_data: { name: `Order ${order.uuid}` } } },
      ]);
    });
  });

  describe('GET /checkout/get-order-info?method=stripe', () => {
    const orderInfo = () => app.http.get(`${BASE}/checkout/get-order-info`).query({ method: 'stripe' });

    it('on-site: the publishable key and the appearance; no client secret before an order exists', async () => {
      const res = await orderInfo();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'success',
        message: 'Order info retrieved!',
        data: { client_secret: null, publishable_key: PUBLISHABLE_KEY },
        payment_args: { checkout_mode: 'onsite', appearance: { theme: 'stripe' } },
      });
      expect(fake.requests).toHaveLength(0);
    });

    it('422 on method while Stripe is not offered (disabled)', async () => {
      await configureStripe(app, admin, { enabled: false });
      const res = await orderInfo();
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ method: { in: 'The selected payment method is not available.' } });
    });

    it('hosted: data is an empty list', async () => {
      await configureStripe(app, admin, { checkout_mode: 'hosted' });
      expect((await orderInfo()).body).toEqual({
        status: 'success',
        message: 'Order info retrieved!',
        data: [],
        payment_args: { checkout_mode: 'hosted' },
      });
    });
  });

  describe('POST /orders/{order_id}/refund on a Stripe payment', () => {
    const refund = (orderId: number, transaction_id: number, amount: string) =>
      app.as(admin).post(`${BASE}/orders/${orderId}/refund`).send({ refund_info: { transaction_id, amount } });
    const refundRows = (orderId: number) => db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' }).orderBy('id');

    it('refunds at Stripe: the row is refunded under the refund id, the order partially refunded', async () => {
      const { orderId, chargeId, intentId } = await paidStripeOrder(app, admin, fake, { price: 2000, now: NOW });
      const res = await refund(orderId, chargeId, '5.00');

      const [row] = await refundRows(orderId);
      const [stripeRefund] = [...fake.refunds.values()];
      expect(res.status).toBe(200);
      expect(res.body.gateway_refund).toEqual({ status: 'success', message: `Refunded at Stripe (${String(stripeRefund.id)}).` });
      expect(res.body.fluent_cart_refund.status).toBe('success');
      const [call] = fake.calls('POST', '/v1/refunds');
      expect(call.body).toEqual({ payment_intent: intentId, amount: '500', metadata: { order_id: String(orderId), transaction_uuid: row.uuid } });
      expect(call.idempotencyKey).toBe(`store-refund-${String(row.uuid)}`);
      expect(row).toMatchObject({ status: 'refunded', total: 500, vendor_charge_id: stripeRefund.id });
      expect(await db()('store_orders').where({ id: orderId }).first()).toMatchObject({ payment_status: 'partially-refunded', total_refund: 500 });
    });

    it('a zero-decimal currency refunds whole yen: "700" JPY is 700', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 3000, currency: 'JPY', now: NOW });
      const res = await refund(orderId, chargeId, '700');
      expect(res.status).toBe(200);
      expect(fake.calls('POST', '/v1/refunds')[0].body.amount).toBe('700');
      expect((await refundRows(orderId))[0]).toMatchObject({ status: 'refunded', total: 700, currency: 'JPY' });
    });

    it('Stripe refuses: 502 with its reason, the row failed, the order unchanged', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 2000, now: NOW });
      const message = 'Charge ch_1 has already been refunded.';
      fake.failNext({ status: 400, error: { type: 'invalid_request_error', code: 'charge_already_refunded', message } });
      const res = await refund(orderId, chargeId, '5.00');

      expect(res.status).toBe(502);
      expect(res.body.gateway_refund).toEqual({ status: 'failed', message: `Stripe refused the refund: ${message}` });
      expect(res.body.fluent_cart_refund.status).toBe('failed');
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'failed', total: 500 })]);
      expect(await db()('store_orders').where({ id: orderId }).first()).toMatchObject({ payment_status: 'paid', total_refund: 0 });
    });

    it('no secret key for the charge’s mode: a refusal, nothing sent to Stripe', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 2000, now: NOW });
      await configureStripe(app, admin, { test_secret_key: '' });
      const res = await refund(orderId, chargeId, '5.00');

      expect(res.status).toBe(502);
      expect(res.body.gateway_refund).toEqual({ status: 'failed', message: 'Stripe has no secret key for test mode in the payment settings.' });
      expect(fake.calls('POST', '/v1/refunds')).toHaveLength(0);
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'failed' })]);
    });

    it('Stripe does not answer: 502, the refund stays pending with its amount reserved; the retries used one key', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 2000, now: NOW });
      fake.behaviour = 'hang';
      const res = await refund(orderId, chargeId, '5.00');

      expect(res.status).toBe(502);
      expect(res.body.fluent_cart_refund.status).toBe('pending');
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'pending', total: 500, vendor_charge_id: '' })]);
      const tries = fake.calls('POST', '/v1/refunds');
      expect(tries).toHaveLength(3);
      expect(new Set(tries.map((t) => t.idempotencyKey)).size).toBe(1);
      fake.behaviour = 'normal';
      const more = await refund(orderId, chargeId, '15.01');
      expect(more.status).toBe(422);
      expect(more.body.message).toBe('The refund amount can not be more than 15.00, what is left to refund of this transaction.');
    });

    it('Stripe accepts the refund for later: 200 pending, the row keeps the refund id until Stripe settles it', async () => {
      const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 2000, now: NOW });
      fake.refundStatus = 'pending';
      const res = await refund(orderId, chargeId, '5.00');

      const [stripeRefund] = [...fake.refunds.values()];
      expect(res.status).toBe(200);
      expect(res.body.fluent_cart_refund.status).toBe('pending');
      expect(res.body.gateway_refund).toEqual({ status: 'pending', message: `Stripe accepted the refund (${String(stripeRefund.id)}); it is still pending.` });
      expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'pending', vendor_charge_id: stripeRefund.id })]);
      expect(await db()('store_orders').where({ id: orderId }).first()).toMatchObject({ payment_status: 'paid', total_refund: 0 });
    });
  });

  describe('capture_payments on an authorised Stripe payment', () => {
    it('captures the PaymentIntent and marks the order paid', async () => {
      const order = await unpaidStripeOrder(app, admin, { price: 4200, now: NOW });
      const intent = fake.authorizedIntent(order.total);
      await db()('store_order_transactions').where({ id: order.chargeId }).update({ status: 'authorized', vendor_charge_id: intent.id });

      const res = await app
        .as(admin)
        .post(`${BASE}/orders/do-bulk-action`)
        .send({ action: 'capture_payments', order_ids: [order.orderId] });

      expect(res.status).toBe(200);
      expect(fake.calls('POST', `/v1/payment_intents/${String(intent.id)}/capture`)).toHaveLength(1);
      expect(await db()('store_orders').where({ id: order.orderId }).first()).toMatchObject({ payment_status: 'paid', total_paid: 4200 });
      expect(await db()('store_order_transactions').where({ id: order.chargeId }).first()).toMatchObject({ status: 'succeeded', vendor_charge_id: intent.id });
    });
  });
});
