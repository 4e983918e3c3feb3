import type { Knex } from 'knex';
import { dialect, lockForUpdate } from '../../../core/db';
import { chunks } from '../facts/load';
import { FACTS_TABLE, toFact } from '../facts/stored';
import type { ReportFact } from '../types';

/**
 * `first_order` in the sync: a customer's first counted order is the earliest of their facts (by `created_at`, then
 * id). Only facts are read, never another order's row (a writer of that order may hold it): the sync has locked the
 * customers' rows first (`lockCustomers`), which queues every sync of a customer's facts, and written the synced
 * orders' facts already, so one locking read of the customers' facts sees them all as they are now. Facts go in
 * before this read takes its gap locks, so two customers' syncs never wait on each other's inserts.
 */

export interface FlagChange {
  before: ReportFact;
  after: ReportFact;
}

/** Locks the customers' rows (MySQL), before any fact is read: every sync touching a customer's facts queues here. */
export async function lockCustomers(trx: Knex.Transaction, customers: number[]): Promise<void> {
  if (dialect(trx) !== 'mysql') return;
  for (const chunk of chunks(customers)) await lockForUpdate(trx('store_customers').whereIn('id', chunk).orderBy('id').select('id'), trx);
}

/** `store_report_orders (customer_id, created_at)`. */
const CUSTOMER_INDEX = 'store_report_orders_customer';

const earlier = (a: ReportFact, b: ReportFact) => a.created_at < b.created_at || (a.created_at === b.created_at && a.order_id < b.order_id);

/** The customers' facts whose stored `first_order` is wrong, with the flag they must have; the rows are updated. */
export async function settleFirstOrders(trx: Knex.Transaction, customers: number[]): Promise<FlagChange[]> {
  const mysql = dialect(trx) === 'mysql';
  const facts: ReportFact[] = [];
  for (const chunk of chunks(customers)) {
    // Through the customer index even when the table is small: a scan of the whole table would lock every fact.
    const table = mysql ? trx.raw('?? force index (??)', [FACTS_TABLE, CUSTOMER_INDEX]) : FACTS_TABLE;
    const query = trx.from(table).whereIn('customer_id', chunk).orderBy('order_id');
    facts.push(...((await (mysql ? lockForUpdate(query, trx) : query)) as Array<Record<string, unknown>>).map(toFact));
  }
  const first = new Map<number, ReportFact>();
  for (const fact of facts) {
    const known = first.get(fact.customer_id as number);
    if (!known || earlier(fact, known)) first.set(fact.customer_id as number, fact);
  }
  const changes = facts
    .filter((fact) => fact.first_order !== (first.get(fact.customer_id as number) === fact ? 1 : 0))
    .map((fact) => ({ before: fact, after: { ...fact, first_order: fact.first_order === 1 ? (0 as const) : (1 as const) } }));
  for (const { after } of changes) await trx(FACTS_TABLE).where({ order_id: after.order_id }).update({ first_order: after.first_order });
  return changes;
}
