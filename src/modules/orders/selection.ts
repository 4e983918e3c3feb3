import type { Knex } from 'knex';
import { lockForUpdate } from '../../core/db';
import type { OrderRow } from '../order-records/presenter';

/** The selected orders of a bulk action, locked in id order (so concurrent bulk actions cannot deadlock), and the ids that do not exist. */
export async function lockOrders(trx: Knex.Transaction, ids: number[]): Promise<{ rows: OrderRow[]; missing: number[] }> {
  const rows = (await lockForUpdate(trx('store_orders').whereIn('id', ids).orderBy('id'), trx)) as OrderRow[];
  const found = new Set(rows.map((row) => Number(row.id)));
  return { rows, missing: ids.filter((id) => !found.has(id)) };
}

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The answer of a bulk action: what was done for all selected orders, or for how many, then why the others were left. */
export function summary(total: number, done: number, all: string, some: string, notes: string[]): string {
  return [done === total ? all : some, ...notes].join(' ');
}

export function notFoundNote(missing: number[]): string[] {
  return missing.length ? [`${plural(missing.length, 'order was', 'orders were')} not found.`] : [];
}
