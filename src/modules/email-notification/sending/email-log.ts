/**
 * The sent-mail log (`store_email_log`): one row per notification, object, event occurrence and recipient. A row is
 * written before its message goes to SMTP, as a claim (`message_id` = `pending:<job id>`, `sent_at` the claim's time),
 * and gets the SMTP Message-ID and the time sent once the server accepted the message. The unique key makes the claim exclusive: whoever inserted it sends,
 * everyone else finds the message sent or being sent. A failed send deletes its claim so that a retry sends again.
 */
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../core/db';
import { fromTimestamp, toTimestamp } from '../../../core/time';
import type { NotificationKey, SendEmailJob } from '../types';

const LOG = 'store_email_log';
const PENDING = 'pending:';

/**
 * After this long a claim of another job is taken over: that job's worker died between the claim and the send (a
 * worker that still runs has long given up: the SMTP timeouts are shorter, the job lease is 5 minutes).
 */
export const CLAIM_STALE_MS = 15 * 60 * 1000;

export interface Delivery {
  notification: NotificationKey;
  object_type: SendEmailJob['object_type'];
  object_id: number;
  event_key: string;
  /** The address, lower-cased: the log's key. */
  recipient: string;
}

/** `claimed`: this job sends now. `sent`: the message went already. `in_flight`: another job is sending it. */
export type ClaimOutcome = 'claimed' | 'sent' | 'in_flight';

interface LogRow {
  id: number | string;
  message_id: string;
  sent_at: string;
}

export function deliveryOf(job: SendEmailJob, recipient: string): Delivery {
  const { notification, object_type, object_id, event_key } = job;
  return { notification, object_type, object_id, event_key, recipient: recipient.trim().toLowerCase() };
}

const claimMark = (jobId: number) => `${PENDING}${jobId}`;

/**
 * Claims the delivery for job `jobId`. A claim of the same job is its own (a retry after its worker died mid-send) and
 * is taken back; another job's claim is taken over only once stale.
 */
export async function claimDelivery(db: Knex, delivery: Delivery, jobId: number, now: Date): Promise<ClaimOutcome> {
  const mark = claimMark(jobId);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await db(LOG).insert({ ...delivery, message_id: mark, sent_at: toTimestamp(now) });
      return 'claimed';
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const row = (await db(LOG).where(delivery).first('id', 'message_id', 'sent_at')) as LogRow | undefined;
    // Gone: its holder's send failed and it let go; try to insert again.
    if (!row) continue;
    if (!row.message_id.startsWith(PENDING)) return 'sent';
    if (row.message_id === mark) return 'claimed';
    if (now.getTime() - fromTimestamp(row.sent_at).getTime() < CLAIM_STALE_MS) return 'in_flight';
    const taken = await db(LOG)
      .where({ id: row.id, message_id: row.message_id })
      .update({ message_id: mark, sent_at: toTimestamp(now) });
    return taken ? 'claimed' : 'in_flight';
  }
  return 'in_flight';
}

/** The SMTP server accepted the message: the claim becomes the log entry. */
export async function markSent(db: Knex, delivery: Delivery, jobId: number, messageId: string, now: Date): Promise<void> {
  await db(LOG)
    .where({ ...delivery, message_id: claimMark(jobId) })
    .update({ message_id: messageId, sent_at: toTimestamp(now) });
}

/** The send failed: the claim goes, so the job's retry (or any other job) sends again. */
export async function releaseDelivery(db: Knex, delivery: Delivery, jobId: number): Promise<void> {
  await db(LOG)
    .where({ ...delivery, message_id: claimMark(jobId) })
    .delete();
}
