import type Stripe from 'stripe';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import type { OrderInfo, PaymentRequest, PaymentStart } from '../gateway';
import { stripeClient, stripeRefused } from './client';
import { storeMode, stripeConfig } from './config';

/** The Payment Element's look (Stripe.js `appearance`), sent to the checkout page as is. */
export const STRIPE_APPEARANCE = { theme: 'stripe' } as const;

/** What the store writes on every Stripe object it creates, so a notification or the dashboard leads back to the order. */
function storeMetadata(request: PaymentRequest): Record<string, string> {
  return { order_uuid: request.order.uuid, order_id: String(request.order.id), transaction_uuid: request.transaction.uuid };
}

/**
 * One Checkout Session line per order line when the lines add up to the amount to collect; otherwise (shipping, tax,
 * discounts) a single line of that amount, since a session line cannot be negative.
 */
function sessionLines(request: PaymentRequest, currency: string): Stripe.Checkout.SessionCreateParams.LineItem[] {
  const amount = request.transaction.total;
  const itemised = request.items.every((item) => item.quantity > 0 && item.unit_price * item.quantity === item.line_total);
  const sum = request.items.reduce((total, item) => total + item.line_total, 0);
  const line = (name: string, unitAmount: number, quantity: number) => ({
    quantity,
    price_data: { currency, unit_amount: unitAmount, product_data: { name: name.slice(0, 250) || 'Item' } },
  });
  if (itemised && request.items.length && sum === amount) return request.items.map((item) => line(item.title, item.unit_price, item.quantity));
  return [line(`Order ${request.order.uuid}`, amount, 1)];
}

/** A refusal carries Stripe's reason; anything else (no answer, a 5xx) a plain "try again", the detail logged. */
async function call<T>(ctx: Ctx, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    ctx.host.logger.warn({ err: error }, 'Stripe payment could not be started');
    if (stripeRefused(error)) throw fail('invalid_state', `Stripe refused the payment: ${error.message}`, { status: 502 });
    throw fail('invalid_state', 'Stripe could not be reached. Please try again in a moment.', { status: 502 });
  }
}

/**
 * Starts paying a placed order. On-site: a PaymentIntent the checkout page confirms with its client secret. Hosted: a
 * Checkout Session the shopper is sent to. Amounts are the store's minor units of the order currency, which are
 * Stripe's smallest currency unit (¥1500 is 1500, $19.99 is 1999). The idempotency key is the pending charge's uuid
 * with what is asked for, so a retried checkout gets the same intent or session back, and a changed amount a new one.
 */
export async function startStripePayment(ctx: Ctx, request: PaymentRequest): Promise<PaymentStart> {
  const config = await stripeConfig(ctx.host);
  const stripe = stripeClient(config.secretKey(storeMode(request.order.mode)));
  const currency = request.order.currency.toLowerCase();
  const amount = request.transaction.total;
  const metadata = storeMetadata(request);
  const email = request.customer.email || undefined;
  if (config.settings.checkout_mode === 'hosted') {
    const session = await call(ctx, () =>
      stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: sessionLines(request, currency),
          success_url: request.urls.success_url,
          cancel_url: request.urls.cancel_url,
          client_reference_id: request.order.uuid,
          customer_email: email,
          metadata,
          payment_intent_data: { metadata, receipt_email: email },
        },
        { idempotencyKey: `store-cs-${request.transaction.uuid}-${amount}-${currency}` },
      ),
    );
    if (!session.url) throw fail('invalid_state', 'Stripe did not return a checkout page for this order.', { status: 502 });
    return { kind: 'redirect', redirect_url: session.url, vendor_charge_id: session.id };
  }
  const intent = await call(ctx, () =>
    stripe.paymentIntents.create(
      { amount, currency, automatic_payment_methods: { enabled: true }, metadata, receipt_email: email, description: `Order ${request.order.uuid}` },
      { idempotencyKey: `store-pi-${request.transaction.uuid}-${amount}-${currency}` },
    ),
  );
  if (!intent.client_secret) throw fail('invalid_state', 'Stripe did not return a client secret for this payment.', { status: 502 });
  return { kind: 'onsite', client_secret: intent.client_secret, vendor_charge_id: intent.id };
}

/**
 * `GET /checkout/get-order-info?method=stripe`. Hosted: nothing to prepare (`data` is an empty list). On-site: the
 * publishable key of the current mode and the Payment Element's appearance. No order exists yet when the page asks,
 * so `data.client_secret` is null: the page mounts the Payment Element in deferred mode (amount and currency from the
 * checkout summary) and confirms with the `client_secret` place-order answers in `payment_args`.
 */
export async function stripeOrderInfo(ctx: Ctx): Promise<OrderInfo> {
  const config = await stripeConfig(ctx.host);
  if (config.settings.checkout_mode === 'hosted') {
    return { status: 'success', message: 'Order info retrieved!', data: [], payment_args: { checkout_mode: 'hosted' } };
  }
  return {
    status: 'success',
    message: 'Order info retrieved!',
    data: { client_secret: null, publishable_key: config.publishableKey(config.mode) },
    payment_args: { checkout_mode: 'onsite', appearance: STRIPE_APPEARANCE },
  };
}
