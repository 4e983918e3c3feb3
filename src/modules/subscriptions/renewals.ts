/**
 * Renewals (reference §4): the gateway took a recurring payment, the store records it as a paid renewal order,
 * exactly once per gateway charge.
 *
 * - The subscription row is locked first, so renewals of one subscription run one after another.
 * - A charge already recorded under (payment_method, vendor_charge_id) answers `duplicate` and writes nothing.
 * - The renewal is written inside a savepoint, the charge row first: the unique key on (payment_method,
 *   vendor_charge_key) is the last word. A concurrent delivery of the same charge under another event id whose
 *   snapshot did not show the winner's row (MySQL's repeatable read) fails that insert, the savepoint is rolled back,
 *   and the answer is `duplicate`: nothing half-written, the caller's transaction (its webhook event row) commits.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertedId, isUniqueViolation, lockForUpdate, type AfterCommit } from '../../core/db';
import { fail } from '../../core/errors';
import { decimalWithCode } from '../../core/money';
import { fromTimestamp, toTimestamp } from '../../core/time';
import { presentOrder, type Order, type OrderRow } from '../order-records/presenter';
import { TRANSACTION_STATUS } from '../orders/ledger';
import { markPaidInTransaction } from '../orders/payments';
import { addInterval, nextStatus } from './lifecycle';
import { presentSubscription, type SubscriptionRow } from './presenter';
import { transitionSubscription } from './service';
import { emitSubscriptionEvent } from './subscription-events';
import type { Subscription } from './types';

export interface RenewalInput {
  subscription_id: number;
  payment_method: string;
  /** The gateway's id of the charge (Stripe invoice or charge, PayPal sale): what makes the renewal exactly-once. */
  vendor_charge_id: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
}

export interface RenewalOutcome {
  outcome: 'renewed' | 'duplicate';
  /** The renewal order (the earlier one for a duplicate); null when the charge was recorded on no order. */
  order_id: number | null;
  subscription: Subscription;
}

const ORDERS = 'store_orders';
const TRANSACTIONS = 'store_order_transactions';

/**
 * The order of the charge already recorded for this gateway charge (null: on none), or undefined. `locking` reads the
 * latest committed row (after a duplicate-key error: MySQL's snapshot may predate it); it is only used once the row is
 * known to exist, so it takes no gap lock.
 */
async function recordedCharge(trx: Knex.Transaction, input: RenewalInput, locking = false): Promise<number | null | undefined> {
  const query = trx(TRANSACTIONS).where({ payment_method: input.payment_method, vendor_charge_id: input.vendor_charge_id });
  const row = (await (locking ? lockForUpdate(query, trx) : query).first('order_id')) as { order_id: number | string | null } | undefined;
  if (!row) return undefined;
  return row.order_id === null ? null : Number(row.order_id);
}

/** The next charge one interval after the one just paid; from now when that is already past (a late or revived renewal). */
function nextBillingDate(subscription: Subscription, now: string): string {
  const planned = addInterval(subscription.next_billing_date ?? now, subscription.billing_interval);
  return fromTimestamp(planned) > fromTimestamp(now) ? planned : addInterval(now, subscription.billing_interval);
}

/** One line for the subscription's item: per-unit price when the amount divides by the quantity, else one line of the whole amount. */
function renewalItem(subscription: Subscription, parentItem: Record<string, unknown> | undefined, orderId: number, amount: number, now: string) {
  const perUnit = subscription.quantity > 0 && amount % subscription.quantity === 0;
  const quantity = perUnit ? subscription.quantity : 1;
  return {
    order_id: orderId,
    post_id: subscription.product_id,
    variation_id: subscription.variation_id,
    fulfillment_type: parentItem?.fulfillment_type ?? 'digital',
    payment_type: 'subscription',
    post_title: parentItem?.post_title ?? subscription.item_name,
    title: parentItem?.title ?? subscription.item_name,
    cart_index: 0,
    quantity,
    unit_price: amount / quantity,
    subtotal: amount,
    line_total: amount,
    rate: 1,
    other_info: JSON.stringify({}),
    line_meta: JSON.stringify({}),
    created_at: now,
    updated_at: now,
  };
}

