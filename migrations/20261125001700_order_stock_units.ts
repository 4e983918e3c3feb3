import type { Knex } from 'knex';

/**
 * What an order's stock state stands for, line by line, and whether its coupon uses were given back. `stock_units`
 * is how many units of the line the order holds or has taken (see `store_orders.stock_state`): 0 when its variation
 * did not manage stock at the time, so releasing gives back exactly what was held or taken even if the variation's
 * `manage_stock` changed since. `coupon_uses_released` makes giving back the uses (cancel, expiry, delete) happen once.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('store_order_items', (t) => {
    t.integer('stock_units').notNullable().defaultTo(0);
  });
  await db.schema.alterTable('store_orders', (t) => {
    t.boolean('coupon_uses_released').notNullable().defaultTo(false);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_orders', (t) => t.dropColumn('coupon_uses_released'));
  await db.schema.alterTable('store_order_items', (t) => t.dropColumn('stock_units'));
}
