import { transaction, type Ctx } from '../../../core/context';
import { fail } from '../../../core/errors';
import { paymentGateways } from '../../../gateways/registry';
import { featuresOf } from './gateway-features';
import { atGateway, gatewaySubscriptionOf, refusedBy } from './gateway-calls';
import { assertChangeable, gatewayTitle } from './methods';
import { ownSubscription } from './own';
import { moveAfterGateway } from './status-change';

/**
 * `POST …/cancel-auto-renew`: the subscription stops renewing. `cancel_at_period_end` (default true) keeps what was paid
 * for: the subscription becomes `expiring` until its next billing date, when it expires; the gateway is told to end it
 * then (Stripe), or, for a gateway that cannot end a subscription later (PayPal), it is ended there now, which bills
 * nothing more either (and it cannot be reactivated). `false` cancels now, at the gateway and locally. The gateway is
 * asked first: when it refuses or does not answer, nothing changes (502 `gateway_error`), so the customer is never
 * told a subscription is canceled that the gateway keeps billing.
 */
export async function cancelAutoRenew(ctx: Ctx, uuid: string, body: { reason?: string; cancel_at_period_end?: boolean }) {
  const subscription = await ownSubscription(ctx, uuid);
  assertChangeable(subscription);
  const atPeriodEnd = body.cancel_at_period_end ?? true;
  const reason = body.reason?.trim() ?? '';
  const key = subscription.current_payment_method;
  const title = gatewayTitle(ctx, key);
  let endedAtGateway = false;
  if (subscription.vendor_subscription_id) {
    const remote = await gatewaySubscriptionOf(ctx.db, subscription);
    const later = featuresOf(key).setCancelAtPeriodEnd;
    const gateway = paymentGateways(ctx).get(key);
    if (atPeriodEnd && later) {
      await atGateway(ctx, title, () => later(ctx, remote, true));
    } else if (gateway?.cancelSubscription) {
      const cancel = gateway.cancelSubscription.bind(gateway);
      const result = await atGateway(ctx, title, () => cancel(ctx, remote));
      if (result.status === 'failed') throw refusedBy(title, result);
      endedAtGateway = true;
    } else {
      throw fail('gateway_error', `${title} cannot cancel this subscription from the store. Please contact the store.`);
    }
  }

  const updated = await transaction(ctx, async (trx, afterCommit) => {
    const current = await ownSubscription(ctx, uuid, { db: trx, lock: true });
    const to = atPeriodEnd ? 'expiring' : 'canceled';
    if (current.status !== to) assertChangeable(current);
    const config = {
      ...current.config,
      cancel_at_period_end: atPeriodEnd,
      ...(reason ? { customer_cancel_reason: reason } : {}),
      ...(endedAtGateway ? { gateway_ended: true } : {}),
    };
    const note = `Canceled by the customer${atPeriodEnd ? ' at the end of the paid period' : ''}${reason ? `: ${reason}` : '.'}`;
    return moveAfterGateway(ctx, trx, afterCommit, current, to, atPeriodEnd ? 'cancel_at_period_end' : 'cancel', { config }, note);
  });
  return {
    id: updated.id,
    auto_renew: false,
    cancel_at_period_end: atPeriodEnd,
    cancellation_date: atPeriodEnd ? (updated.expire_at ?? updated.next_billing_date) : updated.canceled_at,
    updated_at: updated.updated_at,
  };
}
