import type { Knex } from 'knex';

/**
 * PayPal billing plans the store created (`getOrCreatePlan`): one per REST app (mode and client id) and set of terms,
 * so every subscription with the same terms reuses its plan. `terms_key` is a hash of the app and the terms (unique:
 * two checkouts creating the same plan at once keep one row); the terms are kept readable beside it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_paypal_plans', (t) => {
    t.increments('id');
    t.string('terms_key', 64).notNullable().unique();
    t.string('mode', 10).notNullable();
    t.string('vendor_plan_id', 45).notNullable().collate('utf8mb4_bin');
    t.string('vendor_product_id', 45).notNullable().collate('utf8mb4_bin');
    t.string('product_name', 127).notNullable().defaultTo('');
    t.string('currency', 10).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('billing_interval', 20).notNullable();
    t.integer('interval_count').notNullable().defaultTo(1);
    t.integer('trial_days').notNullable().defaultTo(0);
    t.integer('bill_times').notNullable().defaultTo(0);
    t.bigInteger('signup_fee').notNullable().defaultTo(0);
    t.dateTime('created_at').notNullable();
    t.index(['vendor_plan_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_paypal_plans');
}
