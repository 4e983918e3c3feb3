import type { ReminderSettings, YesNo } from '../types';

type KeysOf<V> = { [K in keyof ReminderSettings]: ReminderSettings[K] extends V ? K : never }[keyof ReminderSettings];
export type ReminderToggle = KeysOf<YesNo>;
export type ReminderDaysField = KeysOf<number>;

interface FieldBase {
  label: string;
  description: string;
  /** The toggle that must be `yes` for this field to apply (and, for day fields, to be validated). */
  depends_on: ReminderToggle | null;
}

export interface ToggleField extends FieldBase {
  type: 'toggle';
  options: YesNo[];
}

export interface DaysField extends FieldBase {
  type: 'number';
  unit: 'days';
  min: number;
  max: number;
  depends_on: ReminderToggle;
}

/** A comma-separated list of day counts (`1,3,7`), stored sorted and without repeats. */
export interface DayListField extends FieldBase {
  type: 'day_list';
  unit: 'days';
  min: number;
  max: number;
  max_items: number;
  depends_on: ReminderToggle;
}

export type ReminderField = ToggleField | DaysField | DayListField;

const toggle = (label: string, description: string, depends_on: ReminderToggle | null = 'reminders_enabled'): ToggleField => ({
  type: 'toggle',
  options: ['yes', 'no'],
  label,
  description,
  depends_on,
});

const days = (label: string, description: string, depends_on: ReminderToggle, min: number, max: number): DaysField => ({
  type: 'number',
  unit: 'days',
  label,
  description,
  depends_on,
  min,
  max,
});

/** The reminder settings form, field by field in display order: what `GET /email-notification/reminders` describes and the save validates. */
export const REMINDER_FIELDS: { [K in ReminderToggle]: ToggleField } & { [K in ReminderDaysField]: DaysField } & {
  invoice_reminder_overdue_days: DayListField;
} = {
  reminders_enabled: toggle('Email reminders', 'No reminder is sent while this is off.', null),
  invoice_reminders_enabled: toggle('Invoice reminders', 'Remind customers of unpaid orders before and after they are due.'),
  invoice_reminder_due_days: days(
    'Due after (days)',
    'Days after an unpaid order is placed until it is due (0: due at once).',
    'invoice_reminders_enabled',
    0,
    365,
  ),
  invoice_reminder_overdue_days: {
    type: 'day_list',
    unit: 'days',
    label: 'Overdue reminders (days)',
    description: 'Comma-separated days past the due date on which a reminder is sent, e.g. 1,3,7.',
    depends_on: 'invoice_reminders_enabled',
    min: 1,
    max: 365,
    max_items: 20,
  },
  yearly_renewal_reminders_enabled: toggle('Yearly renewal reminders', 'Remind customers before a yearly subscription renews.'),
  yearly_renewal_reminder_days: days(
    'Days before a yearly renewal',
    'How many days before the renewal date the reminder goes out.',
    'yearly_renewal_reminders_enabled',
    7,
    90,
  ),
  trial_end_reminders_enabled: toggle('Trial end reminders', 'Remind customers before their free trial ends.'),
  trial_end_reminder_days: days('Days before a trial ends', 'How many days before the trial ends the reminder goes out.', 'trial_end_reminders_enabled', 1, 14),
  monthly_renewal_reminders_enabled: toggle('Monthly renewal reminders', 'Remind customers before a monthly subscription renews.'),
  monthly_renewal_reminder_days: days(
    'Days before a monthly renewal',
    'How many days before the renewal date the reminder goes out.',
    'monthly_renewal_reminders_enabled',
    3,
    28,
  ),
  quarterly_renewal_reminders_enabled: toggle('Quarterly renewal reminders', 'Remind customers before a quarterly subscription renews.'),
  quarterly_renewal_reminder_days: days(
    'Days before a quarterly renewal',
    'How many days before the renewal date the reminder goes out.',
    'quarterly_renewal_reminders_enabled',
    7,
    60,
  ),
  half_yearly_renewal_reminders_enabled: toggle('Half-yearly renewal reminders', 'Remind customers before a half-yearly subscription renews.'),
  half_yearly_renewal_reminder_days: days(
    'Days before a half-yearly renewal',
    'How many days before the renewal date the reminder goes out.',
    'half_yearly_renewal_reminders_enabled',
    7,
    60,
  ),
};

export const REMINDER_DAYS_FIELDS = (Object.keys(REMINDER_FIELDS) as Array<keyof ReminderSettings>).filter(
  (name): name is ReminderDaysField => REMINDER_FIELDS[name].type === 'number',
);
