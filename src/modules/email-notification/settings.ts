import type { Knex } from 'knex';
import type { Host } from '../../host/contract';
import { NOTIFICATIONS } from './catalog';
import type { EmailSettings, NotificationKey, NotificationSettings, ReminderSettings } from './types';

declare module '../../host/contract' {
  interface OptionMap {
    email_notifications: Partial<Record<NotificationKey, Partial<NotificationSettings>>>;
    email_settings: Partial<EmailSettings>;
    email_reminders: Partial<ReminderSettings>;
  }
}

export function defaultNotificationSettings(key: NotificationKey): NotificationSettings {
  return { active: 'yes', subject: NOTIFICATIONS[key].default_subject, is_default_body: 'yes', email_body: '' };
}

/** Every notification's settings: what is saved over the defaults. `via`: read inside that transaction. */
export async function getNotificationSettings(host: Host, via?: Knex.Transaction): Promise<Record<NotificationKey, NotificationSettings>> {
  const saved = await host.options.get('email_notifications', {}, via);
  return Object.fromEntries(
    (Object.keys(NOTIFICATIONS) as NotificationKey[]).map((key) => [key, { ...defaultNotificationSettings(key), ...saved[key] }]),
  ) as Record<NotificationKey, NotificationSettings>;
}

export function defaultEmailSettings(host: Host): EmailSettings {
  return {
    from_name: host.site.title,
    from_email: host.site.admin_email,
    reply_to_name: '',
    reply_to_email: '',
    email_footer: '',
    show_email_footer: 'yes',
    admin_email: '{{site.admin_email}}',
    notification_config: {},
  };
}

export async function getEmailSettings(host: Host, via?: Knex.Transaction): Promise<EmailSettings> {
  return { ...defaultEmailSettings(host), ...(await host.options.get('email_settings', {}, via)) };
}

export const DEFAULT_REMINDER_SETTINGS: ReminderSettings = {
  reminders_enabled: 'no',
  invoice_reminders_enabled: 'no',
  invoice_reminder_due_days: 0,
  invoice_reminder_overdue_days: '1,3,7',
  yearly_renewal_reminders_enabled: 'no',
  yearly_renewal_reminder_days: 30,
  trial_end_reminders_enabled: 'no',
  trial_end_reminder_days: 3,
  monthly_renewal_reminders_enabled: 'no',
  monthly_renewal_reminder_days: 7,
  quarterly_renewal_reminders_enabled: 'no',
  quarterly_renewal_reminder_days: 14,
  half_yearly_renewal_reminders_enabled: 'no',
  half_yearly_renewal_reminder_days: 14,
};

export async function getReminderSettings(host: Host, via?: Knex.Transaction): Promise<ReminderSettings> {
  return { ...DEFAULT_REMINDER_SETTINGS, ...(await host.options.get('email_reminders', {}, via)) };
}
