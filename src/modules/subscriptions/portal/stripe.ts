import type Stripe from 'stripe';
import type { Ctx } from '../../../core/context';
import { fail } from '../../../core/errors';
import type { GatewaySubscription } from '../../../gateways/gateway';
import { stripeClient, stripeRefused } from '../../../gateways/stripe/client';
import { storeMode, stripeConfig } from '../../../gateways/stripe/config';

async function clientOf(ctx: Ctx, subscription: GatewaySubscription): Promise<Stripe> {
  const config = await stripeConfig(ctx.host);
  return stripeClient(config.secretKey(storeMode(subscription.mode)));
}

/** Stripe refused (a 4xx): `code` with Stripe's message; anything else (no answer, 5xx) is rethrown as unknown. */
async function asking<T>(code: 'payment_method_invalid' | 'gateway_error', what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (stripeRefused(error)) throw fail(code, `Stripe did not accept ${what}: ${error.message}`);
    throw error;
  }
}

/**
 * Makes a payment method the one a Stripe subscription charges: attaches it to the subscription's customer, then sets
 * it as the subscription's `default_payment_method` (`POST /v1/payment_methods/:id/attach`, `POST /v1/subscriptions/:id`).
 * A method Stripe refuses (unknown, declined when attached, another customer's) is `payment_method_invalid`.
 */
export async function useStripePaymentMethod(ctx: Ctx, subscription: GatewaySubscription, paymentMethodId: string): Promise<void> {
  const stripe = await clientOf(ctx, subscription);
  await asking('payment_method_invalid', 'the payment method', async () => {
    if (subscription.vendor_customer_id) await stripe.paymentMethods.attach(paymentMethodId, { customer: subscription.vendor_customer_id });
    await stripe.subscriptions.update(subscription.vendor_subscription_id, { default_payment_method: paymentMethodId });
  });
}

/**
 * Sets whether the Stripe subscription ends at the end of its current period (`cancel_at_period_end`): it then bills
 * no more, and until then it can be resumed by setting it back.
 */
export async function setStripeCancelAtPeriodEnd(ctx: Ctx, subscription: GatewaySubscription, cancel: boolean): Promise<void> {
  const stripe = await clientOf(ctx, subscription);
  await asking('gateway_error', cancel ? 'the cancellation' : 'the reactivation', () =>
    stripe.subscriptions.update(subscription.vendor_subscription_id, { cancel_at_period_end: cancel }),
  );
}
