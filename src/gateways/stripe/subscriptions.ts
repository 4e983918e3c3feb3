import type Stripe from 'stripe';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import type { BillingInterval } from '../../modules/subscriptions/types';
import type { GatewayResult, GatewaySubscription, RemoteSubscription, SubscriptionStart, SubscriptionStartRequest } from '../gateway';
import { stripeClient, stripeRefused } from './client';
import { storeMode, stripeConfig } from './config';

const METHOD = 'stripe';

/** The store's billing intervals as Stripe's recurring `interval` × `interval_count`. */
export const STRIPE_INTERVALS: Record<BillingInterval, { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number }> = {
  yearly: { interval: 'year', interval_count: 1 },
  half_yearly: { interval: 'month', interval_count: 6 },
  quarterly: { interval: 'month', interval_count: 3 },
  monthly: { interval: 'month', interval_count: 1 },
  weekly: { interval: 'week', interval_count: 1 },
  daily: { interval: 'day', interval_count: 1 },
};

/** Stripe's subscription statuses as the store's (`paused` stays `paused`; an unknown one is passed through). */
const STATUSES: Record<string, string> = {
  active: 'active',
  trialing: 'trialing',
  past_due: 'failing',
  unpaid: 'failing',
  canceled: 'canceled',
  incomplete: 'pending',
  incomplete_expired: 'expired',
  paused: 'paused',
};

export const idOf = (value: string | { id: string } | null | undefined): string => (typeof value === 'string' ? value : (value?.id ?? ''));

const timestampOf = (seconds: number | null | undefined): string | null => (seconds ? toTimestamp(new Date(seconds * 1000)) : null);

/**
 * A Stripe subscription as the store sees it. An active one set to cancel at the end of its period is `expiring`.
 * Since API version 2025-03-31 the period lives on the subscription item: the next charge is its `current_period_end`
 * (none once the subscription ended). The amount is the item's price × quantity.
 */
export function remoteOf(subscription: Stripe.Subscription): RemoteSubscription {
  const item = subscription.items.data[0];
  const mapped = STATUSES[subscription.status] ?? subscription.status;
  const ended = subscription.status === 'canceled' || subscription.status === 'incomplete_expired';
  return {
    id: subscription.id,
    status: mapped === 'active' && subscription.cancel_at_period_end ? 'expiring' : mapped,
    customer_id: idOf(subscription.customer),
    plan_id: item?.price.id ?? '',
    amount: (item?.price.unit_amount ?? 0) * (item?.quantity ?? 1),
    currency: subscription.currency.toUpperCase(),
    next_billing_date: ended ? null : timestampOf(item?.current_period_end),
    canceled_at: timestampOf(subscription.canceled_at),
  };
}

async function clientFor(ctx: Ctx, mode: string): Promise<Stripe> {
  const config = await stripeConfig(ctx.host);
  return stripeClient(config.secretKey(storeMode(mode)));
}

/** A call that starts a subscription: a refusal carries Stripe's reason, anything else a plain "try again" (502). */
async function starting<T>(ctx: Ctx, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    ctx.host.logger.warn({ err: error }, 'Stripe subscription could not be started');
    if (stripeRefused(error)) throw fail('invalid_state', `Stripe refused the subscription: ${error.message}`, { status: 502 });
    throw fail('invalid_state', 'Stripe could not be reached. Please try again in a moment.', { status: 502 });
  }
}

/** A failed read (fetch, lookup): Stripe's own message when it refused, a plain one when it did not answer; 502 either way. */
function readFailure(ctx: Ctx, error: unknown): Error {
  if (stripeRefused(error)) return fail('gateway_error', error.message);
  ctx.host.logger.warn({ err: error }, 'Stripe could not be asked about a subscription');
  return fail('gateway_error', 'Stripe could not be reached. Please try again in a moment.');
}

