import type { Knex } from 'knex';

/** The lease that jobs running when this migration ran get: the 15 minutes after which they used to be reclaimed. */
const UPGRADE_LEASE_MS = 15 * 60 * 1000;

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('jobs', (t) => {
    t.dateTime('locked_until').nullable();
  });
  const until = new Date(Date.now() + UPGRADE_LEASE_MS).toISOString().slice(0, 19).replace('T', ' ');
  await db('jobs').where({ status: 'running' }).update({ locked_until: until });
  await db.schema.createTable('job_schedules', (t) => {
    t.string('name', 191).primary();
    t.dateTime('next_run_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('job_schedules');
  await db.schema.alterTable('jobs', (t) => {
    t.dropColumn('locked_until');
  });
}
