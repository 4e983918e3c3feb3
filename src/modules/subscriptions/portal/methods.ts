import type { Ctx } from '../../../core/context';
import { fail } from '../../../core/errors';
import { paymentGateways } from '../../../gateways/registry';
import type { PaymentGateway } from '../../../gateways/gateway';
import type { Subscription, SubscriptionStatus } from '../types';

/** What the customer may change from the portal: a subscription that is still being billed. */
export const CHANGEABLE: readonly SubscriptionStatus[] = ['active', 'trialing', 'failing'];

export const isChangeable = (subscription: Subscription) => CHANGEABLE.includes(subscription.status) && subscription.collection_method === 'automatic';

/**
 * Refuses a change to a subscription the customer may not change: one no longer billed (`invalid_subscription_status`),
 * or one the store bills by hand rather than a gateway (`insufficient_permissions`: the store manages it).
 */
export function assertChangeable(subscription: Subscription): void {
  if (!CHANGEABLE.includes(subscription.status)) {
    throw fail('invalid_subscription_status', `This subscription is ${subscription.status}; only active, trialing or failing subscriptions can be changed.`);
  }
  if (subscription.collection_method !== 'automatic') {
    throw fail('insufficient_permissions', 'This subscription is billed by the store directly; please contact the store to change it.');
  }
}

/** Payment method kinds a gateway takes from the portal; a gateway not listed takes only its own key as the kind. */
const METHOD_TYPES: Record<string, readonly string[]> = {
  stripe: ['card', 'sepa_debit', 'us_bank_account', 'link'],
  paypal: ['paypal'],
};

export function takesType(gatewayKey: string, type: string): boolean {
  return type === gatewayKey || (Object.hasOwn(METHOD_TYPES, gatewayKey) && METHOD_TYPES[gatewayKey].includes(type));
}

/** The gateways that bill subscriptions themselves (`capabilities.subscriptions`) and take payments now, by key. */
async function subscriptionGateways(ctx: Ctx): Promise<PaymentGateway[]> {
  const out: PaymentGateway[] = [];
  for (const gateway of paymentGateways(ctx).values()) {
    if (gateway.capabilities.subscriptions && gateway.availableAtCheckout && (await gateway.availableAtCheckout(ctx))) out.push(gateway);
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

/**
 * Gateways the subscription may move to (`switchable_payment_methods`): the available subscription gateways other
 * than its current one; none while the subscription cannot be changed.
 */
export async function switchableMethods(ctx: Ctx, subscription: Subscription): Promise<string[]> {
  if (!isChangeable(subscription)) return [];
  return (await subscriptionGateways(ctx)).filter((gateway) => gateway.key !== subscription.current_payment_method).map((gateway) => gateway.key);
}

/** The switch target a payment method kind names among the switchable gateways; null when none takes it. */
export function switchTarget(switchable: readonly string[], type: string): string | null {
  return switchable.find((key) => key === type) ?? switchable.find((key) => takesType(key, type)) ?? null;
}

export function gatewayTitle(ctx: Ctx, key: string): string {
  return paymentGateways(ctx).get(key)?.title ?? key;
}
