import type { Knex } from 'knex';

/**
 * Indexes for the subscription list's free-text search (`GET /subscriptions?search=…`, src/modules/subscriptions/list.ts):
 * the start of the item name, payment method, billing interval or a vendor id, and a number as `bill_count`, are index
 * ranges instead of a scan of every subscription (`parent_order_id`, `vendor_subscription_id` and `vendor_customer_id`
 * have theirs from the subscriptions migration).
 *
 * - MySQL/MariaDB: `utf8mb4_unicode_ci` is case-insensitive and the vendor ids are `utf8mb4_bin`, so plain indexes
 *   serve `LIKE 'x%'` the way each column compares; `current_payment_method` leads the vendor unique key.
 * - SQLite: `LIKE` is case-insensitive and uses an index only when it compares the same way (`COLLATE NOCASE`); the
 *   vendor ids are matched with `GLOB 'x*'`, case-sensitive as on MySQL, which the plain (binary) indexes serve.
 */
const SQLITE = [
  ['store_subscriptions_item_name_nocase_index', 'store_subscriptions (item_name collate nocase)'],
  ['store_subscriptions_payment_method_nocase_index', 'store_subscriptions (current_payment_method collate nocase)'],
  ['store_subscriptions_billing_interval_nocase_index', 'store_subscriptions (billing_interval collate nocase)'],
] as const;

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('store_subscriptions', (t) => {
    t.index(['vendor_plan_id'], 'store_subscriptions_vendor_plan_id_index');
    t.index(['bill_count'], 'store_subscriptions_bill_count_index');
  });
  if (db.client.config.client === 'mysql2') {
    await db.schema.alterTable('store_subscriptions', (t) => {
      t.index(['item_name'], 'store_subscriptions_item_name_index');
      t.index(['billing_interval'], 'store_subscriptions_billing_interval_index');
    });
    return;
  }
  for (const [name, target] of SQLITE) await db.raw(`create index ${name} on ${target}`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_subscriptions', (t) => {
    t.dropIndex(['vendor_plan_id'], 'store_subscriptions_vendor_plan_id_index');
    t.dropIndex(['bill_count'], 'store_subscriptions_bill_count_index');
  });
  if (db.client.config.client === 'mysql2') {
    await db.schema.alterTable('store_subscriptions', (t) => {
      t.dropIndex(['item_name'], 'store_subscriptions_item_name_index');
      t.dropIndex(['billing_interval'], 'store_subscriptions_billing_interval_index');
    });
    return;
  }
  for (const [name] of SQLITE) await db.raw(`drop index if exists ${name}`);
}
