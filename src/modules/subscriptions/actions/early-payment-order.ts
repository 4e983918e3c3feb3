/**
 * The order an early installment payment is collected on: a `renewal` order of the subscription's parent order, for
 * one installment (recurring amount and tax), with the subscription's item, the parent's addresses and a pending charge
 * linked to the subscription. Its `config` marks it `early_payment`, which is how mark-as-paid knows to count it as the
 * next installment (early-payment-settle.ts). The shopper may open the link again: the unpaid order is reused.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../../core/context';
import { insertedId, lockForUpdate, parseJson, type AfterCommit } from '../../../core/db';
import { fail } from '../../../core/errors';
import { toTimestamp } from '../../../core/time';
import type { PaymentGateway, PaymentRequest, PaymentStart } from '../../../gateways/gateway';
import { presentOrder, type OrderRow } from '../../order-records/presenter';
import { TRANSACTION_STATUS } from '../../orders/ledger';
import { emitOrderEvent } from '../../order-records/order-events';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import type { Subscription } from '../types';
import { installmentRefusal } from './early-payment';
import { gatewayOf, titleOf } from './lookup';

/** What marks an order as an early installment payment, in its `config`. */
export interface EarlyPaymentMark {
  subscription_id: number;
  early_payment: true;
}

export function earlyPaymentMarkOf(row: OrderRow): EarlyPaymentMark | null {
  if (row.type !== 'renewal') return null;
  const config = parseJson<Partial<EarlyPaymentMark>>(row.config, {});
  return config.early_payment === true && Number.isSafeInteger(config.subscription_id) ? (config as EarlyPaymentMark) : null;
}

interface PendingPayment {
  order: OrderRow;
  charge: { id: number; uuid: string; total: number };
}

const installmentOf = (s: Subscription) => s.recurring_amount + s.recurring_tax_total;

/** The item's quantity and unit price: per unit when the recurring amount divides by the quantity, else one of the whole. */
function lineOf(s: Subscription): { quantity: number; unit_price: number } {
  const quantity = s.quantity > 0 && s.recurring_amount % s.quantity === 0 ? s.quantity : 1;
  return { quantity, unit_price: s.recurring_amount / quantity };
}

/** The subscription's unpaid early-payment order of the current installment amount, with its pending charge. */
async function reusable(trx: Knex.Transaction, subscription: Subscription): Promise<PendingPayment | null> {
  const orders = (await trx('store_orders')
    .where({ parent_id: subscription.parent_order_id, type: 'renewal', payment_status: 'pending' })
    .whereNot('status', 'canceled')
    .orderBy('id', 'desc')) as OrderRow[];
  for (const order of orders) {
    if (earlyPaymentMarkOf(order)?.subscription_id !== subscription.id || Number(order.total_amount) !== installmentOf(subscription)) continue;
    const charge = (await trx('store_order_transactions')
      .where({ order_id: order.id, status: TRANSACTION_STATUS.pending })
      .orderBy('id', 'desc')
      .first('id', 'uuid', 'total')) as { id: number; uuid: string; total: number | string } | undefined;
    if (charge) return { order, charge: { id: Number(charge.id), uuid: charge.uuid, total: Number(charge.total) } };
  }
  return null;
}

async function createOrder(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  subscription: Subscription,
  gateway: PaymentGateway | null,
): Promise<PendingPayment> {
  const parent = (await trx('store_orders').where({ id: subscription.parent_order_id }).first()) as OrderRow;
  const now = toTimestamp(ctx.clock.now());
  const total = installmentOf(subscription);
  const mark: EarlyPaymentMark = { subscription_id: subscription.id, early_payment: true };
  const orderId = insertedId(
    await trx('store_orders').insert({
      uuid: crypto.randomUUID(),
      parent_id: parent.id,
      customer_id: subscription.customer_id,
      status: 'on-hold',
      payment_status: 'pending',
      shipping_status: parent.fulfillment_type === 'physical' ? 'unshipped' : '',
      payment_method: subscription.current_payment_method,
      payment_method_title: titleOf(gateway, subscription),
      type: 'renewal',
      fulfillment_type: parent.fulfillment_type,
      mode: parent.mode,
      currency: subscription.currency,
      subtotal: subscription.recurring_amount,
      tax_total: subscription.recurring_tax_total,
      total_amount: total,
      rate: 1,
      note: '',
      config: JSON.stringify(mark),
      created_at: now,
      updated_at: now,
    }),
  );
  const item = (await trx('store_order_items')
    .where({ order_id: parent.id, variation_id: subscription.variation_id, payment_type: 'subscription' })
    .first('fulfillment_type', 'post_title', 'title')) as Record<string, unknown> | undefined;
  await trx('store_order_items').insert({
    order_id: orderId,
    post_id: subscription.product_id,
    variation_id: subscription.variation_id,
    fulfillment_type: item?.fulfillment_type ?? parent.fulfillment_type,
    payment_type: 'subscription',
    post_title: item?.post_title ?? subscription.item_name,
    title: item?.title ?? subscription.item_name,
    ...lineOf(subscription),
    subtotal: subscription.recurring_amount,
    tax_amount: subscription.recurring_tax_total,
    line_total: total,
    other_info: '{}',
    line_meta: '{}',
    created_at: now,
    updated_at: now,
  });
  const addresses = (await trx('store_order_addresses').where({ order_id: parent.id }).orderBy('id')) as Array<Record<string, unknown>>;
  for (const { id: _id, ...address } of addresses)
    await trx('store_order_addresses').insert({ ...address, order_id: orderId, created_at: now, updated_at: now });
  const charge = { uuid: crypto.randomUUID(), total };
  const chargeId = insertedId(
    await trx('store_order_transactions').insert({
      uuid: charge.uuid,
      order_id: orderId,
      order_type: 'renewal',
      transaction_type: 'charge',
      subscription_id: subscription.id,
      payment_method: subscription.current_payment_method,
      payment_mode: parent.mode,
      status: TRANSACTION_STATUS.pending,
      currency: subscription.currency,
      total,
      rate: 1,
      meta: '{}',
      created_at: now,
      updated_at: now,
    }),
  );
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
  const order = (await trx('store_orders').where({ id: orderId }).first()) as OrderRow;
  const created = presentOrder(order);
  afterCommit(() => ctx.hooks.doAction('store/order/created', created));
  return { order, charge: { id: chargeId, uuid: charge.uuid, total } };
}

