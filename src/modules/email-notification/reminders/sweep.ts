/**
 * The hourly reminder sweep. Reminders are due over a window (N days before a renewal or a trial end, some days
 * after an invoice's due date), not at an instant: each run finds everything due now that has no marker yet in
 * `store_reminder_marks`, writes the marker and enqueues the emails in one transaction. A run that repeats finds the
 * markers and sends nothing twice; a missed run is caught up by the next while the window is still open.
 *
 * Each kind is worked through in batches by id, one transaction per batch: a batch that fails leaves neither a
 * marker nor an email of its own behind, and the ones before it stay done. Of two sweeps at once, the one that marks
 * an object first goes on; the other meets its marker (the unique key), rolls that batch back and leaves the kind to it.
 */
import type { Knex } from 'knex';
import { systemCtx, transaction, type Ctx } from '../../../core/context';
import { insertMany, isUniqueViolation, retryOnLockConflict } from '../../../core/db';
import { RateLimits } from '../../../core/ratelimit';
import { toTimestamp } from '../../../core/time';
import type { Host } from '../../../host/contract';
import { enqueueNotification } from '../sending/enqueue';
import { getReminderSettings } from '../settings';
import { invoiceOverdueReminders } from './invoice-overdue';
import type { DueReminder, FindDue, ReminderKind } from './kind';
import { renewalReminders, trialEndReminders } from './subscription-reminders';

declare module '../../../host/contract' {
  interface JobMap {
    'store/email/reminders': Record<string, never>;
  }
}

/** Objects reminded per transaction. */
export const REMINDER_BATCH = 200;

export const REMINDER_KINDS: readonly ReminderKind[] = [renewalReminders, trialEndReminders, invoiceOverdueReminders];

async function remind(ctx: Ctx, trx: Knex.Transaction, kind: ReminderKind, due: DueReminder[]): Promise<void> {
  const createdAt = toTimestamp(ctx.clock.now());
  await insertMany(
    trx,
    'store_reminder_marks',
    due.map(({ object_id, occasion }) => ({ kind: kind.kind, object_type: kind.object_type, object_id, occasion, created_at: createdAt })),
  );
  for (const { object_id, occasion } of due) {
    for (const notification of kind.notifications) {
      await enqueueNotification(ctx, trx, { notification, object_type: kind.object_type, object_id, event_key: `reminder:${occasion}` });
    }
  }
}

/**
 * One batch in one transaction: what is due after id `after` is found, marked and its emails enqueued together.
 * Returns what was due, or null when a concurrent sweep marked some of the same objects first: the batch rolled back,
 * and that sweep, ahead on the same ids, goes on through the rest.
 */
async function remindBatch(ctx: Ctx, kind: ReminderKind, find: FindDue, after: number, limit: number): Promise<DueReminder[] | null> {
  try {
    return await retryOnLockConflict(() =>
      transaction(ctx, async (trx) => {
        const due = await find(trx, after, limit);
        if (due.length) await remind(ctx, trx, kind, due);
        return due;
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * One sweep: every reminder due now, for each kind switched on (`reminders_enabled` and the kind's own toggle), `batch`
 * objects per transaction. Stops early when `signal` aborts. Returns how many reminders it marked.
 */
export async function sweepReminders(ctx: Ctx, options: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
  const settings = await getReminderSettings(ctx.host);
  if (settings.reminders_enabled !== 'yes') return 0;
  const batch = options.batch ?? REMINDER_BATCH;
  const now = ctx.clock.now();
  let reminded = 0;
  for (const kind of REMINDER_KINDS) {
    const find = kind.finder(settings, now);
    let after = 0;
    while (find && !options.signal?.aborted) {
      const due = await remindBatch(ctx, kind, find, after, batch);
      if (!due) break;
      reminded += due.length;
      if (due.length < batch) break;
      after = due[due.length - 1].object_id;
    }
  }
  return reminded;
}

/** The reminder sweep, every hour. */
export function registerEmailReminders(host: Host): void {
  const limits = new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written'));
  host.jobs.define('store/email/reminders', async (_payload, job) => {
    await sweepReminders(systemCtx(host, limits), { signal: job.signal });
  });
  host.jobs.schedule('store/email/reminders', '0 * * * *', {});
}
