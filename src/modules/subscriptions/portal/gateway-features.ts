import type { Ctx } from '../../../core/context';
import type { GatewaySubscription } from '../../../gateways/gateway';
import { setStripeCancelAtPeriodEnd, useStripePaymentMethod } from './stripe';

/** What the portal asks of a gateway beyond the `PaymentGateway` interface. */
export interface PortalGatewayFeatures {
  /** Charges the subscription's renewals to another payment method of the customer's at this gateway. */
  usePaymentMethod?(ctx: Ctx, subscription: GatewaySubscription, paymentMethodId: string): Promise<void>;
  /** Ends the subscription at the end of its paid period (`true`), or takes that back (`false`), keeping it resumable. */
  setCancelAtPeriodEnd?(ctx: Ctx, subscription: GatewaySubscription, cancel: boolean): Promise<void>;
}

/**
 * By gateway key. PayPal has neither: the subscriber changes the funding source in their PayPal account, and PayPal
 * subscriptions cannot be set to end later (they are canceled at once, or suspended, which PayPal reports as paused).
 */
const FEATURES: Record<string, PortalGatewayFeatures> = {
  stripe: { usePaymentMethod: useStripePaymentMethod, setCancelAtPeriodEnd: setStripeCancelAtPeriodEnd },
};

export function featuresOf(gatewayKey: string): PortalGatewayFeatures {
  return Object.hasOwn(FEATURES, gatewayKey) ? FEATURES[gatewayKey] : {};
}
