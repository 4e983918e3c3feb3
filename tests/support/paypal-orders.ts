import crypto from 'node:crypto';
import type { PaymentGateway, PaymentRequest, PaymentStart } from '../../src/gateways/gateway';
import { paymentGateways } from '../../src/gateways/registry';
import { BASE, type TestApp, type TestUser } from './app';
import { FakePayPal, type PayPalDelivery } from './fakes/paypal-server';
import { orderFixtures } from './order-writes';

export const RETURN_PATH = `${BASE}/checkout/paypal/return`;

/**
 * A store whose PayPal gateway talks to a local fake: `PAYPAL_API_BASE` points at it, calls time out after 500 ms
 * (`PAYPAL_TIMEOUT_MS`), and the payment settings hold the fake's client id, secret and webhook id for test mode.
 * `stop()` puts the environment back.
 */
export async function paypalStore(app: TestApp, admin: TestUser): Promise<{ fake: FakePayPal; stop(): Promise<void> }> {
  const fake = await new FakePayPal().start();
  const saved = { base: process.env.PAYPAL_API_BASE, timeout: process.env.PAYPAL_TIMEOUT_MS };
  process.env.PAYPAL_API_BASE = fake.url;
  process.env.PAYPAL_TIMEOUT_MS = '500';
  await configurePayPal(app, admin, fake);
  return {
    fake,
    async stop() {
      await fake.close();
      for (const [name, value] of [
        ['PAYPAL_API_BASE', saved.base],
        ['PAYPAL_TIMEOUT_MS', saved.timeout],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}

export async function configurePayPal(app: TestApp, admin: TestUser, fake: FakePayPal, over: Record<string, unknown> = {}): Promise<void> {
  const res = await app
    .as(admin)
    .put(`${BASE}/settings/payment-methods`)
    .send({
      mode: 'test',
      gateways: {
        paypal: { enabled: true, test_client_id: fake.clientId, test_client_secret: fake.clientSecret, test_webhook_id: fake.webhookId, ...over },
      },
    });
  if (res.status !== 200) throw new Error(`payment settings: ${res.status} ${JSON.stringify(res.body)}`);
}

export function paypal(app: TestApp): PaymentGateway {
  return paymentGateways(app.ctx()).get('paypal')!;
}

export interface PayPalTestOrder {
  orderId: number;
  uuid: string;
  total: number;
  chargeId: number;
  transactionUuid: string;
  request: PaymentRequest;
}

/**
 * An unpaid order as checkout leaves it before the gateway is called: created through `POST /orders` (one digital line
 * of `price`, in `currency`), with a pending PayPal charge of its total.
 */
export async function unpaidPayPalOrder(app: TestApp, admin: TestUser, options: { price: number; currency?: string; now: string }): Promise<PayPalTestOrder> {
  const fx = orderFixtures(app, options.now);
  const customerId = await fx.customer();
  const variation = await fx.variation(options.price, { fulfillment_type: 'digital', title: 'Poster' });
  const currency = options.currency ?? 'USD';
  const res = await app
    .as(admin)
    .post(`${BASE}/orders`)
    .send({ customer_id: customerId, order_items: [{ id: variation.id, quantity: 1 }], currency, payment_method: 'paypal' });
  if (res.status !== 200) throw new Error(`POST /orders: ${res.status} ${JSON.stringify(res.body)}`);
  const orderId = Number(res.body.order_id);
  const order = await app.host.db('store_orders').where({ id: orderId }).first();
  const transactionUuid = crypto.randomUUID();
  const total = Number(order.total_amount);
  const [chargeId] = await app.host.db('store_order_transactions').insert({
    uuid: transactionUuid,
    order_id: orderId,
    order_type: 'payment',
    transaction_type: 'charge',
    vendor_charge_id: '',
    payment_method: 'paypal',
    payment_mode: 'test',
    status: 'pending',
    currency,
    total,
    rate: 1,
    meta: '{}',
    created_at: options.now,
    updated_at: options.now,
  });
  const request: PaymentRequest = {
    order: { id: orderId, uuid: String(order.uuid), currency, total_amount: total, mode: 'test' },
    transaction: { id: Number(chargeId), uuid: transactionUuid, total },
    customer: { id: customerId, email: 'buyer@example.com', name: 'Buyer' },
    items: [{ title: 'Poster', quantity: 1, unit_price: options.price, line_total: options.price }],
    urls: {
      success_url: `http://store.test/receipt/?order_hash=${String(order.uuid)}`,
      cancel_url: 'http://store.test/checkout/',
      return_url: `http://store.test${RETURN_PATH}`,
    },
  };
  return { orderId, uuid: String(order.uuid), total, chargeId: Number(chargeId), transactionUuid, request };
}

/** What place-order does next: start the PayPal payment and keep the PayPal order id on the pending charge. */
export async function startPayPal(app: TestApp, order: PayPalTestOrder): Promise<PaymentStart & { kind: 'redirect' }> {
  const start = await paypal(app).startPayment!(app.ctx(), order.request);
  if (start.kind !== 'redirect' || !start.vendor_charge_id) throw new Error(`unexpected start ${JSON.stringify(start)}`);
  await app.host.db('store_order_transactions').where({ id: order.chargeId }).update({ vendor_charge_id: start.vendor_charge_id });
  return start;
}

/** The shopper approves at PayPal and is sent back: the path and query of the return URL PayPal redirects to. */
export function approveAndReturn(fake: FakePayPal, paypalOrderId: string): string {
  const back = new URL(fake.approve(paypalOrderId));
  return `${back.pathname}${back.search}`;
}

/** An order the shopper paid at PayPal and came back from (captured and settled by the return route): for refunds. */
export async function paidPayPalOrder(
  app: TestApp,
  admin: TestUser,
  fake: FakePayPal,
  options: { price: number; currency?: string; now: string },
): Promise<PayPalTestOrder & { paypalOrderId: string; captureId: string }> {
  const order = await unpaidPayPalOrder(app, admin, options);
  const start = await startPayPal(app, order);
  const res = await app.http.get(approveAndReturn(fake, start.vendor_charge_id!));
  if (res.status !== 302) throw new Error(`return: ${res.status} ${JSON.stringify(res.body)}`);
  const charge = await app.host.db('store_order_transactions').where({ id: order.chargeId }).first();
  if (charge.status !== 'succeeded') throw new Error(`charge not settled: ${JSON.stringify(charge)}`);
  return { ...order, paypalOrderId: start.vendor_charge_id!, captureId: String(charge.vendor_charge_id) };
}

/** Posts a delivery to the store's webhook route the way PayPal does. */
export function postWebhook(app: TestApp, delivery: PayPalDelivery) {
  return app.http.post(`${BASE}/webhooks/paypal`).set(delivery.headers).set('Content-Type', 'application/json').send(delivery.body);
}
