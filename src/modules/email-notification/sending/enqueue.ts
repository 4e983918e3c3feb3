import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { getNotificationSettings } from '../settings';
import type { SendEmailJob } from '../types';

declare module '../../../host/contract' {
  interface JobMap {
    'store/email/send': SendEmailJob;
  }
}

export const SEND_EMAIL_JOB = 'store/email/send';

/** The job's unique key: one email job per notification, object and occurrence of the event. */
export function sendEmailKey(job: SendEmailJob): string {
  return `email:${job.notification}:${job.object_type}:${job.object_id}:${job.event_key}`;
}

/**
 * Queues one notification inside the transaction of the change that causes it: the job exists if and only if the change
 * commits. An inactive notification queues nothing (the job checks again when it runs); a second call for the same
 * event is a no-op (the unique key).
 */
export async function enqueueNotification(ctx: Ctx, trx: Knex.Transaction, job: SendEmailJob): Promise<void> {
  const settings = await getNotificationSettings(ctx.host, trx);
  if (settings[job.notification].active !== 'yes') return;
  await ctx.host.jobs.enqueue(SEND_EMAIL_JOB, job, { uniqueKey: sendEmailKey(job), trx });
}
