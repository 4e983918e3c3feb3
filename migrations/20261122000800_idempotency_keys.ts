import type { Knex } from 'knex';

/**
 * `Idempotency-Key` records of the mutating store routes (see `src/core/idempotency.ts`): one row per user and key,
 * claimed by the unique key before the request runs, so two requests with one key can never both run. Keys compare
 * case-sensitively on both databases (binary collation on MySQL; SQLite compares bytes).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_idempotency_keys', (t) => {
    t.increments('id');
    t.integer('user_id').unsigned().notNullable();
    t.string('idempotency_key', 255).notNullable().collate('utf8mb4_bin');
    t.string('request_hash', 64).notNullable();
    t.string('status', 20).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body', 'longtext').nullable();
    t.text('response_headers').nullable();
    t.dateTime('created_at').notNullable();
    t.dateTime('completed_at').nullable();
    t.unique(['user_id', 'idempotency_key']);
    t.index(['created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_idempotency_keys');
}
