import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { insertSubscription } from '../support/subscription-rows';
import { batch, type ExportAnswer } from './data-export-fixtures';

const NOW = '2026-11-21 10:00:00';

async function insertCustomer(db: Knex, over: Record<string, unknown>): Promise<number> {
  const [id] = await db('store_customers').insert({
    uuid: crypto.randomUUID(),
    status: 'active',
    purchase_value: '{}',
    created_at: NOW,
    updated_at: NOW,
    ...over,
  });
  return Number(id);
}

async function insertAddress(db: Knex, customerId: number, type: 'billing' | 'shipping', primary: boolean, over: Record<string, unknown>): Promise<void> {
  await db('store_customer_addresses').insert({
    customer_id: customerId,
    type,
    is_primary: primary ? 1 : 0,
    primary_slot: primary ? type : null,
    created_at: NOW,
    updated_at: NOW,
    ...over,
  });
}

/** `n` customers named `Walker`; their ids in order. */
async function insertMany(db: Knex, n: number): Promise<number[]> {
  const rows = Array.from({ length: n }, () => {
    const tag = crypto.randomBytes(6).toString('hex');
    return {
      uuid: crypto.randomUUID(),
      email: `w-${tag}@walk.test`,
      first_name: 'Wally',
      last_name: 'Walker',
      purchase_value: '{}',
      created_at: NOW,
      updated_at: NOW,
    };
  });
  for (let i = 0; i < rows.length; i += 200) await db('store_customers').insert(rows.slice(i, i + 200));
  const ids = await db('store_customers')
    .whereIn(
      'uuid',
      rows.map((r) => r.uuid),
    )
    .pluck('id');
  return ids.map(Number).sort((a, b) => a - b);
}

/** Three customers with addresses, a label, orders and subscriptions (Ann), and dates across a DST change. */
async function seed(db: Knex) {
  const ann = await insertCustomer(db, {
    email: 'ann@example.com',
    first_name: 'Ann',
    last_name: 'Archer',
    ltv: 123456,
    aov: 61728,
    purchase_count: 2,
    purchase_value: JSON.stringify({ USD: 123456 }),
    first_purchase_date: '2026-01-10 23:30:00',
    last_purchase_date: '2026-07-10 10:00:00',
    created_at: '2026-01-01 03:00:00',
  });
  const bob = await insertCustomer(db, {
    email: 'bob@example.com',
    first_name: 'Bob',
    last_name: 'Baker',
    status: 'inactive',
    created_at: '2026-03-05 12:00:00',
  });
  const cat = await insertCustomer(db, {
    email: 'cat@shop.test',
    first_name: '=Cat',
    last_name: "O'Hara",
    status: 'archived',
    created_at: '2026-06-01 00:30:00',
  });
  const dana = await insertCustomer(db, { email: 'dana@example.com', first_name: 'Dana', last_name: 'Archer', ltv: 5000, created_at: '2026-08-01 12:00:00' });
  await insertAddress(db, ann, 'billing', false, { name: 'Ann Archer', city: 'Lyon', country: 'FR' });
  await insertAddress(db, ann, 'billing', true, { name: 'Ann Archer', city: 'San Francisco', country: 'US' });
  await insertAddress(db, ann, 'shipping', true, { name: 'Ann Archer', city: 'Austin', country: 'US' });
  const [vip] = await db('store_labels').insert({ title: 'VIP', color: 'gold', created_at: NOW, updated_at: NOW });
  await db('store_label_relations').insert([
    { label_id: Number(vip), object_type: 'customer', object_id: ann, created_at: NOW },
    { label_id: Number(vip), object_type: 'customer', object_id: bob, created_at: NOW },
  ]);
  await insertOrder(db, ann, '2026-01-10 23:30:00', { total_amount: 61728, total_paid: 61728 });
  await insertOrder(db, ann, '2026-07-10 10:00:00', { total_amount: 61728, total_paid: 61728 });
  await insertSubscription(db, { customer_id: ann, status: 'active' });
  await insertSubscription(db, { customer_id: ann, status: 'canceled' });
  return { ann, bob, cat, dana, vip: Number(vip) };
}

