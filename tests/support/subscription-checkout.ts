import { transaction } from '../../src/core/context';
import type { SubscriptionStartRequest } from '../../src/gateways/gateway';
import { settleGatewayPayment } from '../../src/modules/payments/settle';
import type { TestApp } from './app';
import { guestForm, testGateway, type TestGateway } from './checkout';

/** The test gateway billing subscriptions itself: `startSubscription` answers like `startPayment`, with a subscription id. */
export interface SubscriptionTestGateway extends TestGateway {
  subscriptionRequests: SubscriptionStartRequest[];
}

export function subscriptionGateway(key = 'subpay'): SubscriptionTestGateway {
  const base = testGateway(key);
  let serial = 0;
  const gateway: SubscriptionTestGateway = Object.assign(base, {
    title: 'Sub Pay',
    capabilities: { ...base.capabilities, subscriptions: true },
    subscriptionRequests: [] as SubscriptionStartRequest[],
    startSubscription: async (_ctx: unknown, request: SubscriptionStartRequest) => {
      gateway.subscriptionRequests.push(request);
      if (gateway.next instanceof Error) throw gateway.next;
      serial += 1;
      const ids = { vendor_subscription_id: `${key}_sub_${serial}`, vendor_customer_id: `${key}_cus_${serial}`, vendor_plan_id: `${key}_plan` };
      const next = gateway.next;
      return next.kind === 'offline' ? { ...next, ...ids } : { ...next, vendor_charge_id: `${next.vendor_charge_id}_${serial}`, ...ids };
    },
  });
  return gateway;
}

/** The gateway reports the first payment of the order placed from a cart: `settleGatewayPayment`, as its webhook would. */
export function settleFirstPayment(app: TestApp, method: string, vendorChargeId: string, amount: number) {
  return transaction(app.ctx(), (trx, afterCommit) => settleGatewayPayment(app.ctx(), trx, afterCommit, { method, vendor_charge_id: vendorChargeId, amount }));
}

/** Place-order fields paying with `method` (a digital subscription needs no shipping method). */
export const subscriptionForm = (method: string, over: Record<string, unknown> = {}) => guestForm({ payment_method: method, ...over });
