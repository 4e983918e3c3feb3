import type { Knex } from 'knex';

/** Customers and their addresses, complete per the spec's Customer and Address resources. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_customers', (t) => {
    t.increments('id');
    t.integer('user_id').unsigned().nullable().unique().references('id').inTable('users').onDelete('SET NULL');
    t.integer('contact_id').unsigned().nullable();
    t.string('email', 255).notNullable().unique();
    t.string('first_name', 255).notNullable().defaultTo('');
    t.string('last_name', 255).notNullable().defaultTo('');
    t.string('status', 20).notNullable().defaultTo('active');
    t.text('purchase_value');
    t.integer('purchase_count').notNullable().defaultTo(0);
    t.bigInteger('ltv').notNullable().defaultTo(0);
    t.dateTime('first_purchase_date').nullable();
    t.dateTime('last_purchase_date').nullable();
    t.bigInteger('aov').notNullable().defaultTo(0);
    t.text('notes');
    t.string('uuid', 36).notNullable().unique();
    t.string('country', 45).notNullable().defaultTo('');
    t.string('city', 255).notNullable().defaultTo('');
    t.string('state', 255).notNullable().defaultTo('');
    t.string('postcode', 45).notNullable().defaultTo('');
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
    t.index(['status', 'id']);
    t.index(['last_name', 'first_name']);
  });
  await db.schema.createTable('store_customer_addresses', (t) => {
    t.increments('id');
    t.integer('customer_id').unsigned().notNullable().references('id').inTable('store_customers').onDelete('CASCADE');
    t.integer('is_primary').notNullable().defaultTo(0);
    // Equals `type` while the address is primary, otherwise NULL: the unique key below then allows one
    // primary address per customer and type on both SQLite and MySQL, whatever the concurrency.
    t.string('primary_slot', 20).nullable();
    t.string('type', 20).notNullable();
    t.string('status', 20).notNullable().defaultTo('active');
    t.string('label', 15).notNullable().defaultTo('');
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
    t.unique(['customer_id', 'primary_slot']);
    t.index(['customer_id', 'type']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_customer_addresses');
  await db.schema.dropTableIfExists('store_customers');
}
