/**
 * The hourly expiry sweep (reference §4; the store never bills by itself, renewals come from the gateways): a
 * subscription still `active`, `trialing`, `failing` or `expiring` whose `next_billing_date` is more than its grace
 * period past (by interval, through `store/subscription/grace_period_days`) was not paid and becomes `expired`; an
 * `expiring` one (canceled at period end) expires once its `expire_at` has come.
 *
 * A sweep, not a job per subscription: missed runs are not caught up and a run may repeat, and a sweep finds every
 * due subscription whatever happened before. Each one expires in its own transaction after a locked re-check, so a
 * renewal arriving at the same moment wins or loses cleanly, and a second run finds nothing left to do.
 */
import type { Knex } from 'knex';
import { systemCtx, transaction, type Ctx } from '../../core/context';
import { lockForUpdate } from '../../core/db';
import { RateLimits } from '../../core/ratelimit';
import { toTimestamp } from '../../core/time';
import type { Host } from '../../host/contract';
import { gracePeriodDays } from './lifecycle';
import { presentSubscription, type SubscriptionRow } from './presenter';
import { transitionSubscription } from './service';
import { BILLING_INTERVALS, type BillingInterval, type Subscription, type SubscriptionStatus } from './types';

declare module '../../host/contract' {
  interface JobMap {
    'store/subscriptions/expire': Record<string, never>;
  }
}

/** Subscriptions looked up per query; a sweep goes on batch after batch until none is due. */
export const SUBSCRIPTION_EXPIRY_BATCH = 200;

const EXPIRABLE: readonly SubscriptionStatus[] = ['active', 'trialing', 'failing', 'expiring'];

/** The last `next_billing_date` that is past its grace period now, per interval. */
type Cutoffs = Record<BillingInterval, string>;

function cutoffsAt(ctx: Ctx, now: Date): Cutoffs {
  const entries = BILLING_INTERVALS.map((interval) => [interval, toTimestamp(new Date(now.getTime() - gracePeriodDays(ctx, interval) * 86_400_000))]);
  return Object.fromEntries(entries) as Cutoffs;
}

function whereDue(query: Knex.QueryBuilder, cutoffs: Cutoffs, now: string): Knex.QueryBuilder {
  return query.whereIn('status', [...EXPIRABLE]).where((due) => {
    for (const interval of BILLING_INTERVALS) {
      due.orWhere((one) => one.where('billing_interval', interval).where('next_billing_date', '<', cutoffs[interval]));
    }
    due.orWhere((ending) => ending.where('status', 'expiring').where('expire_at', '<=', now));
  });
}

function isDue(subscription: Subscription, cutoffs: Cutoffs, now: string): boolean {
  if (!EXPIRABLE.includes(subscription.status)) return false;
  if (subscription.status === 'expiring' && subscription.expire_at !== null && subscription.expire_at <= now) return true;
  const cutoff = cutoffs[subscription.billing_interval];
  return subscription.next_billing_date !== null && cutoff !== undefined && subscription.next_billing_date < cutoff;
}

/** Expires one subscription if it is still due (re-checked under its row lock); false when a payment or an admin came first. */
export async function expireSubscription(ctx: Ctx, subscriptionId: number, cutoffs: Cutoffs): Promise<boolean> {
  return transaction(ctx, async (trx, afterCommit) => {
    const now = toTimestamp(ctx.clock.now());
    const row = (await lockForUpdate(trx('store_subscriptions').where({ id: subscriptionId }), trx).first()) as SubscriptionRow | undefined;
    if (!row) return false;
    const subscription = presentSubscription(row);
    if (!isDue(subscription, cutoffs, now)) return false;
    const note =
      subscription.status === 'expiring'
        ? 'Its paid period ended after it was canceled at period end.'
        : `No payment since ${subscription.next_billing_date} (grace period ${gracePeriodDays(ctx, subscription.billing_interval)} days): expired automatically.`;
    await transitionSubscription(ctx, trx, afterCommit, subscriptionId, 'expire', {}, { note });
    return true;
  });
}

/**
 * One sweep: expires every subscription due now, `batch` ids at a time, each in its own transaction. One that fails
 * is logged and left for the next sweep; the others go on. Stops early when `signal` aborts. Returns how many expired.
 */
export async function expireSubscriptions(ctx: Ctx, options: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
  const batch = options.batch ?? SUBSCRIPTION_EXPIRY_BATCH;
  const at = ctx.clock.now();
  const now = toTimestamp(at);
  const cutoffs = cutoffsAt(ctx, at);
  let expired = 0;
  let after = 0;
  for (;;) {
    const rows = (await whereDue(ctx.db('store_subscriptions'), cutoffs, now).where('id', '>', after).orderBy('id').limit(batch).select('id')) as Array<{
      id: number | string;
    }>;
    for (const { id } of rows) {
      if (options.signal?.aborted) return expired;
      try {
        if (await expireSubscription(ctx, Number(id), cutoffs)) expired++;
      } catch (error) {
        ctx.host.logger.error({ err: error, subscriptionId: Number(id) }, 'subscription could not be expired');
      }
    }
    if (rows.length < batch) return expired;
    after = Number(rows[rows.length - 1].id);
  }
}

/** The subscriptions' scheduled jobs: the expiry sweep every hour. */
export function registerSubscriptionJobs(host: Host): void {
  const limits = new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written'));
  host.jobs.define('store/subscriptions/expire', async (_payload, job) => {
    await expireSubscriptions(systemCtx(host, limits), { signal: job.signal });
  });
  host.jobs.schedule('store/subscriptions/expire', '0 * * * *', {});
}
