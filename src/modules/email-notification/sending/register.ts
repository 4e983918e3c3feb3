import { systemCtx } from '../../../core/context';
import { RateLimits } from '../../../core/ratelimit';
import type { Host } from '../../../host/contract';
import { bindNotificationEvents } from './bindings';
import { SEND_EMAIL_JOB } from './enqueue';
import { sendNotificationEmail } from './send-job';

/**
 * Email jobs one worker runs at once. They mostly wait (on the database, then on the SMTP server): while some read their
 * order, others send over the transport's 5 pooled connections.
 */
export const EMAIL_CONCURRENCY = 10;

/**
 * Attempts of one email before it is given up: with a 30 s backoff base, an SMTP server that is down for about an hour
 * (30 s, 1, 2, … 32 min between attempts) loses no mail.
 */
export const EMAIL_MAX_ATTEMPTS = 8;

/** Email notifications: the send job and the store events that queue it. */
export function registerEmailNotifications(host: Host): void {
  const limits = new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written'));
  host.jobs.define(SEND_EMAIL_JOB, (payload, job) => sendNotificationEmail(systemCtx(host, limits), payload, job), {
    maxAttempts: EMAIL_MAX_ATTEMPTS,
    backoffMs: 30_000,
    concurrency: EMAIL_CONCURRENCY,
  });
  bindNotificationEvents(host);
}
