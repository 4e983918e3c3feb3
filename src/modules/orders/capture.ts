import { transaction, type Ctx } from '../../core/context';
import { AppError } from '../../core/errors';
import { decimalWithCode } from '../../core/money';
import { toTimestamp } from '../../core/time';
import type { GatewayResult } from '../../gateways/gateway';
import { gatewayFor } from '../../gateways/registry';
import { recordActivity } from '../activities/service';
import { CHARGE_TYPES, TRANSACTION_STATUS, syncOrderTotals, toTransaction, type TransactionRow } from './ledger';
import { emitOrderEvent } from '../order-records/order-events';
import { markPaidInTransaction } from './payments';
import type { OrderRow } from '../order-records/presenter';
import { notFoundNote, plural, summary } from './selection';
import { SETTLED_PAYMENT_STATUSES } from './state';

const TRANSACTIONS = 'store_order_transactions';
/** An authorised charge not yet captured (reference §2). */
const AUTHORIZED = 'authorized';
/** A charge whose capture call is running: claimed with a conditional update, so two requests never capture it twice. */
const CAPTURING = 'capturing';

type Outcome = { kind: 'captured' } | { kind: 'none' } | { kind: 'closed' } | { kind: 'unsupported' } | { kind: 'failed'; message: string };

const failedMessage = (result: GatewayResult) => result.message || 'The payment gateway refused the capture.';

/** Puts a claimed charge back to `authorized` after a capture that did not happen, and logs why. */
async function release(ctx: Ctx, charge: TransactionRow, message: string): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    await trx(TRANSACTIONS)
      .where({ id: charge.id, status: CAPTURING })
      .update({ status: AUTHORIZED, updated_at: toTimestamp(ctx.clock.now()) });
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [charge.order_id] });
    await recordActivity(
      trx,
      ctx,
      { object_type: 'order', object_id: charge.order_id, title: 'Payment capture failed', content: message, status: 'error' },
      afterCommit,
    );
  });
}

/**
 * Records a capture the gateway made: the charge becomes the order's payment through mark-as-paid (succeeded charge,
 * totals from the ledger, `paid`, order status, invoice number, statistics, hooks). An order that was marked paid or
 * canceled meanwhile still gets the charge recorded as succeeded, so the ledger shows the money that was taken.
 */
async function record(ctx: Ctx, charge: TransactionRow, result: GatewayResult, title: string): Promise<void> {
  const vendorChargeId = result.vendor_id || charge.vendor_charge_id;
  await transaction(ctx, async (trx, afterCommit) => {
    const now = toTimestamp(ctx.clock.now());
    await trx(TRANSACTIONS).where({ id: charge.id }).update({ status: TRANSACTION_STATUS.pending, vendor_charge_id: vendorChargeId, updated_at: now });
    try {
      await markPaidInTransaction(ctx, trx, afterCommit, charge.order_id, {
        payment_method: charge.payment_method || undefined,
        vendor_charge_id: vendorChargeId,
        transaction_type: charge.transaction_type,
        // Exactly the authorised charge, captured in full: not "the newest pending charge, for what is still due".
        transaction_id: charge.id,
        amount: charge.total,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'locked') throw error;
      await trx(TRANSACTIONS).where({ id: charge.id }).update({ status: TRANSACTION_STATUS.succeeded, updated_at: now });
      await syncOrderTotals(trx, charge.order_id);
    }
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [charge.order_id] });
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: charge.order_id,
        title: 'Payment captured',
        content: `${decimalWithCode(charge.total, charge.currency)} captured by ${title}${vendorChargeId ? ` (${vendorChargeId})` : ''}.`,
        status: 'success',
      },
      afterCommit,
    );
  });
}

async function captureOrder(ctx: Ctx, order: OrderRow): Promise<Outcome> {
  const row = (await ctx
    .db(TRANSACTIONS)
    .where({ order_id: order.id, status: AUTHORIZED })
    .whereIn('transaction_type', [...CHARGE_TYPES])
    .orderBy('id', 'desc')
    .first()) as Record<string, unknown> | undefined;
  if (!row) return { kind: 'none' };
  if (order.status === 'canceled' || (SETTLED_PAYMENT_STATUSES as readonly unknown[]).includes(order.payment_status)) return { kind: 'closed' };
  const charge = toTransaction(row);
  const gateway = gatewayFor(ctx, charge.payment_method || String(order.payment_method ?? ''), charge.vendor_charge_id);
  if (!gateway.capabilities.capture) return { kind: 'unsupported' };
  const claimed = await transaction(ctx, async (trx) => {
    const won = await trx(TRANSACTIONS)
      .where({ id: charge.id, status: AUTHORIZED })
      .update({ status: CAPTURING, updated_at: toTimestamp(ctx.clock.now()) });
    if (won) await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [charge.order_id] });
    return won;
  });
  if (!claimed) return { kind: 'none' };

  let result: GatewayResult;
  try {
    result = await gateway.capture(ctx, charge);
  } catch (error) {
    ctx.host.logger.error({ err: error, transaction: charge.id }, 'payment capture failed');
    result = { status: 'failed', message: `${gateway.title} could not be reached.` };
  }
  if (result.status !== 'success') {
    const message = failedMessage(result);
    await release(ctx, charge, message);
    return { kind: 'failed', message };
  }
  try {
    await record(ctx, charge, result, gateway.title);
  } catch (error) {
    // The money was taken at the gateway: the charge stays `capturing` for an admin to see, never captured again.
    ctx.host.logger.error({ err: error, transaction: charge.id }, 'captured payment could not be recorded');
    return { kind: 'failed', message: `the payment of order #${charge.order_id} was captured but could not be recorded` };
  }
  return { kind: 'captured' };
}

/**
 * `capture_payments`: captures each selected order's authorised charge through its gateway (`PaymentGateway.capture`),
 * one order at a time and outside any transaction while the gateway is called; the claim on the charge makes a
 * parallel request skip it. Gateways that cannot capture (offline ones) are reported, as are failures.
 */
export async function capturePayments(ctx: Ctx, ids: number[]): Promise<string> {
  const orders = (await ctx.db('store_orders').whereIn('id', ids).orderBy('id')) as OrderRow[];
  const found = new Set(orders.map((order) => Number(order.id)));
  const counts = { captured: 0, none: 0, closed: 0, unsupported: 0 };
  const failures: string[] = [];
  for (const order of orders) {
    const outcome = await captureOrder(ctx, order);
    if (outcome.kind === 'failed') failures.push(outcome.message);
    else counts[outcome.kind]++;
  }
  return summary(
    ids.length,
    counts.captured,
    'Payments of the selected orders have been captured successfully.',
    `Payments captured for ${counts.captured} of ${ids.length} selected orders.`,
    [
      ...(counts.none ? [`${plural(counts.none, 'order has', 'orders have')} no authorized payment to capture.`] : []),
      ...(counts.closed ? [`${plural(counts.closed, 'order is', 'orders are')} canceled or already paid.`] : []),
      ...(counts.unsupported
        ? [`${plural(counts.unsupported, 'order uses a payment method', 'orders use payment methods')} that cannot capture payments.`]
        : []),
      ...(failures.length ? [`${plural(failures.length, 'capture', 'captures')} failed: ${failures.map((m) => m.replace(/\.$/, '')).join('; ')}.`] : []),
      ...notFoundNote(ids.filter((id) => !found.has(id))),
    ],
  );
}
