import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { centsToDecimal, decimalWithCode, minorUnits, parseDecimalToCents } from '../../core/money';
import { toTimestamp } from '../../core/time';
import type { GatewayResult, GatewayTransaction } from '../../gateways/gateway';
import { gatewayFor } from '../../gateways/registry';
import { recordActivity } from '../activities/service';
import { recalculateCustomerStats } from '../customers/ltv';
import {
  CHARGE_TYPES,
  REFUND_TYPE,
  TRANSACTION_STATUS,
  reservedRefundsOf,
  syncOrderTotals,
  toTransaction,
  type RefundMeta,
  type TransactionRow,
} from './ledger';
import { emitOrderEvent } from '../order-records/order-events';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { REFUNDABLE_PAYMENT_STATUSES, paymentStatusOf, type PaymentStatus } from './state';
import { orderSubscriptions } from './subscription-port';

export interface RefundInput {
  transaction_id?: number | string;
  amount?: number | string;
  cancelSubscription?: string | boolean;
}

export interface RefundPart {
  status: 'success' | 'failed' | 'skipped' | 'pending';
  message: string;
}

/** The spec's answer: exactly these three keys; `fluent_cart_refund` is the store-side result. */
export interface RefundAnswer {
  fluent_cart_refund: RefundPart;
  gateway_refund: RefundPart;
  subscription_cancel: RefundPart;
}

export interface RefundOutcome {
  /** 200 when the refund is recorded (or the gateway accepted it and completes it later); 502 when the gateway refused it or did not answer. */
  status: 200 | 502;
  answer: RefundAnswer;
}

const NOT_REFUNDABLE = 'Order can not be refunded';

/** A refund reserved as a `pending` row: the order, the charge it gives money back from, and the row. */
export interface Reservation {
  order: OrderRow;
  charge: TransactionRow;
  refundId: number;
  refundUuid: string;
  /** The refund in minor units of the charge's currency. */
  amount: number;
}

function parseInput(input: RefundInput): { transactionId: number; amount: number | string; cancelSubscription: boolean } {
  if (input.transaction_id === undefined || input.transaction_id === '') throw invalid('refund_info.transaction_id', 'required', 'Transaction ID is required');
  const transactionId = Number(input.transaction_id);
  if (input.amount === undefined || input.amount === '') throw invalid('refund_info.amount', 'required', 'Refund amount is required');
  return { transactionId, amount: input.amount, cancelSubscription: input.cancelSubscription === true || input.cancelSubscription === 'true' };
}

const PLACES = ['', 'one decimal place', 'two decimal places', 'three decimal places', 'four decimal places'];

/** `refund_info.amount`, decimal units of the charge's currency, in its minor units: "12.34" USD → 1234, "1000" JPY → 1000, "1.5" KWD → 1500. */
function refundAmount(sent: number | string, currency: string): number {
  const digits = minorUnits(currency);
  const amount = parseDecimalToCents(sent, digits);
  if (amount === null) {
    const rule =
      digits === 0 ? `a whole number of ${currency}, e.g. 1250` : `a decimal amount with at most ${PLACES[digits]}, e.g. 12.${'5'.padEnd(digits, '0')}`;
    throw invalid('refund_info.amount', 'numeric', `The refund amount must be ${rule}.`);
  }
  if (amount <= 0) throw invalid('refund_info.amount', 'min', 'The refund amount must be greater than zero.');
  return amount;
}

/**
 * Step 1, its own transaction: with the order row locked, checks that the charge belongs to the order, succeeded and
 * still has `amount` left (earlier refunds and refunds in flight count), and reserves it as a `pending` refund row.
 * Parallel refunds queue on the order lock, so together they can never exceed the charge.
 */
