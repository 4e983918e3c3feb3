import type { Knex } from 'knex';

/**
 * Roles defined through the API: custom roles, and the edits of built-in roles (a row under a built-in key replaces
 * its title, description and capabilities). `capabilities` is a JSON array of capability ids. Every change to this
 * table also bumps the `roles` counter in the same transaction: each process compares it with the version it loaded
 * (at most once a second) and reloads the roles when it moved.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_roles', (t) => {
    t.increments('id');
    t.string('key', 100).notNullable().unique();
    t.string('title', 100).notNullable();
    t.text('description').notNullable();
    t.text('capabilities').notNullable();
    t.dateTime('created_at').notNullable();
    t.dateTime('updated_at').notNullable();
  });
  await db('store_counters').insert({ name: 'roles', value: 0 });
}

export async function down(db: Knex): Promise<void> {
  await db('store_counters').where({ name: 'roles' }).delete();
  await db.schema.dropTableIfExists('store_roles');
}
