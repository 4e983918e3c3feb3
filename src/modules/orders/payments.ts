import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { decimalWithCode } from '../../core/money';
import { toTimestamp } from '../../core/time';
import { gatewayFor } from '../../gateways/registry';
import { recordActivity } from '../activities/service';
import { recalculateCustomerStats } from '../customers/ltv';
import { assignInvoiceNumber } from './invoice';
import { CHARGE_TYPES, TRANSACTION_STATUS, ledgerOf, syncOrderTotals, toTransaction, type ChargeType } from './ledger';
import { emitOrderEvent } from '../order-records/order-events';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { SETTLED_PAYMENT_STATUSES, statusWhenPaid } from './state';
import { takeOrderStock } from './stock-state';
import { orderSubscriptions } from './subscription-port';

export interface MarkPaidInput {
  payment_method?: string;
  vendor_charge_id?: string;
  transaction_type?: string;
  mark_paid_note?: string;
  /** The pending charge this payment settles (a gateway's charge): settled with exactly `amount`, not "the newest pending one". */
  transaction_id?: number;
  /** What the gateway took, in cents; default what is still due. */
  amount?: number;
}

/** Payment method of a manual mark-as-paid when neither the request nor the order names one. */
const DEFAULT_METHOD = 'offline';

function chargeType(value: string | undefined): ChargeType {
  const type = value || 'charge';
  if (!(CHARGE_TYPES as readonly string[]).includes(type)) {
    throw invalid('transaction_type', 'in', `The transaction type must be one of: ${CHARGE_TYPES.join(', ')}.`);
  }
  return type as ChargeType;
}

/**
 * Records the charge: the given pending charge (a gateway's payment, with the amount it took), or else the order's
 * newest pending charge (a checkout that never completed) for what is still due, or else a new row. Returns the
 * transaction id and amount.
 */
async function recordCharge(
  trx: Knex.Transaction,
  order: OrderRow,
  fields: {
    type: ChargeType;
    method: string;
    vendorChargeId: string;
    note: string;
    userId: number | null;
    now: string;
    transactionId?: number;
    amount?: number;
  },
): Promise<{ id: number; amount: number }> {
  const orderId = Number(order.id);
  const { paid } = await ledgerOf(trx, orderId);
  const amount = fields.amount ?? Math.max(0, Number(order.total_amount) - paid);
  const meta = { ...(fields.note ? { note: fields.note } : {}), marked_paid_by: fields.userId };
  const pending = trx('store_order_transactions')
    .where({ order_id: orderId, status: TRANSACTION_STATUS.pending })
    .whereIn('transaction_type', [...CHARGE_TYPES]);
  if (fields.transactionId !== undefined) pending.where({ id: fields.transactionId });
  const pendingRow = (await pending.orderBy('id', 'desc').first()) as Record<string, unknown> | undefined;
  if (pendingRow) {
    const pending = toTransaction(pendingRow);
    await trx('store_order_transactions')
      .where({ id: pending.id })
      .update({
        transaction_type: fields.type,
        status: TRANSACTION_STATUS.succeeded,
        total: amount,
        payment_method: fields.method,
        vendor_charge_id: fields.vendorChargeId || pending.vendor_charge_id,
        meta: JSON.stringify({ ...pending.meta, ...meta }),
        updated_at: fields.now,
      });
    return { id: pending.id, amount };
  }
  const [id] = await trx('store_order_transactions').insert({
    uuid: crypto.randomUUID(),
    order_id: orderId,
    order_type: order.type,
    transaction_type: fields.type,
    vendor_charge_id: fields.vendorChargeId,
    payment_method: fields.method,
    payment_mode: order.mode,
    status: TRANSACTION_STATUS.succeeded,
    currency: order.currency,
    total: amount,
    rate: order.rate,
    meta: JSON.stringify(meta),
    created_at: fields.now,
    updated_at: fields.now,
  });
  return { id: Number(id), amount };
}

