import crypto from 'node:crypto';
import { presentSubscription, type SubscriptionRow } from '../../src/modules/subscriptions/presenter';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { insertSubscription } from '../support/subscription-rows';

const NOW = '2026-11-21 10:00:00';

describe('GET /subscriptions/{subscriptionOrderId}', () => {
  let app: TestApp;
  let admin: TestUser;
  let customerId: number;
  let parentId: number;
  let subscriptionId: number;
  let renewals: number[];
  let labels: number[];

  const db = () => app.host.db;
  const detail = (id: number | string) => app.as(admin).get(`${BASE}/subscriptions/${id}`);

  const orderAddress = (orderId: number, type: string, city: string) => ({
    order_id: orderId,
    type,
    name: 'Ann Archer',
    address_1: '1 Market Street',
    city,
    state: 'CA',
    postcode: '94105',
    country: 'US',
    meta: '{}',
    created_at: NOW,
    updated_at: NOW,
  });

  /** The statements on the store's tables one request sends (rate-limit counters and the host's reads aside). */
  async function storeStatements(send: () => Promise<{ status: number }>, status: number): Promise<string[]> {
    const sql: string[] = [];
    const listener = (query: { sql: string }) => {
      if (/store_(?!rate_limits)/.test(query.sql)) sql.push(query.sql);
    };
    db().on('query', listener);
    try {
      expect((await send()).status).toBe(status);
    } finally {
      db().off('query', listener);
    }
    return sql;
  }

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.options.set('hourly_request_limits', { list: 100_000 });
    admin = await app.createUser('admin', ['administrator']);
    const [customer] = await db()('store_customers').insert({
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: 'Archer',
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      created_at: NOW,
      updated_at: NOW,
    });
    customerId = Number(customer);
    const address = (type: string, is_primary: number, city: string) => ({
      customer_id: customerId,
      type,
      is_primary,
      primary_slot: is_primary ? type : null,
      name: 'Ann Archer',
      email: 'ann@example.com',
      address_1: '1 Market Street',
      city,
      postcode: '94105',
      country: 'US',
      state: 'CA',
      meta: '{}',
      created_at: NOW,
      updated_at: NOW,
    });
    await db()('store_customer_addresses').insert([address('billing', 0, 'Oakland'), address('billing', 1, 'San Francisco'), address('shipping', 1, 'Austin')]);

    parentId = await insertOrder(db(), customerId, '2026-01-10 10:00:00', { type: 'subscription', invoice_no: 'INV-1' }, [
      { post_title: 'Pro Plan', title: 'Monthly', variation_id: 11, post_id: 21, payment_type: 'subscription' },
    ]);
    await db()('store_order_addresses').insert([orderAddress(parentId, 'billing', 'San Francisco'), orderAddress(parentId, 'shipping', 'Austin')]);
    renewals = [];
    for (const month of ['02', '03']) {
      renewals.push(
        await insertOrder(db(), customerId, `2026-${month}-10 10:00:00`, { type: 'renewal', parent_id: parentId, invoice_no: `INV-${month}` }, [
          { post_title: 'Pro Plan', title: 'Monthly', variation_id: 11, post_id: 21, payment_type: 'subscription' },
        ]),
      );
    }
    // A child order that is not a renewal is not one of the subscription's orders.
    await insertOrder(db(), customerId, NOW, { type: 'payment', parent_id: parentId });

    subscriptionId = await insertSubscription(db(), {
      customer_id: customerId,
      parent_order_id: parentId,
      product_id: 21,
      variation_id: 11,
      item_name: 'Pro Plan',
      vendor_subscription_id: 'sub_123',
      vendor_customer_id: 'cus_123',
      bill_count: 3,
      next_billing_date: '2026-12-10 10:00:00',
      config: JSON.stringify({ cancel_reason: null }),
      created_at: '2026-01-10 10:00:00',
    });
    const titles = ['VIP', 'Wholesale'];
    labels = [];
    for (const title of titles) {
      const [id] = await db()('store_labels').insert({ title, color: '', created_at: NOW, updated_at: NOW });
      labels.push(Number(id));
      await db()('store_label_relations').insert({ label_id: Number(id), object_type: 'subscription', object_id: subscriptionId, created_at: NOW });
    }
    // A label of the order with the same id is not the subscription's.
    await db()('store_label_relations').insert({ label_id: labels[0], object_type: 'order', object_id: 999, created_at: NOW });
    for (const title of ['Subscription activated', 'Subscription renewed']) {
      await db()('store_activities').insert({ object_type: 'subscription', object_id: subscriptionId, title, content: '', status: 'info', created_at: NOW });
    }
    await db()('store_activities').insert({
      object_type: 'order',
      object_id: subscriptionId,
      title: 'Order note',
      content: '',
      status: 'info',
      created_at: NOW,
    });
    await detail(subscriptionId).expect(200); // reads the tables' columns once
  });
  afterAll(() => app.close());

  it('answers 401 to anonymous callers and 403 without subscriptions/view', async () => {
    expect((await app.http.get(`${BASE}/subscriptions/${subscriptionId}`)).status).toBe(401);
    const shopper = await app.createUser('shopper', ['customer']);
    const refused = await app.as(shopper).get(`${BASE}/subscriptions/${subscriptionId}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'rest_forbidden' });
    const support = await app.createUser('support', ['customer_service']);
    expect((await app.as(support).get(`${BASE}/subscriptions/${subscriptionId}`)).status).toBe(200);
  });

  it('answers {subscription: the resource with every relation, selected_labels}', async () => {
    const res = await detail(subscriptionId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['subscription', 'selected_labels']);
    const { subscription } = res.body;
    const row = (await db()('store_subscriptions').where({ id: subscriptionId }).first()) as SubscriptionRow;
    expect(subscription).toMatchObject(presentSubscription(row) as unknown as Record<string, unknown>);
    expect(subscription).toMatchObject({ id: subscriptionId, status: 'active', parent_order_id: parentId, bill_count: 3, config: { cancel_reason: null } });
    expect(res.body.selected_labels).toEqual(labels);
    expect(subscription.selected_labels).toEqual(labels);
    expect(subscription.labels).toEqual([
      expect.objectContaining({ id: labels[0], title: 'VIP' }),
      expect.objectContaining({ id: labels[1], title: 'Wholesale' }),
    ]);
    expect(subscription.activities.map((a: { title: string }) => a.title)).toEqual(['Subscription renewed', 'Subscription activated']);
    expect(subscription.activities[0]).toMatchObject({ object_type: 'subscription', object_id: subscriptionId });
  });

  it("billing_address and shipping_address are the parent order's", async () => {
    const { subscription } = (await detail(subscriptionId)).body;
    expect(subscription.billing_address).toMatchObject({
      order_id: parentId,
      type: 'billing',
      city: 'San Francisco',
      formatted_address: { full_address: expect.stringContaining('1 Market Street') },
    });
    expect(subscription.shipping_address).toMatchObject({ order_id: parentId, type: 'shipping', city: 'Austin' });
  });

  it('customer: the admin shape with its billing and shipping addresses, primary first', async () => {
    const { customer } = (await detail(subscriptionId)).body.subscription;
    expect(customer).toMatchObject({ id: customerId, email: 'ann@example.com', full_name: 'Ann Archer', country_name: '' });
    expect(customer.billing_address.map((a: { city: string; is_primary: number }) => [a.city, a.is_primary])).toEqual([
      ['San Francisco', 1],
      ['Oakland', 0],
    ]);
    expect(customer.shipping_address).toEqual([expect.objectContaining({ type: 'shipping', city: 'Austin', formatted_address: expect.any(Object) })]);
  });

  it('order: the parent order with its addresses; related_orders: the renewals and the parent, newest first, with their items', async () => {
    const { order, related_orders } = (await detail(subscriptionId)).body.subscription;
    expect(order).toMatchObject({
      id: parentId,
      type: 'subscription',
      invoice_no: 'INV-1',
      billing_address: { city: 'San Francisco' },
      shipping_address: { city: 'Austin' },
    });
    expect(related_orders.map((o: { id: number; type: string }) => [o.id, o.type])).toEqual([
      [renewals[1], 'renewal'],
      [renewals[0], 'renewal'],
      [parentId, 'subscription'],
    ]);
    for (const related of related_orders) {
      expect(related.order_items).toEqual([expect.objectContaining({ order_id: related.id, post_title: 'Pro Plan', title: 'Monthly', variation_id: 11 })]);
    }
  });

  it('a subscription without parent order or customer answers nulls and empty lists', async () => {
    const bare = await insertSubscription(db(), { status: 'pending' });
    const { body } = await detail(bare).expect(200);
    expect(body.selected_labels).toEqual([]);
    expect(body.subscription).toMatchObject({
      id: bare,
      parent_order_id: null,
      customer_id: null,
      billing_address: null,
      shipping_address: null,
      customer: null,
      order: null,
      related_orders: [],
      labels: [],
      selected_labels: [],
      activities: [],
    });
  });

  it('a missing subscription is 404 with the way back to the list; an id that is not one is a 422', async () => {
    const res = await detail(999999);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: 'Subscription not found',
      action_text: 'Back to Subscriptions',
      action_url: 'http://store.test/wp-admin/admin.php?page=store#/subscriptions',
    });
    for (const id of ['abc', '0', '99999999999']) {
      const bad = await detail(id);
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors)).toEqual(['subscriptionOrderId']);
    }
  });

  it('reads everything in one statement, a missing subscription too', async () => {
    const sql = await storeStatements(() => detail(subscriptionId), 200);
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/ union all /);
    expect(await storeStatements(() => detail(999999), 404)).toHaveLength(1);
  });
});
