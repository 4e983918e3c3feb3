/**
 * Stripe Billing's notifications, applied inside the webhook transaction (which also records the event id):
 *
 * - `invoice.paid` / `invoice.payment_succeeded` (Stripe sends both for one payment): `subscription_cycle` is a
 *   renewal, recorded by `recordRenewal` under the invoice's id: the id both events carry, and the only id of the
 *   payment an invoice event carries since API version 2025-03-31 (its payment intent moved to `invoice.payments`,
 *   which events leave out). So the two events of one payment, or one event delivered twice at once, make one
 *   renewal, with no call to Stripe. `subscription_create` is the first payment: it settles the parent order (as
 *   `payment_intent.succeeded` or `checkout.session.completed` may have done already).
 *   When the renewal pays an installment plan's last installment, the job `store/subscriptions/end-at-gateway` (written
 *   in this transaction) cancels the Stripe subscription after the commit, retried while Stripe does not answer.
 * - `invoice.payment_failed` of a renewal: the subscription is `failing` (the next paid invoice makes it active).
 * - `customer.subscription.updated`: status changes Stripe made (past due, cancel at period end → `expiring`, undone).
 * - `customer.subscription.deleted`: `completed` when its installments are paid, `expired` when it was `expiring`,
 *   else `canceled`.
 *
 * The subscription is found by its Stripe id; a hosted checkout's subscription, whose id the store learns only from
 * Stripe, also by the `subscription_uuid` of its metadata (then the ids are stored on it).
 */
import type { Knex } from 'knex';
import type Stripe from 'stripe';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { toTimestamp } from '../../core/time';
import { settleGatewayPayment } from '../../modules/payments/settle';
import { nextStatus, type SubscriptionEvent } from '../../modules/subscriptions/lifecycle';
import { endAtGatewayLater } from '../../modules/subscriptions/actions/end-at-gateway';
import { recordRenewal } from '../../modules/subscriptions/renewals';
import { subscriptionForVendor, transitionSubscription, type SubscriptionPatch } from '../../modules/subscriptions/service';
import type { Subscription, SubscriptionStatus } from '../../modules/subscriptions/types';
import { idOf, remoteOf } from './subscriptions';

const METHOD = 'stripe';

/** Statuses a Stripe notification no longer changes: not started (the first payment starts it) or ended. */
const SETTLED: readonly SubscriptionStatus[] = ['pending', 'intended', 'completed', 'canceled', 'expired'];

/**
 * The local subscription of a Stripe subscription: by its id, else (a hosted checkout's, before the store knew the id)
 * by the uuid in its metadata, when that subscription has no other Stripe id; its Stripe ids are then stored.
 */
async function localSubscription(
  trx: Knex.Transaction,
  ctx: Ctx,
  stripeId: string,
  customerId: string,
  metadata: Record<string, string> | null | undefined,
): Promise<Subscription | null> {
  if (!stripeId) return null;
  const known = await subscriptionForVendor(trx, METHOD, stripeId);
  if (known) return known;
  const uuid = metadata?.subscription_uuid;
  if (!uuid) return null;
  const adopted = await trx('store_subscriptions')
    .where({ uuid, current_payment_method: METHOD, vendor_subscription_id: '' })
    .update({ vendor_subscription_id: stripeId, vendor_customer_id: customerId, updated_at: toTimestamp(ctx.clock.now()) });
  return adopted ? subscriptionForVendor(trx, METHOD, stripeId) : null;
}

function invoiceSubscription(invoice: Stripe.Invoice): { id: string; metadata: Record<string, string> | null } {
  const details = invoice.parent?.subscription_details;
  return { id: idOf(details?.subscription), metadata: details?.metadata ?? null };
}

/**
 * The first invoice was paid: the parent order's latest Stripe charge settles with what Stripe took (nothing when the
 * invoice asked for nothing: a trial's order was paid at checkout). A charge still holding a Checkout Session's id
 * takes the invoice's id, the payment's id from then on (refunds find the payment through it).
 */
async function firstPayment(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, invoice: Stripe.Invoice, subscription: Subscription): Promise<string> {
  if (invoice.amount_paid === 0) return 'nothing_due';
  if (subscription.parent_order_id === null) return 'unknown_charge';
  const charge = (await trx('store_order_transactions')
    .where({ order_id: subscription.parent_order_id, payment_method: METHOD, transaction_type: 'charge' })
    .orderBy('id', 'desc')
    .first('vendor_charge_id')) as { vendor_charge_id: string } | undefined;
  if (!charge?.vendor_charge_id) return 'unknown_charge';
  return settleGatewayPayment(ctx, trx, afterCommit, {
    method: METHOD,
    vendor_charge_id: charge.vendor_charge_id,
    settled_charge_id: charge.vendor_charge_id.startsWith('cs_') ? invoice.id : undefined,
    amount: invoice.amount_paid,
  });
}

