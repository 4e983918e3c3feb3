/**
 * Overdue invoice reminders. An order awaits its payment while nothing is paid (`payment_status` `pending`), it is
 * `pending` or `on-hold` (not a draft, nor canceled, failed, processing or completed) and it has something to pay:
 * offline-payment orders, orders an admin created, renewal orders awaiting payment, and checkout orders waiting for an
 * online payment (those the unpaid-order sweep has not canceled). It is due `invoice_reminder_due_days` after it was
 * created, and gets a reminder once it is d days past due, for each d of `invoice_reminder_overdue_days`.
 *
 * Each d is due from that moment until the next day of the list is reached, and for at most `OVERDUE_CATCH_UP_DAYS`:
 * a sweep that missed several reminder days sends the latest one only, and switching reminders on does not write to
 * the customers of long-forgotten orders. The occasion is `overdue:<d>`.
 */
import type { Knex } from 'knex';
import { dayCount, daysAfter, selectDue, whereNotReminded, type ReminderKind } from './kind';

/** How long an overdue reminder the sweep did not get to (the app was down) is still sent. */
export const OVERDUE_CATCH_UP_DAYS = 3;

/** The largest day count the list may hold (a year). */
const MAX_OVERDUE_DAYS = 365;

/** The day counts of a comma-separated list (`1,3,7`), without repeats, in order; entries that are no day count are left out. */
export function overdueDays(list: string): number[] {
  const days = String(list)
    .split(',')
    .map((part) => (part.trim() === '' ? null : dayCount(part.trim())))
    .filter((day): day is number => day !== null && day <= MAX_OVERDUE_DAYS);
  return [...new Set(days)].sort((a, b) => a - b);
}

/** Where an order's payment is still awaited. */
function whereAwaitingPayment(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.where('o.payment_status', 'pending').whereIn('o.status', ['pending', 'on-hold']).where('o.total_amount', '>', 0);
}

export const invoiceOverdueReminders: ReminderKind = {
  kind: 'invoice_overdue',
  object_type: 'order',
  notifications: ['invoice_reminder_overdue_customer', 'invoice_reminder_overdue_admin'],
  finder(settings, now) {
    const dueDays = dayCount(settings.invoice_reminder_due_days);
    const days = overdueDays(settings.invoice_reminder_overdue_days);
    if (settings.invoice_reminders_enabled !== 'yes' || dueDays === null || !days.length) return null;
    // Day d is due for the orders created in (now - due - min(next d, d + catch-up), now - due - d]: disjoint ranges.
    const occasions = days.map((d, i) => ({
      occasion: `overdue:${d}`,
      createdBy: daysAfter(now, -(dueDays + d)),
      createdAfter: daysAfter(now, -(dueDays + Math.min(days[i + 1] ?? Infinity, d + OVERDUE_CATCH_UP_DAYS))),
    }));
    return (trx, after, limit) => {
      const query = whereAwaitingPayment(trx('store_orders as o'))
        .where('o.id', '>', after)
        .where((due) => {
          for (const { occasion, createdBy, createdAfter } of occasions) {
            due.orWhere((one) =>
              whereNotReminded(
                one.where('o.created_at', '<=', createdBy).where('o.created_at', '>', createdAfter),
                trx,
                invoiceOverdueReminders,
                'o',
                occasion,
              ),
            );
          }
        });
      const occasionOfRow = trx.raw(
        `case ${occasions.map(() => 'when ?? <= ? and ?? > ? then ?').join(' ')} end`,
        occasions.flatMap((o) => ['o.created_at', o.createdBy, 'o.created_at', o.createdAfter, o.occasion]),
      );
      return selectDue(trx, query, 'o', occasionOfRow, limit);
    };
  },
};
