import type { Knex } from 'knex';

/**
 * Named counters (`receipt`: the last receipt number given). Taking a number is `UPDATE … SET value = value + 1`,
 * which holds the row's lock until the transaction commits: numbers are strictly increasing and never shared,
 * whatever the concurrency, on both databases.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_counters', (t) => {
    t.string('name', 50).primary();
    t.bigInteger('value').notNullable().defaultTo(0);
  });
  await db('store_counters').insert({ name: 'receipt', value: 0 });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_counters');
}
