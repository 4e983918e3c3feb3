import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('users', (t) => {
    t.increments('id');
    t.string('login', 60).notNullable().unique();
    t.string('email', 255).notNullable().unique();
    t.string('password_hash', 255).notNullable().defaultTo('');
    t.string('display_name', 250).notNullable().defaultTo('');
    t.string('nicename', 50).notNullable().defaultTo('');
    t.string('first_name', 255).notNullable().defaultTo('');
    t.string('last_name', 255).notNullable().defaultTo('');
    t.string('url', 255).notNullable().defaultTo('');
    t.dateTime('registered').notNullable();
  });
  await db.schema.createTable('usermeta', (t) => {
    t.increments('id');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('meta_key', 191).notNullable();
    t.text('meta_value', 'longtext');
    t.unique(['user_id', 'meta_key']);
  });
  await db.schema.createTable('app_passwords', (t) => {
    t.increments('id');
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('uuid', 36).notNullable().unique();
    t.string('name', 191).notNullable();
    t.string('password_hash', 255).notNullable();
    t.dateTime('created_at').notNullable();
    t.dateTime('last_used_at').nullable();
    t.string('last_ip', 45).nullable();
  });
  await db.schema.createTable('options', (t) => {
    t.string('name', 191).primary();
    t.text('value', 'longtext');
  });
  await db.schema.createTable('sessions', (t) => {
    t.string('sid_hash', 64).primary();
    t.integer('user_id').unsigned().nullable().index();
    t.text('data', 'longtext').notNullable();
    t.bigInteger('expires_at').notNullable().index();
  });
  await db.schema.createTable('jobs', (t) => {
    t.bigIncrements('id');
    t.string('name', 191).notNullable();
    t.text('payload', 'longtext').notNullable();
    t.string('status', 20).notNullable().defaultTo('pending');
    t.dateTime('run_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(5);
    t.string('unique_key', 191).nullable().unique();
    t.string('locked_by', 64).nullable();
    t.dateTime('locked_at').nullable();
    t.text('last_error').nullable();
    t.dateTime('created_at').notNullable();
    t.dateTime('finished_at').nullable();
    t.index(['status', 'run_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['jobs', 'sessions', 'options', 'app_passwords', 'usermeta', 'users']) await db.schema.dropTableIfExists(table);
}
