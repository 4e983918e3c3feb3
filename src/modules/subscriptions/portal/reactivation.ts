import { transaction, type Ctx } from '../../../core/context';
import { fail, invalid } from '../../../core/errors';
import { fromTimestamp, toTimestamp } from '../../../core/time';
import type { Subscription } from '../types';
import { featuresOf } from './gateway-features';
import { atGateway, gatewaySubscriptionOf } from './gateway-calls';
import { gatewayTitle } from './methods';
import { ownSubscription } from './own';
import { moveAfterGateway } from './status-change';
import { issueToken, readToken } from './tokens';

/** How long the `reactivate_url` of a detail view stays valid. */
const REACTIVATION_TTL_SECONDS = 24 * 60 * 60;

/**
 * Whether the customer may take back a cancellation: the subscription is `expiring` (set to end with its paid period),
 * that period has not ended, and the gateway kept its subscription resumable (Stripe's `cancel_at_period_end`; a
 * gateway that had to end it at once, as PayPal does, cannot bill it again).
 */
export function reactivatable(ctx: Ctx, subscription: Subscription): boolean {
  if (subscription.status !== 'expiring' || subscription.collection_method !== 'automatic') return false;
  const end = subscription.expire_at ?? subscription.next_billing_date;
  if (!end || fromTimestamp(end) <= ctx.clock.now()) return false;
  if (subscription.config.gateway_ended === true) return false;
  return !subscription.vendor_subscription_id || !!featuresOf(subscription.current_payment_method).setCancelAtPeriodEnd;
}

/** The detail view's `reactivate_url`: this route with a signed token (24 hours) when the subscription can be reactivated, else null. */
export function reactivateUrl(ctx: Ctx, subscription: Subscription): string | null {
  if (!reactivatable(ctx, subscription)) return null;
  const { token } = issueToken(ctx, 'subscription-reactivation', subscription.id, REACTIVATION_TTL_SECONDS);
  const path = `/wp-json/${ctx.host.manifest.namespace}/customer-profile/subscriptions/${subscription.uuid}/confirm-subscription-reactivation`;
  return `${ctx.host.site.url}${path}?reactivation_token=${encodeURIComponent(token)}`;
}

function notReactivatable(subscription: Subscription) {
  return fail(
    'invalid_subscription_status',
    subscription.status === 'expiring'
      ? 'This subscription can no longer be reactivated: its period has ended or its payment was stopped at the gateway.'
      : `This subscription is ${subscription.status}; only a subscription set to end with its period can be reactivated.`,
  );
}

/**
 * `POST …/confirm-subscription-reactivation`: with the token of the detail view's `reactivate_url` (body or query), the
 * gateway bills the subscription again (Stripe: `cancel_at_period_end` back to false) and it becomes `active` through
 * the lifecycle's `reactivate`, its end date cleared.
 */
export async function confirmReactivation(ctx: Ctx, uuid: string, token: string | undefined) {
  const subscription = await ownSubscription(ctx, uuid);
  if (!token) throw invalid('reactivation_token', 'required', 'The reactivation token field is required.');
  readToken(ctx, 'subscription-reactivation', token, subscription.id, 'reactivation_token');
  if (!reactivatable(ctx, subscription)) throw notReactivatable(subscription);
  const resume = featuresOf(subscription.current_payment_method).setCancelAtPeriodEnd;
  if (subscription.vendor_subscription_id && resume) {
    const remote = await gatewaySubscriptionOf(ctx.db, subscription);
    await atGateway(ctx, gatewayTitle(ctx, subscription.current_payment_method), () => resume(ctx, remote, false));
  }
  const now = toTimestamp(ctx.clock.now());
  const updated = await transaction(ctx, async (trx, afterCommit) => {
    const current = await ownSubscription(ctx, uuid, { db: trx, lock: true });
    if (current.status !== 'active' && !reactivatable(ctx, current)) throw notReactivatable(current);
    const config = { ...current.config, cancel_at_period_end: false, reactivated_at: now };
    return moveAfterGateway(
      ctx,
      trx,
      afterCommit,
      current,
      'active',
      'reactivate',
      { canceled_at: null, expire_at: null, config },
      'Reactivated by the customer.',
    );
  });
  return { id: updated.id, status: updated.status, reactivated_at: now, next_billing_date: updated.next_billing_date };
}
