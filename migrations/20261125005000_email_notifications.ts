import type { Knex } from 'knex';

/**
 * Email notifications: the sent-mail log (one row per notification, event and recipient: a job that runs again
 * finds its mail already sent) and the reminder markers of the scheduled sweeps (one row per object and reminder
 * occasion: a sweep that runs twice, or catches up a missed run, reminds once).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('store_email_log', (t) => {
    t.increments('id');
    t.string('notification', 100).notNullable();
    t.string('object_type', 50).notNullable();
    t.integer('object_id').unsigned().notNullable();
    /** What happened to the object, made unique per occurrence (e.g. `paid`, `refunded:<transaction id>`). */
    t.string('event_key', 150).notNullable();
    t.string('recipient', 255).notNullable();
    t.string('message_id', 255).notNullable().defaultTo('');
    t.dateTime('sent_at').notNullable();
    t.unique(['notification', 'object_type', 'object_id', 'event_key', 'recipient'], { indexName: 'store_email_log_once' });
    t.index(['object_type', 'object_id']);
  });
  await db.schema.createTable('store_reminder_marks', (t) => {
    t.increments('id');
    /** The reminder kind: `invoice_overdue`, `renewal`, `trial_end`. */
    t.string('kind', 50).notNullable();
    t.string('object_type', 50).notNullable();
    t.integer('object_id').unsigned().notNullable();
    /** The occasion: a billing or trial end date, or `overdue:<days>`. */
    t.string('occasion', 100).notNullable();
    t.dateTime('created_at').notNullable();
    t.unique(['kind', 'object_type', 'object_id', 'occasion'], { indexName: 'store_reminder_marks_once' });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('store_reminder_marks');
  await db.schema.dropTableIfExists('store_email_log');
}
