import type { Knex } from 'knex';
import { systemCtx, transaction } from '../../../core/context';
import type { RateLimits } from '../../../core/ratelimit';
import type { Host } from '../../../host/contract';
import { recordActivity } from '../../activities/service';
import { gatewaySubscriptionOf } from '../portal/gateway-calls';
import { readSubscription } from '../service';
import { gatewayOf, titleOf } from './lookup';

declare module '../../../host/contract' {
  interface JobMap {
    'store/subscriptions/end-at-gateway': { subscription_id: number };
  }
}

const JOB = 'store/subscriptions/end-at-gateway';

/**
 * An installment plan was paid in full by an early payment: the gateway must stop billing it. The job is written in
 * the payment's transaction, so it exists exactly when the payment committed, once per subscription.
 */
export async function endAtGatewayLater(host: Host, trx: Knex.Transaction, subscriptionId: number): Promise<void> {
  await host.jobs.enqueue(JOB, { subscription_id: subscriptionId }, { trx, uniqueKey: `${JOB}:${subscriptionId}` });
}

/**
 * The job: cancels the subscription at its gateway (when the gateway bills subscriptions and holds this one) and notes
 * the outcome on the subscription. A refusal is noted, not retried; no answer throws, so the job runs again.
 */
export function registerEndAtGatewayJob(host: Host, limits: RateLimits): void {
  host.jobs.define(JOB, async ({ subscription_id }) => {
    const ctx = systemCtx(host, limits);
    const subscription = await readSubscription(host.db, subscription_id);
    const gateway = subscription && gatewayOf(ctx, subscription);
    if (!subscription?.vendor_subscription_id || !gateway?.capabilities.subscriptions || !gateway.cancelSubscription) return;
    const result = await gateway.cancelSubscription(ctx, await gatewaySubscriptionOf(host.db, subscription));
    const ended = result.status === 'success' || result.status === 'skipped';
    await transaction(ctx, (trx, afterCommit) =>
      recordActivity(
        trx,
        ctx,
        {
          object_type: 'subscription',
          object_id: subscription.id,
          title: ended ? `${titleOf(gateway, subscription)} subscription ended` : `${titleOf(gateway, subscription)} subscription not ended`,
          content: `All ${subscription.bill_times} payments were made. ${result.message}`,
          status: ended ? 'info' : 'warning',
        },
        afterCommit,
      ),
    );
  });
}