/**
 * The whole mark-as-paid effect inside the caller's transaction (the route, and the create-order service for orders
 * created paid): the charge for what is still due, totals from the ledger, payment status `paid`, the order status
 * its fulfilment calls for, the stock a checkout held taken for good, the invoice number, the customer's statistics,
 * an activity entry (holding the note), and the hooks after commit. The order row is locked and the status change
 * is a conditional update, so of two concurrent calls exactly one wins; the other gets 423. The subscriptions module
 * then counts an early installment payment (see subscription-port.ts). Its 404/422/423 errors are thrown before anything is written,
 * so a caller may catch them and carry on in the same transaction.
 */
export async function markPaidInTransaction(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, orderId: number, input: MarkPaidInput): Promise<void> {
  const type = chargeType(input.transaction_type);
  const before = (await lockForUpdate(trx('store_orders').where({ id: orderId }), trx).first()) as OrderRow | undefined;
  if (!before) throw fail('not_found', 'Order not found', { status: 404 });
  if (before.status === 'canceled') throw fail('locked', 'Unable to mark paid for canceled order');
  if ((SETTLED_PAYMENT_STATUSES as readonly unknown[]).includes(before.payment_status)) throw fail('locked', 'Order has already been paid');

  const now = toTimestamp(ctx.clock.now());
  const method = input.payment_method || String(before.payment_method || '') || DEFAULT_METHOD;
  const methodTitle = method === before.payment_method && before.payment_method_title ? String(before.payment_method_title) : gatewayFor(ctx, method).title;
  // An order an admin already set to completed stays completed; otherwise the fulfilment decides.
  const status = before.status === 'completed' ? 'completed' : statusWhenPaid(String(before.fulfillment_type));
  const won = await trx('store_orders')
    .where({ id: orderId })
    .whereNot('status', 'canceled')
    .whereNotIn('payment_status', [...SETTLED_PAYMENT_STATUSES])
    .update({
      payment_status: 'paid',
      status,
      payment_method: method,
      payment_method_title: methodTitle,
      completed_at: status === 'completed' ? (before.completed_at ?? now) : before.completed_at,
      updated_at: now,
    });
  if (!won) throw fail('locked', 'Order has already been paid');

  const note = input.mark_paid_note?.trim() ?? '';
  const charge = await recordCharge(trx, before, {
    type,
    method,
    vendorChargeId: input.vendor_charge_id ?? '',
    note,
    userId: ctx.user?.id ?? null,
    now,
    transactionId: input.transaction_id,
    amount: input.amount,
  });
  await syncOrderTotals(trx, orderId);
  await takeOrderStock(trx, ctx, orderId, afterCommit);
  await assignInvoiceNumber(ctx, trx, orderId);
  if (before.customer_id !== null) await recalculateCustomerStats(trx, Number(before.customer_id));
  const amount = decimalWithCode(charge.amount, String(before.currency));
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: orderId,
      title: 'Order marked as paid',
      content: `Payment of ${amount} recorded by ${methodTitle} (transaction #${charge.id}).${note ? ` Note: ${note}` : ''}`,
      status: 'success',
    },
    afterCommit,
  );

  await orderSubscriptions(ctx)?.orderPaid(ctx, trx, afterCommit, before);

  const after = (await trx('store_orders').where({ id: orderId }).first()) as OrderRow;
  await emitOrderEvent(ctx, trx, { type: 'paid', order: after, charge_id: charge.id });
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
  const order = presentOrder(after);
  const previousStatus = String(before.status);
  const previousPaymentStatus = String(before.payment_status);
  afterCommit(() => {
    if (previousStatus !== order.status) ctx.hooks.doAction('store/order/status_changed', order, previousStatus);
    ctx.hooks.doAction('store/order/payment_status_changed', order, previousPaymentStatus);
    ctx.hooks.doAction('store/order/paid', order);
  });
}

/** `POST /orders/{order}/mark-as-paid` in its own transaction. */
export async function markOrderPaid(ctx: Ctx, orderId: number, input: MarkPaidInput): Promise<{ message: string }> {
  await transaction(ctx, (trx, afterCommit) => markPaidInTransaction(ctx, trx, afterCommit, orderId, input));
  return { message: 'Order has been marked as paid' };
}
