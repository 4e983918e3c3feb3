import type { Knex } from 'knex';
import { dialect } from '../src/core/db';

/**
 * Checkout: carts, the gateways' webhook deliveries (one row per gateway event, so a delivery is applied once),
 * the stock state of an order, and one charge per gateway id.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_carts', (t) => {
    t.increments('id');
    t.string('cart_hash', 64).notNullable().unique();
    t.integer('user_id').unsigned().nullable();
    t.integer('customer_id').unsigned().nullable().references('id').inTable('store_customers').onDelete('SET NULL');
    t.integer('order_id').unsigned().nullable().references('id').inTable('store_orders').onDelete('SET NULL');
    t.string('stage', 20).notNullable().defaultTo('draft');
    t.text('cart_data');
    t.text('checkout_data');
    t.dateTime('expires_at').notNullable();
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['user_id', 'stage']);
    t.index(['order_id']);
    t.index(['expires_at']);
  });
  await db.schema.createTable('store_webhook_events', (t) => {
    t.increments('id');
    t.string('gateway', 50).notNullable();
    t.string('event_id', 191).notNullable().collate('utf8mb4_bin');
    t.string('event_type', 100).notNullable().defaultTo('');
    t.string('outcome', 255).notNullable().defaultTo('');
    t.dateTime('created_at').notNullable();
    t.unique(['gateway', 'event_id']);
    t.index(['created_at']);
  });
  await db.schema.alterTable('store_orders', (t) => {
    // '' = the order never touched stock; held = reserved at checkout; taken = sold; released = given back.
    t.string('stock_state', 20).notNullable().defaultTo('');
  });
  // One charge per gateway id; rows without one ('' → NULL in the generated key) do not collide.
  const generated = dialect(db) === 'mysql' ? 'STORED' : 'VIRTUAL';
  await db.raw(
    `ALTER TABLE store_order_transactions ADD COLUMN vendor_charge_key VARCHAR(191) GENERATED ALWAYS AS (NULLIF(vendor_charge_id, '')) ${generated}`,
  );
  await db.schema.alterTable('store_order_transactions', (t) => {
    t.unique(['payment_method', 'vendor_charge_key'], { indexName: 'store_order_transactions_vendor_charge_unique' });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_order_transactions', (t) => {
    t.dropUnique(['payment_method', 'vendor_charge_key'], 'store_order_transactions_vendor_charge_unique');
  });
  await db.schema.alterTable('store_order_transactions', (t) => t.dropColumn('vendor_charge_key'));
  await db.schema.alterTable('store_orders', (t) => t.dropColumn('stock_state'));
  await db.schema.dropTableIfExists('store_webhook_events');
  await db.schema.dropTableIfExists('store_carts');
}