/** The renewal order, its item, addresses copied from the parent, and the pending charge (inserted first: the arbiter). */
async function writeRenewal(
  trx: Knex.Transaction,
  subscription: Subscription,
  parent: OrderRow,
  input: RenewalInput,
  now: string,
): Promise<{ orderId: number; chargeId: number }> {
  const parentId = Number(parent.id);
  const physical = parent.fulfillment_type === 'physical';
  const orderId = insertedId(
    await trx(ORDERS).insert({
      uuid: crypto.randomUUID(),
      parent_id: parentId,
      customer_id: subscription.customer_id,
      status: 'on-hold',
      payment_status: 'pending',
      shipping_status: physical ? 'unshipped' : '',
      payment_method: input.payment_method,
      payment_method_title: parent.payment_method === input.payment_method ? parent.payment_method_title : '',
      type: 'renewal',
      fulfillment_type: parent.fulfillment_type,
      mode: parent.mode,
      currency: input.currency,
      subtotal: input.amount,
      total_amount: input.amount,
      rate: 1,
      note: '',
      config: JSON.stringify({ subscription_id: subscription.id }),
      created_at: now,
      updated_at: now,
    }),
  );
  const chargeId = insertedId(
    await trx(TRANSACTIONS).insert({
      uuid: crypto.randomUUID(),
      order_id: orderId,
      order_type: 'renewal',
      transaction_type: 'charge',
      subscription_id: subscription.id,
      vendor_charge_id: input.vendor_charge_id,
      payment_method: input.payment_method,
      payment_mode: parent.mode,
      status: TRANSACTION_STATUS.pending,
      currency: input.currency,
      total: input.amount,
      rate: 1,
      meta: '{}',
      created_at: now,
      updated_at: now,
    }),
  );
  const parentItem = (await trx('store_order_items')
    .where({ order_id: parentId, variation_id: subscription.variation_id, payment_type: 'subscription' })
    .first('fulfillment_type', 'post_title', 'title')) as Record<string, unknown> | undefined;
  await trx('store_order_items').insert(renewalItem(subscription, parentItem, orderId, input.amount, now));
  const addresses = (await trx('store_order_addresses').where({ order_id: parentId }).orderBy('id')) as Array<Record<string, unknown>>;
  for (const { id: _id, ...address } of addresses)
    await trx('store_order_addresses').insert({ ...address, order_id: orderId, created_at: now, updated_at: now });
  return { orderId, chargeId };
}

/**
 * Records one renewal payment inside the caller's transaction (a gateway webhook's): a paid renewal order (invoice
 * number, statistics and `store/order/paid` through mark-as-paid), `bill_count` + 1, `next_billing_date` one interval
 * on, `failing`/`trialing`/`expired` back to `active`, or `completed` when an installment plan's last payment came
 * (the caller then ends the gateway subscription after the commit). Exactly once per (payment_method,
 * vendor_charge_id): a charge already recorded answers `duplicate`. `store/subscription/renewed` fires after commit.
 */
export async function recordRenewal(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, input: RenewalInput): Promise<RenewalOutcome> {
  if (!input.vendor_charge_id) throw fail('invalid_state', 'A renewal needs the gateway charge id.', { status: 422 });
  if (!Number.isSafeInteger(input.amount) || input.amount < 0)
    throw fail('invalid_state', 'A renewal amount must be a whole number of minor units.', { status: 422 });
  const row = (await lockForUpdate(trx('store_subscriptions').where({ id: input.subscription_id }), trx).first()) as SubscriptionRow | undefined;
  if (!row) throw fail('not_found', 'Subscription not found', { status: 404 });
  const subscription = presentSubscription(row);
  const duplicate = (orderId: number | null): RenewalOutcome => ({ outcome: 'duplicate', order_id: orderId, subscription });

  const earlier = await recordedCharge(trx, input);
  if (earlier !== undefined) return duplicate(earlier);

  const billCount = subscription.bill_count + 1;
  const completes = subscription.bill_times > 0 && billCount >= subscription.bill_times && nextStatus(subscription.status, 'complete') !== null;
  const event = completes ? 'complete' : 'renew';
  if (nextStatus(subscription.status, event) === null) {
    throw fail('invalid_state', `The subscription is ${subscription.status} and cannot be renewed.`);
  }
  const parent =
    subscription.parent_order_id === null ? undefined : ((await trx(ORDERS).where({ id: subscription.parent_order_id }).first()) as OrderRow | undefined);
  if (!parent) throw fail('invalid_state', 'The subscription has no parent order to renew.');

  const now = toTimestamp(ctx.clock.now());
  let written: { orderId: number; chargeId: number };
  try {
    written = await trx.transaction((savepoint) => writeRenewal(savepoint, subscription, parent, input, now));
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return duplicate((await recordedCharge(trx, input, true)) ?? null);
  }
  const { orderId, chargeId } = written;
  let order: Order | undefined;
  afterCommit(() => {
    if (order) ctx.hooks.doAction('store/order/created', order);
  });
  await markPaidInTransaction(ctx, trx, afterCommit, orderId, {
    payment_method: input.payment_method,
    vendor_charge_id: input.vendor_charge_id,
    transaction_id: chargeId,
    amount: input.amount,
  });

  const amount = decimalWithCode(input.amount, input.currency);
  const patch = completes
    ? { bill_count: billCount, next_billing_date: null }
    : { bill_count: billCount, next_billing_date: nextBillingDate(subscription, now) };
  const after = await transitionSubscription(ctx, trx, afterCommit, subscription.id, event, patch, {
    note: `Renewal order #${orderId} paid: ${amount} (charge ${input.vendor_charge_id}), payment ${billCount}${subscription.bill_times > 0 ? ` of ${subscription.bill_times}` : ''}.`,
  });
  const paidRow = (await trx(ORDERS).where({ id: orderId }).first()) as OrderRow;
  await emitSubscriptionEvent(ctx, trx, { type: 'renewed', subscription: after, order: paidRow });
  const paid = presentOrder(paidRow);
  order = paid;
  afterCommit(() => ctx.hooks.doAction('store/subscription/renewed', after, paid));
  return { outcome: 'renewed', order_id: orderId, subscription: after };
}
