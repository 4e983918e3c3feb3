import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { sanitizeEmailHtml } from '../../../core/html';
import { NOTIFICATIONS } from '../catalog';
import { getEmailSettings, getNotificationSettings } from '../settings';
import type { NotificationKey, RenderedEmail } from '../types';
import { transactionOf } from '../../../core/db';
import { replaceSmartcodes } from './replace';
import { compiledTemplate, CUSTOM_BODY_TEMPLATE, emailTemplatesDir, renderCompiled } from './templates';
import type { EmailData, EmailDraft } from './types';

/** Admin HTML with its smartcodes filled, sanitised again: a value that lands in a link cannot bring a javascript: URL. */
async function adminHtml(ctx: Ctx, html: string, data: EmailData): Promise<string> {
  return sanitizeEmailHtml(await replaceSmartcodes(ctx, html, data, 'html'));
}

/**
 * A notification as it is sent: the subject with its smartcodes filled (one line), the body (the settings' custom body
 * in the store's layout, or the default MJML body), the footer when the global settings show it, and a plain-text
 * part. `draft`: unsaved edits (the preview). Settings are read through `db` when it is a transaction.
 */
export async function renderNotification(
  ctx: Ctx,
  db: Knex | Knex.Transaction,
  key: NotificationKey,
  data: EmailData,
  draft: EmailDraft = {},
): Promise<RenderedEmail> {
  const via = transactionOf(db);
  const [all, email] = await Promise.all([getNotificationSettings(ctx.host, via), getEmailSettings(ctx.host, via)]);
  const settings = all[key];
  const subjectTemplate = draft.subject ?? settings.subject;
  const subject = (await replaceSmartcodes(ctx, subjectTemplate || NOTIFICATIONS[key].default_subject, data, 'text')).replace(/\s+/g, ' ').trim();
  const customBody = draft.email_body ?? (settings.is_default_body === 'no' ? settings.email_body : '');
  const custom = customBody.trim() !== '';
  const footer = email.show_email_footer === 'yes' && email.email_footer.trim() ? await adminHtml(ctx, email.email_footer, data) : '';
  const template = await compiledTemplate(emailTemplatesDir(ctx.host), custom ? CUSTOM_BODY_TEMPLATE : NOTIFICATIONS[key].template_path);
  const { html, text } = renderCompiled(template, {
    ...data,
    subject,
    pre_header: NOTIFICATIONS[key].pre_header ?? '',
    footer,
    body: custom ? await adminHtml(ctx, customBody, data) : '',
  });
  return { subject, html, text };
}
