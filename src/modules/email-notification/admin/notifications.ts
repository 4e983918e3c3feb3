import type { Ctx } from '../../../core/context';
import { fail, invalid } from '../../../core/errors';
import { sanitizeEmailHtml } from '../../../core/html';
import { recordActivity } from '../../activities/service';
import { isNotificationKey, NOTIFICATIONS } from '../catalog';
import { SMARTCODE_GROUPS } from '../render/smartcodes';
import { defaultNotificationSettings, getNotificationSettings } from '../settings';
import { NOTIFICATION_KEYS, type NotificationKey, type NotificationSettings, type NotificationTemplate, type YesNo } from '../types';
import { saveInTransaction } from './saving';

export const UPDATED = 'Notification updated successfully';
const FAILED = 'Failed to update notification';

/** The key named in the path; anything else (`__proto__` included) is 404 'Notification Details not found'. */
export function notificationKey(name: string): NotificationKey {
  if (!isNotificationKey(name)) throw fail('not_found', 'Notification Details not found');
  return name;
}

function present(key: NotificationKey, settings: NotificationSettings): NotificationTemplate {
  const { default_subject: _subject, ...definition } = NOTIFICATIONS[key];
  return { ...definition, settings };
}

/** Every notification, in the catalogue's order. */
export async function listNotifications(ctx: Ctx): Promise<Record<NotificationKey, NotificationTemplate>> {
  const settings = await getNotificationSettings(ctx.host);
  return Object.fromEntries(NOTIFICATION_KEYS.map((key) => [key, present(key, settings[key])])) as Record<NotificationKey, NotificationTemplate>;
}

/** One notification and the smartcode groups its subject and body may use. */
export async function notificationDetail(ctx: Ctx, name: string) {
  const key = notificationKey(name);
  const settings = await getNotificationSettings(ctx.host);
  const shortcodes = Object.fromEntries(NOTIFICATIONS[key].smartcode_groups.map((group) => [group, SMARTCODE_GROUPS[group]]));
  return { data: present(key, settings[key]), shortcodes };
}

export interface NotificationChange {
  subject?: string;
  email_body?: string;
  active?: YesNo;
  is_default_body?: YesNo;
}

/**
 * The next settings of a notification. `is_default_body: 'yes'` stores the body empty (the default body is used);
 * without `is_default_body`, sending `email_body` means a custom body. A custom body must hold something once sanitised.
 */
function applyChange(previous: NotificationSettings, change: NotificationChange): NotificationSettings {
  const subject = change.subject?.trim() ?? previous.subject;
  if (!subject) throw invalid('settings.subject', 'required', 'The subject field is required.');
  const isDefault = change.is_default_body ?? (change.email_body === undefined ? previous.is_default_body : 'no');
  const sent = change.email_body === undefined ? previous.email_body : sanitizeEmailHtml(change.email_body);
  const body = isDefault === 'yes' ? '' : sent;
  if (isDefault === 'no' && !body.trim()) {
    throw invalid('settings.email_body', 'required', 'The email body field is required when the default body is not used.');
  }
  return { active: change.active ?? previous.active, subject, is_default_body: isDefault, email_body: body };
}

/**
 * Saves one notification's settings. The option holding every notification is read locked and written in one
 * transaction, so concurrent saves of different notifications all stay.
 */
export async function updateNotification(ctx: Ctx, name: string, change: NotificationChange): Promise<NotificationSettings> {
  const key = notificationKey(name);
  return saveInTransaction(ctx, FAILED, async (trx, afterCommit) => {
    const saved = await ctx.host.options.lock('email_notifications', {}, trx);
    const previous: NotificationSettings = { ...defaultNotificationSettings(key), ...saved[key] };
    const next = applyChange(previous, change);
    await ctx.host.options.set('email_notifications', { ...saved, [key]: next }, trx);
    const changed = (Object.keys(next) as Array<keyof NotificationSettings>).filter((field) => next[field] !== previous[field]);
    await recordActivity(
      trx,
      ctx,
      { object_type: 'settings', object_id: 0, title: 'Email notification updated', content: `${key}: ${changed.join(', ') || 'no change'}` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/email_notification/updated', key, next, previous));
    return next;
  });
}
