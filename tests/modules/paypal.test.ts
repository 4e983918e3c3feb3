import { AppError } from '../../src/core/errors';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import type { FakePayPal } from '../support/fakes/paypal-server';
import { orderFixtures } from '../support/order-writes';
import {
  RETURN_PATH,
  approveAndReturn,
  configurePayPal,
  paidPayPalOrder,
  paypal,
  paypalStore,
  postWebhook,
  startPayPal,
  unpaidPayPalOrder,
} from '../support/paypal-orders';

const NOW = '2026-11-21 10:00:00';
const RECEIPT = 'http://store.test/receipt/?order_hash=';

describe('PayPal gateway (the real @paypal/paypal-server-sdk against a local fake)', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakePayPal;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    ({ fake, stop } = await paypalStore(app, admin));
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(async () => {
    fake.resetSwitches();
    await configurePayPal(app, admin, fake);
  });

  const db = () => app.host.db;
  const fx = () => orderFixtures(app, NOW);
  const orderRow = (id: number) => db()('store_orders').where({ id }).first();
  const chargeRow = (id: number) => db()('store_order_transactions').where({ id }).first();
  const eventRows = (eventId?: unknown) =>
    db()('store_webhook_events')
      .where(eventId === undefined ? { gateway: 'paypal' } : { gateway: 'paypal', event_id: eventId })
      .orderBy('id');
  const activities = (orderId: number) => db()('store_activities').where({ object_type: 'order', object_id: orderId }).orderBy('id');

  describe('availableAtCheckout and GET /checkout/get-order-info?method=paypal', () => {
    it('needs the gateway enabled and the client id and secret of the current mode', async () => {
      const available = () => paypal(app).availableAtCheckout!(app.ctx());
      expect(await available()).toBe(true);
      await configurePayPal(app, admin, fake, { enabled: false });
      expect(await available()).toBe(false);
      await configurePayPal(app, admin, fake, { test_client_secret: '' });
      expect(await available()).toBe(false);
    });

    it('answers the public client id and mode for the JS SDK, data empty (PayPal pays by redirect)', async () => {
      const res = await app.http.get(`${BASE}/checkout/get-order-info`).query({ method: 'paypal' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'success',
        message: 'PayPal is ready to take the payment.',
        data: [],
        payment_args: { checkout_mode: 'redirect', client_id: fake.clientId, mode: 'test', intent: 'capture' },
      });
      expect(JSON.stringify(res.body)).not.toContain(fake.clientSecret);
    });
  });

  describe('startPayment', () => {
    it('creates a PayPal order (intent CAPTURE, USD with two decimals) and redirects to its approval page', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1999, now: NOW });
      const start = await startPayPal(app, order);

      const created = fake.orders.get(start.vendor_charge_id!)!;
      expect(start).toEqual({ kind: 'redirect', redirect_url: `https://www.sandbox.paypal.com/checkoutnow?token=${created.id}`, vendor_charge_id: created.id });
      const [call] = fake.calls(/^\/v2\/checkout\/orders$/);
      expect(call.requestId).toBe(`order-${order.transactionUuid}-19.99USD`);
      expect(call.authorization).toMatch(/^Bearer A21AA/);
      expect(call.body).toEqual({
        intent: 'CAPTURE',
        purchase_units: [{ reference_id: order.uuid, custom_id: order.uuid, invoice_id: order.uuid, amount: { currency_code: 'USD', value: '19.99' } }],
        payment_source: {
          paypal: {
            experience_context: {
              return_url: `http://store.test${RETURN_PATH}?order_hash=${order.uuid}`,
              cancel_url: 'http://store.test/checkout/',
              user_action: 'PAY_NOW',
              shipping_preference: 'NO_SHIPPING',
            },
          },
        },
      });
      // The OAuth token: client credentials over Basic auth, fetched once and kept for the calls that follow.
      const [token] = fake.calls(/^\/v1\/oauth2\/token$/);
      expect(token).toMatchObject({
        authorization: `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`,
        body: { grant_type: 'client_credentials' },
      });
      await paypal(app).startPayment!(app.ctx(), order.request);
      expect(fake.calls(/^\/v1\/oauth2\/token$/)).toHaveLength(1);
    });

    it('writes a zero-decimal currency without decimals: ¥1,500 is "1500"', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1500, currency: 'JPY', now: NOW });
      await startPayPal(app, order);
      const [call] = fake.calls(/^\/v2\/checkout\/orders$/);
      expect((call.body.purchase_units as Array<{ amount: unknown }>)[0].amount).toEqual({ currency_code: 'JPY', value: '1500' });
    });

    it('a retried checkout gets the same PayPal order back (PayPal-Request-Id); a changed amount a new one', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 2500, now: NOW });
      const first = await startPayPal(app, order);
      const again = await paypal(app).startPayment!(app.ctx(), order.request);
      expect(again).toEqual(first);
      const changed = await paypal(app).startPayment!(app.ctx(), { ...order.request, transaction: { ...order.request.transaction, total: 3000 } });
      expect(changed).not.toEqual(first);
      expect(fake.calls(/^\/v2\/checkout\/orders$/).map((c) => c.requestId)).toEqual([
        `order-${order.transactionUuid}-25.00USD`,
        `order-${order.transactionUuid}-25.00USD`,
        `order-${order.transactionUuid}-30.00USD`,
      ]);
    });

    it('a refusal carries PayPal’s issue; no answer is a plain "try again"; the charge stays pending either way', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      fake.failOn.create = 'hang';
      await expect(paypal(app).startPayment!(app.ctx(), order.request)).rejects.toMatchObject({
        constructor: AppError,
        status: 502,
        message: 'PayPal could not be reached. Please try again in a moment.',
      });
      fake.failOn = {};
      await configurePayPal(app, admin, fake, { test_client_secret: 'wrong' });
      await expect(paypal(app).startPayment!(app.ctx(), order.request)).rejects.toMatchObject({
        status: 502,
        message: expect.stringMatching(/^PayPal refused the payment: invalid_client/),
      });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'pending', vendor_charge_id: '' });
    });
  });

  describe('GET /checkout/paypal/return', () => {
    it('captures the approved order, settles the charge with the captured amount and redirects to the receipt', async () => {
      const paid = fx().record('store/order/paid');
      const order = await unpaidPayPalOrder(app, admin, { price: 4200, now: NOW });
      const start = await startPayPal(app, order);

      const res = await app.http.get(approveAndReturn(fake, start.vendor_charge_id!));
      paid.off();

      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`${RECEIPT}${order.uuid}`);
      expect(res.body).toEqual({ redirect_url: `${RECEIPT}${order.uuid}` });
      const [capture] = fake.orders.get(start.vendor_charge_id!)!.captures;
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'succeeded', vendor_charge_id: capture.id, total: 4200 });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', status: 'completed', total_paid: 4200, payment_method: 'paypal' });
      expect(paid.calls).toHaveLength(1);
    });

    it('a second visit (reload) goes to the receipt again without paying twice or calling PayPal', async () => {
      const paid = fx().record('store/order/paid');
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const start = await startPayPal(app, order);
      const back = approveAndReturn(fake, start.vendor_charge_id!);
      expect((await app.http.get(back)).status).toBe(302);
      const calls = fake.requests.length;

      const again = await app.http.get(back);
      paid.off();
      expect(again.status).toBe(302);
      expect(again.headers.location).toBe(`${RECEIPT}${order.uuid}`);
      expect(fake.requests.length).toBe(calls);
      expect(paid.calls).toHaveLength(1);
      expect(await db()('store_order_transactions').where({ order_id: order.orderId })).toHaveLength(1);
    });

    it('two returns at once capture once and pay once', async () => {
      const paid = fx().record('store/order/paid');
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const start = await startPayPal(app, order);
      const back = approveAndReturn(fake, start.vendor_charge_id!);

      const answers = await Promise.all([app.http.get(back), app.http.get(back), app.http.get(back)]);
      paid.off();
      expect(answers.map((a) => [a.status, a.headers.location])).toEqual(Array(3).fill([302, `${RECEIPT}${order.uuid}`]));
      expect(fake.orders.get(start.vendor_charge_id!)!.captures).toHaveLength(1);
      expect(paid.calls).toHaveLength(1);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_paid: 1000 });
    });

    it('a declined funding source sends the shopper back to the checkout; the order stays pending and can be paid again', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const start = await startPayPal(app, order);
      fake.captureResult = 'declined';

      const res = await app.http.get(approveAndReturn(fake, start.vendor_charge_id!));
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('http://store.test/checkout/?payment_error=paypal_declined');
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'pending', vendor_charge_id: start.vendor_charge_id });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending', status: 'on-hold' });
      const [declined] = (await activities(order.orderId)).filter((a) => a.title === 'PayPal payment declined');
      expect(declined.content).toContain('INSTRUMENT_DECLINED');

      fake.captureResult = 'completed';
      const retry = await app.http.get(approveAndReturn(fake, start.vendor_charge_id!));
      expect(retry.headers.location).toBe(`${RECEIPT}${order.uuid}`);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid' });
    });

    it('PayPal not answering is a 502 asking to reload; the order stays pending and the reload pays it', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const start = await startPayPal(app, order);
      const back = approveAndReturn(fake, start.vendor_charge_id!);
      fake.failOn.capture = 'lose-answer';

      const res = await app.http.get(back);
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ message: 'PayPal did not answer, so your payment is not confirmed yet. Please reload this page in a moment.' });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending' });

      fake.failOn = {};
      const reload = await app.http.get(back);
      expect(reload.headers.location).toBe(`${RECEIPT}${order.uuid}`);
      // PayPal captured during the lost call; the reload got that capture back, not a second one.
      expect(fake.orders.get(start.vendor_charge_id!)!.captures).toHaveLength(1);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_paid: 1000 });
    });

    it('404 in the message envelope for an unknown token, or a token of another order; nothing is written', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const start = await startPayPal(app, order);
      const other = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const activitiesBefore = await db()('store_activities').count({ n: '*' });

      for (const query of [
        { token: 'NOSUCHORDER000000' },
        { token: 'NOSUCHORDER000000', order_hash: order.uuid },
        { token: start.vendor_charge_id!, order_hash: other.uuid },
      ]) {
        const res = await app.http.get(RETURN_PATH).query(query);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'PayPal payment not found' });
      }
      expect(fake.calls(/\/capture$/)).toHaveLength(0);
      expect(await db()('store_activities').count({ n: '*' })).toEqual(activitiesBefore);
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'pending' });
    });

    it('422 for a token that cannot be a PayPal order id', async () => {
      const res = await app.http.get(RETURN_PATH).query({ token: '../x' });
      expect(res.status).toBe(422);
      expect(res.body.errors.token).toBeDefined();
    });
  });

  describe('POST /orders/{order_id}/refund on a PayPal payment', () => {
    const refund = (orderId: number, transactionId: number, amount: string) =>
      app
        .as(admin)
        .post(`${BASE}/orders/${orderId}/refund`)
        .send({ refund_info: { transaction_id: transactionId, amount } });
    const refundRows = (orderId: number) => db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' }).orderBy('id');

    it('refunds the capture at PayPal (the row’s uuid as request id and custom_id) and records it', async () => {
      const order = await paidPayPalOrder(app, admin, fake, { price: 5000, now: NOW });
      const res = await refund(order.orderId, order.chargeId, '12.50');

      expect(res.status).toBe(200);
      expect(res.body.gateway_refund.status).toBe('success');
      const [row] = await refundRows(order.orderId);
      const [call] = fake.calls(/\/refund$/);
      expect(call.path).toBe(`/v2/payments/captures/${order.captureId}/refund`);
      expect(call.body).toEqual({ amount: { currency_code: 'USD', value: '12.50' }, custom_id: row.uuid });
      expect(call.requestId).toBe(`store-refund-${row.uuid}`);
      const [paypalRefund] = [...fake.refunds.values()].filter((r) => r.custom_id === row.uuid);
      expect(row).toMatchObject({ status: 'refunded', total: 1250, vendor_charge_id: paypalRefund.id, payment_method: 'paypal' });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'partially-refunded', total_refund: 1250 });
    });

    it('refunds yen as whole yen', async () => {
      const order = await paidPayPalOrder(app, admin, fake, { price: 1500, currency: 'JPY', now: NOW });
      const res = await refund(order.orderId, order.chargeId, '1500');
      expect(res.status).toBe(200);
      expect(fake.calls(/\/refund$/)[0].body.amount).toEqual({ currency_code: 'JPY', value: '1500' });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'refunded', total_refund: 1500 });
    });

    it('a refusal (422) fails the refund and changes nothing else', async () => {
      const order = await paidPayPalOrder(app, admin, fake, { price: 5000, now: NOW });
      fake.refundRefusal = { issue: 'REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK', description: 'Refunds not allowed on this capture due to a chargeback.' };
      const res = await refund(order.orderId, order.chargeId, '10');
      expect(res.status).toBe(502);
      expect(res.body.fluent_cart_refund.status).toBe('failed');
      expect(res.body.gateway_refund).toEqual({
        status: 'failed',
        message: 'PayPal refused the refund: REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK: Refunds not allowed on this capture due to a chargeback.',
      });
      expect(await refundRows(order.orderId)).toEqual([expect.objectContaining({ status: 'failed', total: 1000 })]);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_refund: 0 });
    });

    it('no answer keeps the refund pending (amount reserved); PayPal’s accepted-for-later refund is pending with its id', async () => {
      const order = await paidPayPalOrder(app, admin, fake, { price: 5000, now: NOW });
      fake.failOn.refund = 'hang';
      const lost = await refund(order.orderId, order.chargeId, '10');
      expect(lost.status).toBe(502);
      expect(lost.body.fluent_cart_refund.status).toBe('pending');

      fake.failOn = {};
      fake.refundStatus = 'PENDING';
      const later = await refund(order.orderId, order.chargeId, '5');
      expect(later.status).toBe(200);
      expect(later.body.gateway_refund.status).toBe('pending');
      const rows = await refundRows(order.orderId);
      expect(rows.map((r) => [r.status, r.total, r.vendor_charge_id !== ''])).toEqual([
        ['pending', 1000, false],
        ['pending', 500, true],
      ]);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_refund: 0 });
    });

    it('lookupRefund tells the reconcile job what became of pending refunds: by id, by custom_id, or not made at all', async () => {
      const order = await paidPayPalOrder(app, admin, fake, { price: 5000, now: NOW });
      fake.failOn.refund = 'lose-answer';
      await refund(order.orderId, order.chargeId, '10');
      fake.failOn.refund = 'hang';
      await refund(order.orderId, order.chargeId, '5');
      fake.failOn = {};
      fake.refundStatus = 'PENDING';
      await refund(order.orderId, order.chargeId, '3');
      const [made, neverMade, accepted] = await refundRows(order.orderId);
      const charge = await chargeRow(order.chargeId);
      const asGateway = (row: Record<string, unknown>) => ({
        id: Number(row.id),
        order_id: Number(row.order_id),
        vendor_charge_id: String(row.vendor_charge_id),
        payment_method: String(row.payment_method),
        payment_mode: String(row.payment_mode),
        currency: String(row.currency),
        total: Number(row.total),
        status: String(row.status),
        uuid: String(row.uuid),
      });
      const lookup = (row: Record<string, unknown>) => paypal(app).lookupRefund!(app.ctx(), asGateway(row), asGateway(charge));

      const madeAtPayPal = [...fake.refunds.values()].find((r) => r.custom_id === made.uuid)!;
      expect(await lookup(made)).toEqual({ status: 'succeeded', vendor_id: madeAtPayPal.id });
      expect(await lookup(neverMade)).toEqual({ status: 'failed' });
      expect(await lookup(accepted)).toEqual({ status: 'pending', vendor_id: accepted.vendor_charge_id });
      fake.refunds.get(String(accepted.vendor_charge_id))!.status = 'COMPLETED';
      expect(await lookup(accepted)).toEqual({ status: 'succeeded', vendor_id: accepted.vendor_charge_id });
    });
  });

  describe('POST /webhooks/paypal', () => {
    it('a verified PAYMENT.CAPTURE.COMPLETED marks the order paid with the captured amount, once', async () => {
      const paid = fx().record('store/order/paid');
      const order = await unpaidPayPalOrder(app, admin, { price: 3300, now: NOW });
      const start = await startPayPal(app, order);
      const captureId = fake.captureDirectly(start.vendor_charge_id!);
      const event = fake.event('PAYMENT.CAPTURE.COMPLETED', fake.captureResource(captureId));

      const res = await postWebhook(app, fake.deliver(event, { time: app.clock.now() }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'succeeded', vendor_charge_id: captureId, total: 3300 });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_paid: 3300 });
      expect(await eventRows(event.id)).toEqual([expect.objectContaining({ event_type: 'PAYMENT.CAPTURE.COMPLETED', outcome: 'paid' })]);
      const verify = fake.calls(/verify-webhook-signature$/).pop()!;
      expect(verify.body).toMatchObject({ webhook_id: fake.webhookId, auth_algo: 'SHA256withRSA', webhook_event: event });

      // The same event delivered again (PayPal's retry: a new transmission) is recorded once and applied once.
      const again = await postWebhook(app, fake.deliver(event, { time: app.clock.now() }));
      paid.off();
      expect(again.body).toEqual({ received: true, duplicate: true });
      expect(paid.calls).toHaveLength(1);
      expect(await eventRows(event.id)).toHaveLength(1);
    });

    it('five deliveries of one event at once, and the shopper’s return racing them: paid once', async () => {
      const paid = fx().record('store/order/paid');
      const order = await unpaidPayPalOrder(app, admin, { price: 1200, now: NOW });
      const start = await startPayPal(app, order);
      const back = approveAndReturn(fake, start.vendor_charge_id!);
      const captureId = fake.captureDirectly(start.vendor_charge_id!);
      const event = fake.event('PAYMENT.CAPTURE.COMPLETED', fake.captureResource(captureId));

      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => postWebhook(app, fake.deliver(event, { time: app.clock.now() }))),
        app.http.get(back),
      ]);
      paid.off();
      expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.slice(0, 5).filter((a) => a.body.duplicate === false)).toHaveLength(1);
      expect(answers[5].headers.location).toBe(`${RECEIPT}${order.uuid}`);
      expect(paid.calls).toHaveLength(1);
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'paid', total_paid: 1200 });
      expect(await eventRows(event.id)).toHaveLength(1);
    });

    it('CHECKOUT.ORDER.APPROVED of a shopper who never came back captures the order and pays it', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 2100, now: NOW });
      const start = await startPayPal(app, order);
      fake.approve(start.vendor_charge_id!);

      const res = await postWebhook(
        app,
        fake.deliver(fake.event('CHECKOUT.ORDER.APPROVED', fake.orderResource(start.vendor_charge_id!)), { time: app.clock.now() }),
      );
      expect(res.status).toBe(200);
      const [capture] = fake.orders.get(start.vendor_charge_id!)!.captures;
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'succeeded', vendor_charge_id: capture.id, total: 2100 });
      expect((await eventRows()).pop()).toMatchObject({ outcome: 'paid' });

      // The shopper comes back after all: the receipt, no second capture.
      const back = await app.http.get(`${RETURN_PATH}?token=${start.vendor_charge_id}&order_hash=${order.uuid}`);
      expect(back.headers.location).toBe(`${RECEIPT}${order.uuid}`);
      expect(fake.orders.get(start.vendor_charge_id!)!.captures).toHaveLength(1);
    });

    it('CHECKOUT.ORDER.APPROVED whose capture PayPal declines is noted on the order, which stays pending', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 2100, now: NOW });
      const start = await startPayPal(app, order);
      fake.approve(start.vendor_charge_id!);
      fake.captureResult = 'declined';

      const event = fake.event('CHECKOUT.ORDER.APPROVED', fake.orderResource(start.vendor_charge_id!));
      const res = await postWebhook(app, fake.deliver(event, { time: app.clock.now() }));
      expect(res.status).toBe(200);
      expect(await eventRows(event.id)).toEqual([expect.objectContaining({ outcome: 'capture_declined' })]);
      expect(await chargeRow(order.chargeId)).toMatchObject({ status: 'pending', vendor_charge_id: start.vendor_charge_id });
      expect((await activities(order.orderId)).map((a) => a.content)).toContainEqual(expect.stringContaining('INSTRUMENT_DECLINED'));
    });

    it('PAYMENT.CAPTURE.DENIED is noted on the order, which stays pending', async () => {
      const order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
      const start = await startPayPal(app, order);
      const captureId = fake.captureDirectly(start.vendor_charge_id!);
      const resource = { ...fake.captureResource(captureId), status: 'DECLINED' };

      const res = await postWebhook(app, fake.deliver(fake.event('PAYMENT.CAPTURE.DENIED', resource), { time: app.clock.now() }));
      expect(res.status).toBe(200);
      expect((await eventRows()).pop()).toMatchObject({ outcome: 'capture_denied' });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending' });
      expect((await activities(order.orderId)).map((a) => a.title)).toContain('PayPal payment declined');
    });

    it('PAYMENT.CAPTURE.REFUNDED settles the refund whose answer was lost', async () => {
      const order = await paidPayPalOrder(app, admin, fake, { price: 5000, now: NOW });
      fake.failOn.refund = 'lose-answer';
      const lost = await app
        .as(admin)
        .post(`${BASE}/orders/${order.orderId}/refund`)
        .send({ refund_info: { transaction_id: order.chargeId, amount: '50' } });
      expect(lost.body.fluent_cart_refund.status).toBe('pending');
      const [row] = await db()('store_order_transactions').where({ order_id: order.orderId, transaction_type: 'refund' });
      const paypalRefund = [...fake.refunds.values()].find((r) => r.custom_id === row.uuid)!;

      const res = await postWebhook(app, fake.deliver(fake.event('PAYMENT.CAPTURE.REFUNDED', paypalRefund), { time: app.clock.now() }));
      expect(res.status).toBe(200);
      expect((await eventRows()).pop()).toMatchObject({ outcome: 'refund_settled' });
      expect(await chargeRow(Number(row.id))).toMatchObject({ status: 'refunded', vendor_charge_id: paypalRefund.id });
      expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'refunded', total_refund: 5000 });
    });

    it('an event type the store does not act on is recorded as ignored', async () => {
      const res = await postWebhook(app, fake.deliver(fake.event('CUSTOMER.DISPUTE.CREATED', { dispute_id: 'PP-D-1' }, 'dispute'), { time: app.clock.now() }));
      expect(res.status).toBe(200);
      expect((await eventRows()).pop()).toMatchObject({ event_type: 'CUSTOMER.DISPUTE.CREATED', outcome: 'ignored' });
    });

    describe('refused with 400, nothing written', () => {
      let order: Awaited<ReturnType<typeof unpaidPayPalOrder>>;
      let event: Record<string, unknown>;

      beforeAll(async () => {
        order = await unpaidPayPalOrder(app, admin, { price: 1000, now: NOW });
        const start = await startPayPal(app, order);
        event = fake.event('PAYMENT.CAPTURE.COMPLETED', fake.captureResource(fake.captureDirectly(start.vendor_charge_id!)));
      });
      afterEach(async () => {
        expect(await eventRows(event.id)).toEqual([]);
        expect(await orderRow(order.orderId)).toMatchObject({ payment_status: 'pending' });
      });

      const refused = async (delivery: { headers: Record<string, string>; body: string }, message: string | RegExp) => {
        const res = await postWebhook(app, delivery);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ message: typeof message === 'string' ? message : expect.stringMatching(message) });
      };

      it('a forged signature (PayPal answers FAILURE)', async () => {
        const delivery = fake.deliver(event, { time: app.clock.now() });
        await refused(
          { ...delivery, headers: { ...delivery.headers, 'paypal-transmission-sig': Buffer.from('forged').toString('base64') } },
          'The PayPal signature does not match the notification.',
        );
      });

      it('a transmission PayPal never sent', async () => {
        const delivery = fake.deliver(event, { time: app.clock.now() });
        await refused(
          { ...delivery, headers: { ...delivery.headers, 'paypal-transmission-id': '00000000-0000-4000-8000-000000000000' } },
          /signature does not match/,
        );
      });

      it('a tampered body (the amount raised)', async () => {
        const delivery = fake.deliver(event, { time: app.clock.now() });
        const tampered = delivery.body.replace('"value":"10.00"', '"value":"1.00"');
        expect(tampered).not.toBe(delivery.body);
        await refused({ ...delivery, body: tampered }, /signature does not match/);
      });

      it('signed for another webhook', async () => {
        await refused(fake.deliver(event, { time: app.clock.now(), webhookId: 'OTHERWEBHOOK0000' }), /signature does not match/);
      });

      it('a signature header missing', async () => {
        const { headers, body } = fake.deliver(event, { time: app.clock.now() });
        const { ['paypal-cert-url']: _dropped, ...rest } = headers;
        await refused({ headers: rest, body }, 'The PayPal notification lacks the header(s) paypal-cert-url.');
      });

      it('stale: sent more than three days ago (past PayPal’s retries), or dated in the future', async () => {
        await refused(fake.deliver(event, { time: new Date(app.clock.now().getTime() - 73 * 3600 * 1000) }), 'The PayPal notification is stale.');
        await refused(fake.deliver(event, { time: new Date(app.clock.now().getTime() + 10 * 60 * 1000) }), 'The PayPal notification is stale.');
      });

      it('not JSON', async () => {
        const delivery = fake.deliver(event, { time: app.clock.now() });
        await refused({ ...delivery, body: '{"id": ' }, /not valid JSON|request body is not valid JSON/);
      });

      it('no webhook id configured', async () => {
        await configurePayPal(app, admin, fake, { test_webhook_id: '' });
        await refused(fake.deliver(event, { time: app.clock.now() }), 'PayPal webhooks are not configured for test mode (client id, secret and webhook id).');
      });
    });
  });

  describe('end to end through POST /checkout/place-order', () => {
    it('places a PayPal order, sends the shopper to PayPal, and the return pays it and completes the cart', async () => {
      await app.host.options.set('checkout_rate_limit', 100_000);
      const variation = await fx().variation(2999, { fulfillment_type: 'digital', title: 'E-book' });
      const add = await app.http.post(`${BASE}/cart/items`).send({ variation_id: variation.id, quantity: 1 });
      const hash = /fct_cart_hash=([0-9a-f]+)/.exec(String(add.headers['set-cookie']))?.[1];
      expect(hash).toBeDefined();

      const placed = await app.http.post(`${BASE}/checkout/place-order`).set('Cookie', `fct_cart_hash=${hash}`).send({
        billing_email: 'shopper@example.com',
        billing_first_name: 'Sam',
        billing_last_name: 'Shopper',
        billing_address_1: '1 Main St',
        billing_city: 'Los Angeles',
        billing_state: 'CA',
        billing_postcode: '90001',
        billing_country: 'US',
        payment_method: 'paypal',
      });
      expect(placed.status).toBe(200);
      const paypalOrder = [...fake.orders.values()].pop()!;
      expect(placed.body).toEqual({
        status: 'success',
        redirect_url: `https://www.sandbox.paypal.com/checkoutnow?token=${paypalOrder.id}`,
        message: 'Redirecting to PayPal to pay.',
      });
      const charge = await db()('store_order_transactions').where({ payment_method: 'paypal', vendor_charge_id: paypalOrder.id }).first();
      const order = await orderRow(Number(charge.order_id));
      expect(order).toMatchObject({ payment_status: 'pending', total_amount: 2999 });
      expect(fake.calls(/^\/v2\/checkout\/orders$/).pop()!.body.purchase_units).toEqual([
        { reference_id: order.uuid, custom_id: order.uuid, invoice_id: order.uuid, amount: { currency_code: 'USD', value: '29.99' } },
      ]);

      const back = await app.http.get(approveAndReturn(fake, paypalOrder.id));
      expect(back.status).toBe(302);
      expect(back.headers.location).toBe(`${RECEIPT}${order.uuid}`);
      expect(await orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 2999 });
      expect(await db()('store_carts').where({ cart_hash: hash }).first('stage')).toEqual({ stage: 'completed' });
    });
  });
});
