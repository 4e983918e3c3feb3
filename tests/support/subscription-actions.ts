import type { GatewayResult, GatewaySubscription, RemoteSubscription } from '../../src/gateways/gateway';
import { presentSubscription, type SubscriptionRow } from '../../src/modules/subscriptions/presenter';
import type { Subscription } from '../../src/modules/subscriptions/types';
import type { TestApp } from './app';
import { orderFixtures } from './order-writes';
import { insertOrder } from './orders';
import { subscriptionGateway, type SubscriptionTestGateway } from './subscription-checkout';
import { insertSubscription } from './subscription-rows';

/**
 * The test gateway of the admin actions: it bills subscriptions and looks them up (`verify_vendor_ids`), and its
 * answers are set per test: `cancelAnswer` (a result, or an Error it throws), `remote` (what fetch and lookup find;
 * null: nothing, an Error: it throws). It records what it was asked.
 */
export interface ActionGateway extends SubscriptionTestGateway {
  cancelAnswer: GatewayResult | Error;
  remote: RemoteSubscription | null | Error;
  cancels: GatewaySubscription[];
  fetches: GatewaySubscription[];
  lookups: Array<{ vendor_subscription_id: string; vendor_customer_id: string; mode: string }>;
}

export function actionGateway(key = 'subpay'): ActionGateway {
  const base = subscriptionGateway(key);
  const answer = <T>(value: T | Error): T => {
    if (value instanceof Error) throw value;
    return value;
  };
  const gateway: ActionGateway = Object.assign(base, {
    capabilities: { ...base.capabilities, subscriptions: true, verify_vendor_ids: true },
    cancelAnswer: { status: 'success', message: 'Canceled at Sub Pay.' } as GatewayResult | Error,
    remote: null as RemoteSubscription | null | Error,
    cancels: [] as GatewaySubscription[],
    fetches: [] as GatewaySubscription[],
    lookups: [] as ActionGateway['lookups'],
    cancelSubscription: async (_ctx: unknown, subscription: GatewaySubscription) => {
      gateway.cancels.push(subscription);
      return answer(gateway.cancelAnswer);
    },
    fetchSubscription: async (_ctx: unknown, subscription: GatewaySubscription) => {
      gateway.fetches.push(subscription);
      const remote = answer(gateway.remote);
      if (!remote) throw new Error('no such subscription');
      return remote;
    },
    lookupSubscription: async (_ctx: unknown, ids: ActionGateway['lookups'][number]) => {
      gateway.lookups.push(ids);
      return answer(gateway.remote);
    },
  });
  return gateway;
}

/** Adds gateways to the store through `store/payment_gateways`; returns the unsubscribe. */
export function useGateways(app: TestApp, ...gateways: Array<{ key: string }>) {
  return app.host.hooks.addFilter('store/payment_gateways', (list) => [...list, ...(gateways as typeof list)]);
}

export interface Family {
  customerId: number;
  orderId: number;
  subscriptionId: number;
  uuid: string;
}

/**
 * Subscriptions as checkout leaves them, written straight into the tables: a customer with addresses, a paid
 * `subscription` order (one subscription item, a billing address) and its subscription, active and gateway-billed by
 * `subpay` unless `subscription` says otherwise.
 */
export function subscriptionFamilies(app: TestApp, now: string) {
  const fx = orderFixtures(app, now);
  const db = () => app.host.db;
  let serial = 0;

  async function family(over: { subscription?: Record<string, unknown>; order?: Record<string, unknown>; customerId?: number } = {}): Promise<Family> {
    const n = ++serial;
    const customerId = over.customerId ?? (await fx.customer({ address: true }));
    const orderId = await insertOrder(
      db(),
      customerId,
      now,
      { type: 'subscription', payment_method: 'subpay', payment_method_title: 'Sub Pay', fulfillment_type: 'digital', mode: 'test', ...over.order },
      [
        {
          payment_type: 'subscription',
          fulfillment_type: 'digital',
          post_title: 'Magazine',
          title: 'Monthly',
          quantity: 1,
          unit_price: 1000,
          line_total: 1000,
        },
      ],
    );
    await db()('store_order_addresses').insert({
      order_id: orderId,
      type: 'billing',
      name: 'Buyer',
      address_1: '1 Main St',
      city: 'Los Angeles',
      country: 'US',
      created_at: now,
      updated_at: now,
    });
    const subscriptionId = await insertSubscription(db(), {
      customer_id: customerId,
      parent_order_id: orderId,
      item_name: 'Magazine - Monthly',
      current_payment_method: 'subpay',
      vendor_subscription_id: `subpay_sub_${n}`,
      vendor_customer_id: `subpay_cus_${n}`,
      bill_count: 1,
      next_billing_date: '2026-12-21 10:00:00',
      created_at: now,
      ...over.subscription,
    });
    const { uuid } = await subscription(subscriptionId);
    return { customerId, orderId, subscriptionId, uuid };
  }

  /** A paid renewal order of the family's order. */
  function renewal(parentId: number, customerId: number, over: Record<string, unknown> = {}): Promise<number> {
    return insertOrder(db(), customerId, now, { type: 'renewal', parent_id: parentId, payment_method: 'subpay', ...over });
  }

  async function subscription(id: number): Promise<Subscription> {
    return presentSubscription((await db()('store_subscriptions').where({ id }).first()) as SubscriptionRow);
  }

  /** Everything a refused request must leave as it was. */
  async function snapshot(): Promise<unknown> {
    const tables = ['store_subscriptions', 'store_orders', 'store_order_transactions', 'store_activities', 'jobs'];
    return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await db()(table).orderBy('id')] as const)));
  }

  return { ...fx, family, renewal, subscription, snapshot };
}

export const remoteOf = (over: Partial<RemoteSubscription> = {}): RemoteSubscription => ({
  id: 'subpay_sub_1',
  status: 'active',
  customer_id: 'subpay_cus_1',
  plan_id: 'subpay_plan',
  amount: 1999,
  currency: 'USD',
  next_billing_date: '2027-01-05 00:00:00',
  canceled_at: null,
  ...over,
});
