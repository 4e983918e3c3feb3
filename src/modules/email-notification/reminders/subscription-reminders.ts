/**
 * Reminders about subscriptions: an upcoming renewal (active subscriptions, N days before `next_billing_date`, N by
 * billing interval) and the end of a trial (trialing subscriptions, N days before `trial_ends_at`). The occasion is
 * the date itself: one reminder per billing cycle and per trial, whatever the day settings become meanwhile.
 */
import { toTimestamp } from '../../../core/time';
import type { BillingInterval } from '../../subscriptions/types';
import type { ReminderSettings } from '../types';
import { dayCount, daysAfter, selectDue, timestampText, whereNotReminded, type ReminderKind } from './kind';

type SettingKey = keyof ReminderSettings;

/** The renewal-reminder settings of each interval; weekly and daily subscriptions renew too often to be reminded. */
const RENEWAL_SETTINGS: Partial<Record<BillingInterval, { enabled: SettingKey; days: SettingKey }>> = {
  monthly: { enabled: 'monthly_renewal_reminders_enabled', days: 'monthly_renewal_reminder_days' },
  quarterly: { enabled: 'quarterly_renewal_reminders_enabled', days: 'quarterly_renewal_reminder_days' },
  half_yearly: { enabled: 'half_yearly_renewal_reminders_enabled', days: 'half_yearly_renewal_reminder_days' },
  yearly: { enabled: 'yearly_renewal_reminders_enabled', days: 'yearly_renewal_reminder_days' },
};

/**
 * Active subscriptions billed within their interval's reminder days from now (the billing date still ahead), that
 * will be billed then: neither at the end of an installment plan (`bill_count` reached `bill_times`) nor set to
 * expire by that date. Other statuses (canceled, expiring, paused, failing…) get none.
 */
export const renewalReminders: ReminderKind = {
  kind: 'renewal',
  object_type: 'subscription',
  notifications: ['subscription_renewal_reminder_customer', 'subscription_renewal_reminder_admin'],
  finder(settings, now) {
    const windows = Object.entries(RENEWAL_SETTINGS).flatMap(([interval, keys]) => {
      const days = dayCount(settings[keys.days]);
      return settings[keys.enabled] === 'yes' && days !== null ? [{ interval, until: daysAfter(now, days) }] : [];
    });
    if (!windows.length) return null;
    const from = toTimestamp(now);
    return (trx, after, limit) => {
      const occasion = timestampText(trx, 's.next_billing_date');
      const query = trx('store_subscriptions as s')
        .where('s.status', 'active')
        .where('s.id', '>', after)
        .where('s.next_billing_date', '>', from)
        .where((due) => {
          for (const { interval, until } of windows) due.orWhere((one) => one.where('s.billing_interval', interval).where('s.next_billing_date', '<=', until));
        })
        .where((billed) => billed.where('s.bill_times', 0).orWhere('s.bill_count', '<', trx.ref('s.bill_times')))
        .where((running) => running.whereNull('s.expire_at').orWhere('s.expire_at', '>', trx.ref('s.next_billing_date')));
      return selectDue(trx, whereNotReminded(query, trx, renewalReminders, 's', occasion), 's', occasion, limit);
    };
  },
};

/** Trialing subscriptions whose trial ends within `trial_end_reminder_days` from now (the end still ahead). */
export const trialEndReminders: ReminderKind = {
  kind: 'trial_end',
  object_type: 'subscription',
  notifications: ['subscription_trial_end_reminder_customer', 'subscription_trial_end_reminder_admin'],
  finder(settings, now) {
    const days = dayCount(settings.trial_end_reminder_days);
    if (settings.trial_end_reminders_enabled !== 'yes' || days === null) return null;
    const from = toTimestamp(now);
    const until = daysAfter(now, days);
    return (trx, after, limit) => {
      const occasion = timestampText(trx, 's.trial_ends_at');
      const query = trx('store_subscriptions as s')
        .where('s.status', 'trialing')
        .where('s.id', '>', after)
        .where('s.trial_ends_at', '>', from)
        .where('s.trial_ends_at', '<=', until);
      return selectDue(trx, whereNotReminded(query, trx, trialEndReminders, 's', occasion), 's', occasion, limit);
    };
  },
};
