import { SubscriptionStatus as PayPalStatus, type Subscription as PayPalSubscription } from '@paypal/paypal-server-sdk';
import { transaction, type Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { recordActivity } from '../../modules/activities/service';
import { receiptUrl } from '../../modules/checkout/payment';
import { subscriptionForVendor } from '../../modules/subscriptions/service';
import { paypalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { PAYPAL } from './settle';
import { firstSale, lockPayPalSubscription, pendingParentCharge, settleFirstPayment, type PaidSale } from './subscriptions-settle';

const NOT_FOUND = 'PayPal subscription not found';

/** Where a subscriber whose subscription PayPal did not start goes: back to the checkout, which says so. */
function declinedUrl(ctx: Ctx): string {
  return `${ctx.host.site.url.replace(/\/+$/, '')}/checkout/?payment_error=paypal_declined`;
}

/** The PayPal subscription, and its first sale once it is active; a 502 asking to reload when PayPal does not answer. */
async function readAtPayPal(ctx: Ctx, paymentMode: string, id: string): Promise<{ remote: PayPalSubscription; sale: PaidSale | null }> {
  const credentials = await paypalCredentials(ctx.host, modeOf(paymentMode));
  if (!hasApiKeys(credentials)) throw fail('invalid_state', 'PayPal is not set up to take payments.', { status: 502 });
  const api = paypalApi(credentials);
  try {
    const { result: remote } = await api.subscriptions.getSubscription({ id });
    const sale = remote.status === PayPalStatus.Active ? await firstSale(api, id, remote.createTime, ctx.clock.now()) : null;
    return { remote, sale };
  } catch (error) {
    ctx.host.logger.warn({ err: error, paypal_subscription_id: id }, 'PayPal did not show the subscription');
    throw fail('invalid_state', 'PayPal did not answer, so your payment is not confirmed yet. Please reload this page in a moment.', { status: 502 });
  }
}

/**
 * `GET /checkout/paypal/return?subscription_id=I-…&order_hash=<order uuid>`: the subscriber approved at PayPal and comes
 * back. The PayPal subscription is read (outside any transaction); when ACTIVE and its first sale is among its
 * transactions, the parent order is settled in one transaction with that sale and its subscription activated
 * (`settleFirstPayment`; when a notification settled it meanwhile nothing is done), and the subscriber goes to the
 * receipt. ACTIVE without a sale yet, or not yet active: the receipt, which shows the order pending until the sale's
 * notification settles it. CANCELLED, EXPIRED or SUSPENDED (PayPal refused the first payment): an error
 * activity and back to the checkout. An unknown id, or the id of another order than `order_hash`: 404.
 */
export async function returnFromPayPalSubscription(ctx: Ctx, input: { subscription_id: string; order_hash?: string }): Promise<{ redirect_url: string }> {
  const subscription = await subscriptionForVendor(ctx.db, PAYPAL, input.subscription_id);
  const order =
    subscription?.parent_order_id != null
      ? ((await ctx.db('store_orders').where({ id: subscription.parent_order_id }).first('id', 'uuid', 'mode')) as
          { id: number; uuid: string; mode: string } | undefined)
      : undefined;
  if (!subscription || !order || (input.order_hash && input.order_hash !== order.uuid)) throw fail('not_found', NOT_FOUND, { status: 404 });
  const receipt = { redirect_url: receiptUrl(ctx, order.uuid) };
  if (!(await pendingParentCharge(ctx.db, subscription))) return receipt;

  const { remote, sale } = await readAtPayPal(ctx, order.mode, input.subscription_id);
  if (remote.status === PayPalStatus.Active) {
    if (sale) {
      await transaction(ctx, async (trx, afterCommit) => {
        await lockPayPalSubscription(trx, input.subscription_id);
        const charge = await pendingParentCharge(trx, subscription);
        if (charge) await settleFirstPayment(ctx, trx, afterCommit, charge, sale);
      });
    }
    return receipt;
  }
  if (remote.status === PayPalStatus.Cancelled || remote.status === PayPalStatus.Expired || remote.status === PayPalStatus.Suspended) {
    await transaction(ctx, (trx, afterCommit) =>
      recordActivity(
        trx,
        ctx,
        {
          object_type: 'order',
          object_id: Number(order.id),
          title: 'PayPal subscription not started',
          content: `PayPal reports the subscription ${input.subscription_id} ${remote.status} when the shopper returned${remote.statusChangeNote ? ` (${remote.statusChangeNote})` : ''}. The order stays unpaid; the shopper can pay again from the checkout.`,
          status: 'error',
        },
        afterCommit,
      ),
    );
    return { redirect_url: declinedUrl(ctx) };
  }
  return receipt;
}
