import crypto from 'node:crypto';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

/** The Order fields of the spec (plus the stored ones the reference adds: parent, receipt, shipping status, mode, fees). */
const ORDER_FIELDS = [
  'id',
  'uuid',
  'parent_id',
  'customer_id',
  'receipt_number',
  'invoice_no',
  'status',
  'payment_status',
  'shipping_status',
  'payment_method',
  'payment_method_title',
  'type',
  'fulfillment_type',
  'mode',
  'currency',
  'subtotal',
  'discount_tax',
  'manual_discount_total',
  'coupon_discount_total',
  'shipping_tax',
  'shipping_total',
  'fee_total',
  'tax_total',
  'total_amount',
  'total_paid',
  'total_refund',
  'rate',
  'note',
  'ip_address',
  'completed_at',
  'refunded_at',
  'created_at',
  'updated_at',
];

const DETAIL_FIELDS = [
  'customer',
  'order_items',
  'transactions',
  'billing_address',
  'shipping_address',
  'labels',
  'applied_coupons',
  'order_operation',
  'subscriptions',
  'activities',
  'children',
  'parent_order',
  'receipt_url',
  'custom_checkout_url',
  'has_missing_licenses',
];

describe('GET /orders/{order_id}', () => {
  let app: TestApp;
  let admin: TestUser;
  let customerId: number;
  let parent: number;
  let child: number;
  let bare: number;
  const labels: Record<string, number> = {};

  const db = () => app.host.db;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    customerId = Number(
      (
        await db()('store_customers').insert({
          email: 'ann@example.com',
          first_name: 'Ann',
          last_name: 'Archer',
          country: 'US',
          uuid: crypto.randomUUID(),
          status: 'active',
          purchase_value: '{"USD":5000}',
          ltv: 5000,
          purchase_count: 1,
          created_at: NOW,
          updated_at: NOW,
        })
      )[0],
    );
    const config = {
      discount: { type: 'percentage', label: 'Loyalty', reason: 'Returning customer', action: 'apply', value: 10 },
      shipping: [{ type: 'custom', rate_name: 'Courier', custom_price: 700 }],
      tax_id: 'DE123456789',
      send_receipt: true,
    };
    parent = await insertOrder(
      db(),
      customerId,
      '2026-11-01 10:00:00',
      {
        invoice_no: 'INV-7',
        receipt_number: 7,
        type: 'subscription',
        payment_method: 'stripe',
        payment_method_title: 'Card',
        subtotal: 5000,
        manual_discount_total: 500,
        coupon_discount_total: 200,
        shipping_total: 700,
        total_amount: 5000,
        total_paid: 5000,
        total_refund: 1000,
        payment_status: 'partially-refunded',
        shipping_status: 'shipped',
        tax_behavior: 1,
        rate: '1.250000',
        note: 'Leave at the door',
        completed_at: '2026-11-01 10:05:00',
        config: JSON.stringify(config),
      },
      [
        { cart_index: 1, title: 'Yearly', post_title: 'Pro Plan', variation_id: 31, post_id: 30, payment_type: 'subscription', unit_price: 4000, quantity: 1 },
        {
          cart_index: 0,
          title: 'Navy / M',
          post_title: 'Cotton Shirt',
          variation_id: 21,
          post_id: 20,
          unit_price: 1000,
          quantity: 2,
          other_info: '{"gift":true}',
        },
      ],
    );
    child = await insertOrder(db(), customerId, '2026-11-10 10:00:00', { invoice_no: 'INV-8', type: 'renewal', parent_id: parent });
    await insertOrder(db(), customerId, '2026-11-11 10:00:00', { invoice_no: 'INV-9', type: 'renewal', parent_id: parent });
    bare = await insertOrder(db(), null as unknown as number, '2026-11-12 10:00:00', {
      invoice_no: '',
      status: 'on-hold',
      payment_status: 'pending',
      total_paid: 0,
    });

    const tx = (over: Record<string, unknown>) =>
      db()('store_order_transactions').insert({ uuid: crypto.randomUUID(), order_id: parent, created_at: NOW, updated_at: NOW, ...over });
    await tx({
      vendor_charge_id: 'pi_1',
      payment_method: 'stripe',
      card_brand: 'visa',
      card_last_4: '0042',
      status: 'succeeded',
      total: 5000,
      meta: '{"risk":"low"}',
    });
    await tx({ vendor_charge_id: 're_1', payment_method: 'stripe', transaction_type: 'refund', status: 'refunded', total: 1000 });
    await db()('store_order_addresses').insert([
      {
        order_id: parent,
        type: 'billing',
        name: 'Ann Archer',
        address_1: '1 Market Street',
        city: 'San Francisco',
        state: 'CA',
        postcode: '94105',
        country: 'US',
        email: 'ann@example.com',
        meta: '{"tax_id":"US-ignored"}',
        created_at: NOW,
        updated_at: NOW,
      },
      {
        order_id: parent,
        type: 'shipping',
        name: 'Ann Archer',
        address_1: '2 Main Street',
        city: 'Austin',
        state: 'TX',
        postcode: '73301',
        country: 'US',
        email: '',
        meta: null,
        created_at: NOW,
        updated_at: NOW,
      },
    ]);
    for (const title of ['VIP', 'Wholesale'])
      labels[title] = Number((await db()('store_labels').insert({ title, color: '#f00', created_at: NOW, updated_at: NOW }))[0]);
    await db()('store_label_relations').insert([
      { label_id: labels.Wholesale, object_type: 'order', object_id: parent, created_at: NOW },
      { label_id: labels.VIP, object_type: 'order', object_id: parent, created_at: NOW },
      { label_id: labels.VIP, object_type: 'customer', object_id: bare, created_at: NOW },
    ]);
    await db()('store_applied_coupons').insert({
      order_id: parent,
      coupon_id: 5,
      customer_id: customerId,
      code: 'LATE',
      type: 'fixed',
      amount: 100,
      discounted_amount: 100,
      priority: 20,
      created_at: NOW,
      updated_at: NOW,
    });
    await db()('store_applied_coupons').insert({
      order_id: parent,
      coupon_id: 4,
      customer_id: customerId,
      code: 'EARLY',
      type: 'fixed',
      amount: 100,
      discounted_amount: 100,
      stackable: 1,
      priority: 1,
      max_uses: 10,
      use_count: 3,
      max_per_customer: 1,
      min_purchase_amount: 1000,
      max_discount_amount: 5000,
      notes: 'launch',
      created_at: NOW,
      updated_at: NOW,
    });
    await db()('store_order_operations').insert({
      order_id: parent,
      created_via: 'checkout',
      cart_hash: 'abc',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'autumn',
      utm_term: '',
      utm_content: '',
      utm_id: '',
      refer_url: 'https://example.com/blog',
      meta: '{"landing":"/pro"}',
      created_at: NOW,
      updated_at: NOW,
    });
    const activity = (object_type: string, object_id: number, title: string, created_at: string) =>
      db()('store_activities').insert({ object_type, object_id, title, content: '', status: 'info', created_by: 'System', created_at });
    await activity('order', parent, 'Order created', '2026-11-01 10:00:00');
    await activity('order', parent, 'Order paid', '2026-11-01 10:05:00');
    await activity('customer', parent, 'Not about the order', NOW);
    await activity('order', child, 'Renewal created', NOW);
  });
  afterAll(() => app.close());

  const get = (id: number | string, user: TestUser = admin) => app.as(user).get(`${BASE}/orders/${id}`);

  it('answers 401 to anonymous callers, 403 without orders/view, and the order to a viewer', async () => {
    const anonymous = await app.http.get(`${BASE}/orders/${parent}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'rest_forbidden' });
    const denied = await get(parent, await app.createUser('pm', ['product_manager']));
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'rest_forbidden' });
    const viewer = await get(parent, await app.createUser('clerk', ['customer_service']));
    expect(viewer.status).toBe(200);
    expect(viewer.body.order.id).toBe(parent);
  });

  it("answers 404 {message: 'Order not found'} for a missing order (422 for an id that is not a number)", async () => {
    const res = await get(999999);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Order not found' });
    const notAnId = await get('abc');
    expect(notAnId.status).toBe(422);
    expect(notAnId.body).toEqual({
      message: 'The order id field must be an integer.',
      errors: { order_id: { integer: 'The order id field must be an integer.' } },
    });
  });

  it('answers {order, discount_meta, shipping_meta, order_settings, selected_labels, tax_id}', async () => {
    const res = await get(parent);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['order', 'discount_meta', 'shipping_meta', 'order_settings', 'selected_labels', 'tax_id']);
    expect(Object.keys(res.body.order)).toEqual([...ORDER_FIELDS, ...DETAIL_FIELDS]);
    expect(res.body.order).toMatchObject({
      id: parent,
      parent_id: null,
      customer_id: customerId,
      receipt_number: 7,
      invoice_no: 'INV-7',
      type: 'subscription',
      payment_status: 'partially-refunded',
      shipping_status: 'shipped',
      payment_method_title: 'Card',
      manual_discount_total: 500,
      total_refund: 1000,
      rate: 1.25,
      note: 'Leave at the door',
      completed_at: '2026-11-01 10:05:00',
      refunded_at: null,
      subscriptions: [],
      has_missing_licenses: false,
    });
    const uuid = res.body.order.uuid as string;
    expect(res.body.order.receipt_url).toBe(`http://store.test/receipt/?order_hash=${uuid}`);
    expect(res.body.order.custom_checkout_url).toBe(`http://store.test/checkout/?order_hash=${uuid}`);
  });

  it('carries the customer, the items in cart order, the transactions and both addresses', async () => {
    const { order } = (await get(parent)).body;
    expect(order.customer).toMatchObject({
      id: customerId,
      email: 'ann@example.com',
      full_name: 'Ann Archer',
      country_name: 'United States of America',
      purchase_value: { USD: 5000 },
      ltv: 5000,
      photo: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}/),
    });
    expect(order.order_items.map((i: { title: string }) => i.title)).toEqual(['Navy / M', 'Yearly']);
    expect(order.order_items[0]).toMatchObject({
      order_id: parent,
      post_id: 20,
      variation_id: 21,
      object_id: 21,
      quantity: 2,
      unit_price: 1000,
      price: 1000,
      payment_type: 'onetime',
      other_info: { gift: true },
      line_meta: {},
    });
    expect(order.transactions).toEqual([
      expect.objectContaining({
        order_id: parent,
        transaction_type: 'charge',
        vendor_charge_id: 'pi_1',
        card_last_4: '0042',
        status: 'succeeded',
        amount: 5000,
        total: 5000,
        rate: 1,
        meta: { risk: 'low' },
      }),
      expect.objectContaining({ transaction_type: 'refund', status: 'refunded', amount: 1000, subscription_id: null, meta: {} }),
    ]);
    expect(order.billing_address).toEqual({
      id: expect.any(Number),
      order_id: parent,
      type: 'billing',
      name: 'Ann Archer',
      company_name: '',
      address_1: '1 Market Street',
      address_2: '',
      city: 'San Francisco',
      state: 'CA',
      postcode: '94105',
      country: 'US',
      phone: '',
      email: 'ann@example.com',
      meta: { tax_id: 'US-ignored' },
      created_at: NOW,
      updated_at: NOW,
      formatted_address: {
        country: 'US',
        state: 'CA',
        city: 'San Francisco',
        postcode: '94105',
        address_1: '1 Market Street',
        address_2: '',
        name: 'Ann Archer',
        company_name: '',
        type: 'billing',
        phone: '',
        full_address: 'Ann Archer, 1 Market Street, SAN FRANCISCO, CA 94105, United States of America',
      },
    });
    expect(order.shipping_address).toMatchObject({ type: 'shipping', city: 'Austin', state: 'TX' });
  });

  it('carries labels, applied coupons (by priority), the UTM record and the newest activities of the order', async () => {
    const res = await get(parent);
    const { order } = res.body;
    expect(order.labels.map((l: { id: number }) => l.id)).toEqual([labels.VIP, labels.Wholesale]);
    expect(order.labels[0]).toEqual({ id: labels.VIP, title: 'VIP', color: '#f00', created_at: NOW, updated_at: NOW });
    expect(res.body.selected_labels).toEqual([labels.VIP, labels.Wholesale]);
    expect(order.applied_coupons.map((c: { code: string }) => c.code)).toEqual(['EARLY', 'LATE']);
    expect(order.applied_coupons[0]).toEqual({
      id: expect.any(Number),
      order_id: parent,
      coupon_id: 4,
      customer_id: customerId,
      code: 'EARLY',
      type: 'fixed',
      amount: 100,
      discounted_amount: 100,
      discount: 100,
      stackable: 1,
      priority: 1,
      max_uses: 10,
      use_count: 3,
      max_per_customer: 1,
      min_purchase_amount: 1000,
      max_discount_amount: 5000,
      notes: 'launch',
      created_at: NOW,
      updated_at: NOW,
    });
    expect(order.applied_coupons[1]).toMatchObject({ stackable: 0, max_uses: null, max_per_customer: null, min_purchase_amount: null });
    expect(order.order_operation).toEqual({
      id: expect.any(Number),
      order_id: parent,
      created_via: 'checkout',
      cart_hash: 'abc',
      utm_campaign: 'autumn',
      utm_term: '',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_content: '',
      utm_id: '',
      refer_url: 'https://example.com/blog',
      meta: { landing: '/pro' },
      created_at: NOW,
      updated_at: NOW,
    });
    expect(order.activities.map((a: { title: string }) => a.title)).toEqual(['Order paid', 'Order created']);
    expect(order.activities[0]).toMatchObject({
      object_type: 'order',
      object_id: parent,
      created_by: 'System',
      user_id: null,
      created_at: '2026-11-01 10:05:00',
    });
  });

  it('carries the children (orders whose parent it is) and the parent order', async () => {
    const parentView = (await get(parent)).body.order;
    expect(parentView.children.map((c: { invoice_no: string }) => c.invoice_no)).toEqual(['INV-8', 'INV-9']);
    expect(parentView.children[0]).toMatchObject({ id: child, parent_id: parent, type: 'renewal' });
    expect(parentView.parent_order).toBeNull();
    const childView = (await get(child)).body.order;
    expect(childView.parent_order).toMatchObject({ id: parent, invoice_no: 'INV-7', type: 'subscription' });
    expect(childView.parent_order).not.toHaveProperty('children');
    expect(childView.children).toEqual([]);
    expect(childView.activities.map((a: { title: string }) => a.title)).toEqual(['Renewal created']);
  });

  it('splits the config: discount_meta, shipping_meta, order_settings, tax_id', async () => {
    const res = await get(parent);
    expect(res.body.discount_meta).toEqual({ type: 'percentage', label: 'Loyalty', reason: 'Returning customer', action: 'apply', value: 10, amount: 500 });
    expect(res.body.shipping_meta).toEqual({
      entries: [{ type: 'custom', rate_name: 'Courier', custom_price: 700 }],
      shipping_total: 700,
      shipping_tax: 0,
      shipping_status: 'shipped',
    });
    expect(res.body.order_settings).toEqual({ send_receipt: true, mode: 'live', tax_behavior: 1 });
    expect(res.body.tax_id).toBe('DE123456789');
  });

  it('an order without customer, addresses, config or relations answers nulls and empty lists', async () => {
    const res = await get(bare);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      discount_meta: null,
      shipping_meta: { entries: [], shipping_total: 0, shipping_tax: 0, shipping_status: '' },
      order_settings: { mode: 'live', tax_behavior: 0 },
      selected_labels: [],
      tax_id: null,
    });
    expect(res.body.order).toMatchObject({
      customer_id: null,
      customer: null,
      order_items: [],
      transactions: [],
      billing_address: null,
      shipping_address: null,
      labels: [],
      applied_coupons: [],
      order_operation: null,
      activities: [],
      children: [],
      parent_order: null,
      subscriptions: [],
    });
  });

  it("takes the tax id from the billing address's meta when the config has none; a manual discount total alone makes a discount_meta", async () => {
    const order = await insertOrder(db(), customerId, NOW, { invoice_no: 'INV-20', manual_discount_total: 250 });
    await db()('store_order_addresses').insert({
      order_id: order,
      type: 'billing',
      country: 'DE',
      meta: '{"tax_id":"DE999"}',
      created_at: NOW,
      updated_at: NOW,
    });
    const res = await get(order);
    expect(res.body.tax_id).toBe('DE999');
    expect(res.body.discount_meta).toEqual({ amount: 250 });
    expect(res.body.order.shipping_address).toBeNull();
  });

  it('reads the order and everything it relates to in one query', async () => {
    await get(parent); // reads the tables' columns once
    const storeQueries = async (id: number, status: number) => {
      const sql: string[] = [];
      const listener = (query: { sql: string }) => {
        if (/store_/.test(query.sql)) sql.push(query.sql);
      };
      db().on('query', listener);
      try {
        expect((await get(id)).status).toBe(status);
      } finally {
        db().off('query', listener);
      }
      return sql;
    };
    for (const [id, status] of [
      [parent, 200],
      [child, 200],
      [bare, 200],
      [999999, 404],
    ]) {
      const sql = await storeQueries(id, status);
      expect(sql).toHaveLength(1);
      expect(sql[0]).toMatch(/ union all /);
    }
  });
});
