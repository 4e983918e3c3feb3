import type { Knex } from 'knex';

/** Counters of rate-limiter-flexible (its column names), shared by every process. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').unsigned().nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_rate_limits');
}
