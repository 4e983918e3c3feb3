import { transaction, type Ctx } from '../../../core/context';
import { fail } from '../../../core/errors';
import type { Subscription } from '../types';
import { featuresOf } from './gateway-features';
import { atGateway, gatewaySubscriptionOf } from './gateway-calls';
import { assertChangeable, gatewayTitle, isChangeable, takesType } from './methods';
import { ownSubscription } from './own';
import { writePortalChange } from './write';

export function canUpdatePaymentMethod(subscription: Subscription): boolean {
  return isChangeable(subscription) && !!featuresOf(subscription.current_payment_method).usePaymentMethod && subscription.vendor_subscription_id !== '';
}

/**
 * `POST …/update-payment-method`: the gateway charges the subscription's renewals to the new method from now on; the
 * store keeps the reference (`config.payment_method_id`, `payment_method_type`). The gateway is asked first, outside
 * any transaction; the record is written only when it agreed.
 */
export async function updatePaymentMethod(ctx: Ctx, uuid: string, body: { payment_method_id: string; payment_method_type: string }) {
  const subscription = await ownSubscription(ctx, uuid);
  assertChangeable(subscription);
  const key = subscription.current_payment_method;
  const title = gatewayTitle(ctx, key);
  if (!canUpdatePaymentMethod(subscription)) {
    throw fail('payment_method_invalid', `${title} subscriptions take no new payment method from the store; switch to another payment method instead.`);
  }
  if (!takesType(key, body.payment_method_type)) throw fail('payment_method_invalid', `${title} does not take ${body.payment_method_type} payment methods.`);
  const method = { id: body.payment_method_id, type: body.payment_method_type };
  const remote = await gatewaySubscriptionOf(ctx.db, subscription);
  const use = featuresOf(key).usePaymentMethod!;
  await atGateway(ctx, title, () => use(ctx, remote, method.id));

  const updated = await transaction(ctx, async (trx, afterCommit) => {
    const current = await ownSubscription(ctx, uuid, { db: trx, lock: true });
    assertChangeable(current);
    if (current.current_payment_method !== key)
      throw fail('invalid_subscription_status', 'The payment method of this subscription changed meanwhile. Please try again.');
    const config = { ...current.config, payment_method_id: method.id, payment_method_type: method.type };
    return writePortalChange(
      ctx,
      trx,
      afterCommit,
      current,
      { config },
      {
        title: 'Payment method updated by the customer',
        content: `${title} now charges the ${method.type} payment method ${method.id}.`,
      },
    );
  });
  return { id: updated.id, payment_method_id: method.id, updated_at: updated.updated_at };
}
