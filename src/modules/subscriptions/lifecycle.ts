import type { Ctx } from '../../core/context';
import { fromTimestamp, toTimestamp } from '../../core/time';
import { SUBSCRIPTION_STATUSES, type BillingInterval, type SubscriptionStatus } from './types';

/** What happens to a subscription. `sync` takes whatever status the gateway reports (`fetch`, gateway notifications). */
export const SUBSCRIPTION_EVENTS = [
  'activate',
  'start_trial',
  'renew',
  'fail',
  'cancel',
  'cancel_at_period_end',
  'expire',
  'complete',
  'reactivate',
  'sync',
] as const;
export type SubscriptionEvent = (typeof SUBSCRIPTION_EVENTS)[number];

/** Where an event takes each status it may leave (`reported`: the status the gateway reports); a status absent is refused. */
export type SubscriptionTransitions = Partial<Record<SubscriptionStatus, SubscriptionStatus | 'reported'>>;

const BILLING: readonly SubscriptionStatus[] = ['active', 'trialing', 'failing'];

const each = (from: readonly SubscriptionStatus[], to: SubscriptionStatus | 'reported'): SubscriptionTransitions =>
  Object.fromEntries(from.map((status) => [status, to]));

/**
 * The lifecycle as data (event × from-status → to-status). A renewal is money the gateway already took: it is
 * recorded whatever the status once billing began, revives a subscription that was failing, trialing or expired by
 * the sweep (the notification came late), and leaves `expiring`, `canceled` and `completed` where they are (the
 * money can be refunded).
 */
export const SUBSCRIPTION_TRANSITIONS: Record<SubscriptionEvent, SubscriptionTransitions> = {
  activate: each(['pending', 'intended'], 'active'),
  start_trial: each(['pending', 'intended'], 'trialing'),
  renew: { ...each(['active', 'trialing', 'failing', 'expired', 'paused'], 'active'), expiring: 'expiring', canceled: 'canceled', completed: 'completed' },
  fail: each(BILLING, 'failing'),
  cancel: each(
    SUBSCRIPTION_STATUSES.filter((status) => status !== 'canceled'),
    'canceled',
  ),
  cancel_at_period_end: each(BILLING, 'expiring'),
  expire: each([...BILLING, 'expiring', 'paused'], 'expired'),
  complete: each([...BILLING, 'expiring'], 'completed'),
  reactivate: each(['canceled', 'expired', 'expiring', 'paused'], 'active'),
  sync: each(SUBSCRIPTION_STATUSES, 'reported'),
};

/** Where `event` takes a subscription in `from` (`reported` resolved to the gateway's status); null when refused. */
export function nextStatus(from: SubscriptionStatus, event: SubscriptionEvent, reported?: SubscriptionStatus): SubscriptionStatus | null {
  const to = SUBSCRIPTION_TRANSITIONS[event][from];
  if (to === undefined) return null;
  if (to === 'reported') return reported ?? from;
  return to;
}

const MONTHS: Partial<Record<BillingInterval, number>> = { monthly: 1, quarterly: 3, half_yearly: 6, yearly: 12 };
const DAYS: Partial<Record<BillingInterval, number>> = { daily: 1, weekly: 7 };

/**
 * `timestamp` (UTC `YYYY-MM-DD HH:MM:SS`) moved by `count` intervals. Month-based intervals keep the day of the month
 * and clamp it to the target month's last day (Jan 31 + 1 month = Feb 28/29), counted from the start, so the day
 * does not drift after a short month.
 */
export function addInterval(timestamp: string, interval: BillingInterval, count = 1): string {
  const date = fromTimestamp(timestamp);
  const days = DAYS[interval];
  if (days !== undefined) {
    date.setUTCDate(date.getUTCDate() + days * count);
    return toTimestamp(date);
  }
  const months = (MONTHS[interval] ?? 1) * count;
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return toTimestamp(date);
}

/** Days past `next_billing_date` before the expiry sweep gives up on a payment (reference §4). */
export const GRACE_PERIOD_DAYS: Record<BillingInterval, number> = { daily: 1, weekly: 3, monthly: 7, quarterly: 15, half_yearly: 15, yearly: 15 };

/** The grace period of an interval, through the `store/subscription/grace_period_days` filter. */
export function gracePeriodDays(ctx: Ctx, interval: BillingInterval): number {
  const days = ctx.hooks.applyFilters('store/subscription/grace_period_days', GRACE_PERIOD_DAYS[interval], { interval });
  return Number.isFinite(days) && days >= 0 ? Math.floor(days) : GRACE_PERIOD_DAYS[interval];
}
