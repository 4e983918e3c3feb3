import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** An order row (and its items) written straight into the tables, for tests of modules that read orders. */
export async function insertOrder(
  db: Knex,
  customerId: number,
  now: string,
  over: Record<string, unknown> = {},
  items: Array<Record<string, unknown>> = [],
): Promise<number> {
  const [id] = await db('store_orders').insert({
    uuid: crypto.randomUUID(),
    customer_id: customerId,
    invoice_no: `INV-${crypto.randomInt(1e9)}`,
    status: 'completed',
    payment_status: 'paid',
    currency: 'USD',
    total_amount: 1000,
    total_paid: 1000,
    created_at: now,
    updated_at: now,
    ...over,
  });
  const orderId = Number(id);
  for (const [i, item] of items.entries()) {
    await db('store_order_items').insert({ order_id: orderId, cart_index: i, title: 'Item', post_title: 'Product', created_at: now, updated_at: now, ...item });
  }
  return orderId;
}
