import type { Knex } from 'knex';

function timestamps(t: Knex.CreateTableBuilder): void {
  t.dateTime('created_at').notNullable();
  t.dateTime('updated_at').notNullable();
}

/**
 * Tax: classes (the Standard class always exists), country rates, meta rows (product-category overrides), the
 * order tax records the filing endpoints list, and the tax breakdown an order was priced with (`tax_data`), from
 * which paying the order writes its records.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_tax_classes', (t) => {
    t.increments('id');
    t.string('title', 100).notNullable();
    t.string('slug', 100).notNullable().unique();
    t.text('meta');
    timestamps(t);
  });
  const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
  await db('store_tax_classes').insert({ title: 'Standard', slug: 'standard', meta: '[]', created_at: now, updated_at: now });

  await db.schema.createTable('store_tax_rates', (t) => {
    t.increments('id');
    // 0 = no class; not a foreign key for that reason (a class delete moves its rates to Standard itself).
    t.integer('class_id').unsigned().notNullable().defaultTo(0);
    t.string('country', 45).notNullable().defaultTo('');
    t.string('state', 45).notNullable().defaultTo('');
    t.string('postcode', 45).notNullable().defaultTo('');
    t.string('city', 45).notNullable().defaultTo('');
    t.string('rate', 45).notNullable().defaultTo('0');
    t.string('name', 45).notNullable().defaultTo('');
    t.string('group', 45).notNullable().defaultTo('');
    t.integer('priority').unsigned().notNullable().defaultTo(1);
    t.integer('is_compound').notNullable().defaultTo(0);
    t.decimal('for_shipping', 12, 4).nullable();
    t.integer('for_order').notNullable().defaultTo(0);
    timestamps(t);
    t.index(['country', 'priority', 'id']);
    t.index(['class_id']);
  });

  await db.schema.createTable('store_meta', (t) => {
    t.increments('id');
    t.string('object_type', 50).notNullable();
    t.integer('object_id').unsigned().notNullable().defaultTo(0);
    t.string('meta_key', 100).notNullable();
    t.text('meta_value');
    timestamps(t);
    t.index(['object_type', 'meta_key', 'object_id']);
  });

  await db.schema.createTable('store_order_tax_rates', (t) => {
    t.increments('id');
    t.integer('order_id').unsigned().notNullable().references('id').inTable('store_orders').onDelete('CASCADE');
    t.integer('tax_rate_id').unsigned().nullable();
    t.bigInteger('shipping_tax').notNullable().defaultTo(0);
    t.bigInteger('order_tax').notNullable().defaultTo(0);
    t.bigInteger('total_tax').notNullable().defaultTo(0);
    t.text('meta');
    t.dateTime('filed_at').nullable();
    timestamps(t);
    t.index(['order_id']);
    t.index(['tax_rate_id']);
    t.index(['filed_at', 'id']);
  });

  await db.schema.alterTable('store_orders', (t) => {
    t.text('tax_data');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('store_orders', (t) => {
    t.dropColumn('tax_data');
  });
  for (const table of ['store_order_tax_rates', 'store_meta', 'store_tax_rates', 'store_tax_classes']) await db.schema.dropTableIfExists(table);
}
