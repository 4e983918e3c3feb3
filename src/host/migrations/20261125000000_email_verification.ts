import type { Knex } from 'knex';

/** When a user proved they receive mail at their address; existing users start unverified (nothing checked them). */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.dateTime('email_verified_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.dropColumn('email_verified_at');
  });
}
