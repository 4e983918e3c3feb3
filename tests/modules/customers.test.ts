import crypto from 'node:crypto';
import type { ActionMap, ActionName } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';
const md5 = (text: string) => crypto.createHash('md5').update(text).digest('hex');

/**
 * Customer administration: list, create, detail, update, labels. Errors come in `{code, message, data}`.
 * Each describe block uses its own administrator, so the hourly request classes (list 100, create 50) are never
 * reached by accident; the limits themselves are tested in customers-portal.test.ts.
 */
describe('customers (administration)', () => {
  let app: TestApp;
  let clerk: TestUser; // customer_service: customers/view + customers/manage
  let productManager: TestUser; // no customer permission
  let shopper: TestUser; // role customer
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    clerk = await app.createUser('clerk', ['customer_service']);
    productManager = await app.createUser('pm', ['product_manager']);
    shopper = await app.createUser('shopper', ['customer']);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const newAdmin = () => app.createUser(`admin${++n}`, ['administrator']);

  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  async function customer(admin: TestUser, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: number }> {
    const res = await app.as(admin).post(`${BASE}/customers`).send(body);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  const insertOrder = (customerId: number, over: Record<string, unknown> = {}, items: Array<Record<string, unknown>> = []) =>
    insertOrderRow(db(), customerId, NOW, over, items);

  async function label(admin: TestUser, title: string): Promise<number> {
    const res = await app.as(admin).post(`${BASE}/labels`).send({ title });
    expect(res.status).toBe(200);
    return res.body.label.id;
  }

  describe('GET /customers', () => {
    let admin: TestUser;
    const ids: Record<string, number> = {};
    let gold: number;

    beforeAll(async () => {
      admin = await newAdmin();
      const people = [
        ['list-ann@example.com', 'Ann', 'Archer', 'active', 'US'],
        ['list-bob@example.com', 'Bob', 'Builder', 'inactive', 'GB'],
        ['list-cat@example.com', 'Cat', "O'Hara", 'archived', 'DE'],
        ['list-dan@example.com', 'Dan', '100% Dan', 'active', 'FR'],
      ];
      for (const [email, first, last, status, country] of people) {
        ids[first] = (await customer(admin, { email, first_name: first, last_name: last, status, country })).id;
      }
      await db()('store_customers').where({ id: ids.Ann }).update({ ltv: 5000, purchase_count: 2, last_purchase_date: '2026-11-20 23:30:00' });
      await db()('store_customers').where({ id: ids.Bob }).update({ ltv: 1500, purchase_count: 1, last_purchase_date: '2026-10-01 12:00:00' });
      gold = await label(admin, 'Gold');
      await app
        .as(admin)
        .put(`${BASE}/customers/${ids.Bob}/additional-info`)
        .send({ labels: [gold] })
        .expect(200);
      await insertOrder(ids.Ann, { total_amount: 3000 }, [{ variation_id: 77, post_id: 7 }]);
      await insertOrder(ids.Cat, { payment_status: 'pending' }, [{ variation_id: 77, post_id: 7 }]);
      await insertOrder(ids.Dan, {}, [{ variation_id: 88, post_id: 8 }]);
    });

    const list = (query: string, user?: TestUser) => app.as(user ?? admin).get(`${BASE}/customers?${query}`);
    const names = (res: { body: { customers: { data: Array<{ first_name: string }> } } }) => res.body.customers.data.map((c) => c.first_name);
    const ours = (res: { body: { customers: { data: Array<{ first_name: string; email: string }> } } }) =>
      res.body.customers.data.filter((c) => c.email.startsWith('list-')).map((c) => c.first_name);

    it('answers {customers: page}: newest first, 10 per page, each with the computed fields', async () => {
      const res = await list('');
      expect(res.status).toBe(200);
      expect(res.body.customers).toMatchObject({ current_page: 1, per_page: 10, total: 4, last_page: 1, from: 1, to: 4 });
      expect(names(res)).toEqual(['Dan', 'Cat', 'Bob', 'Ann']);
      expect(res.body.customers.data[0]).toMatchObject({
        id: ids.Dan,
        full_name: 'Dan 100% Dan',
        country_name: 'France',
        photo: expect.stringContaining('gravatar'),
      });
    });

    it('per_page is clamped to 1-199; page past the end is empty', async () => {
      expect((await list('per_page=0')).body.customers.per_page).toBe(1);
      expect((await list('per_page=500')).body.customers.per_page).toBe(199);
      expect((await list('per_page=abc')).body.customers.per_page).toBe(10);
      const page2 = await list('per_page=3&page=2');
      expect(page2.body.customers).toMatchObject({ current_page: 2, per_page: 3, total: 4, last_page: 2, from: 4, to: 4 });
      expect(names(page2)).toEqual(['Ann']);
    });

    it('search: name, full name, email fragment, id; % and quotes literally', async () => {
      expect(names(await list('search=bob'))).toEqual(['Bob']);
      expect(names(await list(`search=${encodeURIComponent('Ann Archer')}`))).toEqual(['Ann']);
      expect(names(await list('search=list-cat@'))).toEqual(['Cat']);
      expect(names(await list(`search=${ids.Bob}`))).toEqual(['Bob']);
      expect(names(await list(`search=${encodeURIComponent("O'Hara")}`))).toEqual(['Cat']);
      expect(names(await list(`search=${encodeURIComponent('100%')}`))).toEqual(['Dan']);
      expect(names(await list('search=nobody-at-all'))).toEqual([]);
    });

    it('search operators on allowlisted columns: id=5, ltv>1000, status = inactive; other columns are text', async () => {
      expect(names(await list(`search=${encodeURIComponent(`id=${ids.Cat}`)}`))).toEqual(['Cat']);
      expect(names(await list(`search=${encodeURIComponent('ltv>1000')}`))).toEqual(['Bob', 'Ann']);
      expect(names(await list(`search=${encodeURIComponent('ltv>1500')}`))).toEqual(['Ann']);
      expect(names(await list(`search=${encodeURIComponent('status = inactive')}`))).toEqual(['Bob']);
      expect(names(await list(`search=${encodeURIComponent(`#${ids.Ann}`)}`))).toEqual(['Ann']);
      expect(names(await list(`search=${encodeURIComponent('password=x')}`))).toEqual([]);
    });

    it('sort_by a fillable column and sort_type; anything else falls back to id desc', async () => {
      expect(names(await list('sort_by=first_name&sort_type=asc'))).toEqual(['Ann', 'Bob', 'Cat', 'Dan']);
      expect(names(await list('sort_by=ltv&sort_type=desc'))).toEqual(['Ann', 'Bob', 'Dan', 'Cat']);
      expect(names(await list('sort_by=password_hash&sort_type=sideways'))).toEqual(['Dan', 'Cat', 'Bob', 'Ann']);
    });

    it('active_view: active, inactive, archived; anything else is a 422', async () => {
      expect(names(await list('active_view=active'))).toEqual(['Dan', 'Ann']);
      expect(names(await list('active_view=inactive'))).toEqual(['Bob']);
      expect(names(await list('active_view=archived'))).toEqual(['Cat']);
      const bad = await list('active_view=deleted');
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({
        code: 422,
        message: 'The selected active view is invalid.',
        data: { active_view: { in: 'The selected active view is invalid.' } },
      });
    });

    it('with[]: orders, labels, billing_address, shipping_address (batched)', async () => {
      await db()('store_customer_addresses').insert({
        customer_id: ids.Ann,
        type: 'billing',
        is_primary: 1,
        primary_slot: 'billing',
        name: 'Ann Archer',
        address_1: '1 Main St',
        city: 'Austin',
        state: 'TX',
        postcode: '73301',
        country: 'US',
        meta: '{}',
        created_at: NOW,
        updated_at: NOW,
      });
      const res = await list('with[]=orders&with[]=labels&with[]=billing_address&with[]=shipping_address');
      expect(res.status).toBe(200);
      const byName = Object.fromEntries(res.body.customers.data.map((c: { first_name: string }) => [c.first_name, c]));
      expect(byName.Ann.orders).toHaveLength(1);
      expect(byName.Ann.orders[0]).toMatchObject({ customer_id: ids.Ann, total_amount: 3000, payment_status: 'paid' });
      expect(byName.Ann.billing_address).toEqual([
        expect.objectContaining({ customer_id: ids.Ann, type: 'billing', is_primary: 1, city: 'Austin', formatted_address: expect.any(Object) }),
      ]);
      expect(byName.Ann.shipping_address).toEqual([]);
      expect(byName.Bob.labels).toEqual([expect.objectContaining({ id: gold, title: 'Gold' })]);
      expect(byName.Bob.orders).toEqual([]);
      const bad = await list('with[]=password');
      expect(bad.status).toBe(422);
      expect(bad.body.data['with.0']).toEqual({ in: 'The with field accepts orders, labels, billing_address, shipping_address.' });
    });

    it('select returns only the allowlisted columns asked for (id always); unknown columns are a 422', async () => {
      const res = await list('select[]=email,first_name&search=bob');
      expect(res.body.customers.data).toEqual([{ id: ids.Bob, email: 'list-bob@example.com', first_name: 'Bob' }]);
      const bad = await list('select[]=email,password_hash');
      expect(bad.status).toBe(422);
      expect(bad.body.data).toEqual({ select: { in: 'The select field names unknown columns: password_hash.' } });
    });

    it('include_ids adds those customers whatever the filters say', async () => {
      const res = await list(`active_view=inactive&include_ids[]=${ids.Cat}`);
      expect(names(res)).toEqual(['Cat', 'Bob']);
    });

    describe('filter_type=advanced', () => {
      const adv = (groups: unknown, extra = '') => list(`filter_type=advanced&advanced_filters=${encodeURIComponent(JSON.stringify(groups))}${extra}`);

      it('filters by ltv, purchase count, name, email and labels; conditions AND inside a group, groups OR', async () => {
        expect(ours(await adv([[{ property: 'ltv', operator: '>=', value: 1500 }]]))).toEqual(['Bob', 'Ann']);
        expect(ours(await adv([[{ property: 'purchase_count', operator: 'between', value: [2, 5] }]]))).toEqual(['Ann']);
        expect(ours(await adv([[{ property: 'name', operator: 'contains', value: 'builder' }]]))).toEqual(['Bob']);
        expect(ours(await adv([[{ property: 'email', operator: 'starts_with', value: 'list-c' }]]))).toEqual(['Cat']);
        expect(ours(await adv([[{ property: 'labels', operator: 'in', value: [gold] }]]))).toEqual(['Bob']);
        expect(ours(await adv([[{ property: 'labels', operator: 'not_in', value: [gold] }]]))).toEqual(['Dan', 'Cat', 'Ann']);
        expect(
          ours(
            await adv([
              [
                { property: 'ltv', operator: '>', value: 0 },
                { property: 'name', operator: 'contains', value: 'ann' },
              ],
              [{ property: 'email', operator: '=', value: 'LIST-DAN@example.com' }],
            ]),
          ),
        ).toEqual(['Dan', 'Ann']);
        // a flat array of conditions is one group
        expect(
          ours(
            await adv([
              { property: 'ltv', operator: '<', value: 2000 },
              { property: 'ltv', operator: '>', value: 0 },
            ]),
          ),
        ).toEqual(['Bob']);
      });

      it('order_items: customers who bought these variations in a paid order', async () => {
        expect(ours(await adv([[{ property: 'order_items', operator: 'in', value: [77] }]]))).toEqual(['Ann']); // Cat's order is unpaid
        expect(ours(await adv([[{ property: 'order_items', operator: 'in', value: [77, 88] }]]))).toEqual(['Dan', 'Ann']);
        expect(ours(await adv([[{ property: 'order_items', operator: 'all', value: [77, 88] }]]))).toEqual([]);
        expect(ours(await adv([[{ property: 'products', operator: 'in', value: [8] }]]))).toEqual(['Dan']);
      });

      it('purchase dates: a bare date is that whole day in user_tz', async () => {
        // Ann last bought at 2026-11-20 23:30 UTC, which is 2026-11-21 in Berlin
        const day = (d: string, tz: string) => adv([[{ property: 'last_purchase_date', operator: '=', value: d }]], `&user_tz=${encodeURIComponent(tz)}`);
        expect(ours(await day('2026-11-20', 'UTC'))).toEqual(['Ann']);
        expect(ours(await day('2026-11-20', 'Europe/Berlin'))).toEqual([]);
        expect(ours(await day('2026-11-21', 'Europe/Berlin'))).toEqual(['Ann']);
        expect(ours(await adv([[{ property: 'last_purchase_date', operator: 'between', value: ['2026-10-01', '2026-10-31'] }]]))).toEqual(['Bob']);
        expect(ours(await adv([[{ property: 'last_purchase_date', operator: 'in_last_days', value: 7 }]]))).toEqual(['Ann']);
        expect(ours(await adv([[{ property: 'first_purchase_date', operator: 'is_empty' }]]))).toEqual(['Dan', 'Cat', 'Bob', 'Ann']);
      });

      it.each([
        ['{not json', 'json', 'The advanced filters field must be valid JSON.'],
        ['{"property":"ltv"}', 'array', 'The advanced filters field must be an array of filter groups.'],
        [
          '[[{"property":"password","operator":"=","value":"x"}]]',
          'in',
          'Unknown advanced filter "password". Known filters: name, first_name, last_name, email, country, city, ltv, aov, purchase_count, first_purchase_date, last_purchase_date, created_at, status, labels, order_items, products.',
        ],
        [
          '[[{"property":"ltv","operator":"contains","value":1}]]',
          'operator',
          'The operator "contains" is not supported for ltv. Use one of: =, !=, >, >=, <, <=, between.',
        ],
        ['[[{"property":"ltv","operator":">","value":"lots"}]]', 'value', 'The value of the ltv filter must be a number.'],
        ['[[{"property":"labels","operator":"in","value":["x"]}]]', 'value', 'The value of the labels filter must be an array of ids.'],
        [
          '[[{"property":"last_purchase_date","operator":"=","value":"2026-02-30"}]]',
          'value',
          'The value of the last_purchase_date filter must be a date (YYYY-MM-DD or YYYY-MM-DD HH:MM:SS).',
        ],
        ['[["x"]]', 'array', 'Each advanced filter must be an object with property, operator and value.'],
      ])('advanced_filters=%s is a 422 naming advanced_filters (%s)', async (raw, rule, message) => {
        const res = await list(`filter_type=advanced&advanced_filters=${encodeURIComponent(raw)}`);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ code: 422, message, data: { advanced_filters: { [rule]: message } } });
      });

      it('filter_type must be simple or advanced; with simple, advanced_filters is not applied', async () => {
        const bad = await list('filter_type=fancy');
        expect(bad.status).toBe(422);
        expect(bad.body.data).toEqual({ filter_type: { in: 'The selected filter type is invalid.' } });
        expect((await list('filter_type=simple&advanced_filters=%7Bnot-json')).status).toBe(200);
      });
    });

    it('needs customers/view: 401 anonymous, 403 without it', async () => {
      expect((await app.http.get(`${BASE}/customers`)).status).toBe(401);
      expect((await list('', shopper)).status).toBe(403);
      expect((await list('', productManager)).status).toBe(403);
      expect((await list('', clerk)).status).toBe(200);
    });
  });

  describe('POST /customers', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await newAdmin();
    });
    afterEach(() => app.host.options.set('store_settings', {}));

    it('creates a customer: 200 {message, data: customer with the computed fields}, activity, store/customer/created', async () => {
      const created = record('store/customer/created');
      const res = await app.as(admin).post(`${BASE}/customers`).send({
        email: '  Jane.Doe@Example.COM ',
        first_name: 'Jane',
        last_name: 'Doe',
        city: 'Berlin',
        postcode: '10115',
        country: 'de',
        notes: 'VIP',
      });
      created.off();
      expect(res.status).toBe(200);
      const hash = md5('jane.doe@example.com');
      expect(res.body).toEqual({
        message: 'Customer created successfully!',
        data: {
          id: expect.any(Number),
          user_id: null,
          contact_id: null,
          email: 'jane.doe@example.com',
          first_name: 'Jane',
          last_name: 'Doe',
          status: 'active',
          purchase_value: {},
          purchase_count: 0,
          ltv: 0,
          first_purchase_date: null,
          last_purchase_date: null,
          aov: 0,
          notes: 'VIP',
          uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
          country: 'DE',
          city: 'Berlin',
          state: '',
          postcode: '10115',
          created_at: NOW,
          updated_at: NOW,
          full_name: 'Jane Doe',
          photo: `https://www.gravatar.com/avatar/${hash}?s=128&d=mp`,
          country_name: 'Germany',
          formatted_address: { country: 'Germany', state: '', city: 'Berlin', postcode: '10115', first_name: 'Jane', last_name: 'Doe', full_name: 'Jane Doe' },
          user_link: null,
          selected_labels: [],
          labels: [],
        },
      });
      expect(created.calls.map(([c]) => c.email)).toEqual(['jane.doe@example.com']);
      const log = await db()('store_activities').where({ object_type: 'customer', object_id: res.body.data.id }).select('title');
      expect(log.map((l) => l.title)).toEqual(['Customer created']);
    });

    it('an existing email (any case) is 400 {code: 400, message: "Customer already exists.", data} and changes nothing', async () => {
      await customer(admin, { email: 'dup@example.com', first_name: 'A' });
      const before = await db()('store_customers').count({ n: '*' }).first();
      const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'DUP@example.com', first_name: 'B' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message: 'Customer already exists.', data: { email: { unique: 'Customer already exists.' } } });
      expect(await db()('store_customers').count({ n: '*' }).first()).toEqual(before);
    });

    it.each([
      [{}, 'email', 'required', 'The email field is required.'],
      [{ email: 'not-an-email', first_name: 'A' }, 'email', 'email', 'The email field must be a valid email address.'],
      [{ email: `${'x'.repeat(250)}@example.com`, first_name: 'A' }, 'email', 'max', 'The email field must not be greater than 255 characters.'],
      [{ email: 'a1@example.com' }, 'first_name', 'required', 'The first name field is required.'],
      [{ email: 'a2@example.com', first_name: '   ' }, 'first_name', 'required', 'The first name field is required.'],
      [{ email: 'a3@example.com', first_name: 'x'.repeat(256) }, 'first_name', 'max', 'The first name field must not be greater than 255 characters.'],
      [
        { email: 'a4@example.com', first_name: 'A', last_name: 'x'.repeat(256) },
        'last_name',
        'max',
        'The last name field must not be greater than 255 characters.',
      ],
      [{ email: 'a5@example.com', first_name: 'A', status: 'deleted' }, 'status', 'in', 'The selected status is invalid.'],
      [{ email: 'a6@example.com', first_name: 'A', country: 'XX' }, 'country', 'country', 'The country field must be a valid ISO 3166-1 alpha-2 code.'],
      [{ email: 'a7@example.com', first_name: 'A', user_id: 'abc' }, 'user_id', 'integer', 'The user id field must be an integer.'],
      [{ email: 'a8@example.com', first_name: 'A', user_id: 999999 }, 'user_id', 'exists', 'The selected user id is invalid.'],
    ])('refuses %j: 422 {code: 422, message, data: {%s: {%s}}}', async (body, field, rule, message) => {
      const res = await app.as(admin).post(`${BASE}/customers`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe(422);
      expect(res.body.data[field]).toEqual({ [rule]: message });
      expect(res.body.message).toBe(Object.values(res.body.data)[0] && Object.values(Object.values(res.body.data)[0] as object)[0]);
      expect(await db()('store_customers').where('email', 'like', 'a_@example.com').first()).toBeUndefined();
    });

    it('full-name mode: full_name is required and split into first and last name', async () => {
      await app.host.options.set('store_settings', { name_mode: 'full' });
      const missing = await app.as(admin).post(`${BASE}/customers`).send({ email: 'full@example.com', first_name: 'Ignored' });
      expect(missing.status).toBe(422);
      expect(missing.body.data).toEqual({ full_name: { required: 'The full name field is required.' } });
      const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'full@example.com', full_name: '  Maria  de la Cruz ' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ first_name: 'Maria', last_name: 'de la Cruz', full_name: 'Maria de la Cruz' });
    });

    it('links the host user whose email matches', async () => {
      const user = await app.createUser('matching');
      const created = await customer(admin, { email: 'Matching@example.com', first_name: 'M' });
      expect(created.user_id).toBe(user.user.id);
      expect(created.user_link).toBe(`http://store.test/wp-admin/user-edit.php?user_id=${user.user.id}`);
    });

    it('user_id links that host user; one already linked to another customer is a 422', async () => {
      const user = await app.createUser('linkme');
      const created = await customer(admin, { email: 'other-address@example.com', first_name: 'L', user_id: user.user.id });
      expect(created.user_id).toBe(user.user.id);
      const again = await app.as(admin).post(`${BASE}/customers`).send({ email: 'third@example.com', first_name: 'T', user_id: user.user.id });
      expect(again.status).toBe(422);
      expect(again.body).toEqual({
        code: 422,
        message: 'This user is already linked to another customer.',
        data: { user_id: { unique: 'This user is already linked to another customer.' } },
      });
    });

    it("wp_user: 'yes' creates a host user (login from the email, role customer) and links it", async () => {
      const taken = await app.createUser('newbie');
      const created = await customer(admin, { email: 'newbie@shop.test', first_name: 'New', last_name: 'Bie', wp_user: 'yes' });
      const user = await app.host.users.findById(created.user_id as number);
      expect(user).toMatchObject({ login: 'newbie2', email: 'newbie@shop.test', first_name: 'New', last_name: 'Bie', roles: ['customer'] });
      expect(user!.id).not.toBe(taken.user.id);
      // without wp_user no user is created
      const plain = await customer(admin, { email: 'plain@shop.test', first_name: 'P' });
      expect(plain.user_id).toBeNull();
      expect(await app.host.users.findByEmail('plain@shop.test')).toBeNull();
    });

    it('needs customers/manage: 401 anonymous, 403 for a customer or a product manager', async () => {
      const body = { email: 'perm@example.com', first_name: 'P' };
      expect((await app.http.post(`${BASE}/customers`).send(body)).status).toBe(401);
      for (const user of [shopper, productManager]) {
        const res = await app.as(user).post(`${BASE}/customers`).send(body);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
      }
      expect((await app.as(clerk).post(`${BASE}/customers`).send(body)).status).toBe(200);
    });
  });

  describe('GET /customers/{customerId}', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await newAdmin();
    });

    it('answers {customer} with computed fields, selected_labels and labels', async () => {
      const user = await app.createUser('detailed');
      const c = await customer(admin, { email: 'detailed@example.com', first_name: 'De', last_name: 'Tail', country: 'US', state: 'CA' });
      const vip = await label(admin, 'Detail VIP');
      await app
        .as(admin)
        .put(`${BASE}/customers/${c.id}/additional-info`)
        .send({ labels: [vip] })
        .expect(200);
      const res = await app.as(admin).get(`${BASE}/customers/${c.id}`);
      expect(res.status).toBe(200);
      expect(res.body.customer).toMatchObject({
        id: c.id,
        email: 'detailed@example.com',
        user_id: user.user.id,
        full_name: 'De Tail',
        country_name: 'United States of America',
        formatted_address: {
          country: 'United States of America',
          state: 'CA',
          city: '',
          postcode: '',
          first_name: 'De',
          last_name: 'Tail',
          full_name: 'De Tail',
        },
        user_link: `http://store.test/wp-admin/user-edit.php?user_id=${user.user.id}`,
        selected_labels: [vip],
        labels: [expect.objectContaining({ id: vip, title: 'Detail VIP' })],
      });
      expect(res.body.customer).not.toHaveProperty('orders');
    });

    it('params[customer_only]=yes skips the labels', async () => {
      const c = await customer(admin, { email: 'only@example.com', first_name: 'O' });
      const res = await app.as(admin).get(`${BASE}/customers/${c.id}?params[customer_only]=yes`);
      expect(res.body.customer).not.toHaveProperty('labels');
      expect(res.body.customer).not.toHaveProperty('selected_labels');
      expect(res.body.customer.full_name).toBe('O');
    });

    it('with[]: orders, addresses, subscriptions (none yet) and wpUser', async () => {
      const user = await app.createUser('withuser');
      const c = await customer(admin, { email: 'withuser@example.com', first_name: 'W' });
      await insertOrder(c.id, { total_amount: 4200 });
      const res = await app
        .as(admin)
        .get(`${BASE}/customers/${c.id}?with[]=orders&with[]=billing_address&with[]=shipping_address&with[]=subscriptions&with[]=wpUser`);
      expect(res.status).toBe(200);
      expect(res.body.customer.orders).toEqual([expect.objectContaining({ total_amount: 4200, customer_id: c.id })]);
      expect(res.body.customer.billing_address).toEqual([]);
      expect(res.body.customer.shipping_address).toEqual([]);
      expect(res.body.customer.subscriptions).toEqual([]);
      expect(res.body.customer.wp_user).toMatchObject({ id: user.user.id, user_login: 'withuser', user_email: 'withuser@example.com' });
    });

    it('404 {message, back_text, back_url} for a missing customer; 422 for a non-numeric id', async () => {
      const res = await app.as(admin).get(`${BASE}/customers/999999`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        message: 'Customer not found',
        back_text: 'Back to Customers',
        back_url: 'http://store.test/wp-admin/admin.php?page=store#/customers',
      });
      const bad = await app.as(admin).get(`${BASE}/customers/abc`);
      expect(bad.status).toBe(422);
      expect(bad.body.code).toBe(422);
    });

    it('401 anonymous; without customers/view a logged-in user gets the portal variant (403 for a foreign customer)', async () => {
      const c = await customer(admin, { email: 'guarded@example.com', first_name: 'G' });
      expect((await app.http.get(`${BASE}/customers/${c.id}`)).status).toBe(401);
      const res = await app.as(productManager).get(`${BASE}/customers/${c.id}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'You are not authorized to view this customer' });
      expect((await app.as(clerk).get(`${BASE}/customers/${c.id}`)).status).toBe(200);
    });
  });

  describe('PUT /customers/{customerId}', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await newAdmin();
    });

    it('updates the customer and its linked host user; logs, fires updated and status_changed', async () => {
      const user = await app.createUser('editme');
      const c = await customer(admin, { email: 'editme@example.com', first_name: 'Ed', last_name: 'It' });
      expect(c.user_id).toBe(user.user.id);
      const updated = record('store/customer/updated');
      const status = record('store/customer/status_changed');
      app.clock.advance(60_000);
      const res = await app.as(admin).put(`${BASE}/customers/${c.id}`).send({
        email: 'Edited@Example.com',
        first_name: 'Edna',
        last_name: 'Ited',
        status: 'inactive',
        city: 'Paris',
        display_name: 'Edna I.',
        user_nicename: 'edna',
      });
      updated.off();
      status.off();
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Customer updated successfully!');
      expect(res.body.data).toMatchObject({
        id: c.id,
        email: 'edited@example.com',
        first_name: 'Edna',
        last_name: 'Ited',
        status: 'inactive',
        city: 'Paris',
        full_name: 'Edna Ited',
        updated_at: '2026-11-21 10:01:00',
        selected_labels: [],
      });
      expect(await app.host.users.findById(user.user.id)).toMatchObject({
        email: 'edited@example.com',
        first_name: 'Edna',
        last_name: 'Ited',
        display_name: 'Edna I.',
        nicename: 'edna',
      });
      expect(updated.calls).toHaveLength(1);
      expect(updated.calls[0][1].first_name).toBe('Ed');
      expect(status.calls.map(([after, before]) => [after.status, before])).toEqual([['inactive', 'active']]);
      const log = await db()('store_activities').where({ object_type: 'customer', object_id: c.id }).orderBy('id').select('title', 'content');
      expect(log[1]).toEqual({ title: 'Customer updated', content: 'Changed: email, first_name, last_name, status, city.' });
    });

    it("the email must stay unique (excluding itself): 400 'Customer already exists.'", async () => {
      const a = await customer(admin, { email: 'keep-a@example.com', first_name: 'A' });
      await customer(admin, { email: 'keep-b@example.com', first_name: 'B' });
      const self = await app.as(admin).put(`${BASE}/customers/${a.id}`).send({ email: 'KEEP-A@example.com', first_name: 'A2' });
      expect(self.status).toBe(200);
      const res = await app.as(admin).put(`${BASE}/customers/${a.id}`).send({ email: 'keep-b@example.com', first_name: 'A' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, message: 'Customer already exists.' });
      expect((await db()('store_customers').where({ id: a.id }).first()).first_name).toBe('A2');
    });

    it("an email used by another host user is a 422 when the customer is linked (the user's email follows)", async () => {
      await app.createUser('linked-one');
      await app.createUser('someone-else');
      const c = await customer(admin, { email: 'linked-one@example.com', first_name: 'L' });
      const res = await app.as(admin).put(`${BASE}/customers/${c.id}`).send({ email: 'someone-else@example.com', first_name: 'L' });
      expect(res.status).toBe(422);
      expect(res.body.data).toEqual({ email: { unique: 'The email is already used by another user account.' } });
    });

    it('validation and 404 in the admin envelope', async () => {
      const c = await customer(admin, { email: 'val@example.com', first_name: 'V' });
      const res = await app.as(admin).put(`${BASE}/customers/${c.id}`).send({ email: 'val@example.com' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        code: 422,
        message: 'The first name field is required.',
        data: { first_name: { required: 'The first name field is required.' } },
      });
      const nick = await app.as(admin).put(`${BASE}/customers/${c.id}`).send({ email: 'val@example.com', first_name: 'V', user_nicename: 'Not Valid!' });
      expect(nick.body.data).toEqual({ user_nicename: { regex: 'The user nicename field format is invalid.' } });
      const missing = await app.as(admin).put(`${BASE}/customers/999999`).send({ email: 'x@example.com', first_name: 'X' });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 404, message: 'Customer not found', data: {} });
    });

    it("wp_user: 'yes' on an unlinked customer creates its user with the given username", async () => {
      const c = await customer(admin, { email: 'later@example.com', first_name: 'La', last_name: 'Ter' });
      const res = await app
        .as(admin)
        .put(`${BASE}/customers/${c.id}`)
        .send({ email: 'later@example.com', first_name: 'La', wp_user: 'yes', username: 'later_user' });
      expect(res.status).toBe(200);
      expect(await app.host.users.findById(res.body.data.user_id)).toMatchObject({ login: 'later_user', email: 'later@example.com' });
    });
  });

  describe('PUT /customers/{customerId}/additional-info', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await newAdmin();
    });

    it('replaces the label set (labels not listed are removed)', async () => {
      const c = await customer(admin, { email: 'labels@example.com', first_name: 'L' });
      const [a, b, d] = [await label(admin, 'L-A'), await label(admin, 'L-B'), await label(admin, 'L-D')];
      const first = await app
        .as(admin)
        .put(`${BASE}/customers/${c.id}/additional-info`)
        .send({ labels: [a, b] });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ message: 'Customer labels updated successfully!', data: { id: c.id, selected_labels: [a, b] } });
      const second = await app
        .as(admin)
        .put(`${BASE}/customers/${c.id}/additional-info`)
        .send({ labels: [d] });
      expect(second.body.data.selected_labels).toEqual([d]);
      expect(second.body.data.labels.map((l: { title: string }) => l.title)).toEqual(['L-D']);
      const cleared = await app.as(admin).put(`${BASE}/customers/${c.id}/additional-info`).send({ labels: [] });
      expect(cleared.body.data.selected_labels).toEqual([]);
    });

    it('labels is required and must name existing labels; 404 for a missing customer', async () => {
      const c = await customer(admin, { email: 'labels2@example.com', first_name: 'L' });
      const missing = await app.as(admin).put(`${BASE}/customers/${c.id}/additional-info`).send({});
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({ code: 422, message: 'The labels field is required.', data: { labels: { required: 'The labels field is required.' } } });
      const notArray = await app.as(admin).put(`${BASE}/customers/${c.id}/additional-info`).send({ labels: 'x' });
      expect(notArray.body.data).toEqual({ labels: { array: 'The labels field must be an array.' } });
      const unknown = await app
        .as(admin)
        .put(`${BASE}/customers/${c.id}/additional-info`)
        .send({ labels: [999999] });
      expect(unknown.status).toBe(422);
      expect(unknown.body.data).toEqual({ labels: { exists: 'The selected labels are invalid: 999999.' } });
      expect((await app.as(admin).put(`${BASE}/customers/999999/additional-info`).send({ labels: [] })).status).toBe(404);
    });

    it('needs customers/manage', async () => {
      expect((await app.as(productManager).put(`${BASE}/customers/1/additional-info`).send({ labels: [] })).status).toBe(403);
      expect((await app.http.put(`${BASE}/customers/1/additional-info`).send({ labels: [] })).status).toBe(401);
    });
  });
});
