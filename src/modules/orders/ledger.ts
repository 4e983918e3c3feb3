import type { Knex } from 'knex';
import { parseJson } from '../../core/db';

/**
 * The payments ledger of an order (reference §2: transactions hold positive cents; a refund is its own positive row
 * with `transaction_type` `refund`). The order's `total_paid` and `total_refund` are always derived from the rows
 * here, never incremented, so they cannot drift from the transactions:
 * - `total_paid` = Σ succeeded charges (`charge`, `signup_fee`);
 * - `total_refund` = Σ refund rows with status `refunded`;
 * - `total_paid - total_refund` ≥ 0.
 */
export const CHARGE_TYPES = ['charge', 'signup_fee'] as const;
export type ChargeType = (typeof CHARGE_TYPES)[number];

export const REFUND_TYPE = 'refund';

/** Transaction statuses (reference §2). A refund row is `pending` while its gateway call runs, then `refunded` or `failed`. */
export const TRANSACTION_STATUS = { pending: 'pending', succeeded: 'succeeded', refunded: 'refunded', failed: 'failed' } as const;

/** What a refund row keeps in `meta`: the charge it gives money back from, and what the gateway said. */
export interface RefundMeta {
  parent_transaction_id: number;
  gateway_status?: string;
  gateway_message?: string;
}

export interface Ledger {
  paid: number;
  refunded: number;
}

export interface TransactionRow {
  id: number;
  uuid: string;
  order_id: number;
  order_type: string;
  transaction_type: string;
  vendor_charge_id: string;
  payment_method: string;
  payment_mode: string;
  status: string;
  currency: string;
  total: number;
  rate: number;
  meta: Record<string, unknown>;
}

export function toTransaction(row: Record<string, unknown>): TransactionRow {
  return {
    id: Number(row.id),
    uuid: String(row.uuid),
    order_id: Number(row.order_id),
    order_type: String(row.order_type),
    transaction_type: String(row.transaction_type),
    vendor_charge_id: String(row.vendor_charge_id ?? ''),
    payment_method: String(row.payment_method ?? ''),
    payment_mode: String(row.payment_mode ?? 'live'),
    status: String(row.status),
    currency: String(row.currency),
    total: Number(row.total),
    rate: Number(row.rate),
    meta: parseJson<Record<string, unknown>>(row.meta, {}),
  };
}

/** The sums the order's totals must equal (cents). */
export async function ledgerOf(db: Knex | Knex.Transaction, orderId: number): Promise<Ledger> {
  const rows = (await db('store_order_transactions')
    .where({ order_id: orderId })
    .where((q) =>
      q
        .where((c) => c.whereIn('transaction_type', [...CHARGE_TYPES]).where('status', TRANSACTION_STATUS.succeeded))
        .orWhere((r) => r.where('transaction_type', REFUND_TYPE).where('status', TRANSACTION_STATUS.refunded)),
    )
    .select('transaction_type')
    .sum({ amount: 'total' })
    .groupBy('transaction_type')) as Array<{ transaction_type: string; amount: number | string | null }>;
  let paid = 0;
  let refunded = 0;
  for (const row of rows) {
    if (row.transaction_type === REFUND_TYPE) refunded += Number(row.amount ?? 0);
    else paid += Number(row.amount ?? 0);
  }
  return { paid, refunded };
}

/**
 * Writes the ledger sums onto the order (`total_paid`, `total_refund`) inside the caller's transaction. A ledger that
 * refunds more than it took is a bug, never a state to store: it throws and the transaction rolls back.
 */
export async function syncOrderTotals(trx: Knex.Transaction, orderId: number): Promise<Ledger> {
  const ledger = await ledgerOf(trx, orderId);
  if (ledger.refunded > ledger.paid) throw new Error(`order ${orderId}: refunds (${ledger.refunded}) exceed payments (${ledger.paid})`);
  await trx('store_orders').where({ id: orderId }).update({ total_paid: ledger.paid, total_refund: ledger.refunded });
  return ledger;
}

/**
 * Cents of a charge already given back or reserved for a refund in flight (`pending` rows count, so two refunds can
 * never both take the same money). Call with the order row locked.
 */
export async function reservedRefundsOf(trx: Knex.Transaction, orderId: number, chargeId: number): Promise<number> {
  const rows = (await trx('store_order_transactions')
    .where({ order_id: orderId, transaction_type: REFUND_TYPE })
    .whereIn('status', [TRANSACTION_STATUS.pending, TRANSACTION_STATUS.refunded])
    .select('total', 'meta')) as Array<{ total: number | string; meta: unknown }>;
  return rows.filter((row) => parseJson<Partial<RefundMeta>>(row.meta, {}).parent_transaction_id === chargeId).reduce((sum, row) => sum + Number(row.total), 0);
}