/** The subscription's Stripe customer, else the one an earlier Stripe subscription of this store customer used (same mode), else ''. */
async function customerOnFile(ctx: Ctx, request: SubscriptionStartRequest): Promise<string> {
  if (request.subscription.vendor_customer_id) return request.subscription.vendor_customer_id;
  const earlier = (await ctx.host
    .db('store_subscriptions as s')
    .join('store_orders as o', 'o.id', 's.parent_order_id')
    .where({ 's.customer_id': request.customer.id, 's.current_payment_method': METHOD, 'o.mode': request.order.mode })
    .whereNot('s.vendor_customer_id', '')
    .whereNot('s.id', request.subscription.id)
    .orderBy('s.id', 'desc')
    .first('s.vendor_customer_id')) as { vendor_customer_id: string } | undefined;
  return earlier?.vendor_customer_id ?? '';
}

/**
 * The Stripe customer of the store customer: the one an earlier Stripe subscription of theirs (same payment mode)
 * was billed to, else a new one (email, name). Its idempotency key is the subscription's uuid, so a retried checkout
 * reuses the customer the failed attempt created.
 */
async function customerFor(ctx: Ctx, stripe: Stripe, request: SubscriptionStartRequest): Promise<string> {
  const known = await customerOnFile(ctx, request);
  if (known) return known;
  const customer = await starting(ctx, () =>
    stripe.customers.create(
      {
        email: request.customer.email || undefined,
        name: request.customer.name || undefined,
        metadata: { store_customer_id: String(request.customer.id) },
      },
      { idempotencyKey: `store-cus-${request.subscription.uuid}` },
    ),
  );
  return customer.id;
}

function metadataOf(request: SubscriptionStartRequest): Record<string, string> {
  return {
    subscription_uuid: request.subscription.uuid,
    order_uuid: request.order.uuid,
    order_id: String(request.order.id),
    transaction_uuid: request.transaction.uuid,
  };
}

/**
 * What the first invoice must collect besides the first period and the signup fee for it to equal the order's charge:
 * the order's other lines, shipping and tax (positive), or its discounts (negative).
 */
function firstChargeRest(request: SubscriptionStartRequest): number {
  const sub = request.subscription;
  return request.transaction.total - (sub.trial_days > 0 ? 0 : sub.recurring_amount) - sub.signup_fee;
}

/** A discount of the first invoice only (a Stripe coupon of `amount` off, used once); its id. */
async function firstInvoiceCoupon(ctx: Ctx, stripe: Stripe, request: SubscriptionStartRequest, amount: number, currency: string): Promise<string> {
  const coupon = await starting(ctx, () =>
    stripe.coupons.create(
      { amount_off: amount, currency, duration: 'once', max_redemptions: 1, name: `Order ${request.order.uuid}`.slice(0, 40) },
      { idempotencyKey: `store-coupon-${request.subscription.uuid}-${amount}-${currency}` },
    ),
  );
  return coupon.id;
}

/** What the idempotency keys of one start include besides the uuid: a retry asking for other terms is a new request. */
const termsOf = (request: SubscriptionStartRequest, currency: string) => {
  const sub = request.subscription;
  return `${sub.recurring_amount}-${sub.signup_fee}-${sub.trial_days}-${sub.billing_interval}-${request.transaction.total}-${currency}`;
};

/**
 * Hosted: a Checkout Session in `subscription` mode (the recurring price, the signup fee as a one-time line, the
 * trial and the metadata in `subscription_data`). Stripe creates the subscription (and the customer, unless an
 * earlier subscription's is reused) when the shopper completes it; `checkout.session.completed` brings its ids.
 */
