import type { Ctx } from '../../../core/context';
import { fail, invalid } from '../../../core/errors';
import { decimalWithCode } from '../../../core/money';
import { modeOf } from '../../../gateways/paypal/config';
import { getOrCreatePlan } from '../../../gateways/paypal/plans';
import type { BillingInterval } from '../types';
import { atGateway, gatewaySubscriptionOf } from './gateway-calls';
import { assertChangeable, switchableMethods } from './methods';
import { ownSubscription } from './own';
import { chargePerPeriod } from './views';

/**
 * `POST …/get-or-create-plan`: the PayPal billing plan a subscription moving to PayPal subscribes to
 * (`getOrCreatePlan`, reused for equal terms). PayPal must be one of the subscription's `switchable_payment_methods`.
 * The plan bills what the subscription bills: `amount` and `billing_cycle` must be the subscription's own (a customer
 * cannot make a cheaper plan for themselves), for the installments still due, with no trial and no sign-up fee (both
 * were had already). `plan_id` is accepted and not used: plans are found by their terms, never by an id a client names.
 */
export async function portalPlan(ctx: Ctx, uuid: string, body: { amount: number; billing_cycle: BillingInterval }) {
  const subscription = await ownSubscription(ctx, uuid);
  assertChangeable(subscription);
  if (!(await switchableMethods(ctx, subscription)).includes('paypal')) {
    throw fail('payment_method_invalid', 'Billing plans are for moving a subscription to PayPal, which is not available for this subscription.');
  }
  const amount = chargePerPeriod(subscription);
  if (body.amount !== amount)
    throw invalid('amount', 'in', `The amount must be the subscription's ${decimalWithCode(amount, subscription.currency)} (${amount}).`);
  if (body.billing_cycle !== subscription.billing_interval) {
    throw invalid('billing_cycle', 'in', `The billing cycle must be the subscription's: ${subscription.billing_interval}.`);
  }
  const { mode } = await gatewaySubscriptionOf(ctx.db, subscription);
  return atGateway(ctx, 'PayPal', () =>
    getOrCreatePlan(ctx, {
      mode: modeOf(mode),
      amount,
      currency: subscription.currency,
      interval: subscription.billing_interval,
      product_name: subscription.item_name,
      bill_times: subscription.bill_times > 0 ? Math.max(1, subscription.bill_times - subscription.bill_count) : 0,
    }),
  );
}
