import type { RateLimits } from '../../../core/ratelimit';
import type { Host } from '../../../host/contract';
import { provideOrderSubscriptions } from '../../orders/subscription-port';
import { registerEarlyPaymentPage } from './early-payment-page';
import { countEarlyPayment } from './early-payment-settle';
import { registerEndAtGatewayJob } from './end-at-gateway';
import { cancelForRefund } from './refund-cancel';

/** What the admin actions add besides their routes: the orders' side of subscriptions, the early-payment page, its job. */
export function registerSubscriptionActions(host: Host, limits: RateLimits): void {
  provideOrderSubscriptions(host, { orderPaid: countEarlyPayment, cancelForRefund });
  registerEarlyPaymentPage(host, limits);
  registerEndAtGatewayJob(host, limits);
}
