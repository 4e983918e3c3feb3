import type { Knex } from 'knex';

/**
 * Reports: the facts (one row per order the reports count, with its lines) and the summary tables the report
 * endpoints read instead of scanning a million orders. Every summary row is keyed by a grain (`m` UTC calendar
 * month, `d` UTC day, `h` UTC hour), the slot number in that grain, the payment mode, the currency and the
 * dimensions its reports filter or group by; it holds sums only, so a range is the sum of the slots inside it.
 * The facts and summaries change in the same transaction as the order (`src/modules/reports/sync`), and
 * `reports rebuild` recomputes them from the orders.
 */
const DIMENSIONS = (t: Knex.CreateTableBuilder) => {
  t.string('grain', 1).notNullable();
  t.integer('slot').notNullable();
  t.string('mode', 10).notNullable();
  t.string('currency', 10).notNullable();
  t.string('status', 20).notNullable();
  t.string('type', 20).notNullable();
  t.string('payment_status', 20).notNullable();
};

const cents = (t: Knex.CreateTableBuilder, ...columns: string[]) => {
  for (const column of columns) t.bigInteger(column).notNullable().defaultTo(0);
};

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_report_orders', (t) => {
    t.integer('order_id').unsigned().primary();
    t.dateTime('created_at').notNullable();
    t.string('mode', 10).notNullable();
    t.string('currency', 10).notNullable();
    t.string('status', 20).notNullable();
    t.string('type', 20).notNullable();
    t.string('payment_status', 20).notNullable();
    t.string('payment_method', 50).notNullable();
    t.string('billing_country', 10).notNullable();
    t.string('shipping_country', 10).notNullable();
    t.integer('customer_id').unsigned().nullable();
    /** 1 when this is the customer's first counted order (by `created_at`, then id); orders without a customer are first. */
    t.tinyint('first_order').notNullable();
    cents(t, 'gross', 'refund', 'tax', 'shipping_tax', 'shipping_total', 'items');
    /** Seconds from creation to completion; null while the order is not completed. */
    t.bigInteger('completion_seconds').nullable();
    t.tinyint('value_band').notNullable();
    t.tinyint('item_band').notNullable();
    t.tinyint('completion_band').notNullable();
    t.index(['mode', 'currency', 'created_at'], 'store_report_orders_range');
    t.index(['customer_id', 'created_at'], 'store_report_orders_customer');
  });
  await db.schema.createTable('store_report_order_lines', (t) => {
    t.integer('order_id').unsigned().notNullable();
    t.integer('product_id').unsigned().notNullable();
    t.integer('variation_id').unsigned().notNullable();
    t.string('title', 255).notNullable();
    cents(t, 'quantity', 'revenue');
    t.primary(['order_id', 'product_id', 'variation_id']);
    t.index(['variation_id', 'order_id'], 'store_report_order_lines_variation');
  });
  await db.schema.createTable('store_report_sales', (t) => {
    DIMENSIONS(t);
    t.tinyint('first_order').notNullable();
    t.integer('orders').notNullable().defaultTo(0);
    t.integer('refunded_orders').notNullable().defaultTo(0);
    cents(t, 'gross', 'refund', 'tax', 'shipping_tax', 'shipping_total', 'items');
    t.primary(['grain', 'mode', 'currency', 'slot', 'status', 'type', 'payment_status', 'first_order']);
  });
  await db.schema.createTable('store_report_groups', (t) => {
    DIMENSIONS(t);
    t.string('payment_method', 50).notNullable();
    t.string('billing_country', 10).notNullable();
    t.string('shipping_country', 10).notNullable();
    t.integer('orders').notNullable().defaultTo(0);
    t.integer('refunded_orders').notNullable().defaultTo(0);
    cents(t, 'gross', 'refund', 'tax', 'shipping_tax', 'shipping_total', 'items');
    t.primary(
      ['grain', 'mode', 'currency', 'slot', 'status', 'type', 'payment_status', 'payment_method', 'billing_country', 'shipping_country'],
      'store_report_groups_pk',
    );
  });
  await db.schema.createTable('store_report_items', (t) => {
    DIMENSIONS(t);
    t.integer('product_id').unsigned().notNullable();
    t.integer('variation_id').unsigned().notNullable();
    t.integer('orders').notNullable().defaultTo(0);
    cents(t, 'quantity', 'revenue');
    t.primary(['grain', 'mode', 'currency', 'slot', 'status', 'type', 'payment_status', 'product_id', 'variation_id'], 'store_report_items_pk');
  });
  await db.schema.createTable('store_report_bands', (t) => {
    DIMENSIONS(t);
    t.tinyint('value_band').notNullable();
    t.tinyint('item_band').notNullable();
    t.tinyint('completion_band').notNullable();
    t.integer('orders').notNullable().defaultTo(0);
    t.integer('completed_orders').notNullable().defaultTo(0);
    cents(t, 'gross', 'items', 'completion_seconds');
    t.primary(['grain', 'mode', 'currency', 'slot', 'status', 'type', 'payment_status', 'value_band', 'item_band', 'completion_band'], 'store_report_bands_pk');
  });
  await db.schema.alterTable('store_customers', (t) => {
    t.index(['purchase_count', 'id'], 'store_customers_purchase_count');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_customers', (t) => {
    t.dropIndex(['purchase_count', 'id'], 'store_customers_purchase_count');
  });
  for (const table of [
    'store_report_bands',
    'store_report_items',
    'store_report_groups',
    'store_report_sales',
    'store_report_order_lines',
    'store_report_orders',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
