import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { addInterval, nextStatus, type SubscriptionEvent } from './lifecycle';
import { presentSubscription, type SubscriptionRow } from './presenter';
import { emitSubscriptionEvent } from './subscription-events';
import { SUBSCRIPTION_STATUSES, type Subscription, type SubscriptionStatus } from './types';

/** Columns a transition may write along with the status (`status` itself only for `sync`: the gateway's status). */
export type SubscriptionPatch = Partial<Omit<Subscription, 'id' | 'uuid' | 'created_at' | 'updated_at'>>;

type Db = Knex | Knex.Transaction;

/** The hook fired when a subscription arrives in a status (`renew` fires `renewed` instead, from `recordRenewal`). */
const ARRIVAL_HOOKS = {
  active: 'store/subscription/activated',
  trialing: 'store/subscription/activated',
  canceled: 'store/subscription/canceled',
  expiring: 'store/subscription/expiring',
  expired: 'store/subscription/expired',
  completed: 'store/subscription/completed',
  failing: 'store/subscription/failing',
} as const satisfies Partial<Record<SubscriptionStatus, string>>;

const EVENT_WORDS: Record<SubscriptionEvent, string> = {
  activate: 'activated',
  start_trial: 'put on trial',
  renew: 'renewed',
  fail: 'marked as failing',
  cancel: 'canceled',
  cancel_at_period_end: 'set to cancel at the end of its period',
  expire: 'expired',
  complete: 'completed',
  reactivate: 'reactivated',
  sync: 'synchronised',
};

export async function readSubscription(db: Db, id: number): Promise<Subscription | null> {
  const row = (await db('store_subscriptions').where({ id }).first()) as SubscriptionRow | undefined;
  return row ? presentSubscription(row) : null;
}

/** The subscription a gateway knows by `vendor_subscription_id` on `payment_method` (one at most: a unique key). */
export async function subscriptionForVendor(db: Db, paymentMethod: string, vendorSubscriptionId: string): Promise<Subscription | null> {
  if (!vendorSubscriptionId) return null;
  const row = (await db('store_subscriptions').where({ current_payment_method: paymentMethod, vendor_subscription_id: vendorSubscriptionId }).first()) as
    SubscriptionRow | undefined;
  return row ? presentSubscription(row) : null;
}

function toColumns(patch: SubscriptionPatch): Record<string, unknown> {
  const { config, ...columns } = patch;
  return config === undefined ? columns : { ...columns, config: JSON.stringify(config) };
}

/** Dates an event sets unless the caller gives them. */
function eventDates(event: SubscriptionEvent, before: Subscription, now: string): SubscriptionPatch {
  if (event === 'cancel') return { canceled_at: now };
  if (event === 'cancel_at_period_end') return { canceled_at: now, expire_at: before.next_billing_date ?? now };
  if (event === 'expire') return { expire_at: before.expire_at ?? now };
  return {};
}

/**
 * Applies `event` to a subscription inside the caller's transaction: locks the row, checks the lifecycle table
 * (a refused transition throws 400 `invalid_state`, nothing written), writes the new status with `patch`, and records
 * an activity entry. After commit: `store/subscription/status_changed` and the hook of the status it arrived in when
 * the status changed, `store/subscription/updated` when only other fields did. `note` is added to the activity entry.
 */
export async function transitionSubscription(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  subscriptionId: number,
  event: SubscriptionEvent,
  patch: SubscriptionPatch = {},
  options: { note?: string } = {},
): Promise<Subscription> {
  const row = (await lockForUpdate(trx('store_subscriptions').where({ id: subscriptionId }), trx).first()) as SubscriptionRow | undefined;
  if (!row) throw fail('not_found', 'Subscription not found', { status: 404 });
  const before = presentSubscription(row);
  const reported = patch.status;
  if (event === 'sync' && reported !== undefined && !(SUBSCRIPTION_STATUSES as readonly string[]).includes(reported)) {
    throw fail('invalid_state', `The gateway reported an unknown subscription status: ${String(reported)}.`);
  }
  const status = nextStatus(before.status, event, reported);
  if (status === null) throw fail('invalid_state', `The subscription is ${before.status} and cannot be ${EVENT_WORDS[event]}.`);

  const now = toTimestamp(ctx.clock.now());
  const changes: SubscriptionPatch = { ...eventDates(event, before, now), ...patch, status };
  await trx('store_subscriptions')
    .where({ id: subscriptionId })
    .update({ ...toColumns(changes), updated_at: now });
  const after = (await readSubscription(trx, subscriptionId)) as Subscription;

  const moved = before.status !== after.status;
  const title = `Subscription ${EVENT_WORDS[event]}`;
  const content = [moved ? `Status changed from ${before.status} to ${after.status}.` : '', options.note ?? ''].filter(Boolean).join(' ');
  await recordActivity(
    trx,
    ctx,
    { object_type: 'subscription', object_id: subscriptionId, title, content, status: event === 'fail' ? 'warning' : 'info' },
    afterCommit,
  );
  if (moved && after.status === 'canceled') await emitSubscriptionEvent(ctx, trx, { type: 'canceled', subscription: after, previous: before.status });

  afterCommit(() => {
    if (moved) {
      ctx.hooks.doAction('store/subscription/status_changed', after, before.status);
      const hook = event === 'renew' ? undefined : ARRIVAL_HOOKS[after.status as keyof typeof ARRIVAL_HOOKS];
      if (hook) ctx.hooks.doAction(hook, after, before.status);
    } else if (JSON.stringify(after) !== JSON.stringify({ ...before, updated_at: after.updated_at })) {
      ctx.hooks.doAction('store/subscription/updated', after, before);
    }
  });
  return after;
}

/**
 * An order's first payment succeeded (settled gateway payment, or checkout's free path): its `pending`/`intended`
 * subscriptions start, in the caller's transaction. With trial days they are `trialing` until `now + trial_days`
 * (the next charge then), `bill_count` 0; otherwise `active`, the first period paid (`bill_count` 1), the next charge
 * one interval on. Returns the subscriptions started (none for an order without any).
 */
export async function activateOrderSubscriptions(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, orderId: number): Promise<Subscription[]> {
  const rows = (await trx('store_subscriptions')
    .where({ parent_order_id: orderId })
    .whereIn('status', ['pending', 'intended'])
    .orderBy('id')
    .select('id', 'trial_days', 'billing_interval')) as Array<{ id: number; trial_days: number; billing_interval: Subscription['billing_interval'] }>;
  const now = toTimestamp(ctx.clock.now());
  const started: Subscription[] = [];
  for (const row of rows) {
    const trialDays = Number(row.trial_days);
    if (trialDays > 0) {
      const ends = addInterval(now, 'daily', trialDays);
      started.push(
        await transitionSubscription(ctx, trx, afterCommit, Number(row.id), 'start_trial', { trial_ends_at: ends, next_billing_date: ends, bill_count: 0 }),
      );
    } else {
      const next = addInterval(now, row.billing_interval);
      started.push(await transitionSubscription(ctx, trx, afterCommit, Number(row.id), 'activate', { next_billing_date: next, bill_count: 1 }));
    }
  }
  return started;
}