describe('Data export: customers', () => {
  let app: TestApp;
  let admin: TestUser;
  let shopManager: TestUser;
  let orderManager: TestUser;
  let clerk: TestUser;
  let c: Awaited<ReturnType<typeof seed>>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    shopManager = await app.createUser('shop', ['shop_manager']);
    orderManager = await app.createUser('manager', ['order_manager']);
    clerk = await app.createUser('clerk', ['customer_service']);
    c = await seed(app.host.db);
  });
  afterAll(() => app.close());

  const post = (body: Record<string, unknown>, user = admin): Promise<ExportAnswer> => batch(app, user, body, 'customers');
  const ids = (res: ExportAnswer) => res.body.export.records.map((r) => r.record_id);

  describe('GET /data-export/customers/schema', () => {
    it('answers the CSV columns and JSON modules the batch accepts, schema_version 1', async () => {
      const res = await app.as(admin).get(`${BASE}/data-export/customers/schema`);
      expect(res.status).toBe(200);
      expect(res.body.export).toMatchObject({ entity: 'customers', schema_version: 1, formats: [{ value: 'csv' }, { value: 'json' }] });
      expect(res.body.export.csv_columns.map((col: { key: string }) => col.key)).toEqual([
        'id',
        'first_name',
        'last_name',
        'full_name',
        'email',
        'status',
        'billing_country',
        'billing_city',
        'purchase_count',
        'ltv',
        'ltv_formatted',
        'aov',
        'aov_formatted',
        'first_purchase_date',
        'first_purchase_date_local',
        'last_purchase_date',
        'last_purchase_date_local',
        'created_at',
        'created_at_local',
      ]);
      expect(res.body.export.csv_columns[0]).toEqual({ key: 'id', label: 'Customer ID', default_selected: true });
      expect(res.body.export.json_modules).toEqual([
        { key: 'addresses', label: 'Billing and shipping addresses' },
        { key: 'stats', label: 'Purchase statistics' },
        { key: 'labels', label: 'Labels' },
      ]);
    });

    it('needs customers/export: administrators and shop managers pass; an order manager or customer service gets 403, a guest 401', async () => {
      expect((await app.as(shopManager).get(`${BASE}/data-export/customers/schema`)).status).toBe(200);
      expect((await post({ columns: ['id'] }, shopManager)).status).toBe(200);
      for (const user of [orderManager, clerk]) {
        const schema = await app.as(user).get(`${BASE}/data-export/customers/schema`);
        expect(schema.status).toBe(403);
        expect(schema.body).toMatchObject({ code: 'rest_forbidden' });
        expect((await post({ columns: ['id'] }, user)).status).toBe(403);
      }
      expect((await app.http.post(`${BASE}/data-export/customers/batch`).send({ columns: ['id'] })).status).toBe(401);
    });
  });

  describe('POST /data-export/customers/batch (csv)', () => {
    it('answers flat records: exactly record_id and the selected columns, money in cents and formatted, dates in UTC and user_tz', async () => {
      const schema = await app.as(admin).get(`${BASE}/data-export/customers/schema`);
      const columns = schema.body.export.csv_columns.map((col: { key: string }) => col.key);
      const res = await post({ scope: 'selected', ids: [c.bob, c.ann], columns, filters: { user_tz: 'America/New_York' } });
      expect(res.status).toBe(200);
      const [ann, bob] = res.body.export.records;
      expect(Object.keys(ann)).toEqual(['record_id', ...columns]);
      expect(ann).toEqual({
        record_id: c.ann,
        id: c.ann,
        first_name: 'Ann',
        last_name: 'Archer',
        full_name: 'Ann Archer',
        email: 'ann@example.com',
        status: 'active',
        billing_country: 'US',
        billing_city: 'San Francisco',
        purchase_count: 2,
        ltv: 123456,
        ltv_formatted: '$1,234.56',
        aov: 61728,
        aov_formatted: '$617.28',
        first_purchase_date: '2026-01-10 23:30:00',
        first_purchase_date_local: '2026-01-10 18:30:00',
        last_purchase_date: '2026-07-10 10:00:00',
        last_purchase_date_local: '2026-07-10 06:00:00',
        created_at: '2026-01-01 03:00:00',
        created_at_local: '2025-12-31 22:00:00',
      });
      expect(bob).toMatchObject({
        record_id: c.bob,
        status: 'inactive',
        billing_country: '',
        billing_city: '',
        ltv_formatted: '$0.00',
        first_purchase_date: '',
        first_purchase_date_local: '',
      });
    });

    it('formats ltv and aov in the store currency', async () => {
      await app.host.options.set('store_settings', { currency: 'EUR', currency_position: 'after_space', thousand_separator: '.', decimal_separator: ',' });
      try {
        const res = await post({ scope: 'selected', ids: [c.ann], columns: ['ltv_formatted'] });
        expect(res.body.export.records).toEqual([{ record_id: c.ann, ltv_formatted: '1.234,56 €' }]);
      } finally {
        await app.host.options.delete('store_settings');
      }
    });

    it('answers the whole envelope of a one-batch export', async () => {
      const res = await post({ columns: ['email'] });
      expect(res.body.export).toEqual({
        entity: 'customers',
        schema_version: 1,
        records: [c.ann, c.bob, c.cat, c.dana].map((id) => ({ record_id: id, email: expect.any(String) })),
        total: 4,
        cursor: null,
        has_more: false,
        batch: { records: 4, elapsed_ms: expect.any(Number), estimated_bytes: expect.any(Number), requested_max: 500, next_max: expect.any(Number) },
      });
    });
  });

  describe('POST /data-export/customers/batch (json)', () => {
    it('nests the customer, its addresses (primary first), statistics and labels, in the order the modules were sent', async () => {
      const res = await post({ format: 'json', scope: 'selected', ids: [c.ann, c.dana], modules: ['labels', 'stats', 'nope', 'addresses'] });
      expect(res.status).toBe(200);
      const [ann, dana] = res.body.export.records;
      expect(Object.keys(ann)).toEqual(['record_id', 'customer', 'labels', 'stats', 'addresses']);
      expect(ann.customer).toMatchObject({ id: c.ann, email: 'ann@example.com', ltv: 123456, purchase_value: { USD: 123456 } });
      expect(ann.labels).toEqual([expect.objectContaining({ id: c.vip, title: 'VIP' })]);
      expect(ann.stats).toEqual({
        purchase_count: 2,
        order_count: 2,
        ltv: 123456,
        ltv_formatted: '$1,234.56',
        aov: 61728,
        aov_formatted: '$617.28',
        purchase_value: { USD: 123456 },
        first_purchase_date: '2026-01-10 23:30:00',
        last_purchase_date: '2026-07-10 10:00:00',
        subscriptions: { total: 2, by_status: { active: 1, canceled: 1 } },
      });
      const addresses = ann.addresses as { billing: Array<Record<string, unknown>>; shipping: Array<Record<string, unknown>> };
      expect(addresses.billing.map((a) => [a.city, a.is_primary])).toEqual([
        ['San Francisco', 1],
        ['Lyon', 0],
      ]);
      expect(addresses.shipping).toEqual([expect.objectContaining({ city: 'Austin', type: 'shipping', formatted_address: expect.any(Object) })]);
      expect(dana).toMatchObject({
        labels: [],
        addresses: { billing: [], shipping: [] },
        stats: { order_count: 0, subscriptions: { total: 0, by_status: {} } },
      });
    });

    it('answers only the record when no module is chosen', async () => {
      const res = await post({ format: 'json', scope: 'selected', ids: [c.bob] });
      expect(res.body.export.records).toEqual([{ record_id: c.bob, customer: expect.objectContaining({ id: c.bob, status: 'inactive' }) }]);
    });
  });

  describe('scopes', () => {
    /** The ids `GET /customers` shows for these filters (one page, by id). */
    const listed = async (filters: Record<string, string>) => {
      const res = await app
        .as(admin)
        .get(`${BASE}/customers`)
        .query({ per_page: 199, sort_by: 'id', sort_type: 'asc', ...filters });
      expect(res.status).toBe(200);
      return (res.body.customers.data as Array<{ id: number }>).map((r) => r.id);
    };

    type Case = [string, () => Record<string, string>, () => number[]];
    const cases: Case[] = [
      ['start-of-text search of a last name', () => ({ search: 'Arch' }), () => [c.ann, c.dana]],
      ['search of a full name', () => ({ search: 'Ann Arch' }), () => [c.ann]],
      ['search of the start of an email', () => ({ search: 'cat@' }), () => [c.cat]],
      ['operator syntax', () => ({ search: 'ltv > 10000' }), () => [c.ann]],
      ['a view', () => ({ active_view: 'inactive' }), () => [c.bob]],
      ['a view with a search', () => ({ active_view: 'active', search: 'Archer' }), () => [c.ann, c.dana]],
      [
        'advanced filters (any group)',
        () => ({
          filter_type: 'advanced',
          advanced_filters: JSON.stringify([[{ property: 'ltv', operator: '>=', value: 100000 }], [{ property: 'labels', operator: 'in', value: [c.vip] }]]),
        }),
        () => [c.ann, c.bob],
      ],
      [
        'a date filter in user_tz',
        () => ({
          filter_type: 'advanced',
          advanced_filters: JSON.stringify([{ property: 'created_at', operator: '=', value: '2026-05-31' }]),
          user_tz: 'America/New_York',
        }),
        () => [c.cat],
      ],
    ];

    it.each(cases)('search_results holds what the list shows: %s', async (_name, filters, expected) => {
      expect(await listed(filters())).toEqual(expected());
      const res = await post({ scope: 'search_results', filters: filters(), columns: ['id'] });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected());
      expect(res.body.export.total).toBe(expected().length);
    });

    it('search_results reads dates in user_tz: the same day in UTC is another set', async () => {
      const filter = [{ property: 'created_at', operator: '=', value: '2026-05-31' }];
      expect(
        ids(
          await post({ scope: 'search_results', filters: { filter_type: 'advanced', advanced_filters: filter, user_tz: 'America/New_York' }, columns: ['id'] }),
        ),
      ).toEqual([c.cat]);
      expect(ids(await post({ scope: 'search_results', filters: { filter_type: 'advanced', advanced_filters: filter }, columns: ['id'] }))).toEqual([]);
    });

    it('selected: the given ids, each once, by id; unknown ids are skipped', async () => {
      const res = await post({ scope: 'selected', ids: [c.dana, c.ann, c.dana, 999999], columns: ['id'] });
      expect(ids(res)).toEqual([c.ann, c.dana]);
      expect(res.body.export.total).toBe(2);
    });

    it('current_page: the given ids as the list filters narrow them', async () => {
      const res = await post({ scope: 'current_page', ids: [c.ann, c.bob, c.cat], filters: { active_view: 'active' }, columns: ['id'] });
      expect(ids(res)).toEqual([c.ann]);
    });

    it('refuses what the list refuses, naming the field: an unknown view, broken advanced filters, a sort other than id', async () => {
      const view = await post({ scope: 'search_results', filters: { active_view: 'gold' }, columns: ['id'] });
      expect(view.status).toBe(422);
      expect(Object.keys(view.body.errors ?? {})).toEqual(['filters.active_view']);
      const advanced = await post({
        scope: 'search_results',
        filters: { filter_type: 'advanced', advanced_filters: [{ property: 'password', operator: '=', value: 'x' }] },
        columns: ['id'],
      });
      expect(advanced.status).toBe(422);
      expect(Object.keys(advanced.body.errors ?? {})).toEqual(['advanced_filters']);
      const sort = await post({ scope: 'search_results', filters: { sort_by: 'ltv' }, columns: ['id'] });
      expect(sort.status).toBe(422);
      expect(sort.body.message).toMatch(/only id/);
    });
  });

  describe('walking an export', () => {
    it('returns every customer that existed at the start exactly once while customers are inserted between and during batches', async () => {
      const db = app.host.db;
      await insertMany(db, 230);
      const before: number[] = (await db('store_customers').orderBy('id').pluck('id')).map(Number);
      const seen: number[] = [];
      const racing: Array<Promise<unknown>> = [];
      let cursor: number | null = null;
      let batches = 0;
      for (;;) {
        const res: ExportAnswer = await post({ columns: ['id', 'email'], max_records: 100, ...(cursor === null ? {} : { cursor }) });
        expect(res.status).toBe(200);
        expect(res.body.export.total).toBe(batches === 0 ? before.length : null);
        seen.push(...ids(res));
        batches++;
        if (!res.body.export.has_more) break;
        cursor = res.body.export.cursor;
        expect(cursor).toBe(seen[seen.length - 1]);
        await insertMany(db, 3);
        racing.push(insertMany(db, 2), insertMany(db, 1));
      }
      await Promise.all(racing);
      expect(batches).toBeGreaterThanOrEqual(3);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => id <= before[before.length - 1])).toEqual(before);
    });

    it('walks backwards with sort_type desc', async () => {
      const all: number[] = (await app.host.db('store_customers').orderBy('id', 'desc').pluck('id')).map(Number);
      const seen: number[] = [];
      let cursor: number | null = null;
      do {
        const res: ExportAnswer = await post({
          scope: 'search_results',
          filters: { sort_type: 'desc' },
          columns: ['id'],
          max_records: 100,
          ...(cursor === null ? {} : { cursor }),
        });
        seen.push(...ids(res));
        cursor = res.body.export.cursor;
      } while (cursor !== null);
      expect(seen).toEqual(all);
    });
  });
});