async function reserve(ctx: Ctx, orderId: number, transactionId: number, sentAmount: number | string): Promise<Reservation> {
  return transaction(ctx, async (trx) => {
    const order = (await lockForUpdate(trx('store_orders').where({ id: orderId }), trx).first()) as OrderRow | undefined;
    if (!order) throw fail('not_found', 'Order not found', { status: 404 });
    if (!(REFUNDABLE_PAYMENT_STATUSES as readonly unknown[]).includes(order.payment_status)) throw fail('invalid_state', NOT_REFUNDABLE);
    const row = (await trx('store_order_transactions').where({ id: transactionId, order_id: orderId }).first()) as Record<string, unknown> | undefined;
    const charge = row ? toTransaction(row) : null;
    if (!charge || !(CHARGE_TYPES as readonly string[]).includes(charge.transaction_type) || charge.status !== TRANSACTION_STATUS.succeeded) {
      throw fail('invalid_state', NOT_REFUNDABLE);
    }
    // Refused here, before anything is reserved, when the charge's gateway is gone but its money went through it.
    gatewayFor(ctx, charge.payment_method, charge.vendor_charge_id);
    const amount = refundAmount(sentAmount, charge.currency);
    const left = charge.total - (await reservedRefundsOf(trx, orderId, charge.id));
    if (left <= 0) throw fail('invalid_state', NOT_REFUNDABLE);
    if (amount > left) {
      const most = centsToDecimal(left, minorUnits(charge.currency));
      throw invalid('refund_info.amount', 'max', `The refund amount can not be more than ${most}, what is left to refund of this transaction.`);
    }
    const now = toTimestamp(ctx.clock.now());
    const meta: RefundMeta = { parent_transaction_id: charge.id };
    const refundUuid = crypto.randomUUID();
    const [refundId] = await trx('store_order_transactions').insert({
      uuid: refundUuid,
      order_id: orderId,
      order_type: order.type,
      transaction_type: REFUND_TYPE,
      payment_method: charge.payment_method,
      payment_mode: charge.payment_mode,
      status: TRANSACTION_STATUS.pending,
      currency: charge.currency,
      total: amount,
      rate: charge.rate,
      meta: JSON.stringify(meta),
      created_at: now,
      updated_at: now,
    });
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
    return { order, charge, refundId: Number(refundId), refundUuid, amount };
  });
}

/** Step 2: the gateway gives the money back. A throw means the outcome is unknown (null). */
async function callGateway(ctx: Ctx, { charge, refundId, refundUuid }: Reservation, amount: number): Promise<GatewayResult | null> {
  const subject: GatewayTransaction = {
    id: charge.id,
    order_id: charge.order_id,
    vendor_charge_id: charge.vendor_charge_id,
    payment_method: charge.payment_method,
    payment_mode: charge.payment_mode,
    currency: charge.currency,
    total: charge.total,
    status: charge.status,
  };
  try {
    return await gatewayFor(ctx, charge.payment_method, charge.vendor_charge_id).refund(ctx, subject, amount, { id: refundId, uuid: refundUuid });
  } catch (error) {
    ctx.host.logger.error({ err: error, transaction_id: charge.id }, 'gateway refund failed');
    return null;
  }
}

/**
 * The gateway gave the money back: the pending row becomes `refunded`, and the order's totals, payment status,
 * `refunded_at`, the customer's statistics, an activity entry and the refund hooks follow. The row changes with a
 * conditional update under the order lock, so when the gateway's notification settled it first (or settles it at
 * the same time) this does nothing and returns null.
 */
