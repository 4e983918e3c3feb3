import crypto from 'node:crypto';
import type { PaymentGateway, PaymentRequest, PaymentStart } from '../../src/gateways/gateway';
import { paymentGateways } from '../../src/gateways/registry';
import { BASE, type TestApp, type TestUser } from './app';
import { startFakeStripe, type FakeStripe } from './fakes/stripe-server';
import { orderFixtures } from './order-writes';

export const WEBHOOK_SECRET = 'whsec_test_store_secret';
export const SECRET_KEY = 'sk_test_store123';
export const PUBLISHABLE_KEY = 'pk_test_store123';

/**
 * A store whose Stripe gateway talks to a local fake: `STRIPE_API_BASE` points at it, calls time out after 300 ms
 * (`STRIPE_TIMEOUT_MS`), and the payment settings hold test keys and a signing secret. `stop()` puts the environment back.
 */
export async function stripeStore(app: TestApp, admin: TestUser, over: Record<string, unknown> = {}): Promise<{ fake: FakeStripe; stop(): Promise<void> }> {
  const fake = await startFakeStripe();
  const saved = { base: process.env.STRIPE_API_BASE, timeout: process.env.STRIPE_TIMEOUT_MS };
  process.env.STRIPE_API_BASE = fake.url;
  process.env.STRIPE_TIMEOUT_MS = '300';
  await configureStripe(app, admin, over);
  return {
    fake,
    async stop() {
      await fake.close();
      for (const [name, value] of [
        ['STRIPE_API_BASE', saved.base],
        ['STRIPE_TIMEOUT_MS', saved.timeout],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}

export async function configureStripe(app: TestApp, admin: TestUser, over: Record<string, unknown> = {}): Promise<void> {
  const res = await app
    .as(admin)
    .put(`${BASE}/settings/payment-methods`)
    .send({
      mode: 'test',
      gateways: {
        stripe: {
          enabled: true,
          checkout_mode: 'onsite',
          test_secret_key: SECRET_KEY,
          test_publishable_key: PUBLISHABLE_KEY,
          test_webhook_secret: WEBHOOK_SECRET,
          ...over,
        },
      },
    });
  if (res.status !== 200) throw new Error(`payment settings: ${res.status} ${JSON.stringify(res.body)}`);
}

export function stripe(app: TestApp): PaymentGateway {
  return paymentGateways(app.ctx()).get('stripe')!;
}

export interface StripeOrder {
  orderId: number;
  uuid: string;
  total: number;
  chargeId: number;
  transactionUuid: string;
  request: PaymentRequest;
}

/**
 * An unpaid order as checkout leaves it before the gateway is called: created through `POST /orders` (one line of
 * `price` × `quantity`, in `currency`), with a pending Stripe charge of its total.
 */
export async function unpaidStripeOrder(
  app: TestApp,
  admin: TestUser,
  options: { price: number; quantity?: number; currency?: string; now: string },
): Promise<StripeOrder> {
  const fx = orderFixtures(app, options.now);
  const customerId = await fx.customer();
  const variation = await fx.variation(options.price, { fulfillment_type: 'digital', title: 'Poster' });
  const quantity = options.quantity ?? 1;
  const currency = options.currency ?? 'USD';
  const res = await app
    .as(admin)
    .post(`${BASE}/orders`)
    .send({ customer_id: customerId, order_items: [{ id: variation.id, quantity }], currency, payment_method: 'stripe' });
  if (res.status !== 200) throw new Error(`POST /orders: ${res.status} ${JSON.stringify(res.body)}`);
  const orderId = Number(res.body.order_id);
  const order = await app.host.db('store_orders').where({ id: orderId }).first();
  const customer = await app.host.db('store_customers').where({ id: customerId }).first();
  const transactionUuid = crypto.randomUUID();
  const total = Number(order.total_amount);
  const [chargeId] = await app.host.db('store_order_transactions').insert({
    uuid: transactionUuid,
    order_id: orderId,
    order_type: 'payment',
    transaction_type: 'charge',
    vendor_charge_id: '',
    payment_method: 'stripe',
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
    customer: { id: customerId, email: String(customer.email), name: 'Buyer' },
    items: [{ title: 'Poster', quantity, unit_price: options.price, line_total: options.price * quantity }],
    urls: {
      success_url: `http://store.test/receipt/?order_hash=${String(order.uuid)}`,
      cancel_url: 'http://store.test/checkout/',
      return_url: 'http://store.test/wp-json/store/v2/checkout/stripe/return',
    },
  };
  return { orderId, uuid: String(order.uuid), total, chargeId: Number(chargeId), transactionUuid, request };
}

/** What place-order does next: start the Stripe payment and keep its id on the pending charge. */
export async function startStripe(app: TestApp, order: StripeOrder): Promise<PaymentStart> {
  const start = await stripe(app).startPayment!(app.ctx(), order.request);
  if (start.kind !== 'offline' && start.vendor_charge_id) {
    await app.host.db('store_order_transactions').where({ id: order.chargeId }).update({ vendor_charge_id: start.vendor_charge_id });
  }
  return start;
}

/** An order paid by Stripe (the intent succeeded at the fake; the store settled it through mark-as-paid): for refunds. */
export async function paidStripeOrder(
  app: TestApp,
  admin: TestUser,
  fake: FakeStripe,
  options: { price: number; currency?: string; now: string },
): Promise<{ orderId: number; chargeId: number; intentId: string }> {
  const order = await unpaidStripeOrder(app, admin, options);
  const intent = fake.paidIntent(order.total, (options.currency ?? 'USD').toLowerCase());
  const res = await app
    .as(admin)
    .post(`${BASE}/orders/${order.orderId}/mark-as-paid`)
    .send({ payment_method: 'stripe', vendor_charge_id: String(intent.id) });
  if (res.status !== 200) throw new Error(`mark-as-paid: ${res.status} ${JSON.stringify(res.body)}`);
  return { orderId: order.orderId, chargeId: order.chargeId, intentId: String(intent.id) };
}
