import { transaction, type Ctx } from '../../../core/context';
import { fail } from '../../../core/errors';
import type { RemoteSubscription } from '../../../gateways/gateway';
import { gatewaySubscriptionOf } from '../portal/gateway-calls';
import { transitionSubscription } from '../service';
import { SUBSCRIPTION_STATUSES, type Subscription, type SubscriptionStatus } from '../types';
import { gatewayFailure, gatewayOf, subscriptionOfOrder, titleOf } from './lookup';

export const FETCHED = 'Subscription fetched successfully from remote payment gateway!';

const isStatus = (value: string): value is SubscriptionStatus => (SUBSCRIPTION_STATUSES as readonly string[]).includes(value);

/**
 * `PUT /orders/{order}/subscriptions/{subscription}/fetch`: the subscription as its gateway has it now. The gateway's
 * status is taken (event `sync`, any status) with its `next_billing_date` and `canceled_at`. Refused with the reason as
 * the message: 400 when the payment method cannot fetch subscriptions or the subscription has no vendor id, 502 when the
 * gateway refused or did not answer (nothing is written then).
 */
export async function fetchOrderSubscription(ctx: Ctx, orderId: number, subscriptionId: number): Promise<{ message: string; subscription: Subscription }> {
  const subscription = await subscriptionOfOrder(ctx.db, orderId, subscriptionId);
  const gateway = gatewayOf(ctx, subscription);
  const title = titleOf(gateway, subscription);
  if (!gateway?.capabilities.subscriptions || !gateway.fetchSubscription) {
    throw fail('invalid_state', `${title} does not keep subscriptions at a payment gateway: there is nothing to fetch.`);
  }
  if (!subscription.vendor_subscription_id) throw fail('invalid_state', `This subscription has no vendor subscription ID at ${title} to fetch it by.`);
  let remote: RemoteSubscription;
  try {
    remote = await gateway.fetchSubscription(ctx, await gatewaySubscriptionOf(ctx.db, subscription));
  } catch (error) {
    throw fail('invalid_state', gatewayFailure(ctx, title, error, 'the gateway did not return the subscription'), { status: 502 });
  }
  const status = remote.status;
  if (!isStatus(status)) throw fail('invalid_state', `${title} reported a subscription status the store does not know: ${status}.`, { status: 502 });
  const refreshed = await transaction(ctx, (trx, afterCommit) =>
    transitionSubscription(
      ctx,
      trx,
      afterCommit,
      subscription.id,
      'sync',
      { status, next_billing_date: remote.next_billing_date, canceled_at: remote.canceled_at },
      { note: `Fetched from ${title}.` },
    ),
  );
  return { message: FETCHED, subscription: refreshed };
}
