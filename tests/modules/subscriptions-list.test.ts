import crypto from 'node:crypto';
import { presentSubscription, type SubscriptionRow } from '../../src/modules/subscriptions/presenter';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { insertSubscription } from '../support/subscription-rows';

const NOW = '2026-11-21 10:00:00';

type Page = {
  data: Array<Record<string, any>>;
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
};
type Res = { status: number; body: { data: Page } & Record<string, any>; headers: Record<string, string> };

describe('GET /subscriptions', () => {
  let app: TestApp;
  let admin: TestUser;
  const s: Record<string, number> = {};
  const c: Record<string, number> = {};
  let label: number;

  const db = () => app.host.db;
  /** The list as the admin sees it, 50 a page unless the query sets the page size. */
  const get = (query = ''): Promise<Res> =>
    app.as(admin).get(`${BASE}/subscriptions?${/(^|&)per_page=/.test(query) ? '' : 'per_page=50&'}${query}`) as unknown as Promise<Res>;
  const search = (text: string, extra = '') => get(`search=${encodeURIComponent(text)}${extra}`);
  const ids = (res: Res) => {
    expect(res.status).toBe(200);
    return res.body.data.data.map((row) => row.id as number);
  };
  const keys = (...names: string[]) => names.map((k) => s[k]);
  const advanced = (groups: unknown, extra = '') =>
    get(`filter_type=advanced&advanced_filters=${encodeURIComponent(typeof groups === 'string' ? groups : JSON.stringify(groups))}${extra}`);

  async function customer(email: string, first_name: string): Promise<number> {
    const [id] = await db()('store_customers').insert({
      email,
      first_name,
      last_name: 'Test',
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      created_at: NOW,
      updated_at: NOW,
    });
    return Number(id);
  }

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

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.options.set('hourly_request_limits', { list: 100_000 });
    admin = await app.createUser('admin', ['administrator']);
    c.ann = await customer('ann@example.com', 'Ann');
    c.bob = await customer('bob@example.com', 'Bob');
    c.cat = await customer('cat@example.net', 'Cat');
    // Parent orders numbered from 101, so that their ids never equal a bill_count below.
    const parent = async (id: number, customerId: number, charge: { vendor_charge_id: string; payment_method: string }) => {
      await insertOrder(db(), customerId, NOW, { id, type: 'subscription' });
      await db()('store_order_transactions').insert({
        uuid: crypto.randomUUID(),
        order_id: id,
        status: 'succeeded',
        total: 1000,
        created_at: NOW,
        updated_at: NOW,
        ...charge,
      });
      return id;
    };
    const rows: Array<[string, number, Record<string, unknown>]> = [
      [
        'active',
        c.ann,
        {
          item_name: 'Pro Plan',
          vendor_subscription_id: 'sub_ABC123',
          vendor_customer_id: 'cus_Ann1',
          vendor_plan_id: 'price_pro',
          bill_count: 3,
          variation_id: 11,
          product_id: 21,
          created_at: '2026-01-10 10:00:00',
          next_billing_date: '2026-12-10 10:00:00',
        },
      ],
      [
        'canceled',
        c.bob,
        {
          item_name: 'Team Plan',
          current_payment_method: 'paypal',
          vendor_subscription_id: 'I-BW452GLLEP1G',
          vendor_plan_id: 'P-5ML4271244454362',
          billing_interval: 'yearly',
          bill_count: 1,
          variation_id: 12,
          product_id: 22,
          created_at: '2026-02-10 10:00:00',
          next_billing_date: '2027-02-10 10:00:00',
        },
      ],
      [
        'trialing',
        c.bob,
        {
          item_name: 'Pro Plan',
          vendor_subscription_id: 'sub_abc999',
          billing_interval: 'quarterly',
          bill_times: 6,
          bill_count: 0,
          variation_id: 11,
          product_id: 21,
          created_at: '2026-03-10 02:00:00',
          next_billing_date: '2026-11-30 02:00:00',
        },
      ],
      [
        'expired',
        c.cat,
        {
          item_name: 'Coffee Club 100%',
          collection_method: 'manual',
          current_payment_method: 'cod',
          billing_interval: 'weekly',
          bill_count: 12,
          variation_id: 13,
          product_id: 23,
          created_at: '2026-04-10 10:00:00',
          next_billing_date: '2026-10-01 10:00:00',
        },
      ],
      [
        'completed',
        c.cat,
        {
          item_name: 'Course Installments',
          vendor_subscription_id: 'sub_DONE',
          bill_times: 3,
          bill_count: 3,
          variation_id: 14,
          product_id: 24,
          created_at: '2026-05-10 10:00:00',
        },
      ],
      [
        'pending',
        c.ann,
        { item_name: 'Pro Plan', billing_interval: 'daily', bill_count: 0, variation_id: 11, product_id: 21, created_at: '2026-06-10 10:00:00' },
      ],
      [
        'failing',
        c.ann,
        {
          item_name: 'Starter',
          vendor_subscription_id: 'sub_FAIL',
          bill_count: 5,
          variation_id: 15,
          product_id: 25,
          created_at: '2026-07-10 10:00:00',
          next_billing_date: '2026-11-01 10:00:00',
        },
      ],
      [
        'expiring',
        c.bob,
        {
          item_name: 'Starter',
          vendor_subscription_id: 'sub_LEAVING',
          bill_count: 2,
          variation_id: 15,
          product_id: 25,
          created_at: '2026-08-10 10:00:00',
          next_billing_date: '2026-12-01 10:00:00',
        },
      ],
      [
        'paused',
        c.cat,
        {
          item_name: 'Magazine',
          current_payment_method: 'paypal',
          vendor_subscription_id: 'I-PAUSED',
          bill_count: 4,
          variation_id: 16,
          product_id: 26,
          created_at: '2026-09-10 10:00:00',
        },
      ],
      [
        'intended',
        c.cat,
        { item_name: 'Magazine', current_payment_method: 'paypal', bill_count: 0, variation_id: 16, product_id: 26, created_at: '2026-10-10 10:00:00' },
      ],
    ];
    let orderId = 101;
    for (const [status, customerId, over] of rows) {
      const method = String(over.current_payment_method ?? 'stripe');
      const parentId = await parent(orderId, customerId, { vendor_charge_id: `ch_parent_${status}`, payment_method: method });
      s[status] = await insertSubscription(db(), { status, customer_id: customerId, parent_order_id: parentId, ...over });
      orderId++;
    }
    // A renewal of the active subscription, its charge recorded for it.
    const renewal = await insertOrder(db(), c.ann, NOW, { id: 201, type: 'renewal', parent_id: 101 });
    await db()('store_order_transactions').insert({
      uuid: crypto.randomUUID(),
      order_id: renewal,
      subscription_id: s.active,
      vendor_charge_id: 'ch_renewal_1',
      payment_method: 'stripe',
      status: 'succeeded',
      total: 1000,
      created_at: NOW,
      updated_at: NOW,
    });
    const [labelId] = await db()('store_labels').insert({ title: 'VIP', color: '#f00', created_at: NOW, updated_at: NOW });
    label = Number(labelId);
    await db()('store_label_relations').insert({ label_id: label, object_type: 'subscription', object_id: s.trialing, created_at: NOW });
  });
  afterAll(() => app.close());

  const ALL = ['intended', 'paused', 'expiring', 'failing', 'pending', 'completed', 'expired', 'trialing', 'canceled', 'active'];

  describe('access', () => {
    it('answers 401 to anonymous callers and 403 without subscriptions/view', async () => {
      const anonymous = await app.http.get(`${BASE}/subscriptions`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'rest_forbidden' });
      const shopper = await app.createUser('shopper', ['customer']);
      const refused = await app.as(shopper).get(`${BASE}/subscriptions`);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'rest_forbidden' });
      const productManager = await app.createUser('products', ['product_manager']);
      expect((await app.as(productManager).get(`${BASE}/subscriptions`)).status).toBe(403);
      const support = await app.createUser('support', ['customer_service']);
      expect(ids((await app.as(support).get(`${BASE}/subscriptions?per_page=50`)) as unknown as Res)).toEqual(keys(...ALL));
    });

    it('past the hourly list budget (a setting, 100 by default) an application-password caller gets 429 on the list and the detail; a dashboard session is exempt', async () => {
      await app.host.options.set('hourly_request_limits', { list: 3 });
      try {
        const api = await app.createUser('api', ['administrator']);
        for (let i = 0; i < 2; i++) expect((await app.as(api).get(`${BASE}/subscriptions`)).status).toBe(200);
        expect((await app.as(api).get(`${BASE}/subscriptions/${s.active}`)).status).toBe(200);
        const listed = await app.as(api).get(`${BASE}/subscriptions`);
        expect(listed.status).toBe(429);
        expect(listed.body).toEqual({ message: 'Too many requests. Please try again later.' });
        expect(Number(listed.headers['retry-after'])).toBeGreaterThan(0);
        expect((await app.as(api).get(`${BASE}/subscriptions/${s.active}`)).status).toBe(429);

        const browser = app.browser();
        expect((await browser.login('admin', 'admin-Pass-123')).status).toBe(200);
        for (let i = 0; i < 5; i++) expect((await browser.call('get', `${BASE}/subscriptions?per_page=1`)).status).toBe(200);
      } finally {
        await app.host.options.set('hourly_request_limits', { list: 100_000 });
      }
    });
  });

  describe('the page', () => {
    it('answers {data: page} of Subscription resources, newest first', async () => {
      const res = await get();
      expect(ids(res)).toEqual(keys(...ALL));
      expect(res.body).toEqual({ data: expect.objectContaining({ current_page: 1, per_page: 50, total: 10, last_page: 1, from: 1, to: 10 }) });
      const row = (await db()('store_subscriptions').where({ id: s.active }).first()) as SubscriptionRow;
      expect(res.body.data.data[9]).toEqual(presentSubscription(row));
      expect(res.body.data.data[9]).toMatchObject({
        id: s.active,
        status: 'active',
        item_name: 'Pro Plan',
        parent_order_id: 101,
        customer_id: c.ann,
        vendor_subscription_id: 'sub_ABC123',
        recurring_amount: 1000,
        bill_count: 3,
        next_billing_date: '2026-12-10 10:00:00',
        config: {},
      });
    });

    it('page and per_page: default from the subscriptions_per_page setting (10), clamped to 1–200', async () => {
      const second = await app.as(admin).get(`${BASE}/subscriptions?per_page=3&page=2`);
      expect(second.body.data).toMatchObject({ current_page: 2, per_page: 3, total: 10, last_page: 4, from: 4, to: 6 });
      expect(second.body.data.data.map((r: { id: number }) => r.id)).toEqual(keys('failing', 'pending', 'completed'));
      const fallback = await app.as(admin).get(`${BASE}/subscriptions`);
      expect(fallback.body.data).toMatchObject({ per_page: 10, total: 10, last_page: 1 });
      expect((await app.as(admin).get(`${BASE}/subscriptions?per_page=0`)).body.data).toMatchObject({ per_page: 1, total: 10, last_page: 10 });
      expect((await app.as(admin).get(`${BASE}/subscriptions?per_page=5000`)).body.data.per_page).toBe(200);
      expect((await app.as(admin).get(`${BASE}/subscriptions?per_page=abc&page=-4`)).body.data).toMatchObject({ per_page: 10, current_page: 1 });
      const past = await app.as(admin).get(`${BASE}/subscriptions?per_page=4&page=9`);
      expect(past.body.data).toMatchObject({ current_page: 9, data: [], total: 10, from: null, to: null });

      await app.as(admin).put(`${BASE}/settings/store`).send({ subscriptions_per_page: 4 }).expect(200);
      try {
        expect((await app.as(admin).get(`${BASE}/subscriptions`)).body.data).toMatchObject({ per_page: 4, last_page: 3 });
      } finally {
        await app.as(admin).put(`${BASE}/settings/store`).send({ subscriptions_per_page: 10 }).expect(200);
      }
    });

    it('limit and offset address rows directly (limit clamped like per_page)', async () => {
      const res = await app.as(admin).get(`${BASE}/subscriptions?limit=2&offset=1`);
      expect(res.body.data).toMatchObject({ per_page: 2, total: 10, from: 2, to: 3 });
      expect(res.body.data.data.map((r: { id: number }) => r.id)).toEqual(keys('paused', 'expiring'));
      expect((await app.as(admin).get(`${BASE}/subscriptions?limit=900`)).body.data.per_page).toBe(200);
      expect((await app.as(admin).get(`${BASE}/subscriptions?per_page=3&offset=8`)).body.data).toMatchObject({ from: 9, to: 10, total: 10 });
    });

    it('sort_by any fillable column (ties by id), sort_type asc/desc; anything else sorts by id, newest first', async () => {
      expect(ids(await get('sort_type=asc'))).toEqual(keys(...ALL).reverse());
      expect(ids(await get('sort_by=bill_count&sort_type=asc'))).toEqual(
        keys('trialing', 'pending', 'intended', 'canceled', 'expiring', 'active', 'completed', 'paused', 'failing', 'expired'),
      );
      expect(ids(await get('sort_by=item_name&sort_type=ASC')).slice(0, 3)).toEqual(keys('expired', 'completed', 'paused'));
      expect(ids(await get('sort_by=next_billing_date&sort_type=desc')).slice(0, 3)).toEqual(keys('canceled', 'active', 'expiring'));
      expect(ids(await get('sort_by=password_hash'))).toEqual(keys(...ALL));
      expect(ids(await get('sort_by=__proto__&sort_type=sideways'))).toEqual(keys(...ALL));
    });
  });

  describe('active_view', () => {
    it.each(['active', 'pending', 'intended', 'paused', 'trialing', 'canceled', 'failing', 'expiring', 'expired'])(
      '%s: the subscriptions in that status',
      async (view) => {
        const res = await get(`active_view=${view}`);
        expect(ids(res)).toEqual([s[view]]);
        expect(res.body.data.total).toBe(1);
      },
    );

    it('all (or none) is every subscription, completed ones included', async () => {
      expect(ids(await get('active_view=all'))).toEqual(keys(...ALL));
      expect((await get('active_view=all')).body.data.total).toBe(10);
    });

    it.each(['completed', 'everything', 'ACTIVE'])('refuses %s with a 422', async (view) => {
      const res = await get(`active_view=${view}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The selected active view is invalid.', errors: { active_view: { in: 'The selected active view is invalid.' } } });
    });
  });

  describe('search', () => {
    it('#123 finds that subscription id', async () => {
      expect(ids(await search(`#${s.paused}`))).toEqual([s.paused]);
      expect(ids(await search('#999999'))).toEqual([]);
    });

    it("an email shape finds the customer's email by its start, in any case", async () => {
      expect(ids(await search('ann@example.com'))).toEqual(keys('failing', 'pending', 'active'));
      expect(ids(await search('BOB@EXAMPLE.COM'))).toEqual(keys('expiring', 'trialing', 'canceled'));
      expect(ids(await search('cat@'))).toEqual(keys('intended', 'paused', 'completed', 'expired'));
      expect(ids(await search('ann@example.net'))).toEqual([]);
      expect(ids(await search('nn@example.com'))).toEqual([]);
    });

    it.each(['canceled', 'cancelled', 'Cancelled', 'CANCELED'])('%s finds the canceled subscriptions', async (text) => {
      expect(ids(await search(text))).toEqual([s.canceled]);
    });

    it.each(['status = cancelled', 'status = Canceled', 'STATUS = CANCELLED', 'status ~ Cancelled'])(
      '%s: the operator syntax takes the synonym and any case on both databases',
      async (text) => {
        expect(ids(await search(text))).toEqual([s.canceled]);
      },
    );

    it('other text finds the start of the item name, payment method or billing interval, in any case', async () => {
      expect(ids(await search('pro'))).toEqual(keys('pending', 'trialing', 'active'));
      expect(ids(await search('Coffee Club 100%'))).toEqual([s.expired]);
      expect(ids(await search('Club'))).toEqual([]);
      expect(ids(await search('PayPal'))).toEqual(keys('intended', 'paused', 'canceled'));
      expect(ids(await search('quarter'))).toEqual([s.trialing]);
      expect(ids(await search('week'))).toEqual([s.expired]);
    });

    it('a vendor id by its start, case-sensitive as the gateways spell them', async () => {
      expect(ids(await search('sub_ABC'))).toEqual([s.active]);
      expect(ids(await search('sub_abc'))).toEqual([s.trialing]);
      expect(ids(await search('sub_'))).toEqual(keys('expiring', 'failing', 'completed', 'trialing', 'active'));
      expect(ids(await search('I-BW452'))).toEqual([s.canceled]);
      expect(ids(await search('cus_Ann'))).toEqual([s.active]);
      expect(ids(await search('P-5ML'))).toEqual([s.canceled]);
      expect(ids(await search('price_'))).toEqual([s.active]);
    });

    it('%, _, *, ? and [ match literally', async () => {
      expect(ids(await search('sub%'))).toEqual([]);
      expect(ids(await search('sub*'))).toEqual([]);
      expect(ids(await search('su?_'))).toEqual([]);
      expect(ids(await search('s_b'))).toEqual([]);
      expect(ids(await search('[s]ub'))).toEqual([]);
      expect(ids(await search('%'))).toEqual([]);
    });

    it('a number finds the parent order id or bill_count exactly', async () => {
      expect(ids(await search('103'))).toEqual([s.trialing]);
      expect(ids(await search('12'))).toEqual([s.expired]);
      expect(ids(await search('3'))).toEqual(keys('completed', 'active'));
      expect(ids(await search('10'))).toEqual([]);
      expect(ids(await search('1'))).toEqual([s.canceled]);
    });

    it('operator syntax on the columns: ID = 5, bill_count > 2, id :: a-b, ~ contains, dates in user_tz', async () => {
      expect(ids(await search(`ID = ${s.failing}`))).toEqual([s.failing]);
      expect(ids(await search('bill_count > 3'))).toEqual(keys('paused', 'failing', 'expired'));
      expect(ids(await search(`id :: ${s.canceled}-${s.expired}`))).toEqual(keys('expired', 'trialing', 'canceled'));
      expect(ids(await search('item_name ~ Club'))).toEqual([s.expired]);
      expect(ids(await search('status = completed'))).toEqual([s.completed]);
      expect(ids(await search('status != active'))).toHaveLength(9);
      expect(ids(await search('billing_interval = yearly'))).toEqual([s.canceled]);
      expect(ids(await search('next_billing_date < 2026-11-15'))).toEqual(keys('failing', 'expired'));
      expect(ids(await search('created_at = 2026-03-09'))).toEqual([]);
      expect(ids(await search('created_at = 2026-03-09', '&user_tz=America/New_York'))).toEqual([s.trialing]);
      expect(ids(await search('vendor_subscription_id ~ 452GL'))).toEqual([s.canceled]);
    });

    it('a condition on an unknown column, or with a value the column cannot hold, is free text', async () => {
      expect(ids(await search('password = x'))).toEqual([]);
      expect(ids(await search('bill_count > many'))).toEqual([]);
    });

    it('combines with the view', async () => {
      expect(ids(await search('pro', '&active_view=trialing'))).toEqual([s.trialing]);
      expect(ids(await search('ann@example.com', '&active_view=canceled'))).toEqual([]);
    });
  });

  describe('advanced filters', () => {
    const one = (property: string, operator: string, value?: unknown) => [[{ property, operator, value }]];

    it('subscription properties', async () => {
      expect(ids(await advanced(one('vendor_subscription_id', 'starts_with', 'I-')))).toEqual(keys('paused', 'canceled'));
      expect(ids(await advanced(one('vendor_subscription_id', '=', 'sub_done')))).toEqual([s.completed]);
      expect(ids(await advanced(one('status', 'in', ['failing', 'expiring', 'completed'])))).toEqual(keys('expiring', 'failing', 'completed'));
      expect(ids(await advanced(one('status', 'not_in', ['active', 'canceled'])))).toHaveLength(8);
      expect(ids(await advanced(one('variation', 'in', [11])))).toEqual(keys('pending', 'trialing', 'active'));
      expect(ids(await advanced(one('variation', 'not_in', [11, 15, 16])))).toEqual(keys('completed', 'expired', 'canceled'));
      expect(ids(await advanced(one('billing_interval', 'in', ['weekly', 'daily'])))).toEqual(keys('pending', 'expired'));
      expect(ids(await advanced(one('current_payment_method', 'in', ['cod'])))).toEqual([s.expired]);
      expect(ids(await advanced(one('bill_count', '>=', 4)))).toEqual(keys('paused', 'failing', 'expired'));
      expect(ids(await advanced(one('bill_count', 'between', [1, 2])))).toEqual(keys('expiring', 'canceled'));
      expect(ids(await advanced(one('product', 'in', [25, 26])))).toEqual(keys('intended', 'paused', 'expiring', 'failing'));
    });

    it('dates: created_at and next_billing_date, bare dates being days in user_tz', async () => {
      expect(ids(await advanced(one('created_at', 'between', ['2026-02-01', '2026-03-09'])))).toEqual([s.canceled]);
      expect(ids(await advanced(one('created_at', 'between', ['2026-02-01', '2026-03-09']), '&user_tz=America/New_York'))).toEqual(
        keys('trialing', 'canceled'),
      );
      expect(ids(await advanced(one('next_billing_date', '<', '2026-11-21')))).toEqual(keys('failing', 'expired'));
      expect(ids(await advanced(one('next_billing_date', 'is_empty')))).toEqual(keys('intended', 'paused', 'pending', 'completed'));
    });

    it('transaction properties: a charge of the parent order or one recorded for the subscription', async () => {
      expect(ids(await advanced(one('transaction_id', '=', 'ch_renewal_1')))).toEqual([s.active]);
      expect(ids(await advanced(one('transaction_id', '=', 'ch_parent_expiring')))).toEqual([s.expiring]);
      expect(ids(await advanced(one('transaction_id', 'starts_with', 'ch_parent_ex')))).toEqual(keys('expiring', 'expired'));
      expect(ids(await advanced(one('transaction_payment_method', 'in', ['cod'])))).toEqual([s.expired]);
    });

    it('groups: all conditions of a group, any group', async () => {
      const groups = [
        [
          { property: 'status', operator: 'in', value: ['active', 'trialing', 'pending'] },
          { property: 'billing_interval', operator: 'in', value: ['monthly'] },
        ],
        [{ property: 'transaction_payment_method', operator: 'in', value: ['cod'] }],
      ];
      expect(ids(await advanced(groups))).toEqual(keys('expired', 'active'));
      expect(ids(await advanced(groups, '&search=pro'))).toEqual([s.active]);
    });

    it('license properties match nothing while licensing is off, whatever the operator', async () => {
      expect(ids(await advanced(one('license_key', '=', 'ABC-123')))).toEqual([]);
      expect(ids(await advanced(one('license_key', 'not_contains', 'x')))).toEqual([]);
      expect(ids(await advanced(one('license_status', 'in', ['active'])))).toEqual([]);
      expect(ids(await advanced(one('license_status', 'not_in', ['expired'])))).toEqual([]);
      const either = [[{ property: 'license_status', operator: 'in', value: ['active'] }], [{ property: 'status', operator: 'in', value: ['paused'] }]];
      expect(ids(await advanced(either))).toEqual([s.paused]);
    });

    it('are ignored unless filter_type is advanced', async () => {
      const groups = encodeURIComponent(JSON.stringify(one('status', 'in', ['paused'])));
      expect(ids(await get(`advanced_filters=${groups}`))).toHaveLength(10);
      expect(ids(await get(`filter_type=simple&advanced_filters=${groups}`))).toHaveLength(10);
    });

    it('refuses bad JSON, unknown properties, operators and values with a 422, never a 500', async () => {
      const json = await advanced('[[{"property":');
      expect(json.status).toBe(422);
      expect(json.body).toEqual({
        message: 'The advanced filters field must be valid JSON.',
        errors: { advanced_filters: { json: 'The advanced filters field must be valid JSON.' } },
      });
      const unknown = await advanced(one('ltv', '>', 5));
      expect(unknown.status).toBe(422);
      expect(unknown.body.message).toBe(
        'Unknown advanced filter "ltv". Known filters: vendor_subscription_id, status, variation, billing_interval, current_payment_method, created_at, next_billing_date, bill_count, product, license_key, license_status, transaction_id, transaction_payment_method.',
      );
      const operator = await advanced(one('bill_count', 'contains', 'x'));
      expect(operator.body.errors).toEqual({
        advanced_filters: { operator: 'The operator "contains" is not supported for bill_count. Use one of: =, !=, >, >=, <, <=, between.' },
      });
      const status = await advanced(one('status', 'in', ['lost']));
      expect(status.status).toBe(422);
      expect(status.body.errors.advanced_filters.value).toMatch(/^The value of the status filter must be one or more of: active, pending, .*completed\.$/);
      const interval = await advanced(one('billing_interval', 'in', ['fortnightly']));
      expect(interval.status).toBe(422);
      const license = await advanced(one('license_status', 'in', ['revoked']));
      expect(license.status).toBe(422);
      const type = await get('filter_type=smart');
      expect(type.status).toBe(422);
      expect(type.body.errors).toEqual({ filter_type: { in: 'The selected filter type is invalid.' } });
      expect(app.logger.entries.filter((e) => e.level === 'error')).toEqual([]);
    });
  });

  describe('with, select, scopes, include_ids', () => {
    const RELATIONS = ['customer', 'order', 'billing_address', 'shipping_address', 'labels', 'activities', 'related_orders'];
    const withAll = RELATIONS.map((r) => `with[]=${r}`).join('&');

    it('with[] loads each relation for the whole page', async () => {
      await db()('store_order_addresses').insert({
        order_id: 101,
        type: 'billing',
        name: 'Ann Test',
        address_1: '1 Market Street',
        city: 'San Francisco',
        state: 'CA',
        postcode: '94105',
        country: 'US',
        meta: '{}',
        created_at: NOW,
        updated_at: NOW,
      });
      await db()('store_activities').insert({
        object_type: 'subscription',
        object_id: s.active,
        title: 'Subscription activated',
        content: '',
        status: 'info',
        created_at: NOW,
      });
      const res = await get(`${withAll}&search=pro`);
      const [pending, trialing, active] = res.body.data.data;
      expect(active.id).toBe(s.active);
      expect(active.customer).toMatchObject({ id: c.ann, email: 'ann@example.com', full_name: 'Ann Test' });
      expect(active.order).toMatchObject({ id: 101, type: 'subscription', billing_address: { city: 'San Francisco' }, shipping_address: null });
      expect(active.billing_address).toMatchObject({
        order_id: 101,
        type: 'billing',
        formatted_address: { full_address: expect.stringContaining('1 Market Street') },
      });
      expect(active.shipping_address).toBeNull();
      expect(active.labels).toEqual([]);
      expect(active.selected_labels).toEqual([]);
      expect(active.activities).toEqual([expect.objectContaining({ object_type: 'subscription', object_id: s.active, title: 'Subscription activated' })]);
      expect(active.related_orders.map((o: { id: number }) => o.id)).toEqual([201, 101]);
      expect(trialing.labels).toEqual([expect.objectContaining({ id: label, title: 'VIP' })]);
      expect(trialing.selected_labels).toEqual([label]);
      expect(trialing.related_orders.map((o: { id: number }) => o.id)).toEqual([103]);
      expect(pending).toMatchObject({ billing_address: null, activities: [], order: { id: 106 } });
    });

    it('with[] costs one query whatever the relations and the page size (no N+1)', async () => {
      await get(withAll); // reads the tables' columns once
      const store = /store_(?!rate_limits)/;
      const small = await countQueries(() => get(`${withAll}&per_page=2&scopes[]=automatic`), store);
      const large = await countQueries(() => get(`${withAll}&per_page=8&scopes[]=automatic`), store);
      const one = await countQueries(() => get('with[]=labels&per_page=8&scopes[]=automatic'), store);
      const bare = await countQueries(() => get('per_page=8&scopes[]=automatic'), store);
      expect(large).toBe(small);
      expect(large - bare).toBe(1);
      expect(one - bare).toBe(1);
    });

    it('with[] refuses unknown relations with a 422', async () => {
      const res = await get('with[]=password');
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ 'with.0': { in: `The with field accepts ${RELATIONS.join(', ')}.` } });
    });

    it('select[] returns only the named fields (and the id)', async () => {
      const res = await get(`select[]=status,bill_count&search=${encodeURIComponent(`#${s.paused}`)}`);
      expect(res.body.data.data).toEqual([{ id: s.paused, status: 'paused', bill_count: 4 }]);
      const withLabels = await get(`select[]=status&select[]=uuid&with[]=labels&search=${encodeURIComponent(`#${s.trialing}`)}`);
      expect(withLabels.body.data.data).toEqual([
        { id: s.trialing, status: 'trialing', uuid: expect.any(String), labels: [expect.objectContaining({ title: 'VIP' })], selected_labels: [label] },
      ]);
      const bad = await get('select[]=status,vendor_subscription_key');
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({
        message: 'The select field names unknown columns: vendor_subscription_key.',
        errors: { select: { in: 'The select field names unknown columns: vendor_subscription_key.' } },
      });
    });

    it('scopes[]: installments, unlimited, automatic, with_vendor_id; anything else is a 422', async () => {
      expect(ids(await get('scopes[]=installments'))).toEqual(keys('completed', 'trialing'));
      expect(ids(await get('scopes[]=unlimited'))).toHaveLength(8);
      expect(ids(await get('scopes[]=automatic'))).toEqual(keys(...ALL).filter((id) => id !== s.expired));
      expect(ids(await get('scopes[]=with_vendor_id'))).toEqual(keys('paused', 'expiring', 'failing', 'completed', 'trialing', 'canceled', 'active'));
      expect(ids(await get('scopes[]=with_vendor_id&scopes[]=installments'))).toEqual(keys('completed', 'trialing'));
      const bad = await get('scopes[]=deleted');
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toEqual({ 'scopes.0': { in: 'The scopes field accepts installments, unlimited, automatic, with_vendor_id.' } });
    });

    it('include_ids[] adds subscriptions whatever the filters', async () => {
      const res = await get(`active_view=paused&include_ids[]=${s.active}`);
      expect(ids(res)).toEqual(keys('paused', 'active'));
      expect(res.body.data.total).toBe(2);
      expect(ids(await get(`search=canceled&include_ids[]=${s.intended}`))).toEqual(keys('intended', 'canceled'));
      expect(ids(await get(`include_ids[]=${s.intended}`))).toHaveLength(10);
      expect((await get('include_ids[]=0')).status).toBe(422);
    });
  });

  describe('totals', () => {
    const extra: number[] = [];
    afterAll(async () => {
      await db()('store_subscriptions').whereIn('id', extra).delete();
    });

    async function subscriptionOf(id: number) {
      return presentSubscription((await db()('store_subscriptions').where({ id }).first()) as SubscriptionRow);
    }

    it('counts the unfiltered list and views once, again after a subscription hook of this process or after 5 s', async () => {
      const total = async (query: string) => ((await app.as(admin).get(`${BASE}/subscriptions?per_page=1&${query}`)).body.data as Page).total;
      expect(await total('')).toBe(10);
      expect(await total('active_view=active')).toBe(1);

      extra.push(await insertSubscription(db(), { status: 'pending' }));
      expect(await total('')).toBe(10);
      expect(await total('scopes[]=automatic')).toBe(10);
      app.host.hooks.doAction('store/subscription/status_changed', await subscriptionOf(extra[0]), 'pending');
      expect(await total('')).toBe(11);
      expect(await total('active_view=active')).toBe(1);

      await db()('store_subscriptions').where({ id: extra[0] }).update({ status: 'active' });
      expect(await total('active_view=active')).toBe(1);
      app.host.hooks.doAction('store/subscription/status_changed', await subscriptionOf(extra[0]), 'pending');
      expect(await total('active_view=active')).toBe(2);

      extra.push(await insertSubscription(db(), { status: 'active' }));
      expect(await total('active_view=active')).toBe(2);
      app.clock.advance(6000);
      let last = await total('active_view=active');
      for (let i = 0; i < 50 && last !== 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        last = await total('active_view=active');
      }
      expect(last).toBe(3);
    });
  });
});