export async function settleRefunded(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  { order: reserved, charge, refundId }: Reservation,
  amount: number,
  result: GatewayResult,
): Promise<string | null> {
  const orderId = Number(reserved.id);
  const now = toTimestamp(ctx.clock.now());
  const before = (await lockForUpdate(trx('store_orders').where({ id: orderId }), trx).first()) as OrderRow;
  const meta: RefundMeta = { parent_transaction_id: charge.id, gateway_status: result.status, gateway_message: result.message };
  const settled = await trx('store_order_transactions')
    .where({ id: refundId, status: TRANSACTION_STATUS.pending })
    .update({ status: TRANSACTION_STATUS.refunded, vendor_charge_id: result.vendor_id ?? '', meta: JSON.stringify(meta), updated_at: now });
  if (!settled) return null;
  const ledger = await syncOrderTotals(trx, orderId);
  const paymentStatus = paymentStatusOf(Number(before.total_amount), ledger.paid, ledger.refunded, before.payment_status as PaymentStatus);
  await trx('store_orders').where({ id: orderId }).update({ payment_status: paymentStatus, refunded_at: now, updated_at: now });
  if (before.customer_id !== null) await recalculateCustomerStats(trx, Number(before.customer_id));
  const money = decimalWithCode(amount, charge.currency);
  const message = `Refund of ${money} recorded (transaction #${refundId}, from transaction #${charge.id}).`;
  await recordActivity(
    trx,
    ctx,
    { object_type: 'order', object_id: orderId, title: 'Order refunded', content: `${message} Gateway: ${result.message}`, status: 'success' },
    afterCommit,
  );

  const after = (await trx('store_orders').where({ id: orderId }).first()) as OrderRow;
  await emitOrderEvent(ctx, trx, { type: 'refunded', order: after, amount, refund_transaction_id: refundId });
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
  const order = presentOrder(after);
  const previousPaymentStatus = String(before.payment_status);
  const refund = { amount, transaction_id: charge.id, refund_transaction_id: refundId };
  afterCommit(() => {
    if (previousPaymentStatus !== order.payment_status) ctx.hooks.doAction('store/order/payment_status_changed', order, previousPaymentStatus);
    ctx.hooks.doAction('store/order/refunded', order, refund);
    ctx.hooks.doAction(order.payment_status === 'refunded' ? 'store/order/fully_refunded' : 'store/order/partially_refunded', order, refund);
  });
  return message;
}

/** The gateway refused: the reservation is released (row `failed`), the order is unchanged. False when the row was no longer pending. */
export async function settleFailed(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  { order, charge, refundId }: Reservation,
  result: GatewayResult,
): Promise<boolean> {
  const meta: RefundMeta = { parent_transaction_id: charge.id, gateway_status: result.status, gateway_message: result.message };
  const settled = await trx('store_order_transactions')
    .where({ id: refundId, status: TRANSACTION_STATUS.pending })
    .update({
      status: TRANSACTION_STATUS.failed,
      vendor_charge_id: result.vendor_id ?? '',
      meta: JSON.stringify(meta),
      updated_at: toTimestamp(ctx.clock.now()),
    });
  if (!settled) return false;
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [Number(order.id)] });
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: Number(order.id),
      title: 'Refund failed',
      content: `The payment gateway refused the refund: ${result.message}`,
      status: 'error',
    },
    afterCommit,
  );
  return true;
}

/**
 * The gateway accepted the refund but has not completed it: the row stays `pending` (its amount reserved) and keeps
 * the gateway's refund id, by which the gateway's notification or the reconcile job settles it later.
 */
export async function holdPendingRefund(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  { order, charge, refundId }: Reservation,
  result: GatewayResult,
): Promise<void> {
  const meta: RefundMeta = { parent_transaction_id: charge.id, gateway_status: result.status, gateway_message: result.message };
  await trx('store_order_transactions')
    .where({ id: refundId, status: TRANSACTION_STATUS.pending })
    .update({ vendor_charge_id: result.vendor_id ?? '', meta: JSON.stringify(meta), updated_at: toTimestamp(ctx.clock.now()) });
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [Number(order.id)] });
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: Number(order.id),
      title: 'Refund pending',
      content: `The payment gateway accepted refund transaction #${refundId} but has not completed it: ${result.message}`,
      status: 'info',
    },
    afterCommit,
  );
}

const NOT_REQUESTED: RefundPart = { status: 'skipped', message: 'Canceling the subscription was not requested.' };

/**
 * `cancelSubscription: 'true'`: once the refund went through (recorded, or accepted by the gateway), the order's
 * subscriptions are canceled at their gateway and in the store (`subscription-port.ts`). A refund the gateway refused
 * or did not answer cancels nothing.
 */
