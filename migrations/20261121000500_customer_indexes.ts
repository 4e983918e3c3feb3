import type { Knex } from 'knex';

/**
 * Indexes for searching customers by the start of an email or name (`GET /customers?search=…` at 100,000 customers,
 * see bench/customers.ts). A `LIKE '%x%'` search reads every row whatever the indexes (SQLite 70 ms, MariaDB 260 ms a
 * request at that size); `email LIKE 'x%' OR first_name LIKE 'x%' OR last_name LIKE 'x%'` is answered from three
 * index ranges (SQLite MULTI-INDEX OR, MySQL index_merge sort_union: 0.1–9 ms).
 *
 * - MySQL/MariaDB: the `utf8mb4_unicode_ci` collation is case-insensitive, so the unique email index and the
 *   (last_name, first_name) index already serve their prefixes; first_name gets its own.
 * - SQLite: `LIKE` is case-insensitive (ASCII), and SQLite uses an index for `LIKE 'x%'` only when the index compares
 *   the same way, i.e. `COLLATE NOCASE`; the unique email index and (last_name, first_name) compare binary.
 *
 * The default sort (id) is the primary key, and the address lookups (customer_id, type) and (customer_id,
 * primary_slot) are covered by the customers migration.
 */
export async function up(db: Knex): Promise<void> {
  if (db.client.config.client === 'mysql2') {
    await db.schema.alterTable('store_customers', (t) => {
      t.index(['first_name'], 'store_customers_first_name_index');
    });
    return;
  }
  await db.raw('create index store_customers_email_nocase_index on store_customers (email collate nocase)');
  await db.raw('create index store_customers_first_name_nocase_index on store_customers (first_name collate nocase)');
  await db.raw('create index store_customers_last_name_nocase_index on store_customers (last_name collate nocase)');
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client === 'mysql2') {
    await db.schema.alterTable('store_customers', (t) => {
      t.dropIndex(['first_name'], 'store_customers_first_name_index');
    });
    return;
  }
  for (const name of ['store_customers_email_nocase_index', 'store_customers_first_name_nocase_index', 'store_customers_last_name_nocase_index']) {
    await db.raw(`drop index if exists ${name}`);
  }
}