function paymentRequest(
  ctx: Ctx,
  subscription: Subscription,
  pending: PendingPayment,
  customer: { email: string; name: string },
  backUrl: string,
): PaymentRequest {
  const order = presentOrder(pending.order);
  const site = ctx.host.site.url.replace(/\/+$/, '');
  return {
    order: { id: order.id, uuid: order.uuid, currency: order.currency, total_amount: order.total_amount, mode: order.mode },
    transaction: pending.charge,
    customer: { id: Number(subscription.customer_id), ...customer },
    items: [{ title: subscription.item_name, ...lineOf(subscription), line_total: subscription.recurring_amount }],
    urls: {
      success_url: `${site}/receipt/?order_hash=${encodeURIComponent(order.uuid)}`,
      cancel_url: backUrl,
      return_url: `${site}/wp-json/${ctx.host.manifest.namespace}/checkout/${encodeURIComponent(subscription.current_payment_method)}/return`,
    },
  };
}

export interface EarlyPaymentStart {
  /** The early-payment order (its receipt shows whether it was paid). */
  order_uuid: string;
  start: PaymentStart;
}

/**
 * The shopper pays the next installment: under the subscription's row lock (so two clicks make one order) the
 * conditions are checked again and the pending early-payment order is reused or created; after the commit the
 * subscription's gateway starts collecting it, and its payment id is kept on the pending charge. When the gateway
 * reports the payment (webhook or return), `settleGatewayPayment` marks the order paid and the installment counts.
 * A method without `startPayment` (offline) leaves the order pending for an admin to mark paid.
 */
export async function startEarlyPayment(ctx: Ctx, subscriptionId: number, backUrl: string): Promise<EarlyPaymentStart> {
  const { subscription, pending } = await transaction(ctx, async (trx, afterCommit) => {
    const row = (await lockForUpdate(trx('store_subscriptions').where({ id: subscriptionId }), trx).first()) as SubscriptionRow;
    const locked = presentSubscription(row);
    const refusal = installmentRefusal(locked);
    if (refusal) throw refusal;
    return { subscription: locked, pending: (await reusable(trx, locked)) ?? (await createOrder(ctx, trx, afterCommit, locked, gatewayOf(ctx, locked))) };
  });
  const gateway = gatewayOf(ctx, subscription);
  if (!gateway?.startPayment) return { order_uuid: String(pending.order.uuid), start: { kind: 'offline' } };
  const customer = (await ctx.db('store_customers').where({ id: subscription.customer_id }).first('email', 'first_name', 'last_name')) as
    { email: string; first_name: string; last_name: string } | undefined;
  const name = [customer?.first_name, customer?.last_name].filter(Boolean).join(' ');
  let start: PaymentStart;
  try {
    start = await gateway.startPayment(ctx, paymentRequest(ctx, subscription, pending, { email: customer?.email ?? '', name }, backUrl));
  } catch (error) {
    ctx.host.logger.warn({ err: error, order_id: pending.order.id, gateway: gateway.key }, 'the gateway could not start an early payment');
    throw fail('invalid_state', `${gateway.title} could not start the payment. Please try again in a moment.`, { status: 502 });
  }
  if (start.kind !== 'offline' && start.vendor_charge_id) {
    const vendorChargeId = start.vendor_charge_id;
    await transaction(ctx, async (trx) => {
      const updated = await trx('store_order_transactions')
        .where({ id: pending.charge.id, status: TRANSACTION_STATUS.pending })
        .update({ vendor_charge_id: vendorChargeId, updated_at: toTimestamp(ctx.clock.now()) });
      if (updated) await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [Number(pending.order.id)] });
    });
  }
  return { order_uuid: String(pending.order.uuid), start };
}