async function subscriptionPart(ctx: Ctx, orderId: number, requested: boolean, refunded: boolean): Promise<RefundPart> {
  if (!requested) return NOT_REQUESTED;
  if (!refunded) return { status: 'skipped', message: 'The refund did not go through, so the subscription was not canceled.' };
  const subscriptions = orderSubscriptions(ctx);
  if (!subscriptions) return { status: 'skipped', message: 'Subscriptions are not available in this store, so no subscription was canceled.' };
  return subscriptions.cancelForRefund(ctx, orderId);
}

/**
 * `POST /orders/{order_id}/refund`. Order of operations, so a refund never goes wrong:
 * 1. reserve the amount as a `pending` refund row (validated against the charge under the order lock), commit;
 * 2. call the gateway, outside any database transaction;
 * 3. on success (or `skipped` for offline gateways, which record only) the row becomes `refunded` and the order's
 *    totals, payment status, `refunded_at` and the customer's statistics follow, in one transaction, hooks after it;
 *    on refusal the row becomes `failed` and nothing else changes; when the gateway accepted it for later (`pending`)
 *    the row stays `pending` with the gateway's refund id, for its notification or the reconcile job to settle;
 *    when the gateway throws, the outcome is unknown: the row stays `pending`, keeping the amount reserved, so a
 *    retry can never give the same money back twice;
 * 4. with `cancelSubscription`, once the refund went through, the order's subscriptions are canceled.
 */
export async function refundOrder(ctx: Ctx, orderId: number, input: RefundInput): Promise<RefundOutcome> {
  const { transactionId, amount: sentAmount, cancelSubscription } = parseInput(input);
  const reservation = await reserve(ctx, orderId, transactionId, sentAmount);
  const { amount } = reservation;
  const result = await callGateway(ctx, reservation, amount);
  const cancelPart = (refunded: boolean) => subscriptionPart(ctx, orderId, cancelSubscription, refunded);

  if (!result) {
    await transaction(ctx, (trx, afterCommit) =>
      recordActivity(
        trx,
        ctx,
        {
          object_type: 'order',
          object_id: orderId,
          title: 'Refund pending',
          content: `The payment gateway did not answer; refund transaction #${reservation.refundId} stays pending and keeps its amount reserved.`,
          status: 'warning',
        },
        afterCommit,
      ),
    );
    return {
      status: 502,
      answer: {
        fluent_cart_refund: {
          status: 'pending',
          message: `The payment gateway did not answer. The refund is held as pending (transaction #${reservation.refundId}) and its amount stays reserved until it is checked.`,
        },
        gateway_refund: { status: 'failed', message: 'The payment gateway could not be reached.' },
        subscription_cancel: await cancelPart(false),
      },
    };
  }
  if (result.status === 'failed') {
    await transaction(ctx, (trx, afterCommit) => settleFailed(ctx, trx, afterCommit, reservation, result));
    return {
      status: 502,
      answer: {
        fluent_cart_refund: { status: 'failed', message: 'The refund was not recorded because the payment gateway refused it.' },
        gateway_refund: { status: 'failed', message: result.message },
        subscription_cancel: await cancelPart(false),
      },
    };
  }
  if (result.status === 'pending') {
    await transaction(ctx, (trx, afterCommit) => holdPendingRefund(ctx, trx, afterCommit, reservation, result));
    return {
      status: 200,
      answer: {
        fluent_cart_refund: {
          status: 'pending',
          message: `The payment gateway accepted the refund and will complete it later; transaction #${reservation.refundId} stays pending until it does.`,
        },
        gateway_refund: { status: 'pending', message: result.message },
        subscription_cancel: await cancelPart(true),
      },
    };
  }
  const settled = await transaction(ctx, (trx, afterCommit) => settleRefunded(ctx, trx, afterCommit, reservation, amount, result));
  // Null: the gateway's notification recorded this refund first, with the same effects.
  const message = settled ?? `Refund recorded (transaction #${reservation.refundId}, from transaction #${reservation.charge.id}).`;
  return {
    status: 200,
    answer: {
      fluent_cart_refund: { status: 'success', message },
      gateway_refund: { status: result.status, message: result.message },
      subscription_cancel: await cancelPart(true),
    },
  };
}