/** `invoice.paid` / `invoice.payment_succeeded`: a renewal, or the first payment. */
export async function invoicePaid(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, invoice: Stripe.Invoice): Promise<string> {
  const parent = invoiceSubscription(invoice);
  if (!parent.id) return 'not_a_subscription';
  const subscription = await localSubscription(trx, ctx, parent.id, idOf(invoice.customer), parent.metadata);
  if (!subscription) return 'unknown_subscription';
  if (invoice.billing_reason === 'subscription_create') return firstPayment(ctx, trx, afterCommit, invoice, subscription);
  if (invoice.billing_reason !== 'subscription_cycle') return 'ignored';
  const renewal = await recordRenewal(ctx, trx, afterCommit, {
    subscription_id: subscription.id,
    payment_method: METHOD,
    vendor_charge_id: invoice.id,
    amount: invoice.amount_paid,
    currency: invoice.currency.toUpperCase(),
  });
  if (renewal.outcome === 'renewed' && renewal.subscription.status === 'completed') {
    await endAtGatewayLater(ctx.host, trx, subscription.id);
  }
  return renewal.outcome;
}

/** Applies `event` when the lifecycle allows it from the current status; otherwise notes why nothing changed. */
async function apply(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  subscription: Subscription,
  event: SubscriptionEvent,
  patch: SubscriptionPatch,
  note: string,
): Promise<string> {
  if (nextStatus(subscription.status, event, patch.status) === null) return `ignored_${subscription.status}`;
  const after = await transitionSubscription(ctx, trx, afterCommit, subscription.id, event, patch, { note });
  return after.status;
}

/** `invoice.payment_failed`: a renewal Stripe could not collect makes the subscription `failing`. */
export async function invoiceFailed(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, invoice: Stripe.Invoice): Promise<string> {
  const parent = invoiceSubscription(invoice);
  if (!parent.id) return 'not_a_subscription';
  const subscription = await localSubscription(trx, ctx, parent.id, idOf(invoice.customer), parent.metadata);
  if (!subscription) return 'unknown_subscription';
  if (invoice.billing_reason !== 'subscription_cycle') return 'ignored';
  const attempt = invoice.attempt_count ? ` (attempt ${invoice.attempt_count})` : '';
  return apply(ctx, trx, afterCommit, subscription, 'fail', {}, `Stripe could not collect invoice ${invoice.id}${attempt}.`);
}

/**
 * `customer.subscription.updated`: the status Stripe reports, when it differs (set to cancel at the end of the
 * period → `expiring` until then; past due → `failing`; back to active). The next billing date stays the store's:
 * renewals move it (Stripe starts the next period before the invoice of that period is paid).
 */
export async function subscriptionUpdated(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, remote: Stripe.Subscription): Promise<string> {
  const subscription = await localSubscription(trx, ctx, remote.id, idOf(remote.customer), remote.metadata);
  if (!subscription) return 'unknown_subscription';
  if (SETTLED.includes(subscription.status)) return `ignored_${subscription.status}`;
  const reported = remoteOf(remote);
  if (reported.status === subscription.status) return 'unchanged';
  const note = `Stripe reports the subscription ${remote.status}${remote.cancel_at_period_end ? ', to cancel at the end of its period' : ''}.`;
  if (reported.status === 'expiring')
    return apply(ctx, trx, afterCommit, subscription, 'cancel_at_period_end', { expire_at: reported.next_billing_date }, note);
  if (reported.status === 'failing') return apply(ctx, trx, afterCommit, subscription, 'fail', {}, note);
  if (reported.status === 'canceled') return apply(ctx, trx, afterCommit, subscription, 'cancel', { canceled_at: reported.canceled_at }, note);
  return apply(ctx, trx, afterCommit, subscription, 'sync', { status: reported.status as SubscriptionStatus }, note);
}

/** `customer.subscription.deleted`: the subscription ended at Stripe. */
export async function subscriptionDeleted(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, remote: Stripe.Subscription): Promise<string> {
  const subscription = await localSubscription(trx, ctx, remote.id, idOf(remote.customer), remote.metadata);
  if (!subscription) return 'unknown_subscription';
  if (subscription.status === 'completed' || subscription.status === 'canceled' || subscription.status === 'expired') return `ignored_${subscription.status}`;
  const note = `Stripe ended the subscription${remote.cancellation_details?.reason ? ` (${remote.cancellation_details.reason})` : ''}.`;
  if (subscription.bill_times > 0 && subscription.bill_count >= subscription.bill_times)
    return apply(ctx, trx, afterCommit, subscription, 'complete', {}, note);
  if (subscription.status === 'expiring') return apply(ctx, trx, afterCommit, subscription, 'expire', {}, note);
  const canceledAt = remote.canceled_at ? toTimestamp(new Date(remote.canceled_at * 1000)) : toTimestamp(ctx.clock.now());
  return apply(ctx, trx, afterCommit, subscription, 'cancel', { canceled_at: canceledAt }, note);
}

/**
 * A hosted checkout of a subscription completed: the subscription's Stripe ids are stored (found by the metadata's
 * uuid), and a paid session settles the parent order under the first invoice's id. A session with nothing to pay
 * (a trial without signup fee) settles nothing: that order was paid at checkout.
 */
export async function subscriptionSessionCompleted(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  session: Stripe.Checkout.Session,
): Promise<string> {
  const subscription = await localSubscription(trx, ctx, idOf(session.subscription), idOf(session.customer), session.metadata);
  if (!subscription) return 'unknown_subscription';
  if (session.payment_status !== 'paid' || session.amount_total === null) return session.payment_status;
  return settleGatewayPayment(ctx, trx, afterCommit, {
    method: METHOD,
    vendor_charge_id: session.id,
    settled_charge_id: idOf(session.invoice) || undefined,
    amount: session.amount_total,
  });
}
