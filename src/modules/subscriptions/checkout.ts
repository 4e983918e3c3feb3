/**
 * A subscription bought at checkout (issue 11). Place-order's transaction creates it `pending`, its terms copied from
 * the variation; the first payment starts it (`activateOrderSubscriptions`); the gateway's ids are stored once its
 * `startSubscription` answered, after the commit.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertedId, type AfterCommit } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import type { GatewaySubscription, PaymentGateway, SubscriptionStart } from '../../gateways/gateway';
import { recordActivity } from '../activities/service';
import type { PricedCart } from '../cart/pricing';
import type { Order } from '../order-records/presenter';
import { emitOrderEvent } from '../order-records/order-events';
import type { LineDraft } from '../orders/write-lines';
import { readSubscription, transitionSubscription } from './service';
import type { BillingInterval, Subscription } from './types';

export const ONE_SUBSCRIPTION_PER_ORDER = 'Only one subscription product can be bought per order.';
export const CANNOT_PAY_SUBSCRIPTIONS = 'The selected payment method cannot pay subscriptions.';

/** The cart's subscription line, or null; a second one is a 422 `{message}` (one subscription per order). */
export function subscriptionLineOf(priced: PricedCart): LineDraft | null {
  const lines = priced.lines.filter((line) => line.payment_type === 'subscription');
  if (lines.length > 1) throw fail('product_unavailable', ONE_SUBSCRIPTION_PER_ORDER);
  return lines[0] ?? null;
}

/** Whether a gateway bills subscriptions itself; others (offline methods) are refused for a subscription, as WooCommerce does. */
export const billsSubscriptions = (gateway: PaymentGateway | undefined): gateway is PaymentGateway & Required<Pick<PaymentGateway, 'startSubscription'>> =>
  !!gateway?.capabilities.subscriptions && typeof gateway.startSubscription === 'function';

/** A 422 on `payment_method` when the chosen gateway cannot bill the cart's subscription. */
export function requireSubscriptionGateway(gateway: PaymentGateway | undefined): void {
  if (!billsSubscriptions(gateway)) throw invalid('payment_method', 'subscriptions', CANNOT_PAY_SUBSCRIPTIONS);
}

/** The local subscription as gateways see it. */
export function toGatewaySubscription(subscription: Subscription, mode: string): GatewaySubscription {
  const { id, uuid, status, vendor_subscription_id, vendor_customer_id, vendor_plan_id, billing_interval, recurring_amount, currency, bill_times, bill_count } =
    subscription;
  return {
    id,
    uuid,
    status,
    vendor_subscription_id,
    vendor_customer_id,
    vendor_plan_id,
    billing_interval,
    recurring_amount,
    currency,
    bill_times,
    bill_count,
    mode,
  };
}

/** A cart placed again rewrites its unpaid order: the subscription it made then, never started, goes with the old lines. */
async function discardUnstarted(trx: Knex.Transaction, orderId: number): Promise<void> {
  const ids = (
    (await trx('store_subscriptions').where({ parent_order_id: orderId }).whereIn('status', ['pending', 'intended']).select('id')) as Array<{
      id: number;
    }>
  ).map((row) => Number(row.id));
  if (!ids.length) return;
  await trx('store_order_transactions').whereIn('subscription_id', ids).update({ subscription_id: null });
  await trx('store_subscriptions').whereIn('id', ids).delete();
}

export interface CheckoutSubscriptionInput {
  order: Order;
  /** The order's pending charge: it carries the subscription's first payment. */
  charge_id: number;
  /** The cart's subscription line (or null: then only a subscription left over from an earlier placing is discarded). */
  line: LineDraft | null;
  payment_method: string;
}

/**
 * Inside place-order's transaction: the `pending` subscription of the order's subscription line, with a random uuid,
 * the customer, the order as parent, and the terms of the variation (interval, trial days, installments, signup fee,
 * recurring amount = price × quantity, tax 0 for now); billed by the gateway (`automatic`). The pending charge is
 * linked to it. `store/subscription/created` fires after commit.
 */
export async function createCheckoutSubscription(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  input: CheckoutSubscriptionInput,
): Promise<Subscription | null> {
  const { order, line } = input;
  await discardUnstarted(trx, order.id);
  if (!line) return null;
  const now = toTimestamp(ctx.clock.now());
  const unitPrice = Number(line.other_info.recurring_unit_price ?? line.unit_price);
  const id = insertedId(
    await trx('store_subscriptions').insert({
      uuid: crypto.randomUUID(),
      customer_id: order.customer_id,
      parent_order_id: order.id,
      product_id: line.product_id,
      variation_id: line.variation_id,
      item_name: line.title && line.title !== line.post_title ? `${line.post_title} - ${line.title}` : line.post_title,
      quantity: line.quantity,
      status: 'pending',
      collection_method: 'automatic',
      current_payment_method: input.payment_method,
      billing_interval: String(line.other_info.billing_interval ?? 'monthly') as BillingInterval,
      currency: order.currency,
      recurring_amount: unitPrice * line.quantity,
      recurring_tax_total: 0,
      signup_fee: Number(line.other_info.signup_fee ?? 0),
      trial_days: Number(line.other_info.trial_days ?? 0),
      bill_times: Number(line.other_info.bill_times ?? 0),
      bill_count: 0,
      config: '{}',
      created_at: now,
      updated_at: now,
    }),
  );
  await trx('store_order_transactions').where({ id: input.charge_id }).update({ subscription_id: id });
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [order.id] });
  const subscription = (await readSubscription(trx, id)) as Subscription;
  await recordActivity(
    trx,
    ctx,
    { object_type: 'subscription', object_id: id, title: 'Subscription created at checkout', content: `Order #${order.id}: ${subscription.item_name}.` },
    afterCommit,
  );
  afterCommit(() => ctx.hooks.doAction('store/subscription/created', subscription, order));
  return subscription;
}

/** The order was canceled before its first payment: the subscriptions it would have started are canceled with it. */
export async function cancelUnstartedSubscriptions(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, orderId: number, note: string): Promise<number> {
  const rows = (await trx('store_subscriptions')
    .where({ parent_order_id: orderId })
    .whereIn('status', ['pending', 'intended'])
    .orderBy('id')
    .select('id')) as Array<{
    id: number;
  }>;
  for (const row of rows) await transitionSubscription(ctx, trx, afterCommit, Number(row.id), 'cancel', {}, { note });
  return rows.length;
}

/** After the gateway's `startSubscription` answered: its ids on the subscription. */
export async function saveVendorIds(ctx: Ctx, subscriptionId: number, start: SubscriptionStart): Promise<void> {
  await ctx
    .db('store_subscriptions')
    .where({ id: subscriptionId })
    .update({
      vendor_subscription_id: start.vendor_subscription_id,
      ...(start.vendor_customer_id ? { vendor_customer_id: start.vendor_customer_id } : {}),
      ...(start.vendor_plan_id ? { vendor_plan_id: start.vendor_plan_id } : {}),
      updated_at: toTimestamp(ctx.clock.now()),
    });
}
