import type { Knex } from 'knex';
import { dialect } from '../src/core/db';

/**
 * Subscriptions (spec: Subscription resource; reference §2 `fct_subscriptions`): one row per subscription item bought,
 * its terms copied from the variation at checkout, its gateway ids, and its billing state. `config` holds what has
 * no column (early-payment history, the cancel reason, gateway extras) as JSON.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_subscriptions', (t) => {
    t.increments('id');
    t.string('uuid', 100).notNullable().unique();
    t.integer('customer_id').unsigned().nullable().references('id').inTable('store_customers').onDelete('RESTRICT');
    t.integer('parent_order_id').unsigned().nullable().references('id').inTable('store_orders').onDelete('RESTRICT');
    t.integer('product_id').unsigned().nullable();
    t.integer('variation_id').unsigned().nullable();
    t.string('item_name', 255).notNullable().defaultTo('');
    t.integer('quantity').notNullable().defaultTo(1);
    t.string('status', 20).notNullable().defaultTo('pending');
    t.string('collection_method', 20).notNullable().defaultTo('automatic');
    t.string('current_payment_method', 50).notNullable().defaultTo('');
    t.string('vendor_subscription_id', 45).notNullable().defaultTo('').collate('utf8mb4_bin');
    t.string('vendor_customer_id', 45).notNullable().defaultTo('').collate('utf8mb4_bin');
    t.string('vendor_plan_id', 45).notNullable().defaultTo('').collate('utf8mb4_bin');
    t.string('billing_interval', 20).notNullable().defaultTo('monthly');
    t.string('currency', 10).notNullable().defaultTo('USD');
    t.bigInteger('recurring_amount').notNullable().defaultTo(0);
    t.bigInteger('recurring_tax_total').notNullable().defaultTo(0);
    t.bigInteger('signup_fee').notNullable().defaultTo(0);
    t.integer('trial_days').notNullable().defaultTo(0);
    t.integer('bill_times').notNullable().defaultTo(0);
    t.integer('bill_count').notNullable().defaultTo(0);
    t.dateTime('next_billing_date').nullable();
    t.dateTime('trial_ends_at').nullable();
    t.dateTime('canceled_at').nullable();
    t.dateTime('expire_at').nullable();
    t.text('config');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['customer_id', 'id']);
    t.index(['parent_order_id']);
    t.index(['status', 'id']);
    t.index(['variation_id']);
    t.index(['vendor_subscription_id']);
    t.index(['vendor_customer_id']);
    t.index(['next_billing_date']);
    t.index(['created_at']);
  });
  // One subscription per gateway id and payment method (the vendor-ids rule, and what renewals are matched by); rows
  // without one ('' → NULL in the generated key) do not collide.
  const generated = dialect(db) === 'mysql' ? 'STORED' : 'VIRTUAL';
  await db.raw(
    `ALTER TABLE store_subscriptions ADD COLUMN vendor_subscription_key VARCHAR(45) GENERATED ALWAYS AS (NULLIF(vendor_subscription_id, '')) ${generated}`,
  );
  await db.schema.alterTable('store_subscriptions', (t) => {
    t.unique(['current_payment_method', 'vendor_subscription_key'], { indexName: 'store_subscriptions_vendor_unique' });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_subscriptions');
}
