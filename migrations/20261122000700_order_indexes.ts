import type { Knex } from 'knex';

/**
 * Indexes for the order list's free-text search (`GET /orders?search=…`, see src/modules/orders/list.ts): the start
 * of an invoice number, of an item's title or of its product title is an index range instead of a scan of every
 * order or item (1M orders, 2M items). And `shipping_statuses[]` reads `(shipping_status, id)` like the status and
 * payment-status filters read theirs.
 *
 * - MySQL/MariaDB: the `utf8mb4_unicode_ci` collation is case-insensitive, so plain indexes serve `LIKE 'x%'`
 *   (invoice_no already has one).
 * - SQLite: `LIKE` is case-insensitive (ASCII) and uses an index for `LIKE 'x%'` only when the index compares the
 *   same way, i.e. `COLLATE NOCASE`.
 */
const SQLITE = [
  ['store_orders_invoice_no_nocase_index', 'store_orders (invoice_no collate nocase)'],
  ['store_order_items_title_nocase_index', 'store_order_items (title collate nocase)'],
  ['store_order_items_post_title_nocase_index', 'store_order_items (post_title collate nocase)'],
] as const;

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('store_orders', (t) => {
    t.index(['shipping_status', 'id'], 'store_orders_shipping_status_id_index');
  });
  if (db.client.config.client === 'mysql2') {
    await db.schema.alterTable('store_order_items', (t) => {
      t.index(['title'], 'store_order_items_title_index');
      t.index(['post_title'], 'store_order_items_post_title_index');
    });
    return;
  }
  for (const [name, target] of SQLITE) await db.raw(`create index ${name} on ${target}`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_orders', (t) => {
    t.dropIndex(['shipping_status', 'id'], 'store_orders_shipping_status_id_index');
  });
  if (db.client.config.client === 'mysql2') {
    await db.schema.alterTable('store_order_items', (t) => {
      t.dropIndex(['title'], 'store_order_items_title_index');
      t.dropIndex(['post_title'], 'store_order_items_post_title_index');
    });
    return;
  }
  for (const [name] of SQLITE) await db.raw(`drop index if exists ${name}`);
}
