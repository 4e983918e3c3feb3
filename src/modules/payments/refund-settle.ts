import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { decimalWithCode } from '../../core/money';
import { toTimestamp } from '../../core/time';
import type { GatewayResult } from '../../gateways/gateway';
import { gatewayFor } from '../../gateways/registry';
import { recordActivity } from '../activities/service';
import type { OrderRow } from '../order-records/presenter';
import { emitOrderEvent } from '../order-records/order-events';
import { CHARGE_TYPES, REFUND_TYPE, TRANSACTION_STATUS, reservedRefundsOf, toTransaction, type RefundMeta, type TransactionRow } from '../orders/ledger';
import { holdPendingRefund, settleFailed, settleRefunded, type Reservation } from '../orders/refunds';

const TRANSACTIONS = 'store_order_transactions';

/** A gateway's word on a refund (its notification, or its answer to the reconcile job). Amounts in minor units. */
export interface GatewayRefund {
  /** The gateway key (`payment_method` of the charge). */
  method: string;
  /** The gateway's id of the charge the refund gives money back from, as the store keeps it on that charge. */
  charge_vendor_id: string;
  /** The gateway's id of the refund ('' when it has none). */
  refund_vendor_id: string;
  amount: number;
  status: 'succeeded' | 'failed' | 'pending';
  /** The store's refund row's uuid, when the gateway echoes it back (Stripe refund metadata). */
  transaction_uuid?: string;
}

export type RefundSettleOutcome = 'settled' | 'already_settled' | 'pending' | 'unknown';

function reservationOf(order: OrderRow, charge: TransactionRow, row: TransactionRow): Reservation {
  return { order, charge, refundId: row.id, refundUuid: row.uuid, amount: row.total };
}

/**
 * The refund row the gateway means: by its refund id, else by the row's uuid; a refund that names no row (the gateway
 * cannot echo one) is the oldest pending row of that amount not yet bound to another gateway refund.
 */
function matchRow(rows: TransactionRow[], refund: GatewayRefund): TransactionRow | undefined {
  const byId = refund.refund_vendor_id ? rows.find((row) => row.vendor_charge_id === refund.refund_vendor_id) : undefined;
  if (byId) return byId;
  if (refund.transaction_uuid) return rows.find((row) => row.uuid === refund.transaction_uuid);
  return rows.find((row) => row.status === TRANSACTION_STATUS.pending && row.vendor_charge_id === '' && row.total === refund.amount);
}

async function warn(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, orderId: number, title: string, content: string): Promise<void> {
  await recordActivity(trx, ctx, { object_type: 'order', object_id: orderId, title, content, status: 'warning' }, afterCommit);
}

/** A refund the store did not ask for (made in the gateway's dashboard): a new row, `pending` until settled like any other. */
async function insertOutsideRefund(trx: Knex.Transaction, ctx: Ctx, order: OrderRow, charge: TransactionRow, refund: GatewayRefund): Promise<TransactionRow> {
  const now = toTimestamp(ctx.clock.now());
  const meta: RefundMeta = { parent_transaction_id: charge.id };
  const fields = {
    uuid: crypto.randomUUID(),
    order_id: charge.order_id,
    order_type: order.type,
    transaction_type: REFUND_TYPE,
    vendor_charge_id: refund.refund_vendor_id,
    payment_method: charge.payment_method,
    payment_mode: charge.payment_mode,
    status: TRANSACTION_STATUS.pending,
    currency: charge.currency,
    total: refund.amount,
    rate: charge.rate,
    meta: JSON.stringify(meta),
    created_at: now,
    updated_at: now,
  };
  const [id] = await trx(TRANSACTIONS).insert(fields);
  return toTransaction({ ...fields, id: Number(id) });
}

/**
 * A gateway reports what became of a refund (`POST /orders/{id}/refund` reserved it as a `pending` row and called the
 * gateway; the answer may have been lost, or the gateway completes it later). Under the order lock:
 * - the row is found by the refund's gateway id, else by the row's uuid the gateway echoes, else (when it echoes none)
 *   as the oldest pending row of that charge and amount not yet bound to another gateway refund;
 * - `succeeded` settles it with exactly the effects of a gateway success in `refunds.ts` (row `refunded`, totals,
 *   payment status, statistics, activity, hooks); `failed` with those of a refusal (row `failed`, amount released);
 *   `pending` only records the gateway's refund id on the row;
 * - a row already settled answers `already_settled` and changes nothing, so every delivery may repeat (a refund the
 *   gateway reports failed after it succeeded is logged as a warning for an admin);
 * - a refund with no row was made outside the store (the gateway's dashboard): when it succeeded, or is pending, it is
 *   recorded as a new refund row of the charge with the same effects (a pending one reserves its amount), as long as
 *   it fits what is left of the charge; otherwise a warning is logged and nothing changes;
 * - a charge the store does not know answers `unknown`.
 */
