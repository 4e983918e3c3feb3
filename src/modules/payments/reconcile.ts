import { systemCtx, transaction, type Ctx } from '../../core/context';
import { RateLimits } from '../../core/ratelimit';
import { toTimestamp } from '../../core/time';
import type { GatewayTransaction, RefundLookup } from '../../gateways/gateway';
import { paymentGateways } from '../../gateways/registry';
import type { Host } from '../../host/contract';
import { REFUND_TYPE, TRANSACTION_STATUS, toTransaction, type TransactionRow } from '../orders/ledger';
import { settleGatewayRefund } from './refund-settle';

declare module '../../host/contract' {
  interface JobMap {
    'store/payments/reconcile': Record<string, never>;
  }
}

/** Refunds pending at least this long are asked about: far longer than a gateway call with its retries may run. */
export const RECONCILE_AFTER_MINUTES = 60;
/** Refunds asked about per run, oldest first; the next run takes the rest. */
const BATCH = 200;

export interface ReconcileReport {
  /** Pending refunds old enough to ask about. */
  checked: number;
  /** The gateway completed them: recorded as refunded. */
  refunded: number;
  /** The gateway never made them or refused them: released. */
  failed: number;
  /** The gateway is still working on them. */
  pending: number;
  /** Their gateway cannot be asked (offline methods, gateways without `lookupRefund`), or the answer matched nothing. */
  skipped: number;
  /** The gateway could not be asked now (logged); the next run asks again. */
  errors: number;
}

function subject(row: TransactionRow): GatewayTransaction {
  const { id, uuid, order_id, vendor_charge_id, payment_method, payment_mode, currency, total, status } = row;
  return { id, uuid, order_id, vendor_charge_id, payment_method, payment_mode, currency, total, status };
}

/**
 * Refunds stuck `pending` (the gateway call never answered and no notification came): each one's gateway is asked
 * what became of it (`lookupRefund`, outside any database transaction), and the answer settles the row exactly as the
 * gateway's notification would (`settleGatewayRefund`, by the row's uuid): refunded, released as failed, or left
 * pending with the gateway's refund id.
 */
export async function reconcilePendingRefunds(ctx: Ctx, olderThanMinutes = RECONCILE_AFTER_MINUTES): Promise<ReconcileReport> {
  const cutoff = toTimestamp(new Date(ctx.clock.now().getTime() - olderThanMinutes * 60_000));
  const rows = (
    (await ctx
      .db('store_order_transactions')
      .where({ transaction_type: REFUND_TYPE, status: TRANSACTION_STATUS.pending })
      .where('created_at', '<=', cutoff)
      .orderBy('id')
      .limit(BATCH)) as Array<Record<string, unknown>>
  ).map(toTransaction);
  const report: ReconcileReport = { checked: rows.length, refunded: 0, failed: 0, pending: 0, skipped: 0, errors: 0 };
  const gateways = paymentGateways(ctx);
  for (const refund of rows) {
    const gateway = gateways.get(refund.payment_method);
    const parentId = Number(refund.meta.parent_transaction_id);
    const chargeRow = Number.isSafeInteger(parentId)
      ? ((await ctx.db('store_order_transactions').where({ id: parentId }).first()) as Record<string, unknown> | undefined)
      : undefined;
    if (!gateway?.lookupRefund || !chargeRow) {
      report.skipped++;
      continue;
    }
    const charge = toTransaction(chargeRow);
    let answer: RefundLookup;
    try {
      answer = await gateway.lookupRefund(ctx, subject(refund), subject(charge));
    } catch (error) {
      ctx.host.logger.warn({ err: error, transaction_id: refund.id }, 'pending refund could not be looked up');
      report.errors++;
      continue;
    }
    const outcome = await transaction(ctx, (trx, afterCommit) =>
      settleGatewayRefund(ctx, trx, afterCommit, {
        method: refund.payment_method,
        charge_vendor_id: charge.vendor_charge_id,
        refund_vendor_id: answer.vendor_id ?? refund.vendor_charge_id,
        amount: refund.total,
        status: answer.status,
        transaction_uuid: refund.uuid,
      }),
    );
    if (outcome === 'settled') report[answer.status === 'succeeded' ? 'refunded' : 'failed']++;
    else if (outcome === 'pending') report.pending++;
    else report.skipped++;
  }
  return report;
}

export function describeReconcile(report: ReconcileReport, olderThanMinutes: number): string[] {
  if (!report.checked) return [`No refund has been pending for ${olderThanMinutes} minutes or more.`];
  return [
    `Pending refunds checked: ${report.checked} (pending for ${olderThanMinutes} minutes or more).`,
    `Refunded: ${report.refunded}; failed (nothing refunded): ${report.failed}; still pending at the gateway: ${report.pending}; not checkable: ${report.skipped}; gateway unreachable: ${report.errors}.`,
  ];
}

/** The hourly job: reconciles refunds pending for an hour or more, as `npm run cli -- payments:reconcile` does. */
export function registerPaymentJobs(host: Host): void {
  host.jobs.define('store/payments/reconcile', async () => {
    const ctx = systemCtx(host, new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written')));
    const report = await reconcilePendingRefunds(ctx);
    if (report.checked) host.logger.info({ ...report }, 'pending refunds reconciled');
  });
  host.jobs.schedule('store/payments/reconcile', '23 * * * *', {});
}
