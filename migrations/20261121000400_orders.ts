import type { Knex } from 'knex';

/**
 * The order data model (spec: Order, Order item, transaction, applied coupon; reference §2): created with the
 * customers issue so the customer routes can read orders; the orders issue builds its API on these tables.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_orders', (t) => {
    t.increments('id');
    t.string('uuid', 100).notNullable().unique();
    t.integer('parent_id').unsigned().nullable().references('id').inTable('store_orders').onDelete('SET NULL');
    t.integer('customer_id').unsigned().nullable().references('id').inTable('store_customers').onDelete('RESTRICT');
    t.integer('receipt_number').unsigned().nullable().unique();
    t.string('invoice_no', 100).notNullable().defaultTo('');
    t.string('status', 50).notNullable().defaultTo('on-hold');
    t.string('payment_status', 50).notNullable().defaultTo('pending');
    t.string('shipping_status', 50).notNullable().defaultTo('');
    t.string('payment_method', 50).notNullable().defaultTo('');
    t.string('payment_method_title', 100).notNullable().defaultTo('');
    t.string('type', 50).notNullable().defaultTo('payment');
    t.string('fulfillment_type', 50).notNullable().defaultTo('physical');
    t.string('mode', 10).notNullable().defaultTo('live');
    t.string('currency', 10).notNullable().defaultTo('USD');
    for (const cents of [
      'subtotal',
      'discount_tax',
      'manual_discount_total',
      'coupon_discount_total',
      'shipping_tax',
      'shipping_total',
      'fee_total',
      'tax_total',
      'total_amount',
      'total_paid',
      'total_refund',
    ]) {
      t.bigInteger(cents).notNullable().defaultTo(0);
    }
    t.decimal('rate', 18, 6).notNullable().defaultTo(1);
    t.integer('tax_behavior').notNullable().defaultTo(0);
    t.text('note');
    t.string('ip_address', 100).notNullable().defaultTo('');
    t.dateTime('completed_at').nullable();
    t.dateTime('refunded_at').nullable();
    t.text('config');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['customer_id', 'id']);
    t.index(['parent_id']);
    t.index(['status', 'id']);
    t.index(['payment_status', 'id']);
    t.index(['type', 'id']);
    t.index(['invoice_no']);
    t.index(['created_at']);
  });
  await db.schema.createTable('store_order_items', (t) => {
    t.increments('id');
    t.integer('order_id').unsigned().notNullable().references('id').inTable('store_orders').onDelete('CASCADE');
    t.integer('post_id').unsigned().nullable();
    t.integer('variation_id').unsigned().nullable();
    t.string('fulfillment_type', 20).notNullable().defaultTo('physical');
    t.string('payment_type', 100).notNullable().defaultTo('onetime');
    t.string('post_title', 255).notNullable().defaultTo('');
    t.string('title', 255).notNullable().defaultTo('');
    t.integer('cart_index').notNullable().defaultTo(0);
    t.integer('quantity').notNullable().defaultTo(1);
    for (const cents of ['unit_price', 'item_cost', 'subtotal', 'tax_amount', 'shipping_charge', 'discount_total', 'line_total', 'refund_total']) {
      t.bigInteger(cents).notNullable().defaultTo(0);
    }
    t.decimal('rate', 18, 6).notNullable().defaultTo(1);
    t.text('other_info');
    t.text('line_meta');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['order_id', 'cart_index']);
    t.index(['variation_id']);
    t.index(['post_id']);
  });
  await db.schema.createTable('store_order_transactions', (t) => {
    t.increments('id');
    t.string('uuid', 100).notNullable().unique();
    t.integer('order_id').unsigned().notNullable().references('id').inTable('store_orders').onDelete('CASCADE');
    t.string('order_type', 50).notNullable().defaultTo('payment');
    t.string('transaction_type', 50).notNullable().defaultTo('charge');
    t.integer('subscription_id').unsigned().nullable();
    t.string('vendor_charge_id', 191).notNullable().defaultTo('');
    t.string('payment_method', 50).notNullable().defaultTo('');
    t.string('payment_mode', 10).notNullable().defaultTo('live');
    t.string('payment_method_type', 50).notNullable().defaultTo('');
    t.string('card_last_4', 4).notNullable().defaultTo('');
    t.string('card_brand', 50).notNullable().defaultTo('');
    t.string('status', 50).notNullable().defaultTo('pending');
    t.string('currency', 10).notNullable().defaultTo('USD');
    t.bigInteger('total').notNullable().defaultTo(0);
    t.decimal('rate', 18, 6).notNullable().defaultTo(1);
    t.text('meta');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['order_id', 'transaction_type']);
    t.index(['vendor_charge_id']);
    t.index(['subscription_id']);
  });
  await db.schema.createTable('store_order_addresses', (t) => {
    t.increments('id');
    t.integer('order_id').unsigned().notNullable().references('id').inTable('store_orders').onDelete('CASCADE');
    t.string('type', 20).notNullable();
    t.string('name', 255).notNullable().defaultTo('');
    t.string('company_name', 255).notNullable().defaultTo('');
    t.string('address_1', 255).notNullable().defaultTo('');
    t.string('address_2', 255).notNullable().defaultTo('');
    t.string('city', 255).notNullable().defaultTo('');
    t.string('state', 255).notNullable().defaultTo('');
    t.string('postcode', 45).notNullable().defaultTo('');
    t.string('country', 45).notNullable().defaultTo('');
    t.string('phone', 45).notNullable().defaultTo('');
    t.string('email', 255).notNullable().defaultTo('');
    t.text('meta');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.unique(['order_id', 'type']);
  });
  await db.schema.createTable('store_applied_coupons', (t) => {
    t.increments('id');
    t.integer('order_id').unsigned().notNullable().references('id').inTable('store_orders').onDelete('CASCADE');
    t.integer('coupon_id').unsigned().nullable();
    t.integer('customer_id').unsigned().nullable();
    t.string('code', 100).notNullable();
    t.string('type', 20).notNullable().defaultTo('fixed');
    t.bigInteger('amount').notNullable().defaultTo(0);
    t.bigInteger('discounted_amount').notNullable().defaultTo(0);
    t.integer('stackable').notNullable().defaultTo(0);
    t.integer('priority').notNullable().defaultTo(10);
    t.integer('max_uses').nullable();
    t.integer('use_count').notNullable().defaultTo(0);
    t.integer('max_per_customer').nullable();
    t.bigInteger('min_purchase_amount').nullable();
    t.bigInteger('max_discount_amount').nullable();
    t.string('notes', 100).notNullable().defaultTo('');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['order_id']);
    t.index(['coupon_id', 'customer_id']);
  });
  await db.schema.createTable('store_order_operations', (t) => {
    t.increments('id');
    t.integer('order_id').unsigned().notNullable().unique().references('id').inTable('store_orders').onDelete('CASCADE');
    t.string('created_via', 50).notNullable().defaultTo('');
    t.string('cart_hash', 100).notNullable().defaultTo('');
    for (const utm of ['utm_campaign', 'utm_term', 'utm_source', 'utm_medium', 'utm_content', 'utm_id']) t.string(utm, 191).notNullable().defaultTo('');
    t.string('refer_url', 2048).notNullable().defaultTo('');
    t.text('meta');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'store_order_operations',
    'store_applied_coupons',
    'store_order_addresses',
    'store_order_transactions',
    'store_order_items',
    'store_orders',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
