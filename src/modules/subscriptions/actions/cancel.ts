import { transaction, type Ctx } from '../../../core/context';
import { lockForUpdate, parseJson } from '../../../core/db';
import { fail, invalid } from '../../../core/errors';
import { gatewaySubscriptionOf } from '../portal/gateway-calls';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import { transitionSubscription } from '../service';
import type { Subscription } from '../types';
import { gatewayFailure, gatewayOf, subscriptionOfOrder, titleOf } from './lookup';

export const CANCELLED = 'Subscription has been cancelled successfully!';
export const CANCELLED_LOCALLY = 'Subscription cancelled locally. Vendor Response: ';
export const CANCEL_REASON_REQUIRED = 'Please select cancel reason!';

export interface Cancellation {
  subscription: Subscription;
  /** The gateway's reason when it did not cancel (refused, or did not answer); null when it did or had nothing to cancel. */
  vendor_error: string | null;
  /** It was canceled already (before, or by a parallel request): nothing was called or written. */
  already: boolean;
}

/**
 * Ends the subscription at its gateway, when the gateway bills subscriptions and holds this one (a vendor id), then in
 * the store. A gateway that refuses or does not answer does not stop the local cancel (DESIGN §9): the caller says so
 * with the gateway's reason. The gateway is called outside any transaction; the local cancel locks the row. A
 * subscription canceled already (the state table: any status → canceled), or by a parallel request meanwhile, is
 * left as it is and answered as canceled. `store/subscription/canceled` fires after commit, once.
 */
export async function cancelEverywhere(ctx: Ctx, subscription: Subscription, reason: string): Promise<Cancellation> {
  if (subscription.status === 'canceled') return { subscription, vendor_error: null, already: true };
  const gateway = gatewayOf(ctx, subscription);
  const title = titleOf(gateway, subscription);
  let vendorError: string | null = null;
  if (gateway?.capabilities.subscriptions && gateway.cancelSubscription && subscription.vendor_subscription_id) {
    try {
      const result = await gateway.cancelSubscription(ctx, await gatewaySubscriptionOf(ctx.db, subscription));
      if (result.status === 'failed') vendorError = result.message;
    } catch (error) {
      vendorError = gatewayFailure(ctx, title, error, 'the gateway did not cancel the subscription');
    }
  }
  return transaction(ctx, async (trx, afterCommit) => {
    const row = (await lockForUpdate(trx('store_subscriptions').where({ id: subscription.id }), trx).first()) as SubscriptionRow | undefined;
    if (!row) throw fail('not_found', 'Subscription not found');
    if (row.status === 'canceled') return { subscription: presentSubscription(row), vendor_error: null, already: true };
    const config = { ...parseJson<Record<string, unknown>>(row.config, {}), cancel_reason: reason };
    const note = [`Reason: ${reason}.`, vendorError === null ? '' : `${title} did not cancel it: ${vendorError}`].filter(Boolean).join(' ');
    const canceled = await transitionSubscription(ctx, trx, afterCommit, subscription.id, 'cancel', { config }, { note });
    return { subscription: canceled, vendor_error: vendorError, already: false };
  });
}

/** `PUT /orders/{order}/subscriptions/{subscription}/cancel`. */
export async function cancelOrderSubscription(
  ctx: Ctx,
  orderId: number,
  subscriptionId: number,
  body: { cancel_reason?: string },
): Promise<{ message: string; subscription: Subscription }> {
  const reason = body.cancel_reason?.trim() ?? '';
  if (!reason) throw invalid('cancel_reason', 'required', CANCEL_REASON_REQUIRED);
  const { subscription, vendor_error } = await cancelEverywhere(ctx, await subscriptionOfOrder(ctx.db, orderId, subscriptionId), reason);
  return { message: vendor_error === null ? CANCELLED : `${CANCELLED_LOCALLY}${vendor_error}`, subscription };
}