async function startHosted(ctx: Ctx, stripe: Stripe, request: SubscriptionStartRequest, currency: string): Promise<SubscriptionStart> {
  const sub = request.subscription;
  const customer = await customerOnFile(ctx, request);
  const metadata = metadataOf(request);
  const name = sub.item_name.slice(0, 250) || 'Subscription';
  const lines: Stripe.Checkout.SessionCreateParams.LineItem[] = [
    {
      quantity: 1,
      price_data: { currency, unit_amount: sub.recurring_amount, product_data: { name }, recurring: STRIPE_INTERVALS[sub.billing_interval as BillingInterval] },
    },
  ];
  if (sub.signup_fee > 0)
    lines.push({ quantity: 1, price_data: { currency, unit_amount: sub.signup_fee, product_data: { name: `${name} (signup fee)`.slice(0, 250) } } });
  const rest = firstChargeRest(request);
  if (rest > 0) lines.push({ quantity: 1, price_data: { currency, unit_amount: rest, product_data: { name: `Order ${request.order.uuid}: other items` } } });
  const discounts = rest < 0 ? [{ coupon: await firstInvoiceCoupon(ctx, stripe, request, -rest, currency) }] : undefined;
  const session = await starting(ctx, () =>
    stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        line_items: lines,
        success_url: request.urls.success_url,
        cancel_url: request.urls.cancel_url,
        client_reference_id: request.order.uuid,
        ...(customer ? { customer } : { customer_email: request.customer.email || undefined }),
        metadata,
        discounts,
        subscription_data: { metadata, ...(sub.trial_days > 0 ? { trial_period_days: sub.trial_days } : {}) },
      },
      { idempotencyKey: `store-cs-sub-${sub.uuid}-${termsOf(request, currency)}` },
    ),
  );
  if (!session.url) throw fail('invalid_state', 'Stripe did not return a checkout page for this subscription.', { status: 502 });
  return { kind: 'redirect', redirect_url: session.url, vendor_charge_id: session.id, vendor_subscription_id: '', vendor_customer_id: customer };
}

/**
 * Starts a subscription at Stripe for a placed order (the gateway's `startSubscription`).
 *
 * The first invoice collects exactly the order's charge: the first period (nothing during a trial), the signup fee,
 * and the rest of the order (other lines, shipping, tax) as one-time items, or its discounts as a coupon used once.
 *
 * On-site: the customer (reused, see `customerFor`), a Product for the item, then the Subscription with the price
 * inline (`price_data`: the recurring amount in minor units, the interval from `STRIPE_INTERVALS`), the trial days,
 * the first invoice's items, `payment_behavior=default_incomplete` (the first invoice waits for the shopper to confirm
 * its payment on the checkout page) and the card saved for the renewals. The first
 * invoice's payment intent is read from `latest_invoice.payments` (API versions since 2025-03-31 no longer put it on
 * the invoice) and its client secret from `latest_invoice.confirmation_secret`: the answer is `onsite` with that
 * secret and the intent's id as the pending charge's id, so `payment_intent.succeeded` settles the order.
 *
 * A trial with nothing due now (no signup fee) has a paid $0 first invoice and no payment intent: the answer is the
 * subscription's `pending_setup_intent` (the checkout page collects the card for the charge after the trial with
 * it), or, when Stripe needs nothing, a redirect to the receipt. Every call carries an idempotency key from the
 * subscription's uuid and its terms, so a retried checkout gets the same customer, product and subscription back.
 */
