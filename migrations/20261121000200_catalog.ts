import type { Knex } from 'knex';

function timestamps(t: Knex.CreateTableBuilder): void {
  t.dateTime('created_at').notNullable();
  t.dateTime('updated_at').notNullable();
}

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_product_categories', (t) => {
    t.increments('id');
    t.string('name', 191).notNullable();
    t.string('slug', 191).notNullable().unique();
    t.integer('parent_id').unsigned().nullable().references('id').inTable('store_product_categories').onDelete('SET NULL');
    timestamps(t);
  });
  await db.schema.createTable('store_products', (t) => {
    t.increments('id');
    t.string('title', 255).notNullable();
    t.string('slug', 191).notNullable().unique();
    t.string('status', 20).notNullable().defaultTo('draft').index();
    t.text('description', 'longtext');
    t.string('fulfillment_type', 20).notNullable().defaultTo('physical');
    timestamps(t);
  });
  await db.schema.createTable('store_product_category_relations', (t) => {
    t.integer('product_id').unsigned().notNullable().references('id').inTable('store_products').onDelete('CASCADE');
    t.integer('category_id').unsigned().notNullable().references('id').inTable('store_product_categories').onDelete('CASCADE');
    t.primary(['product_id', 'category_id']);
    t.index(['category_id']);
  });
  await db.schema.createTable('store_product_variations', (t) => {
    t.increments('id');
    t.integer('product_id').unsigned().notNullable().references('id').inTable('store_products').onDelete('CASCADE');
    t.string('title', 255).notNullable();
    t.string('sku', 100).nullable().unique();
    t.bigInteger('price').notNullable().defaultTo(0);
    t.bigInteger('compare_price').nullable();
    t.bigInteger('cost').nullable();
    t.integer('manage_stock').notNullable().defaultTo(0);
    t.integer('stock_quantity').notNullable().defaultTo(0);
    t.integer('stock_on_hold').notNullable().defaultTo(0);
    t.string('payment_type', 20).notNullable().defaultTo('onetime');
    t.string('billing_interval', 20).nullable();
    t.integer('trial_days').notNullable().defaultTo(0);
    t.integer('bill_times').notNullable().defaultTo(0);
    t.bigInteger('signup_fee').notNullable().defaultTo(0);
    t.string('tax_class', 50).nullable();
    t.string('shipping_class', 50).nullable();
    t.integer('position').notNullable().defaultTo(0);
    t.string('status', 20).notNullable().defaultTo('active');
    timestamps(t);
    t.index(['product_id', 'position']);
  });
  await db.schema.createTable('store_coupons', (t) => {
    t.increments('id');
    t.string('code', 100).notNullable();
    t.string('code_key', 100).notNullable().unique();
    t.string('title', 255).notNullable().defaultTo('');
    t.string('type', 20).notNullable();
    t.bigInteger('amount').notNullable().defaultTo(0);
    t.string('status', 20).notNullable().defaultTo('active');
    t.dateTime('starts_at').nullable();
    t.dateTime('ends_at').nullable();
    t.bigInteger('min_purchase_amount').nullable();
    t.bigInteger('max_discount_amount').nullable();
    t.integer('max_uses').nullable();
    t.integer('max_per_customer').nullable();
    t.text('included_products');
    t.text('excluded_products');
    t.integer('stackable').notNullable().defaultTo(0);
    t.integer('priority').notNullable().defaultTo(10);
    t.integer('use_count').notNullable().defaultTo(0);
    t.string('notes', 100).notNullable().defaultTo('');
    timestamps(t);
  });
  await db.schema.createTable('store_shipping_zones', (t) => {
    t.increments('id');
    t.string('name', 191).notNullable();
    t.text('countries');
    t.text('states');
    t.integer('is_rest_of_world').notNullable().defaultTo(0);
    t.integer('position').notNullable().defaultTo(0);
    timestamps(t);
  });
  await db.schema.createTable('store_shipping_methods', (t) => {
    t.increments('id');
    t.integer('zone_id').unsigned().notNullable().references('id').inTable('store_shipping_zones').onDelete('CASCADE');
    t.string('title', 191).notNullable();
    t.string('charge_type', 20).notNullable();
    t.bigInteger('charge_amount').notNullable().defaultTo(0);
    t.bigInteger('free_above').nullable();
    t.string('status', 20).notNullable().defaultTo('active');
    t.integer('position').notNullable().defaultTo(0);
    timestamps(t);
    t.index(['zone_id', 'position']);
  });
  await db.schema.createTable('store_labels', (t) => {
    t.increments('id');
    t.string('title', 100).notNullable().unique();
    t.string('color', 20).notNullable().defaultTo('');
    timestamps(t);
  });
  await db.schema.createTable('store_label_relations', (t) => {
    t.increments('id');
    t.integer('label_id').unsigned().notNullable().references('id').inTable('store_labels').onDelete('CASCADE');
    t.string('object_type', 30).notNullable();
    t.bigInteger('object_id').unsigned().notNullable();
    t.dateTime('created_at').notNullable();
    t.unique(['label_id', 'object_type', 'object_id']);
    t.index(['object_type', 'object_id']);
  });
  await db.schema.createTable('store_activities', (t) => {
    t.bigIncrements('id');
    t.string('object_type', 30).notNullable();
    t.bigInteger('object_id').unsigned().notNullable();
    t.string('title', 255).notNullable();
    t.text('content');
    t.string('status', 20).notNullable().defaultTo('info');
    t.integer('user_id').unsigned().nullable();
    t.string('created_by', 191).notNullable().defaultTo('');
    t.dateTime('created_at').notNullable();
    t.index(['object_type', 'object_id', 'id']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'store_activities',
    'store_label_relations',
    'store_labels',
    'store_shipping_methods',
    'store_shipping_zones',
    'store_coupons',
    'store_product_variations',
    'store_product_category_relations',
    'store_products',
    'store_product_categories',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
