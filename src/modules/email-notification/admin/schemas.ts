import { Type } from '@sinclair/typebox';
import { IntegerIn, MAX_INT, oneOf } from '../../../core/schema';

const YesNo = oneOf(['yes', 'no']);

/** Text that goes into a mail header (subject, names): one line, so it cannot add a header of its own. */
const headerText = (label: string, required: boolean) =>
  Type.String({
    ...(required ? { minLength: 1 } : {}),
    maxLength: 255,
    pattern: '^[^\\r\\n]*$',
    messages: { regex: `The ${label} field must be a single line.` },
  });

const email = () => Type.String({ minLength: 1, maxLength: 255, format: 'email' });

/** An admin-edited email body: sanitised HTML with `{{smartcodes}}`. */
export const MAX_EMAIL_BODY = 100_000;
export const MAX_EMAIL_FOOTER = 20_000;

export const NotificationParams = Type.Object({ notification: Type.String() });
export const NotificationNameParams = Type.Object({ name: Type.String() });

export const NotificationUpdateBody = Type.Object(
  {
    settings: Type.Object(
      {
        subject: headerText('subject', true),
        email_body: Type.Optional(Type.String({ maxLength: MAX_EMAIL_BODY })),
        active: Type.Optional(YesNo),
        is_default_body: Type.Optional(YesNo),
      },
      // A body without `settings` is answered as a missing `settings.subject`, the field the spec requires.
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false },
);

export const EnableNotificationBody = Type.Object({ active: YesNo }, { additionalProperties: false });

export const EmailSettingsBody = Type.Object(
  {
    from_name: headerText('from name', true),
    from_email: email(),
    reply_to_name: Type.Optional(headerText('reply to name', false)),
    reply_to_email: Type.Optional(Type.Union([email(), Type.Literal('')])),
    email_footer: Type.Optional(Type.String({ maxLength: MAX_EMAIL_FOOTER })),
    show_email_footer: Type.Optional(YesNo),
    admin_email: Type.String({ minLength: 1, maxLength: 1000 }),
    notification_config: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 100 })),
  },
  { additionalProperties: false },
);

/**
 * Day counts are whole numbers; the spec applies their ranges (a negative count included) only while their toggle is on
 * (see reminder-fields.ts), and an unused count is never read.
 */
const dayCount = () => Type.Optional(IntegerIn(-MAX_INT, MAX_INT));

export const ReminderSettingsBody = Type.Object(
  {
    reminders_enabled: Type.Optional(YesNo),
    invoice_reminders_enabled: Type.Optional(YesNo),
    invoice_reminder_due_days: dayCount(),
    invoice_reminder_overdue_days: Type.Optional(Type.String({ maxLength: 255 })),
    yearly_renewal_reminders_enabled: Type.Optional(YesNo),
    yearly_renewal_reminder_days: dayCount(),
    trial_end_reminders_enabled: Type.Optional(YesNo),
    trial_end_reminder_days: dayCount(),
    monthly_renewal_reminders_enabled: Type.Optional(YesNo),
    monthly_renewal_reminder_days: dayCount(),
    quarterly_renewal_reminders_enabled: Type.Optional(YesNo),
    quarterly_renewal_reminder_days: dayCount(),
    half_yearly_renewal_reminders_enabled: Type.Optional(YesNo),
    half_yearly_renewal_reminder_days: dayCount(),
  },
  { additionalProperties: false },
);
