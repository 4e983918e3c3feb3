import type { Knex } from 'knex';
import { insertMany, isUniqueViolation, lockForShare, lockForUpdate } from '../../../core/db';
import type { ReportFact, ReportLine } from '../types';
import { chunks } from './load';

/** The stored facts and lines (`store_report_orders`, `store_report_order_lines`): reading them back and comparing. */

type Db = Knex | Knex.Transaction;
type Row = Record<string, unknown>;

export const FACTS_TABLE = 'store_report_orders';
export const LINES_TABLE = 'store_report_order_lines';
/** Values per insert statement: below SQLite's 32,766 bound values whatever the table's width. */
export const BOUND_VALUES = 30_000;

export const FACT_COLUMNS: Array<keyof ReportFact> = [
  'order_id',
  'created_at',
  'mode',
  'currency',
  'status',
  'type',
  'payment_status',
  'payment_method',
  'billing_country',
  'shipping_country',
  'customer_id',
  'first_order',
  'gross',
  'refund',
  'tax',
  'shipping_tax',
  'shipping_total',
  'items',
  'completion_seconds',
  'value_band',
  'item_band',
  'completion_band',
];
export const LINE_COLUMNS: Array<keyof ReportLine> = ['order_id', 'product_id', 'variation_id', 'title', 'quantity', 'revenue'];

const orNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export function toFact(row: Row): ReportFact {
  return {
    order_id: Number(row.order_id),
    created_at: String(row.created_at),
    mode: String(row.mode),
    currency: String(row.currency),
    status: String(row.status),
    type: String(row.type),
    payment_status: String(row.payment_status),
    payment_method: String(row.payment_method),
    billing_country: String(row.billing_country),
    shipping_country: String(row.shipping_country),
    customer_id: orNull(row.customer_id),
    first_order: Number(row.first_order) === 1 ? 1 : 0,
    gross: Number(row.gross),
    refund: Number(row.refund),
    tax: Number(row.tax),
    shipping_tax: Number(row.shipping_tax),
    shipping_total: Number(row.shipping_total),
    items: Number(row.items),
    completion_seconds: orNull(row.completion_seconds),
    value_band: Number(row.value_band),
    item_band: Number(row.item_band),
    completion_band: Number(row.completion_band),
  };
}

function toLine(row: Row): ReportLine {
  return {
    order_id: Number(row.order_id),
    product_id: Number(row.product_id),
    variation_id: Number(row.variation_id),
    title: String(row.title),
    quantity: Number(row.quantity),
    revenue: Number(row.revenue),
  };
}

/**
 * The stored facts and lines of the orders. With `lock` (a sync on MySQL) the facts that exist are read again with
 * `FOR UPDATE` by primary key: the latest committed rows, locked until commit, and no gap locks (which would make
 * concurrent first payments deadlock on their fact inserts). An order whose fact changed since the transaction's
 * snapshot has its lines read again with `FOR SHARE`, so they are the latest too. `committed`: facts known to exist
 * that the snapshot may not show (`claimNewFacts` found them), read with locks only.
 */
export async function readStoredFacts(db: Db, orderIds: number[], lock = false, committed = false): Promise<{ facts: ReportFact[]; lines: ReportLine[] }> {
  const facts: ReportFact[] = [];
  const lines: ReportLine[] = [];
  const linesOf = (ids: number[]) => db(LINES_TABLE).whereIn('order_id', ids).orderBy(['order_id', 'product_id', 'variation_id']);
  const locked = async (ids: number[]) => ((await lockForUpdate(db(FACTS_TABLE).whereIn('order_id', ids).orderBy('order_id'), db)) as Row[]).map(toFact);
  for (const chunk of chunks(orderIds)) {
    const seen = committed ? [] : ((await db(FACTS_TABLE).whereIn('order_id', chunk).orderBy('order_id')) as Row[]).map(toFact);
    const ids = committed ? chunk : seen.map((fact) => fact.order_id);
    if (!ids.length) continue;
    const latest = lock ? await locked(ids) : seen;
    facts.push(...latest);
    const snapshot = new Map(seen.map((fact) => [fact.order_id, factSignature(fact, [])]));
    const moved = latest.filter((fact) => snapshot.get(fact.order_id) !== factSignature(fact, [])).map((fact) => fact.order_id);
    const kept = latest.map((fact) => fact.order_id).filter((id) => !moved.includes(id));
    if (kept.length) lines.push(...((await linesOf(kept)) as Row[]).map(toLine));
    if (moved.length) lines.push(...((await lockForShare(linesOf(moved), db)) as Row[]).map(toLine));
  }
  return { facts, lines };
}

/**
 * Inserts the facts of orders that had none in the transaction's snapshot, one by one (MySQL): a fact another
 * transaction committed since (its sync held the order's row before this one could) makes the insert a duplicate,
 * and its order id is returned, for the caller to read that fact and take it into account.
 */
export async function claimNewFacts(trx: Knex.Transaction, facts: ReportFact[]): Promise<number[]> {
  const taken: number[] = [];
  for (const fact of facts) {
    try {
      await trx(FACTS_TABLE).insert({ ...fact });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      taken.push(fact.order_id);
    }
  }
  return taken;
}

const show = (value: unknown) => (value === null || value === undefined ? 'null' : String(value));

/** The fact's and lines' values as one comparable string. */
export function factSignature(fact: ReportFact | undefined, lines: ReportLine[]): string {
  if (!fact) return '';
  const sorted = [...lines].sort((a, b) => a.product_id - b.product_id || a.variation_id - b.variation_id);
  return JSON.stringify([FACT_COLUMNS.map((column) => show(fact[column])), sorted.map((line) => LINE_COLUMNS.map((column) => show(line[column])))]);
}

async function insertRows(trx: Knex.Transaction, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (!rows.length) return;
  for (const chunk of chunks(rows, Math.floor(BOUND_VALUES / Object.keys(rows[0]).length))) await insertMany(trx, table, chunk);
}

/** Inserts facts and lines (multi-row statements). */
export async function insertFacts(trx: Knex.Transaction, facts: ReportFact[], lines: ReportLine[]): Promise<void> {
  await insertRows(
    trx,
    FACTS_TABLE,
    facts.map((fact) => ({ ...fact })),
  );
  await insertRows(
    trx,
    LINES_TABLE,
    lines.map((line) => ({ ...line })),
  );
}
