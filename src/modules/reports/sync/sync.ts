import type { Knex } from 'knex';
import { dialect, lockForUpdate } from '../../../core/db';
import { chunks, loadFacts } from '../facts/load';
import { claimNewFacts, factSignature, FACTS_TABLE, insertFacts, LINES_TABLE, readStoredFacts } from '../facts/stored';
import { linesByOrder, SummaryTotals } from '../facts/totals';
import { REPORT_PAYMENT_STATUSES, type ReportFact, type ReportLine, type SyncOrders } from '../types';
import { applySummaryChanges } from './apply';
import { lockCustomers, settleFirstOrders } from './first-orders';

/**
 * Keeps the facts and the summaries equal to what the rebuild would compute, inside the transaction that changed
 * the orders: the orders' facts are recomputed (their rows read with `FOR UPDATE` on MySQL, the stored facts too)
 * and written, the customers' `first_order` flags settled on the facts (`first-orders.ts`), then the old
 * contributions taken away from the summaries and the new ones added. Facts are written before the summaries and
 * every summary key is applied in sorted order, so concurrent syncs take their locks in the same order.
 */

interface Facts {
  facts: ReportFact[];
  lines: ReportLine[];
}

const COUNTED: readonly string[] = REPORT_PAYMENT_STATUSES;

const unique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/** The orders whose fact or lines differ, before and after. */
function changedOrders(before: Facts, after: Facts): { old: Facts; fresh: Facts } {
  const beforeLines = linesByOrder(before.lines);
  const afterLines = linesByOrder(after.lines);
  const beforeFacts = new Map(before.facts.map((fact) => [fact.order_id, fact]));
  const afterFacts = new Map(after.facts.map((fact) => [fact.order_id, fact]));
  const changed = new Set(
    [...new Set([...beforeFacts.keys(), ...afterFacts.keys()])].filter(
      (id) => factSignature(beforeFacts.get(id), beforeLines.get(id) ?? []) !== factSignature(afterFacts.get(id), afterLines.get(id) ?? []),
    ),
  );
  const pick = ({ facts, lines }: Facts): Facts => ({
    facts: facts.filter((fact) => changed.has(fact.order_id)),
    lines: lines.filter((line) => changed.has(line.order_id)),
  });
  return { old: pick(before), fresh: pick(after) };
}

/**
 * Writes the facts and lines of the orders that changed: a changed fact is updated in place (its keys stay, so no
 * index entry moves), a new one inserted (unless `claimed` already), a gone one deleted; lines are replaced by exact
 * primary key.
 */
async function writeFacts(trx: Knex.Transaction, old: Facts, fresh: Facts, claimed: Set<number>): Promise<void> {
  const kept = new Set(fresh.facts.map((fact) => fact.order_id));
  const existing = new Set([...old.facts.map((fact) => fact.order_id), ...claimed]);
  for (const chunk of chunks(old.facts.filter((fact) => !kept.has(fact.order_id)).map((fact) => fact.order_id)))
    await trx(FACTS_TABLE).whereIn('order_id', chunk).delete();
  for (const chunk of chunks(old.lines, 500)) {
    await trx(LINES_TABLE)
      .where((where) => {
        for (const line of chunk) where.orWhere({ order_id: line.order_id, product_id: line.product_id, variation_id: line.variation_id });
      })
      .delete();
  }
  for (const { order_id, ...columns } of fresh.facts.filter((fact) => existing.has(fact.order_id))) await trx(FACTS_TABLE).where({ order_id }).update(columns);
  await insertFacts(
    trx,
    fresh.facts.filter((fact) => !existing.has(fact.order_id)),
    fresh.lines,
  );
}

/**
 * On MySQL, the facts of orders the snapshot showed none for are inserted first (`claimNewFacts`); one another
 * transaction committed meanwhile is read (locked) and joins the stored facts. Returns the stored facts and the
 * orders whose fact is in place.
 */
async function claim(trx: Knex.Transaction, before: Facts, after: Facts): Promise<{ before: Facts; claimed: Set<number> }> {
  const known = new Set(before.facts.map((fact) => fact.order_id));
  const fresh = after.facts.filter((fact) => !known.has(fact.order_id));
  const taken = await claimNewFacts(trx, fresh);
  if (!taken.length) return { before, claimed: new Set(fresh.map((fact) => fact.order_id)) };
  const late = await readStoredFacts(trx, taken, true, true);
  const claimed = new Set(fresh.map((fact) => fact.order_id).filter((id) => !taken.includes(id)));
  return { before: { facts: [...before.facts, ...late.facts], lines: [...before.lines, ...late.lines] }, claimed };
}

/** The synced orders' customers now and in their stored facts, and whether any of them is counted or has a fact. */
async function involved(trx: Knex.Transaction, ids: number[], lock: boolean): Promise<{ customers: number[]; relevant: boolean }> {
  const customers: number[] = [];
  let relevant = false;
  for (const chunk of chunks(ids)) {
    const query = trx('store_orders').whereIn('id', chunk).orderBy('id').select('customer_id', 'payment_status');
    for (const row of (await (lock ? lockForUpdate(query, trx) : query)) as Array<Record<string, unknown>>) {
      if (!COUNTED.includes(String(row.payment_status))) continue;
      relevant = true;
      if (row.customer_id !== null) customers.push(Number(row.customer_id));
    }
    for (const row of (await trx(FACTS_TABLE).whereIn('order_id', chunk).select('customer_id')) as Array<Record<string, unknown>>) {
      relevant = true;
      if (row.customer_id !== null) customers.push(Number(row.customer_id));
    }
  }
  return { customers: unique(customers), relevant };
}

export const syncOrders: SyncOrders = async (_ctx, trx, orderIds) => {
  const ids = unique(orderIds.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0));
  if (!ids.length) return;
  const lock = dialect(trx) === 'mysql';
  // Locks in one order: the orders' rows, their customers' rows, their facts, the customers' other facts, summaries.
  const { customers, relevant } = await involved(trx, ids, lock);
  if (!relevant) return;
  await lockCustomers(trx, customers);
  const snapshot = await readStoredFacts(trx, ids, lock);
  const after = await loadFacts(trx, ids, { lock, firstOrders: new Map() });
  const { before, claimed } = lock ? await claim(trx, snapshot, after) : { before: snapshot, claimed: new Set<number>() };
  const everyone = unique([...before.facts, ...after.facts].flatMap((fact) => (fact.customer_id === null ? [] : [fact.customer_id])));
  // A customer the snapshot did not show (the facts moved meanwhile) is locked now.
  await lockCustomers(
    trx,
    everyone.filter((id) => !customers.includes(id)),
  );
  // Until the customers' facts are read, an order keeps its stored flag (a new one starts at 0, one without a customer is 1).
  const stored = new Map(before.facts.map((fact) => [fact.order_id, fact.first_order]));
  for (const fact of after.facts) if (fact.customer_id !== null) fact.first_order = stored.get(fact.order_id) ?? 0;
  const { old, fresh } = changedOrders(before, after);
  await writeFacts(trx, old, fresh, claimed);
  const flags = await settleFirstOrders(trx, everyone);
  if (!old.facts.length && !fresh.facts.length && !flags.length) return;

  const totals = new SummaryTotals();
  totals.addAll(old.facts, old.lines, -1);
  totals.addAll(fresh.facts, fresh.lines, 1);
  // A flag changes the order's sales rows only (no other family keys on it): its lines are left out on both sides.
  for (const flag of flags) {
    totals.add(flag.before, [], -1);
    totals.add(flag.after, [], 1);
  }
  await applySummaryChanges(trx, totals);
};
