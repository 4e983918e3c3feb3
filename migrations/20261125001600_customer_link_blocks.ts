import type { Knex } from 'knex';

/**
 * An administrator detached this user from this customer: the user's email no longer links them to it on its own
 * (login, email verification, portal lookup). Only an administrator's attach removes the row.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_customer_link_blocks', (t) => {
    t.increments('id');
    t.integer('customer_id').unsigned().notNullable().references('id').inTable('store_customers').onDelete('CASCADE');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.dateTime('created_at').notNullable();
    t.unique(['customer_id', 'user_id']);
    t.index(['user_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_customer_link_blocks');
}
