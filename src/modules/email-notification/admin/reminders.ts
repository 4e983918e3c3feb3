import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../../core/context';
import { throwIfAny, type FieldErrors } from '../../../core/errors';
import { label } from '../../../core/validate';
import { recordActivity } from '../../activities/service';
import { DEFAULT_REMINDER_SETTINGS, getReminderSettings } from '../settings';
import type { ReminderSettings } from '../types';
import { REMINDER_DAYS_FIELDS, REMINDER_FIELDS } from './reminder-fields';
import { saveInTransaction } from './saving';
import type { ReminderSettingsBody } from './schemas';

export const REMINDERS_SAVED = 'Reminder settings saved successfully';
const FAILED = 'Failed to save reminder settings';

export async function reminderSettingsView(ctx: Ctx) {
  return { settings: await getReminderSettings(ctx.host), fields: { reminders: REMINDER_FIELDS } };
}

/** `' 7, 1,3,3 '` → `[1, 3, 7]`; null when an entry is not a whole number. */
function parseDayList(text: string): number[] | null {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.some((entry) => !/^\d{1,9}$/.test(entry))) return null;
  return [...new Set(entries.map(Number))].sort((a, b) => a - b);
}

/** The rules of the reminder form: a day field is checked only while its toggle is `yes`. */
function check(settings: ReminderSettings, overdueDays: number[] | null): FieldErrors {
  const errors: FieldErrors = {};
  for (const field of REMINDER_DAYS_FIELDS) {
    const { min, max, depends_on } = REMINDER_FIELDS[field];
    const value = settings[field];
    if (settings[depends_on] === 'yes' && (value < min || value > max)) {
      errors[field] = { between: `The ${label(field)} field must be between ${min} and ${max}.` };
    }
  }
  const list = REMINDER_FIELDS.invoice_reminder_overdue_days;
  if (settings[list.depends_on] === 'yes') {
    const name = label('invoice_reminder_overdue_days');
    if (!overdueDays) errors.invoice_reminder_overdue_days = { list: `The ${name} field must be a comma-separated list of whole days.` };
    else if (overdueDays.some((day) => day < list.min || day > list.max)) {
      errors.invoice_reminder_overdue_days = { between: `Each of the ${name} must be between ${list.min} and ${list.max}.` };
    } else if (overdueDays.length > list.max_items) {
      errors.invoice_reminder_overdue_days = { max: `The ${name} field must not have more than ${list.max_items} days.` };
    }
  }
  return errors;
}

/**
 * Saves the reminder settings: fields left out keep their saved value, and the rules apply to the result (turning a
 * toggle on checks its saved day count too). The overdue day list is stored sorted and without repeats.
 */
export async function saveReminderSettings(ctx: Ctx, body: Static<typeof ReminderSettingsBody>): Promise<ReminderSettings> {
  return saveInTransaction(ctx, FAILED, async (trx, afterCommit) => {
    const previous: ReminderSettings = { ...DEFAULT_REMINDER_SETTINGS, ...(await ctx.host.options.lock('email_reminders', {}, trx)) };
    const merged: ReminderSettings = { ...previous, ...body };
    const overdueDays = parseDayList(merged.invoice_reminder_overdue_days);
    throwIfAny(check(merged, overdueDays));
    const next: ReminderSettings = {
      ...merged,
      invoice_reminder_overdue_days: overdueDays ? overdueDays.join(',') : merged.invoice_reminder_overdue_days.trim(),
    };
    await ctx.host.options.set('email_reminders', next, trx);
    const changed = (Object.keys(next) as Array<keyof ReminderSettings>).filter((field) => next[field] !== previous[field]);
    await recordActivity(trx, ctx, { object_type: 'settings', object_id: 0, title: 'Reminder settings updated', content: changed.join(', ') }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/email_reminders/updated', next, previous));
    return next;
  });
}
