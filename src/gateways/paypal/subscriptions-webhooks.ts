import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../../modules/activities/service';
import { endAtGatewayLater } from '../../modules/subscriptions/actions/end-at-gateway';
import { nextStatus, type SubscriptionEvent } from '../../modules/subscriptions/lifecycle';
import { recordRenewal } from '../../modules/subscriptions/renewals';
import { transitionSubscription } from '../../modules/subscriptions/service';
import type { Subscription } from '../../modules/subscriptions/types';
import { PAYPAL } from './settle';
import { lockPayPalSubscription, pendingParentCharge, settleFirstPayment, type PaidSale } from './subscriptions-settle';
import { minorAmount } from './vendor';
import type { PayPalEventData } from './webhook-verify';

type Resource = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (value: unknown): Resource => (value && typeof value === 'object' ? (value as Resource) : {});

/**
 * `PAYMENT.SALE.COMPLETED` of a subscription (`billing_agreement_id` = the PayPal subscription id): exactly once per
 * sale id (a sale already recorded on a charge is `duplicate_sale`; the unique charge key backs it under concurrent
 * deliveries). A sale while the parent order still waits for its payment is that payment (`first_payment_paid`; the
 * shopper's return and `BILLING.SUBSCRIPTION.ACTIVATED` settle it with the same sale, found in the subscription's
 * transactions); any other sale is a renewal (`recordRenewal`: `renewal_renewed`). A renewal that
 * completes an installment plan queues the end of the PayPal subscription (`store/subscriptions/end-at-gateway`, in
 * the same transaction): PayPal ends a plan of `total_cycles` itself, and the job finds it ended.
 */
async function onSaleCompleted(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, sale: Resource): Promise<string> {
  const agreement = text(sale.billing_agreement_id);
  if (!agreement) return 'ignored_not_a_subscription_sale';
  const amount = record(sale.amount);
  const money = minorAmount(amount.currency, amount.total);
  const saleId = text(sale.id);
  if (text(sale.state) !== 'completed' || !saleId || !money) return 'ignored_incomplete_sale';
  const subscription = await lockPayPalSubscription(trx, agreement);
  if (!subscription) return 'unknown_subscription';
  if (await trx('store_order_transactions').where({ payment_method: PAYPAL, vendor_charge_id: saleId }).first('id')) return 'duplicate_sale';

  const charge = await pendingParentCharge(trx, subscription);
  if (charge) return `first_payment_${await settleFirstPayment(ctx, trx, afterCommit, charge, { id: saleId, ...money })}`;
  if (nextStatus(subscription.status, 'renew') === null) {
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'subscription',
        object_id: subscription.id,
        title: 'PayPal payment not recorded',
        content: `PayPal reported sale ${saleId} for a subscription that is ${subscription.status}; it was not recorded as a renewal. Check the payment in PayPal.`,
        status: 'warning',
      },
      afterCommit,
    );
    return `ignored_sale_of_${subscription.status}_subscription`;
  }
  const renewal = await recordRenewal(ctx, trx, afterCommit, {
    subscription_id: subscription.id,
    payment_method: PAYPAL,
    vendor_charge_id: saleId,
    amount: money.amount,
    currency: money.currency,
  });
  if (renewal.outcome === 'renewed' && renewal.subscription.status === 'completed' && subscription.status !== 'completed') {
    await endAtGatewayLater(ctx.host, trx, subscription.id);
  }
  return `renewal_${renewal.outcome}`;
}

/**
 * `BILLING.SUBSCRIPTION.ACTIVATED`: the subscriber approved. The first sale, looked up at PayPal before this
 * transaction (`firstSaleIfPending`), settles the parent order (`first_payment_paid`); none yet: the sale's own
 * notification will (`awaiting_first_payment`); nothing waiting: `already_paid`.
 */
async function onActivated(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, resource: Resource, sale: PaidSale | null | undefined): Promise<string> {
  const subscription = await lockPayPalSubscription(trx, text(resource.id));
  if (!subscription) return 'unknown_subscription';
  const charge = await pendingParentCharge(trx, subscription);
  if (!charge) return 'already_paid';
  if (!sale) return 'awaiting_first_payment';
  return `first_payment_${await settleFirstPayment(ctx, trx, afterCommit, charge, sale)}`;
}

/** Whether PayPal billed every regular cycle of a finite plan (`billing_info.cycle_executions`). */
function installmentsDone(resource: Resource): boolean {
  const executions = record(resource.billing_info).cycle_executions;
  const regular = (Array.isArray(executions) ? executions.map(record) : []).find((cycle) => cycle.tenure_type === 'REGULAR');
  const total = Number(regular?.total_cycles ?? 0);
  return total > 0 && Number(regular?.cycles_completed ?? 0) >= total;
}

/** The lifecycle event a subscription notification means for the store subscription. */
function eventOf(type: string, resource: Resource, subscription: Subscription): SubscriptionEvent {
  if (type === 'BILLING.SUBSCRIPTION.CANCELLED') return 'cancel';
  if (type === 'BILLING.SUBSCRIPTION.EXPIRED') {
    const done = installmentsDone(resource) || (subscription.bill_times > 0 && subscription.bill_count >= subscription.bill_times);
    return done ? 'complete' : 'expire';
  }
  return 'fail';
}

/**
 * `BILLING.SUBSCRIPTION.CANCELLED` → canceled; `.EXPIRED` → completed when every installment was billed (PayPal
 * ends a finite plan so, possibly before the last sale's notification arrives), else expired; `.SUSPENDED` and
 * `.PAYMENT.FAILED` → failing. A subscription already past that point (canceled by the store first, completed by its
 * last renewal) is left as it is: `unchanged_<status>`.
 */
async function onStatusChange(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, type: string, resource: Resource): Promise<string> {
  const subscription = await lockPayPalSubscription(trx, text(resource.id));
  if (!subscription) return 'unknown_subscription';
  const event = eventOf(type, resource, subscription);
  if (!nextStatus(subscription.status, event)) return `unchanged_${subscription.status}`;
  const patch = event === 'cancel' ? { canceled_at: timestampOr(text(resource.status_update_time), ctx) } : event === 'fail' ? {} : { next_billing_date: null };
  const reason = text(resource.status_change_note);
  const after = await transitionSubscription(ctx, trx, afterCommit, subscription.id, event, patch, {
    note: `PayPal reported ${type.replace('BILLING.SUBSCRIPTION.', '')}${reason ? ` (${reason})` : ''}.`,
  });
  return after.status;
}

function timestampOr(value: string, ctx: Ctx): string {
  const time = Date.parse(value);
  return toTimestamp(Number.isNaN(time) ? ctx.clock.now() : new Date(time));
}

const STATUS_EVENTS = new Set([
  'BILLING.SUBSCRIPTION.CANCELLED',
  'BILLING.SUBSCRIPTION.EXPIRED',
  'BILLING.SUBSCRIPTION.SUSPENDED',
  'BILLING.SUBSCRIPTION.PAYMENT.FAILED',
]);

/** The subscription notifications of the PayPal gateway; null for any other event type. */
export function applyPayPalSubscriptionEvent(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  type: string,
  data: PayPalEventData,
): Promise<string> | null {
  const { resource } = data;
  if (type === 'PAYMENT.SALE.COMPLETED') return onSaleCompleted(ctx, trx, afterCommit, resource);
  if (type === 'BILLING.SUBSCRIPTION.ACTIVATED') return onActivated(ctx, trx, afterCommit, resource, data.first_sale);
  if (STATUS_EVENTS.has(type)) return onStatusChange(ctx, trx, afterCommit, type, resource);
  return null;
}
