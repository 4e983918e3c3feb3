import crypto from 'node:crypto';
import { presentOrder, type OrderRow } from '../../src/modules/order-records/presenter';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

type Res = { status: number; body: { orders: { data: Array<Record<string, unknown>>; per_page: number; total: number } } & Record<string, unknown> };

describe('GET /orders', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  const o: Record<string, number> = {};
  const label: Record<string, number> = {};

  const db = () => app.host.db;

  async function customer(email: string, first_name: string, last_name: string): Promise<number> {
    const [id] = await db()('store_customers').insert({
      email,
      first_name,
      last_name,
      uuid: crypto.randomUUID(),
      status: 'active',
      purchase_value: '{}',
      created_at: NOW,
      updated_at: NOW,
    });
    return Number(id);
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    const ann = await customer('ann@example.com', 'Ann', 'Archer');
    const bob = await customer('bob@example.com', 'Bob', 'Baker');
    const cat = await customer('cat@example.com', 'Cat', "O'Hara");
    const item = (post_title: string, title: string, variation_id: number | null, post_id: number | null) => ({ post_title, title, variation_id, post_id });
    o.o1 = await insertOrder(db(), ann, '2026-01-10 10:00:00', { invoice_no: 'INV-100', receipt_number: 100, total_amount: 5000, total_paid: 5000 }, [
      item('Cotton Shirt', 'Navy / M', 11, 21),
    ]);
    o.o2 = await insertOrder(
      db(),
      ann,
      '2026-02-10 10:00:00',
      { invoice_no: 'INV-101', status: 'on-hold', payment_status: 'pending', total_amount: 700, total_paid: 0 },
      [item('Coffee Mug', 'Large', 12, 22)],
    );
    o.o3 = await insertOrder(
      db(),
      bob,
      '2026-03-10 02:00:00',
      {
        invoice_no: 'INV-102',
        receipt_number: 102,
        status: 'processing',
        type: 'subscription',
        fulfillment_type: 'digital',
        shipping_status: 'shipped',
        total_amount: 1200,
        total_paid: 1200,
      },
      [item('Pro Plan', 'Monthly', 13, 23)],
    );
    o.o4 = await insertOrder(db(), bob, '2026-04-10 10:00:00', {
      invoice_no: 'INV-103',
      receipt_number: 103,
      payment_status: 'refunded',
      total_amount: 3000,
      total_paid: 3000,
      total_refund: 3000,
    });
    o.o5 = await insertOrder(db(), cat, '2026-05-10 10:00:00', {
      invoice_no: 'INV-104',
      receipt_number: 104,
      payment_status: 'partially-refunded',
      type: 'renewal',
      parent_id: o.o3,
      shipping_status: 'delivered',
      total_amount: 1200,
      total_paid: 1200,
      total_refund: 200,
    });
    o.o6 = await insertOrder(
      db(),
      cat,
      '2026-06-10 10:00:00',
      { invoice_no: '', status: 'canceled', payment_status: 'failed', mode: 'test', total_amount: 900, total_paid: 0 },
      [item('Scarf', '100% Wool', null, null)],
    );
    const tx = (order_id: number, over: Record<string, unknown>) =>
      db()('store_order_transactions').insert({ uuid: crypto.randomUUID(), order_id, status: 'succeeded', created_at: NOW, updated_at: NOW, ...over });
    await tx(o.o1, { vendor_charge_id: 'ch_abc123', payment_method: 'stripe', card_brand: 'visa', card_last_4: '4242', total: 5000 });
    await tx(o.o4, { vendor_charge_id: 'ch_def456', payment_method: 'paypal', total: 3000 });
    await tx(o.o4, { vendor_charge_id: 're_def456', payment_method: 'paypal', transaction_type: 'refund', status: 'refunded', total: 3000 });
    await db()('store_order_operations').insert([
      { order_id: o.o1, created_via: 'checkout', utm_source: 'newsletter', utm_campaign: 'spring-sale', created_at: NOW, updated_at: NOW },
      { order_id: o.o3, created_via: 'checkout', utm_source: 'google', utm_campaign: '', created_at: NOW, updated_at: NOW },
    ]);
    for (const title of ['VIP', 'Wholesale'])
      label[title] = Number((await db()('store_labels').insert({ title, color: '', created_at: NOW, updated_at: NOW }))[0]);
    await db()('store_label_relations').insert([
      { label_id: label.VIP, object_type: 'order', object_id: o.o2, created_at: NOW },
      { label_id: label.VIP, object_type: 'order', object_id: o.o5, created_at: NOW },
      { label_id: label.Wholesale, object_type: 'order', object_id: o.o5, created_at: NOW },
      { label_id: label.Wholesale, object_type: 'customer', object_id: o.o1, created_at: NOW },
    ]);
    await db()('store_applied_coupons').insert({
      order_id: o.o1,
      coupon_id: 7,
      customer_id: ann,
      code: 'SPRING10',
      discounted_amount: 500,
      created_at: NOW,
      updated_at: NOW,
    });
    await db()('store_order_addresses').insert([
      {
        order_id: o.o1,
        type: 'billing',
        name: 'Ann Archer',
        address_1: '1 Market Street',
        city: 'San Francisco',
        state: 'CA',
        postcode: '94105',
        country: 'US',
        created_at: NOW,
        updated_at: NOW,
      },
      {
        order_id: o.o1,
        type: 'shipping',
        name: 'Ann Archer',
        address_1: '2 Main Street',
        city: 'Austin',
        state: 'TX',
        postcode: '73301',
        country: 'US',
        created_at: NOW,
        updated_at: NOW,
      },
    ]);
  });
  afterAll(() => app.close());

  const get = (query = '', user: TestUser = admin) => app.as(user).get(`${BASE}/orders${query ? `?${query}` : ''}`) as unknown as Promise<Res>;
  const ids = (res: Res) => {
    expect(res.status).toBe(200);
    return res.body.orders.data.map((order) => order.id);
  };
  const search = (text: string) => get(`search=${encodeURIComponent(text)}`);
  const advanced = (groups: unknown, extra = '') =>
    get(`filter_type=advanced&advanced_filters=${encodeURIComponent(typeof groups === 'string' ? groups : JSON.stringify(groups))}${extra}`);

  /** Runs `call` and counts the SQL statements it sends. */
  async function countQueries(call: () => Promise<unknown>, only = /./): Promise<number> {
    let n = 0;
    const listener = (query: { sql: string }) => {
      if (only.test(query.sql)) n++;
    };
    db().on('query', listener);
    try {
      await call();
    } finally {
      db().off('query', listener);
    }
    return n;
  }

  describe('access', () => {
    it('answers 401 to anonymous callers and 403 without orders/view', async () => {
      const anonymous = await app.http.get(`${BASE}/orders`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'rest_forbidden' });
      const productManager = await app.createUser('pm', ['product_manager']);
      const denied = await get('', productManager);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ code: 'rest_forbidden' });
      expect(ids(await get('', clerk))).toHaveLength(6);
    });
  });

  describe('page', () => {
    it('answers {orders: page}, newest first, 10 per page by default, with honest types', async () => {
      const res = await get();
      expect(res.body.orders).toMatchObject({ current_page: 1, per_page: 10, total: 6, last_page: 1, from: 1, to: 6 });
      expect(ids(res)).toEqual([o.o6, o.o5, o.o4, o.o3, o.o2, o.o1]);
      expect(res.body.orders.data[1]).toMatchObject({
        id: o.o5,
        parent_id: o.o3,
        receipt_number: 104,
        invoice_no: 'INV-104',
        status: 'completed',
        payment_status: 'partially-refunded',
        shipping_status: 'delivered',
        type: 'renewal',
        total_amount: 1200,
        total_paid: 1200,
        total_refund: 200,
        rate: 1,
        note: '',
        completed_at: null,
        created_at: '2026-05-10 10:00:00',
      });
      expect(res.body.orders.data[0]).not.toHaveProperty('customer');
    });

    it('pages with page and per_page, clamping per_page to 1…200', async () => {
      const second = await get('per_page=4&page=2');
      expect(second.body.orders).toMatchObject({ current_page: 2, per_page: 4, total: 6, last_page: 2, from: 5, to: 6 });
      expect(ids(second)).toEqual([o.o2, o.o1]);
      expect((await get('per_page=0')).body.orders.per_page).toBe(1);
      expect((await get('per_page=1000')).body.orders.per_page).toBe(200);
      expect((await get('per_page=abc')).body.orders.per_page).toBe(10);
      const beyond = await get('page=9');
      expect(beyond.body.orders).toMatchObject({ current_page: 9, data: [], total: 6, from: null, to: null });
    });

    it('takes the default page size from the orders_per_page setting', async () => {
      await app.host.options.set('store_settings', { orders_per_page: 2 });
      try {
        const res = await get();
        expect(res.body.orders).toMatchObject({ per_page: 2, total: 6, last_page: 3 });
      } finally {
        await app.host.options.set('store_settings', {});
      }
    });

    it('limit and offset address rows directly', async () => {
      const res = await get('limit=2&offset=1');
      expect(ids(res)).toEqual([o.o5, o.o4]);
      expect(res.body.orders).toMatchObject({ per_page: 2, total: 6, from: 2, to: 3 });
      expect(ids(await get('limit=500&offset=-3'))).toHaveLength(6);
      expect(ids(await get('limit=2&offset=5'))).toEqual([o.o1]);
    });

    it('sort_by takes fillable columns (ties by id) and falls back to id; sort_type asc or desc', async () => {
      expect(ids(await get('sort_by=total_amount&sort_type=asc'))).toEqual([o.o2, o.o6, o.o3, o.o5, o.o4, o.o1]);
      expect(ids(await get('sort_by=total_amount'))).toEqual([o.o1, o.o4, o.o5, o.o3, o.o6, o.o2]);
      expect(ids(await get('sort_by=invoice_no&sort_type=ASC'))).toEqual([o.o6, o.o1, o.o2, o.o3, o.o4, o.o5]);
      expect(ids(await get('sort_by=password&sort_type=asc'))).toEqual([o.o1, o.o2, o.o3, o.o4, o.o5, o.o6]);
      expect(ids(await get('sort_type=sideways'))).toEqual([o.o6, o.o5, o.o4, o.o3, o.o2, o.o1]);
    });
  });

  describe('active_view', () => {
    it.each([
      ['on-hold', ['o2']],
      ['paid', ['o3', 'o1']],
      ['completed', ['o5', 'o4', 'o1']],
      ['processing', ['o3']],
      ['renewal', ['o5']],
      ['subscription', ['o3']],
      ['onetime', ['o6', 'o4', 'o2', 'o1']],
      ['refunded', ['o4']],
      ['partially_refunded', ['o5']],
      ['upgraded_to', []],
      ['upgraded_from', []],
    ])('%s', async (view, expected) => {
      const res = await get(`active_view=${view}`);
      expect(ids(res)).toEqual(expected.map((k) => o[k]));
      expect(res.body.orders.total).toBe(expected.length);
    });

    it('refuses an unknown view with a 422', async () => {
      const res = await get('active_view=everything');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The selected active view is invalid.',
        errors: { active_view: { in: 'The selected active view is invalid.' } },
      });
    });
  });

  describe('status filters', () => {
    it('payment_statuses[], order_statuses[], shipping_statuses[] (any of the values; combined with each other and the view)', async () => {
      expect(ids(await get('payment_statuses[]=paid&payment_statuses[]=refunded'))).toEqual([o.o4, o.o3, o.o1]);
      expect(ids(await get('payment_statuses[]=partially_refunded'))).toEqual([o.o5]);
      expect(ids(await get('payment_statuses[]=partially-refunded'))).toEqual([o.o5]);
      expect(ids(await get('order_statuses[]=canceled&order_statuses[]=on-hold'))).toEqual([o.o6, o.o2]);
      expect(ids(await get('shipping_statuses[]=shipped&shipping_statuses[]=delivered'))).toEqual([o.o5, o.o3]);
      expect(ids(await get('active_view=completed&shipping_statuses[]=delivered'))).toEqual([o.o5]);
      expect(ids(await get('order_statuses[]=completed&payment_statuses[]=paid'))).toEqual([o.o1]);
    });

    it.each([
      ['payment_statuses', 'payment status', 'paid', 'settled', 'pending, authorized, paid, partially-paid, partially-refunded, refunded, failed'],
      ['order_statuses', 'order status', 'completed', 'shipped', 'draft, pending, on-hold, processing, completed, canceled, failed'],
      ['shipping_statuses', 'shipping status', 'shipped', 'lost', 'unshipped, shipped, delivered, unshippable'],
    ])('refuses an unknown value of %s with a 422', async (field, what, valid, value, known) => {
      const res = await get(`${field}[]=${valid}&${field}[]=${value}`);
      const message = `Unknown ${what}: ${value}. Use one of: ${known}.`;
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message, errors: { [field]: { in: message } } });
    });
  });

  describe('search', () => {
    it('finds the invoice number by its start, in any case', async () => {
      expect(ids(await search('INV-103'))).toEqual([o.o4]);
      expect(ids(await search('inv-103'))).toEqual([o.o4]);
      expect(ids(await search('INV-10'))).toEqual([o.o5, o.o4, o.o3, o.o2, o.o1]);
      expect((await search('INV-103')).body.orders).toMatchObject({ total: 1, from: 1, to: 1 });
    });

    it("finds the customer's email, first name, last name or full name by their start", async () => {
      expect(ids(await search('bob@exa'))).toEqual([o.o4, o.o3]);
      expect(ids(await search('ann'))).toEqual([o.o2, o.o1]);
      expect(ids(await search('BAKER'))).toEqual([o.o4, o.o3]);
      expect(ids(await search("Cat O'Hara"))).toEqual([o.o6, o.o5]);
      expect(ids(await search("o'ha"))).toEqual([o.o6, o.o5]);
      expect(ids(await search('Ann Bak'))).toEqual([]);
    });

    it("finds an item's title or product title by its start; % and _ match literally", async () => {
      expect(ids(await search('coffee'))).toEqual([o.o2]);
      expect(ids(await search('monthly'))).toEqual([o.o3]);
      expect(ids(await search('100%'))).toEqual([o.o6]);
      expect(ids(await search('1_0'))).toEqual([]);
      expect(ids(await search('%'))).toEqual([]);
      expect(ids(await search('shirt'))).toEqual([]);
    });

    it('finds a number as an order id or a receipt number (as well as the starts above)', async () => {
      expect(ids(await search(String(o.o3)))).toEqual([o.o3]);
      expect(ids(await search('100'))).toEqual([o.o6, o.o1]);
      expect(ids(await search('#' + o.o2))).toEqual([o.o2]);
      expect(ids(await search('#999999'))).toEqual([]);
    });

    it('takes the operator syntax on allowlisted columns', async () => {
      expect(ids(await search('status = completed'))).toEqual([o.o5, o.o4, o.o1]);
      expect(ids(await search(`id > ${o.o4}`))).toEqual([o.o6, o.o5]);
      expect(ids(await search(`id :: ${o.o2}-${o.o4}`))).toEqual([o.o4, o.o3, o.o2]);
      expect(ids(await search('total_amount >= 3000'))).toEqual([o.o4, o.o1]);
      expect(ids(await search('payment_status != paid'))).toEqual([o.o6, o.o5, o.o4, o.o2]);
      expect(ids(await search('created_at = 2026-03-10'))).toEqual([o.o3]);
      expect(ids(await search('invoice_no ~ 03'))).toEqual([o.o4]);
      expect(ids(await search('type = renewal'))).toEqual([o.o5]);
      expect(ids(await search('password = x'))).toEqual([]);
    });

    it('combines with views and filters', async () => {
      expect(ids(await get('search=INV-10&active_view=paid'))).toEqual([o.o3, o.o1]);
      expect(ids(await get('search=bob&payment_statuses[]=refunded'))).toEqual([o.o4]);
    });
  });

  describe('advanced filters', () => {
    it('order properties; conditions of a group all hold, any group may match', async () => {
      expect(
        ids(
          await advanced([
            [
              { property: 'status', operator: 'in', value: ['completed'] },
              { property: 'total_amount', operator: '>=', value: 3000 },
            ],
          ]),
        ),
      ).toEqual([o.o4, o.o1]);
      expect(
        ids(await advanced([[{ property: 'status', operator: 'in', value: ['canceled'] }], [{ property: 'labels', operator: 'in', value: [label.VIP] }]])),
      ).toEqual([o.o6, o.o5, o.o2]);
      expect(ids(await advanced([[{ property: 'labels', operator: 'all', value: [label.VIP, label.Wholesale] }]]))).toEqual([o.o5]);
      expect(ids(await advanced([[{ property: 'order_items', operator: 'in', value: [12] }]]))).toEqual([o.o2]);
      expect(ids(await advanced([[{ property: 'products', operator: 'in', value: [23] }]]))).toEqual([o.o3]);
      expect(ids(await advanced([[{ property: 'coupons', operator: 'in', value: [7] }]]))).toEqual([o.o1]);
      expect(ids(await advanced([[{ property: 'payment_status', operator: 'not_in', value: ['paid', 'failed', 'pending'] }]]))).toEqual([o.o5, o.o4]);
      expect(ids(await advanced([[{ property: 'total_refund', operator: 'between', value: [1, 500] }]]))).toEqual([o.o5]);
      expect(ids(await advanced([[{ property: 'invoice_no', operator: 'ends_with', value: '02' }]]))).toEqual([o.o3]);
    });

    it('customer, transaction and UTM properties', async () => {
      expect(ids(await advanced([[{ property: 'customer_email', operator: '=', value: 'BOB@example.com' }]]))).toEqual([o.o4, o.o3]);
      expect(ids(await advanced([[{ property: 'customer_name', operator: 'contains', value: "t O'H" }]]))).toEqual([o.o6, o.o5]);
      expect(ids(await advanced([[{ property: 'customer_last_name', operator: 'starts_with', value: 'arch' }]]))).toEqual([o.o2, o.o1]);
      expect(ids(await advanced([[{ property: 'transaction_id', operator: '=', value: 'ch_def456' }]]))).toEqual([o.o4]);
      expect(ids(await advanced([[{ property: 'card_brand', operator: '=', value: 'visa' }]]))).toEqual([o.o1]);
      expect(ids(await advanced([[{ property: 'transaction_type', operator: 'in', value: ['refund'] }]]))).toEqual([o.o4]);
      expect(ids(await advanced([[{ property: 'transaction_payment_method', operator: 'in', value: ['stripe', 'paypal'] }]]))).toEqual([o.o4, o.o1]);
      expect(ids(await advanced([[{ property: 'utm_source', operator: '=', value: 'google' }]]))).toEqual([o.o3]);
      expect(ids(await advanced([[{ property: 'utm_campaign', operator: 'contains', value: 'spring' }]]))).toEqual([o.o1]);
      expect(
        ids(
          await advanced([
            [
              { property: 'customer_email', operator: 'starts_with', value: 'ann' },
              { property: 'transaction_status', operator: 'in', value: ['succeeded'] },
            ],
            [{ property: 'utm_source', operator: '=', value: 'google' }],
          ]),
        ),
      ).toEqual([o.o3, o.o1]);
    });

    it('reads bare dates as whole days in user_tz', async () => {
      const day = [[{ property: 'created_at', operator: '=', value: '2026-03-09' }]];
      expect(ids(await advanced(day))).toEqual([]);
      expect(ids(await advanced(day, '&user_tz=America/New_York'))).toEqual([o.o3]);
      expect(ids(await get(`search=${encodeURIComponent('created_at = 2026-03-09')}&user_tz=America/New_York`))).toEqual([o.o3]);
    });

    it('are ignored unless filter_type is advanced', async () => {
      const groups = encodeURIComponent(JSON.stringify([[{ property: 'status', operator: 'in', value: ['canceled'] }]]));
      expect(ids(await get(`advanced_filters=${groups}`))).toHaveLength(6);
      expect(ids(await get(`filter_type=simple&advanced_filters=${groups}`))).toHaveLength(6);
    });

    it('refuses bad JSON, unknown properties (licenses too: the module is off) and bad values with a 422, never a 500', async () => {
      const json = await advanced('[[{"property":');
      expect(json.status).toBe(422);
      expect(json.body).toEqual({
        message: 'The advanced filters field must be valid JSON.',
        errors: { advanced_filters: { json: 'The advanced filters field must be valid JSON.' } },
      });
      const unknown = await advanced([[{ property: 'license_key', operator: '=', value: 'x' }]]);
      expect(unknown.status).toBe(422);
      expect(unknown.body.message).toMatch(/^Unknown advanced filter "license_key"\. Known filters: id, status, .*customer_email.*transaction_id.*utm_source/);
      const operator = await advanced([[{ property: 'utm_source', operator: '>', value: 'x' }]]);
      expect(operator.status).toBe(422);
      expect(operator.body.errors).toEqual({
        advanced_filters: { operator: 'The operator ">" is not supported for utm_source. Use one of: =, !=, contains, not_contains, starts_with, ends_with.' },
      });
      const value = await advanced([[{ property: 'status', operator: 'in', value: ['lost'] }]]);
      expect(value.status).toBe(422);
      expect(Object.keys(value.body.errors as object)).toEqual(['advanced_filters']);
      const type = await get('filter_type=smart');
      expect(type.status).toBe(422);
      expect(type.body.errors).toEqual({ filter_type: { in: 'The selected filter type is invalid.' } });
      expect(app.logger.entries.filter((e) => e.level === 'error')).toEqual([]);
    });
  });

  describe('with, select, scopes, include_ids', () => {
    const ALL = [
      'customer',
      'order_items',
      'transactions',
      'billing_address',
      'shipping_address',
      'labels',
      'applied_coupons',
      'order_operation',
      'subscriptions',
    ];
    const withAll = ALL.map((r) => `with[]=${r}`).join('&');

    it('with[] loads each relation for the whole page', async () => {
      const res = await get(`${withAll}&search=ann`);
      const [second, first] = res.body.orders.data as Array<Record<string, any>>;
      expect(first.id).toBe(o.o1);
      expect(first.customer).toMatchObject({ email: 'ann@example.com', full_name: 'Ann Archer', first_name: 'Ann' });
      expect(first.order_items).toEqual([expect.objectContaining({ order_id: o.o1, title: 'Navy / M', post_title: 'Cotton Shirt', variation_id: 11 })]);
      expect(first.transactions).toEqual([
        expect.objectContaining({
          order_id: o.o1,
          vendor_charge_id: 'ch_abc123',
          amount: 5000,
          total: 5000,
          status: 'succeeded',
          card_last_4: '4242',
          meta: {},
        }),
      ]);
      expect(first.billing_address).toMatchObject({
        type: 'billing',
        city: 'San Francisco',
        formatted_address: { full_address: 'Ann Archer, 1 Market Street, SAN FRANCISCO, CA 94105, United States of America' },
      });
      expect(first.shipping_address).toMatchObject({ type: 'shipping', city: 'Austin' });
      expect(first.labels).toEqual([]);
      expect(first.applied_coupons).toEqual([expect.objectContaining({ code: 'SPRING10', coupon_id: 7, discounted_amount: 500, discount: 500, stackable: 0 })]);
      expect(first.order_operation).toMatchObject({ utm_source: 'newsletter', utm_campaign: 'spring-sale', created_via: 'checkout' });
      expect(first.subscriptions).toEqual([]);
      expect(second).toMatchObject({ id: o.o2, transactions: [], billing_address: null, shipping_address: null, order_operation: null, applied_coupons: [] });
      expect((second.labels as Array<{ title: string }>).map((l) => l.title)).toEqual(['VIP']);
    });

    it('with[] costs one query whatever the relations and the page size (no N+1)', async () => {
      await get(withAll); // reads the tables' columns once
      const small = await countQueries(() => get(`${withAll}&per_page=2&scopes[]=live`));
      const large = await countQueries(() => get(`${withAll}&per_page=5&scopes[]=live`));
      const one = await countQueries(() => get('with[]=labels&per_page=5&scopes[]=live'));
      const bare = await countQueries(() => get('per_page=5&scopes[]=live'));
      expect(large).toBe(small);
      expect(large - bare).toBe(1);
      expect(one - bare).toBe(1);
    });

    it('with[] refuses unknown relations with a 422', async () => {
      const res = await get('with[]=password');
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ 'with.0': { in: `The with field accepts ${ALL.join(', ')}.` } });
    });

    it('select[] returns only the named fields (and the id)', async () => {
      const res = await get('select[]=invoice_no,total_amount&search=INV-103');
      expect(res.body.orders.data).toEqual([{ id: o.o4, invoice_no: 'INV-103', total_amount: 3000 }]);
      const withLabels = await get('select[]=status&with[]=labels&search=INV-101');
      expect(withLabels.body.orders.data).toEqual([{ id: o.o2, status: 'on-hold', labels: [expect.objectContaining({ title: 'VIP' })] }]);
      const bad = await get('select[]=invoice_no,password_hash');
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({
        message: 'The select field names unknown columns: password_hash.',
        errors: { select: { in: 'The select field names unknown columns: password_hash.' } },
      });
    });

    it('scopes[]: live, test, parents, purchases; anything else is a 422', async () => {
      expect(ids(await get('scopes[]=test'))).toEqual([o.o6]);
      expect(ids(await get('scopes[]=live'))).toEqual([o.o5, o.o4, o.o3, o.o2, o.o1]);
      expect(ids(await get('scopes[]=parents'))).toEqual([o.o6, o.o4, o.o3, o.o2, o.o1]);
      expect(ids(await get('scopes[]=purchases'))).toEqual([o.o5, o.o4, o.o3, o.o1]);
      expect(ids(await get('scopes[]=purchases&scopes[]=parents'))).toEqual([o.o4, o.o3, o.o1]);
      const bad = await get('scopes[]=deleted');
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toEqual({ 'scopes.0': { in: 'The scopes field accepts live, test, parents, purchases.' } });
    });

    it('include_ids[] adds orders whatever the filters', async () => {
      const res = await get(`active_view=on-hold&include_ids[]=${o.o1}`);
      expect(ids(res)).toEqual([o.o2, o.o1]);
      expect(res.body.orders.total).toBe(2);
      expect(ids(await get(`search=INV-103&include_ids[]=${o.o6}`))).toEqual([o.o6, o.o4]);
      expect(ids(await get(`include_ids[]=${o.o6}`))).toHaveLength(6);
    });
  });

  describe('totals', () => {
    const extra: number[] = [];
    afterAll(async () => {
      await db()('store_orders').whereIn('id', extra).delete();
    });

    async function orderOf(id: number) {
      return presentOrder((await db()('store_orders').where({ id }).first()) as OrderRow);
    }

    /** What `read` answers once it answers `expected` (the background count of a stale total takes a moment), or its last answer. */
    async function eventually(read: () => Promise<number>, expected: number): Promise<number> {
      let last = await read();
      for (let i = 0; i < 50 && last !== expected; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        last = await read();
      }
      return last;
    }

    it('counts unfiltered lists and views once, again after an order hook of this process or after 5 s', async () => {
      const total = async (query: string) => (await get(`per_page=1&${query}`)).body.orders as unknown as { total: number };
      expect((await total('')).total).toBe(6);
      expect((await total('active_view=paid')).total).toBe(2);

      extra.push(await insertOrder(db(), null as unknown as number, NOW, { invoice_no: 'INV-900', payment_status: 'pending', status: 'on-hold' }));
      expect((await total('')).total).toBe(6);
      expect((await total('scopes[]=live')).total).toBe(6);
      app.host.hooks.doAction('store/order/created', await orderOf(extra[0]));
      expect((await total('')).total).toBe(7);
      expect((await total('active_view=paid')).total).toBe(2);

      await db()('store_orders').where({ id: extra[0] }).update({ payment_status: 'paid' });
      expect((await total('active_view=paid')).total).toBe(2);
      app.host.hooks.doAction('store/order/payment_status_changed', await orderOf(extra[0]), 'pending');
      expect((await total('active_view=paid')).total).toBe(3);
      expect((await total('')).total).toBe(7);

      extra.push(await insertOrder(db(), null as unknown as number, NOW, { invoice_no: 'INV-901', payment_status: 'paid' }));
      expect((await total('')).total).toBe(7);
      app.clock.advance(6000);
      // Once the TTL has passed the last total answers while one count refreshes it.
      expect((await total('')).total).toBe(7);
      expect(await eventually(async () => (await total('')).total, 8)).toBe(8);
      expect((await total('active_view=paid')).total).toBe(3);
      expect(await eventually(async () => (await total('active_view=paid')).total, 4)).toBe(4);
    });

    it('runs one count at a time for a stale total, however many requests want it', async () => {
      const page = () => get('per_page=1');
      await page();
      app.clock.advance(6000);
      const counts = await countQueries(() => Promise.all([page(), page(), page(), page(), page()]), /count\(\*\)/);
      expect(counts).toBe(1);
    });
  });
});
