import type { Knex } from 'knex';
import { presentOrder, type Order, type OrderRow } from './presenter';

/** Orders of many customers at once (newest first): customer id → orders. */
export async function ordersByCustomer(db: Knex | Knex.Transaction, customerIds: number[]): Promise<Map<number, Order[]>> {
  const out = new Map<number, Order[]>(customerIds.map((id) => [id, []]));
  if (!customerIds.length) return out;
  const rows = (await db('store_orders').whereIn('customer_id', customerIds).orderBy('id', 'desc')) as OrderRow[];
  for (const row of rows) out.get(Number(row.customer_id))?.push(presentOrder(row));
  return out;
}
