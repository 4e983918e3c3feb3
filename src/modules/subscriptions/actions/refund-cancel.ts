import type { Ctx } from '../../../core/context';
import type { SubscriptionCancelPart } from '../../orders/subscription-port';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import type { Subscription } from '../types';
import { cancelEverywhere } from './cancel';

/** The cancel reason a refund records. */
export const REFUND_REASON = 'Refunded';

/** The refund is recorded by now: a subscription that cannot be canceled is reported in the answer, never thrown. */
async function cancelOne(ctx: Ctx, subscription: Subscription): Promise<{ failed: boolean; message: string }> {
  try {
    const { vendor_error, already } = await cancelEverywhere(ctx, subscription, REFUND_REASON);
    if (already) return { failed: false, message: `Subscription #${subscription.id} was already canceled.` };
    return vendor_error === null
      ? { failed: false, message: `Subscription #${subscription.id} has been cancelled.` }
      : { failed: true, message: `Subscription #${subscription.id} cancelled locally. Vendor Response: ${vendor_error}` };
  } catch (error) {
    ctx.host.logger.error({ err: error, subscription_id: subscription.id }, 'a refund could not cancel the subscription');
    return { failed: true, message: `Subscription #${subscription.id} could not be canceled; cancel it from the subscription.` };
  }
}

/**
 * A refund with `cancelSubscription: 'true'`: every subscription of the order (a renewal's are its parent order's) that
 * is not canceled yet is canceled as the admin route does, at the gateway and in the store. `failed` when a gateway did
 * not cancel its subscription (it is canceled in the store all the same, and the message says why).
 */
export async function cancelForRefund(ctx: Ctx, orderId: number): Promise<SubscriptionCancelPart> {
  const order = (await ctx.db('store_orders').where({ id: orderId }).first('type', 'parent_id')) as { type: string; parent_id: number | null } | undefined;
  const parentId = order?.type === 'renewal' && order.parent_id !== null ? Number(order.parent_id) : orderId;
  const rows = (await ctx.db('store_subscriptions').where({ parent_order_id: parentId }).orderBy('id')) as SubscriptionRow[];
  const open = rows.map(presentSubscription).filter((s) => s.status !== 'canceled');
  if (!rows.length) return { status: 'skipped', message: 'The order has no subscription to cancel.' };
  if (!open.length) return { status: 'skipped', message: 'The subscription of the order was already canceled.' };
  const messages: string[] = [];
  let failed = false;
  for (const subscription of open) {
    const outcome = await cancelOne(ctx, subscription);
    failed ||= outcome.failed;
    messages.push(outcome.message);
  }
  return { status: failed ? 'failed' : 'success', message: messages.join(' ') };
}
