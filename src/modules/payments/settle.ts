import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { AppError } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { completeCartOfOrder } from '../cart/repo';
import { TRANSACTION_STATUS, syncOrderTotals } from '../orders/ledger';
import { emitOrderEvent } from '../order-records/order-events';
import { markPaidInTransaction } from '../orders/payments';

export interface GatewayPayment {
  /** The gateway key (`payment_method` of the charge). */
  method: string;
  /** The gateway's id of the payment, as stored on the pending charge at checkout. */
  vendor_charge_id: string;
  /** The charge's id once captured, when the gateway names it differently (a PayPal capture id); default unchanged. */
  settled_charge_id?: string;
  /** What the gateway took, in minor units. */
  amount: number;
  /** The currency it took it in (ISO 4217, any case), when the gateway says; another currency than the charge's settles nothing. */
  currency?: string;
}

export type SettleOutcome = 'paid' | 'already_paid' | 'paid_after_cancel' | 'paid_twice' | 'currency_mismatch' | 'unknown_charge';

/**
 * A gateway reports a payment (webhook or the shopper's return): the pending charge it belongs to settles the order
 * through `markPaidInTransaction`, with the exact amount taken, and the order's subscription starts. Becoming paid is
 * one conditional update, so when a webhook and a browser return arrive together one wins and the other answers
 * `already_paid`; neither fails.
 */
export async function settleGatewayPayment(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, payment: GatewayPayment): Promise<SettleOutcome> {
  const charge = (await trx('store_order_transactions')
    .where({ payment_method: payment.method, vendor_charge_id: payment.vendor_charge_id })
    .first('id', 'order_id', 'status', 'currency')) as { id: number; order_id: number; status: string; currency: string } | undefined;
  if (!charge) return 'unknown_charge';
  if (payment.currency && payment.currency.toUpperCase() !== String(charge.currency).toUpperCase()) {
    // Minor units of one currency are not those of another: the order is not paid by it; a person must look.
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: Number(charge.order_id),
        title: 'Payment in another currency',
        content: `${payment.method} reported a payment (${payment.vendor_charge_id}) of ${payment.amount} in ${payment.currency.toUpperCase()}, but the charge is in ${String(charge.currency)}; the order was not marked paid.`,
        status: 'error',
      },
      afterCommit,
    );
    return 'currency_mismatch';
  }
  try {
    await markPaidInTransaction(ctx, trx, afterCommit, Number(charge.order_id), {
      payment_method: payment.method,
      vendor_charge_id: payment.settled_charge_id ?? payment.vendor_charge_id,
      transaction_id: Number(charge.id),
      amount: payment.amount,
    });
    await completeCartOfOrder(trx, Number(charge.order_id), toTimestamp(ctx.clock.now()));
    return 'paid';
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'locked') throw error;
  }
  // The order was paid or canceled without this charge. When the charge is still pending, this is money the ledger does
  // not show yet (a late payment of an expired order, or a second payment from an earlier attempt at checkout): it is
  // recorded, for a refund. A charge already settled (the same payment reported again) changes nothing.
  const order = (await trx('store_orders').where({ id: charge.order_id }).first('status')) as { status: string };
  const now = toTimestamp(ctx.clock.now());
  const recorded = await trx('store_order_transactions')
    .where({ id: charge.id, status: TRANSACTION_STATUS.pending })
    .update({
      status: TRANSACTION_STATUS.succeeded,
      total: payment.amount,
      vendor_charge_id: payment.settled_charge_id ?? payment.vendor_charge_id,
      updated_at: now,
    });
  if (!recorded) return 'already_paid';
  await syncOrderTotals(trx, Number(charge.order_id));
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [Number(charge.order_id)] });
  const canceled = order.status === 'canceled';
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: Number(charge.order_id),
      title: canceled ? 'Payment received for a canceled order' : 'Second payment received',
      content: canceled
        ? `${payment.method} reported a payment (${payment.vendor_charge_id}) after the order was canceled; refund it or reinstate the order.`
        : `${payment.method} reported a payment (${payment.vendor_charge_id}) for an order that was already paid; refund one of the payments.`,
      status: 'warning',
    },
    afterCommit,
  );
  return canceled ? 'paid_after_cancel' : 'paid_twice';
}