export async function startStripeSubscription(ctx: Ctx, request: SubscriptionStartRequest): Promise<SubscriptionStart> {
  const config = await stripeConfig(ctx.host);
  const stripe = stripeClient(config.secretKey(storeMode(request.order.mode)));
  const sub = request.subscription;
  const currency = (sub.currency || request.order.currency).toLowerCase();
  if (config.settings.checkout_mode === 'hosted') return startHosted(ctx, stripe, request, currency);

  const customer = await customerFor(ctx, stripe, request);
  const metadata = metadataOf(request);
  const product = await starting(ctx, () =>
    stripe.products.create(
      { name: sub.item_name.slice(0, 250) || 'Subscription', metadata: { subscription_uuid: sub.uuid } },
      { idempotencyKey: `store-prod-${sub.uuid}` },
    ),
  );
  const extras: Stripe.SubscriptionCreateParams.AddInvoiceItem[] = [];
  if (sub.signup_fee > 0) extras.push({ quantity: 1, price_data: { currency, product: product.id, unit_amount: sub.signup_fee } });
  const rest = firstChargeRest(request);
  if (rest > 0) extras.push({ quantity: 1, price_data: { currency, product: product.id, unit_amount: rest } });
  const discounts = rest < 0 ? [{ coupon: await firstInvoiceCoupon(ctx, stripe, request, -rest, currency) }] : undefined;
  const created = await starting(ctx, () =>
    stripe.subscriptions.create(
      {
        customer,
        items: [
          {
            quantity: 1,
            price_data: {
              currency,
              product: product.id,
              unit_amount: sub.recurring_amount,
              recurring: STRIPE_INTERVALS[sub.billing_interval as BillingInterval],
            },
          },
        ],
        ...(sub.trial_days > 0 ? { trial_period_days: sub.trial_days } : {}),
        ...(extras.length ? { add_invoice_items: extras } : {}),
        discounts,
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        metadata,
        expand: ['latest_invoice.payments', 'latest_invoice.confirmation_secret', 'pending_setup_intent'],
      },
      { idempotencyKey: `store-sub-${sub.uuid}-${termsOf(request, currency)}` },
    ),
  );
  const ids = { vendor_subscription_id: created.id, vendor_customer_id: customer, vendor_plan_id: created.items.data[0]?.price.id ?? '' };
  const invoice = typeof created.latest_invoice === 'object' ? created.latest_invoice : null;
  const payment = invoice?.payments?.data.find((p) => p.is_default) ?? invoice?.payments?.data[0];
  const intentId = idOf(payment?.payment.payment_intent);
  const secret = invoice?.confirmation_secret?.client_secret;
  if (intentId && secret) return { kind: 'onsite', client_secret: secret, vendor_charge_id: intentId, ...ids };
  const setup = typeof created.pending_setup_intent === 'object' ? created.pending_setup_intent : null;
  if (setup?.client_secret) return { kind: 'onsite', client_secret: setup.client_secret, vendor_charge_id: setup.id, ...ids };
  if (invoice?.status === 'paid') return { kind: 'redirect', redirect_url: request.urls.success_url, ...ids };
  throw fail('invalid_state', 'Stripe did not return a payment for this subscription.', { status: 502 });
}

/**
 * Ends the subscription at Stripe now (`DELETE /v1/subscriptions/:id`). A refusal (already canceled, unknown id, a bad
 * key) is `failed` with Stripe's message; no answer or a 5xx throws: the outcome is unknown.
 */
export async function cancelStripeSubscription(ctx: Ctx, subscription: GatewaySubscription): Promise<GatewayResult> {
  const id = subscription.vendor_subscription_id;
  if (!id) return { status: 'skipped', message: 'The subscription has no Stripe subscription id.' };
  const stripe = await clientFor(ctx, subscription.mode);
  try {
    const canceled = await stripe.subscriptions.cancel(id);
    return { status: 'success', message: `Canceled at Stripe (${canceled.id}).`, vendor_id: canceled.id };
  } catch (error) {
    if (stripeRefused(error)) return { status: 'failed', message: error.message };
    throw error;
  }
}

/** The subscription as Stripe has it now (`fetch`); a 502 `gateway_error` with Stripe's message when it cannot be read. */
export async function fetchStripeSubscription(ctx: Ctx, subscription: GatewaySubscription): Promise<RemoteSubscription> {
  if (!subscription.vendor_subscription_id) throw fail('invalid_state', 'The subscription has no Stripe subscription id.');
  const stripe = await clientFor(ctx, subscription.mode);
  try {
    return remoteOf(await stripe.subscriptions.retrieve(subscription.vendor_subscription_id));
  } catch (error) {
    throw readFailure(ctx, error);
  }
}

/**
 * Finds a subscription by its Stripe ids without writing anything (`verify-vendor-ids`): null when Stripe has no such
 * subscription, or when a customer id is given and the subscription belongs to another customer.
 */
export async function lookupStripeSubscription(
  ctx: Ctx,
  ids: { vendor_subscription_id: string; vendor_customer_id: string; mode: string },
): Promise<RemoteSubscription | null> {
  if (!ids.vendor_subscription_id) return null;
  const stripe = await clientFor(ctx, ids.mode);
  let found: Stripe.Subscription;
  try {
    found = await stripe.subscriptions.retrieve(ids.vendor_subscription_id);
  } catch (error) {
    if (stripeRefused(error) && error.statusCode === 404) return null;
    throw readFailure(ctx, error);
  }
  const remote = remoteOf(found);
  if (ids.vendor_customer_id && remote.customer_id !== ids.vendor_customer_id) return null;
  return remote;
}
