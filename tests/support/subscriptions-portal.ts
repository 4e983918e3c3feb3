import crypto from 'node:crypto';
import { presentSubscription, type SubscriptionRow } from '../../src/modules/subscriptions/presenter';
import type { Subscription } from '../../src/modules/subscriptions/types';
import { BASE, type TestApp, type TestUser } from './app';
import { orderFixtures } from './order-writes';

/**
 * Fixtures of the customer-portal subscription tests: a customer linked to a portal user (with primary billing and
 * shipping addresses), a parent order made through `POST /orders`, and subscription rows written straight into
 * `store_subscriptions` in any status (what checkout and the gateways leave).
 */
export function portalFixtures(app: TestApp, admin: () => TestUser, now: string) {
  const fx = orderFixtures(app, now);
  const db = () => app.host.db;

  /** The customer record of `user` (created, with addresses, and linked to the user). */
  async function customerOf(user: TestUser): Promise<number> {
    const linked = (await db()('store_customers').where({ user_id: user.user.id }).first('id')) as { id: number } | undefined;
    if (linked) return Number(linked.id);
    const id = await fx.customer({ address: true });
    await db()('store_customers').where({ id }).update({ user_id: user.user.id });
    return id;
  }

  /**
   * A paid order of the customer through the admin API (its billing address copied from the customer's), in the test
   * payment mode as a checkout in test mode leaves it (gateways use that mode's keys for its subscription).
   */
  async function parentOrder(customerId: number): Promise<{ id: number; uuid: string }> {
    const variation = await fx.variation(1500, { fulfillment_type: 'digital' });
    const res = await app
      .as(admin())
      .post(`${BASE}/orders`)
      .send({ customer_id: customerId, order_items: [{ id: variation.id, quantity: 1 }] });
    if (res.status !== 200) throw new Error(`POST /orders: ${res.status} ${JSON.stringify(res.body)}`);
    await db()('store_orders').where({ id: res.body.order_id }).update({ mode: 'test' });
    const order = (await db()('store_orders').where({ id: res.body.order_id }).first('id', 'uuid')) as { id: number; uuid: string };
    return { id: Number(order.id), uuid: order.uuid };
  }

  /** A subscription row of `user`'s customer on a new parent order; `over` sets any column. */
  async function subscription(user: TestUser, over: Record<string, unknown> = {}): Promise<Subscription & { order_uuid: string }> {
    const customerId = await customerOf(user);
    const order = await parentOrder(customerId);
    const [id] = await db()('store_subscriptions').insert({
      uuid: crypto.randomUUID(),
      customer_id: customerId,
      parent_order_id: order.id,
      product_id: 7,
      variation_id: 9,
      item_name: 'Magazine - Monthly',
      status: 'active',
      collection_method: 'automatic',
      current_payment_method: 'stripe',
      billing_interval: 'monthly',
      currency: 'USD',
      recurring_amount: 1500,
      bill_times: 0,
      bill_count: 1,
      next_billing_date: '2026-12-21 10:00:00',
      config: '{}',
      created_at: now,
      updated_at: now,
      ...over,
    });
    return { ...(await read(Number(id))), order_uuid: order.uuid };
  }

  async function read(id: number): Promise<Subscription> {
    return presentSubscription((await db()('store_subscriptions').where({ id }).first()) as SubscriptionRow);
  }

  /** Activity entries written for the subscription, oldest first. */
  const activities = (id: number) =>
    db()('store_activities').where({ object_type: 'subscription', object_id: id }).orderBy('id').select('title', 'content') as Promise<
      Array<{ title: string; content: string }>
    >;

  return { customerOf, parentOrder, subscription, read, activities };
}
