import type { Knex } from 'knex';
import { dialect } from '../../../core/db';
import { toTimestamp } from '../../../core/time';
import type { NotificationKey, ReminderSettings, SendEmailJob } from '../types';

/** One object due for a reminder, and the occasion it is due for (what its marker and its emails are keyed by). */
export interface DueReminder {
  object_id: number;
  occasion: string;
}

/** The objects due and not yet reminded with an id above `after`, in id order, at most `limit`; read through `trx`. */
export type FindDue = (trx: Knex.Transaction, after: number, limit: number) => Promise<DueReminder[]>;

/** A kind of reminder: what it is about, which notifications it sends, and how to find what is due. */
export interface ReminderKind {
  /** `store_reminder_marks.kind`. */
  kind: 'renewal' | 'trial_end' | 'invoice_overdue';
  object_type: SendEmailJob['object_type'];
  /** Sent for every due object (each one skipped while inactive). */
  notifications: readonly NotificationKey[];
  /** How to find what is due at `now` under `settings`; null while this kind is switched off. */
  finder(settings: ReminderSettings, now: Date): FindDue | null;
}

const DAY_MS = 86_400_000;

/** The timestamp `days` (of 24 hours) after `now`; before it when negative. */
export function daysAfter(now: Date, days: number): string {
  return toTimestamp(new Date(now.getTime() + days * DAY_MS));
}

/** A whole number of days from a setting, or null when it is none. */
export function dayCount(value: unknown): number | null {
  const days = Number(value);
  return Number.isSafeInteger(days) && days >= 0 ? days : null;
}

/**
 * A timestamp column as the text `YYYY-MM-DD HH:MM:SS`: the occasion of a reminder keyed by a date. The same
 * expression is selected and compared with the markers, so both always agree.
 */
export function timestampText(db: Knex.Transaction, column: string): Knex.Raw {
  return dialect(db) === 'mysql' ? db.raw(`DATE_FORMAT(??, '%Y-%m-%d %H:%i:%s')`, [column]) : db.raw(`strftime('%Y-%m-%d %H:%M:%S', ??)`, [column]);
}

/** Keeps the rows of `alias` (a table with an `id`) that have no marker of `kind` for `occasion`. */
export function whereNotReminded(
  query: Knex.QueryBuilder,
  db: Knex.Transaction,
  kind: Pick<ReminderKind, 'kind' | 'object_type'>,
  alias: string,
  occasion: string | Knex.Raw,
): Knex.QueryBuilder {
  return query.whereNotExists(
    db('store_reminder_marks as m')
      .select(db.raw('1'))
      .where({ 'm.kind': kind.kind, 'm.object_type': kind.object_type })
      .where('m.object_id', db.ref(`${alias}.id`))
      .where('m.occasion', occasion),
  );
}

/** The first `limit` rows of `query` (on `alias`) in id order, each with its occasion (an SQL expression). */
export async function selectDue(trx: Knex.Transaction, query: Knex.QueryBuilder, alias: string, occasion: Knex.Raw, limit: number): Promise<DueReminder[]> {
  const rows = (await query
    .orderBy(`${alias}.id`)
    .limit(limit)
    .select(`${alias}.id`, trx.raw('? as ??', [occasion, 'occasion']))) as Array<{ id: number | string; occasion: string }>;
  return rows.map((row) => ({ object_id: Number(row.id), occasion: row.occasion }));
}
