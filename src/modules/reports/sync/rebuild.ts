import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { firstOrderIds, loadFacts } from '../facts/load';
import { FACTS_TABLE, insertFacts, LINES_TABLE } from '../facts/stored';
import { SummaryTotals } from '../facts/totals';
import { FAMILIES, type FamilyName, type ReportFact, type ReportLine } from '../types';
import { writeSummaries } from './apply';

/**
 * `reports rebuild`: the facts and the four summary families recomputed from the orders, in one transaction (readers
 * keep the old figures until it commits; on MariaDB an order change made meanwhile waits for the rebuild's row locks
 * and then applies its change on top of the rebuilt rows). Orders are read 5,000 ids at a time; the summaries are
 * summed in memory and written at the end.
 */

type Db = Knex | Knex.Transaction;
type Progress = (done: number, total: number) => void;

export const REBUILD_BATCH = 5_000;

export interface FactBatch {
  /** The batch covers the orders with ids in `(after, upTo]`; `upTo` null for the last batch (no upper bound). */
  after: number;
  upTo: number | null;
  /** Orders read in the batch (counted or not). */
  orders: number;
  facts: ReportFact[];
  lines: ReportLine[];
}

/** Every order's facts, batch by batch in id order, with progress over the number of orders. */
export async function* factBatches(db: Db, progress?: Progress): AsyncGenerator<FactBatch> {
  const all = (await db('store_orders').count({ n: '*' }).first()) as { n: number | string };
  const total = Number(all.n);
  const firstOrders = await firstOrderIds(db, null);
  let after = 0;
  let done = 0;
  progress?.(0, total);
  for (;;) {
    const ids = ((await db('store_orders').where('id', '>', after).orderBy('id').limit(REBUILD_BATCH).pluck('id')) as Array<number | string>).map(Number);
    const last = ids.length < REBUILD_BATCH;
    const { facts, lines } = await loadFacts(db, ids, { firstOrders });
    yield { after, upTo: last ? null : ids[ids.length - 1], orders: ids.length, facts, lines };
    done += ids.length;
    progress?.(done, total);
    if (last) return;
    after = ids[ids.length - 1];
  }
}

export async function rebuildReports(ctx: Ctx, options: { progress?: Progress } = {}): Promise<{ orders: number; facts: number }> {
  return ctx.db.transaction(async (trx) => {
    for (const table of [FACTS_TABLE, LINES_TABLE, ...Object.values(FAMILIES).map((family) => family.table)]) await trx(table).delete();
    const totals = new SummaryTotals();
    let orders = 0;
    let facts = 0;
    for await (const batch of factBatches(trx, options.progress)) {
      totals.addAll(batch.facts, batch.lines);
      await insertFacts(trx, batch.facts, batch.lines);
      orders += batch.orders;
      facts += batch.facts.length;
    }
    for (const family of Object.keys(FAMILIES) as FamilyName[]) await writeSummaries(trx, family, totals.entries(family, false), false);
    return { orders, facts };
  });
}