export async function settleGatewayRefund(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, refund: GatewayRefund): Promise<RefundSettleOutcome> {
  if (!refund.charge_vendor_id) return 'unknown';
  const chargeRow = (await trx(TRANSACTIONS)
    .where({ payment_method: refund.method, vendor_charge_id: refund.charge_vendor_id })
    .whereIn('transaction_type', [...CHARGE_TYPES])
    .first()) as Record<string, unknown> | undefined;
  if (!chargeRow) return 'unknown';
  const charge = toTransaction(chargeRow);
  const order = (await lockForUpdate(trx('store_orders').where({ id: charge.order_id }), trx).first()) as OrderRow;
  const rows = (
    (await trx(TRANSACTIONS).where({ order_id: charge.order_id, transaction_type: REFUND_TYPE, payment_method: refund.method }).orderBy('id')) as Array<
      Record<string, unknown>
    >
  )
    .map(toTransaction)
    .filter((row) => row.meta.parent_transaction_id === charge.id);
  const title = gatewayFor(ctx, refund.method).title;
  const named = refund.refund_vendor_id ? ` ${refund.refund_vendor_id}` : '';
  const result = (status: GatewayResult['status'], word: string): GatewayResult => ({
    status,
    message: `${title} reports the refund${named} ${word}.`,
    vendor_id: refund.refund_vendor_id || undefined,
  });
  const money = decimalWithCode(refund.amount, charge.currency);
  let row = matchRow(rows, refund);

  if (!row) {
    if (refund.status === 'failed') return 'unknown';
    const left = charge.total - (await reservedRefundsOf(trx, charge.order_id, charge.id));
    if (refund.amount > left) {
      await warn(
        ctx,
        trx,
        afterCommit,
        charge.order_id,
        'Refund not recorded',
        `${title} reports a refund${named} of ${money} from transaction #${charge.id}, more than the ${decimalWithCode(Math.max(left, 0), charge.currency)} left of it in the store; check the order.`,
      );
      return 'unknown';
    }
    row = await insertOutsideRefund(trx, ctx, order, charge, refund);
    if (refund.status === 'pending') {
      await holdPendingRefund(ctx, trx, afterCommit, reservationOf(order, charge, row), result('pending', 'made outside the store as pending'));
      return 'pending';
    }
    await settleRefunded(ctx, trx, afterCommit, reservationOf(order, charge, row), row.total, result('success', 'made outside the store'));
    return 'settled';
  }

  if (row.status === TRANSACTION_STATUS.pending) {
    const reservation = reservationOf(order, charge, row);
    if (refund.status === 'succeeded') {
      return (await settleRefunded(ctx, trx, afterCommit, reservation, row.total, result('success', 'succeeded'))) === null ? 'already_settled' : 'settled';
    }
    if (refund.status === 'failed') return (await settleFailed(ctx, trx, afterCommit, reservation, result('failed', 'failed'))) ? 'settled' : 'already_settled';
    if (refund.refund_vendor_id && !row.vendor_charge_id) {
      await trx(TRANSACTIONS)
        .where({ id: row.id })
        .update({ vendor_charge_id: refund.refund_vendor_id, updated_at: toTimestamp(ctx.clock.now()) });
      await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [charge.order_id] });
    }
    return 'pending';
  }
  if (row.status === TRANSACTION_STATUS.refunded && refund.status === 'failed') {
    await warn(
      ctx,
      trx,
      afterCommit,
      charge.order_id,
      'Refund reversed by the gateway',
      `${title} reports refund transaction #${row.id}${named} (${money}) failed after it had succeeded: the money did not reach the customer; check the order.`,
    );
  }
  if (row.status === TRANSACTION_STATUS.failed && refund.status === 'succeeded') {
    await warn(
      ctx,
      trx,
      afterCommit,
      charge.order_id,
      'Refund succeeded after it was recorded as failed',
      `${title} reports refund transaction #${row.id}${named} (${money}) succeeded, but the store recorded it as failed; record the refund by hand if the money was returned.`,
    );
  }
  return 'already_settled';
}
