/**
 * The job `store/email/send`: one notification about one object and event, to its recipients. The settings are read
 * when it runs (a notification switched off meanwhile sends nothing). Each recipient is claimed in the sent-mail log
 * before the message goes out, so a job that runs again, or a duplicate job running at the same time, never sends a
 * message twice; a failed send lets go of its claim and throws, and the job is retried with backoff. The one window
 * left: the worker dies after the SMTP server accepted a message and before the log says so; the retry sends that
 * message again (at least once, never silently lost).
 */
import type { JobInfo, MailAddress, Site } from '../../../host/contract';
import type { Ctx } from '../../../core/context';
import { NOTIFICATIONS, isNotificationKey } from '../catalog';
import { buildEmailData, renderNotification, resolveAdminEmails, type EmailData } from '../render';
import { getEmailSettings, getNotificationSettings } from '../settings';
import type { EmailSettings, RenderedEmail, SendEmailJob } from '../types';
import { claimDelivery, deliveryOf, markSent, releaseDelivery } from './email-log';

/** Thrown when another job holds the claim of a message of this one: the retry finds it sent, or sends it. */
class DeliveryInFlight extends Error {
  constructor(job: SendEmailJob) {
    super(`another job is sending ${job.notification} for ${job.object_type} ${job.object_id} (${job.event_key}); retried later`);
  }
}

/** The addresses to send to, each once (the log's key is the lower-cased address). */
async function recipientsOf(ctx: Ctx, job: SendEmailJob, data: EmailData): Promise<string[]> {
  const listed = NOTIFICATIONS[job.notification].recipient === 'admin' ? await resolveAdminEmails(ctx, ctx.db, data) : [data.customer_email ?? ''];
  const unique = new Map(
    listed
      .map((address) => address.trim())
      .filter(Boolean)
      .map((address) => [address.toLowerCase(), address]),
  );
  return [...unique.values()];
}

/** From and reply-to of every notification: the global email settings (the site's title and admin address by default). */
function sender(settings: EmailSettings, site: Site): { from: MailAddress; replyTo?: MailAddress } {
  const from = { name: settings.from_name || site.title, address: settings.from_email || site.admin_email };
  const replyTo = settings.reply_to_email ? { name: settings.reply_to_name, address: settings.reply_to_email } : undefined;
  return replyTo ? { from, replyTo } : { from };
}

/**
 * Sends the job's notification to every recipient not yet sent to. What retrying cannot mend (an unknown notification,
 * an object deleted since, no recipient address) is logged and ends the job.
 */
export async function sendNotificationEmail(ctx: Ctx, job: SendEmailJob, info: JobInfo): Promise<void> {
  const giveUp = (message: string) =>
    ctx.host.logger.warn({ job: info.id, notification: job.notification, object_type: job.object_type, object_id: job.object_id }, message);
  if (!isNotificationKey(job.notification)) return giveUp('email job for an unknown notification: not sent');
  if ((await getNotificationSettings(ctx.host))[job.notification].active !== 'yes') return;
  const data = await buildEmailData(ctx, ctx.db, job);
  if (!data) return giveUp('email job for an object that no longer exists: not sent');
  const recipients = await recipientsOf(ctx, job, data);
  if (!recipients.length) return giveUp('email job without a recipient address: not sent');

  const envelope = sender(await getEmailSettings(ctx.host), ctx.host.site);
  let rendered: RenderedEmail | null = null;
  let inFlight = false;
  for (const to of recipients) {
    if (info.signal.aborted) break;
    const delivery = deliveryOf(job, to);
    const claim = await claimDelivery(ctx.db, delivery, info.id, ctx.clock.now());
    if (claim === 'sent') continue;
    if (claim === 'in_flight') {
      inFlight = true;
      continue;
    }
    let messageId: string;
    try {
      rendered ??= await renderNotification(ctx, ctx.db, job.notification, data);
      ({ messageId } = await ctx.host.mailer.send({ ...envelope, to, subject: rendered.subject, html: rendered.html, text: rendered.text }));
    } catch (error) {
      await releaseDelivery(ctx.db, delivery, info.id);
      throw error;
    }
    await markSent(ctx.db, delivery, info.id, messageId, ctx.clock.now());
  }
  if (inFlight) throw new DeliveryInFlight(job);
}
