/** The eighteen notifications of the spec's Events table, by template key. */
export const NOTIFICATION_KEYS = [
  'order_paid_admin',
  'order_paid_customer',
  'order_refunded_admin',
  'order_refunded_customer',
  'order_shipped_customer',
  'order_delivered_customer',
  'order_placed_admin',
  'order_placed_customer',
  'subscription_renewal_customer',
  'subscription_renewal_admin',
  'subscription_canceled_customer',
  'subscription_canceled_admin',
  'invoice_reminder_overdue_customer',
  'invoice_reminder_overdue_admin',
  'subscription_renewal_reminder_customer',
  'subscription_renewal_reminder_admin',
  'subscription_trial_end_reminder_customer',
  'subscription_trial_end_reminder_admin',
] as const;
export type NotificationKey = (typeof NOTIFICATION_KEYS)[number];

export type NotificationGroup = 'order' | 'subscription' | 'scheduler';
export type Recipient = 'admin' | 'customer';
export type YesNo = 'yes' | 'no';

/** The smartcode groups the spec lists, and `subscription` (the codes of the subscription emails, an addition). */
export type SmartcodeGroup = 'order' | 'general' | 'customer' | 'transaction' | 'settings' | 'license' | 'subscription';

/** What the store knows of a notification (code, not settings). */
export interface NotificationDefinition {
  name: NotificationKey;
  /** The spec's event name (`order_paid`, `order_paid_done`, `subscription_renewal_reminder`, …). */
  event: string;
  group: NotificationGroup;
  group_label: string;
  title: string;
  description: string;
  recipient: Recipient;
  smartcode_groups: SmartcodeGroup[];
  /** The default body's template file, relative to `templates/email/`. */
  template_path: string;
  is_async: boolean;
  pre_header?: string;
  default_subject: string;
}

/** What an administrator sets per notification (option `email_notifications`, by key). */
export interface NotificationSettings {
  active: YesNo;
  subject: string;
  /** `yes`: the default body is used and `email_body` is empty. */
  is_default_body: YesNo;
  /** Sanitised HTML with `{{smartcodes}}`; empty while the default body is used. */
  email_body: string;
}

/** A notification as the API shows it: the definition plus its settings. */
export type NotificationTemplate = Omit<NotificationDefinition, 'default_subject'> & { settings: NotificationSettings };

/** Global email settings (option `email_settings`). */
export interface EmailSettings {
  from_name: string;
  from_email: string;
  reply_to_name: string;
  reply_to_email: string;
  email_footer: string;
  show_email_footer: YesNo;
  /** Where admin notifications go; may hold smartcodes (`{{site.admin_email}}`) and several comma-separated addresses. */
  admin_email: string;
  notification_config: Record<string, unknown>;
}

/** Reminder settings (option `email_reminders`). */
export interface ReminderSettings {
  reminders_enabled: YesNo;
  invoice_reminders_enabled: YesNo;
  invoice_reminder_due_days: number;
  /** Comma-separated day list, e.g. `1,3,7`. */
  invoice_reminder_overdue_days: string;
  yearly_renewal_reminders_enabled: YesNo;
  yearly_renewal_reminder_days: number;
  trial_end_reminders_enabled: YesNo;
  trial_end_reminder_days: number;
  monthly_renewal_reminders_enabled: YesNo;
  monthly_renewal_reminder_days: number;
  quarterly_renewal_reminders_enabled: YesNo;
  quarterly_renewal_reminder_days: number;
  half_yearly_renewal_reminders_enabled: YesNo;
  half_yearly_renewal_reminder_days: number;
}

/**
 * One email to send: the payload of the job `store/email/send`. Enqueued in the transaction of the change that
 * causes it, with the unique key `email:<notification>:<object_type>:<object_id>:<event_key>`.
 */
export interface SendEmailJob {
  notification: NotificationKey;
  object_type: 'order' | 'subscription';
  object_id: number;
  /**
   * Unique per occurrence of the event on the object: `placed`, `paid`, `refunded:<refund transaction id>`, `shipped`,
   * `delivered`, `renewed:<renewal order id>`, `canceled:<time of the cancel>`, `reminder:<occasion>`.
   */
  event_key: string;
  /** The transaction the email is about (a payment, a refund), when there is one. */
  transaction_id?: number;
}

/** The rendered email. */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}
