import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { insertSubscription } from '../support/subscription-rows';
import { batch, insertCustomer, type ExportAnswer } from './data-export-fixtures';

/** Two customers, three subscriptions (one with two renewals, one without a parent order), dates across a DST change. */
async function seed(db: Knex) {
  const ann = await insertCustomer(db, 'ann@example.com', 'Ann', 'Archer');
  const bob = await insertCustomer(db, 'bob@example.com', 'Bob', 'Baker');
  const p1 = await insertOrder(db, ann, '2026-03-10 02:00:00', { type: 'subscription', invoice_no: 'INV-1', total_amount: 1999 }, [
    { post_title: 'Pro Plan', title: 'Monthly' },
  ]);
  const p2 = await insertOrder(db, bob, '2026-04-01 09:00:00', { type: 'subscription', invoice_no: 'INV-2', currency: 'EUR', total_amount: 120000 });
  await db('store_order_addresses').insert({
    order_id: p1,
    type: 'billing',
    name: 'Ann Archer',
    city: 'San Francisco',
    country: 'US',
    created_at: '2026-03-10 02:00:00',
    updated_at: '2026-03-10 02:00:00',
  });
  const r1 = await insertOrder(db, ann, '2026-04-10 02:00:00', { type: 'renewal', parent_id: p1, invoice_no: 'INV-3', total_amount: 1999 }, [
    { post_title: 'Pro Plan', title: 'Monthly' },
  ]);
  const r2 = await insertOrder(db, ann, '2026-05-10 02:00:00', { type: 'renewal', parent_id: p1, invoice_no: 'INV-4', total_amount: 1999 });
  const s1 = await insertSubscription(db, {
    customer_id: ann,
    parent_order_id: p1,
    item_name: 'Pro Plan - Monthly',
    status: 'active',
    billing_interval: 'monthly',
    recurring_amount: 1999,
    bill_count: 3,
    bill_times: 12,
    vendor_subscription_id: 'sub_ABC',
    next_billing_date: '2026-12-10 02:00:00',
    created_at: '2026-03-10 02:00:00',
  });
  const s2 = await insertSubscription(db, {
    customer_id: bob,
    parent_order_id: p2,
    item_name: 'Team Plan - Yearly',
    status: 'canceled',
    billing_interval: 'yearly',
    currency: 'EUR',
    recurring_amount: 120000,
    bill_count: 1,
    canceled_at: '2026-10-01 12:00:00',
    created_at: '2026-04-01 09:00:00',
  });
  const s3 = await insertSubscription(db, {
    customer_id: ann,
    item_name: 'Pro Plan - Weekly',
    status: 'trialing',
    billing_interval: 'weekly',
    collection_method: 'manual',
    current_payment_method: 'offline',
    trial_ends_at: '2026-11-30 23:00:00',
    created_at: '2026-11-20 10:00:00',
  });
  return { customers: { ann, bob }, orders: { p1, p2, r1, r2 }, subscriptions: { s1, s2, s3 } };
}

/** `n` subscriptions without a customer; their ids in order. */
async function insertMany(db: Knex, n: number): Promise<number[]> {
  const rows = Array.from({ length: n }, () => ({
    uuid: crypto.randomUUID(),
    item_name: 'Walker Plan',
    status: 'active',
    billing_interval: 'monthly',
    currency: 'USD',
    recurring_amount: 500,
    config: '{}',
    created_at: '2026-11-21 10:00:00',
    updated_at: '2026-11-21 10:00:00',
  }));
  for (let i = 0; i < rows.length; i += 200) await db('store_subscriptions').insert(rows.slice(i, i + 200));
  const ids = await db('store_subscriptions')
    .whereIn(
      'uuid',
      rows.map((r) => r.uuid),
    )
    .pluck('id');
  return ids.map(Number).sort((a, b) => a - b);
}

describe('Data export: subscriptions', () => {
  let app: TestApp;
  let admin: TestUser;
  let shopManager: TestUser;
  let orderManager: TestUser;
  let data: Awaited<ReturnType<typeof seed>>;
  let s: Awaited<ReturnType<typeof seed>>['subscriptions'];

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    shopManager = await app.createUser('shop', ['shop_manager']);
    orderManager = await app.createUser('manager', ['order_manager']);
    data = await seed(app.host.db);
    s = data.subscriptions;
  });
  afterAll(() => app.close());

  const post = (body: Record<string, unknown>, user = admin): Promise<ExportAnswer> => batch(app, user, body, 'subscriptions');
  const ids = (res: ExportAnswer) => res.body.export.records.map((r) => r.record_id);

  describe('GET /data-export/subscriptions/schema', () => {
    it('answers the CSV columns and JSON modules the batch accepts, schema_version 1', async () => {
      const res = await app.as(admin).get(`${BASE}/data-export/subscriptions/schema`);
      expect(res.status).toBe(200);
      expect(res.body.export).toMatchObject({ entity: 'subscriptions', schema_version: 1, formats: [{ value: 'csv' }, { value: 'json' }] });
      expect(res.body.export.csv_columns.map((col: { key: string }) => col.key)).toEqual([
        'id',
        'uuid',
        'status',
        'customer_id',
        'customer_name',
        'customer_email',
        'parent_order_id',
        'item_name',
        'billing_interval',
        'currency',
        'recurring_amount',
        'recurring_amount_formatted',
        'bill_count',
        'bill_times',
        'current_payment_method',
        'next_billing_date',
        'next_billing_date_local',
        'trial_ends_at',
        'trial_ends_at_local',
        'created_at',
        'created_at_local',
        'canceled_at',
        'canceled_at_local',
      ]);
      expect(res.body.export.json_modules.map((m: { key: string }) => m.key)).toEqual(['order', 'renewals', 'customer']);
    });

    it('needs subscriptions/export: administrators and shop managers pass; an order manager (who may view subscriptions) gets 403', async () => {
      expect((await app.as(shopManager).get(`${BASE}/data-export/subscriptions/schema`)).status).toBe(200);
      expect((await post({ columns: ['id'] }, shopManager)).status).toBe(200);
      expect((await app.as(orderManager).get(`${BASE}/subscriptions`)).status).toBe(200);
      const schema = await app.as(orderManager).get(`${BASE}/data-export/subscriptions/schema`);
      expect(schema.status).toBe(403);
      expect(schema.body).toMatchObject({ code: 'rest_forbidden' });
      expect((await post({ columns: ['id'] }, orderManager)).status).toBe(403);
      expect((await app.http.get(`${BASE}/data-export/subscriptions/schema`)).status).toBe(401);
    });
  });

  describe('POST /data-export/subscriptions/batch (csv)', () => {
    it('answers flat records: exactly record_id and the selected columns, money in the subscription currency, dates in UTC and user_tz', async () => {
      const schema = await app.as(admin).get(`${BASE}/data-export/subscriptions/schema`);
      const columns = schema.body.export.csv_columns.map((col: { key: string }) => col.key);
      const res = await post({ scope: 'selected', ids: [s.s2, s.s1, s.s3], columns, filters: { user_tz: 'America/New_York' } });
      expect(res.status).toBe(200);
      const [one, two, three] = res.body.export.records;
      expect(Object.keys(one)).toEqual(['record_id', ...columns]);
      expect(one).toEqual({
        record_id: s.s1,
        id: s.s1,
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'active',
        customer_id: data.customers.ann,
        customer_name: 'Ann Archer',
        customer_email: 'ann@example.com',
        parent_order_id: data.orders.p1,
        item_name: 'Pro Plan - Monthly',
        billing_interval: 'monthly',
        currency: 'USD',
        recurring_amount: 1999,
        recurring_amount_formatted: '$19.99',
        bill_count: 3,
        bill_times: 12,
        current_payment_method: 'stripe',
        next_billing_date: '2026-12-10 02:00:00',
        next_billing_date_local: '2026-12-09 21:00:00',
        trial_ends_at: '',
        trial_ends_at_local: '',
        created_at: '2026-03-10 02:00:00',
        created_at_local: '2026-03-09 22:00:00',
        canceled_at: '',
        canceled_at_local: '',
      });
      expect(two).toMatchObject({
        record_id: s.s2,
        recurring_amount: 120000,
        recurring_amount_formatted: '€1,200.00',
        canceled_at: '2026-10-01 12:00:00',
        canceled_at_local: '2026-10-01 08:00:00',
      });
      expect(three).toMatchObject({ record_id: s.s3, parent_order_id: null, bill_times: 0, trial_ends_at_local: '2026-11-30 18:00:00', next_billing_date: '' });
    });
  });

  describe('POST /data-export/subscriptions/batch (json)', () => {
    it('nests the subscription, its parent order (with addresses), its renewal orders (with items) and its customer', async () => {
      const res = await post({ format: 'json', scope: 'selected', ids: [s.s1, s.s3], modules: ['customer', 'renewals', 'order'] });
      expect(res.status).toBe(200);
      const [one, three] = res.body.export.records;
      expect(Object.keys(one)).toEqual(['record_id', 'subscription', 'customer', 'renewals', 'order']);
      expect(one.subscription).toMatchObject({ id: s.s1, item_name: 'Pro Plan - Monthly', recurring_amount: 1999, config: {} });
      expect(one.order).toMatchObject({ id: data.orders.p1, invoice_no: 'INV-1', billing_address: { city: 'San Francisco' }, shipping_address: null });
      const renewals = one.renewals as Array<{ id: number; type: string; order_items: Array<Record<string, unknown>> }>;
      expect(renewals.map((o) => [o.id, o.type])).toEqual([
        [data.orders.r2, 'renewal'],
        [data.orders.r1, 'renewal'],
      ]);
      expect(renewals[1].order_items).toEqual([expect.objectContaining({ post_title: 'Pro Plan', title: 'Monthly' })]);
      expect(one.customer).toMatchObject({ id: data.customers.ann, email: 'ann@example.com', full_name: 'Ann Archer' });
      expect(three).toMatchObject({ record_id: s.s3, order: null, renewals: [], customer: { id: data.customers.ann } });
    });

    it('answers only the record when no module is chosen, and drops unknown modules', async () => {
      const res = await post({ format: 'json', scope: 'selected', ids: [s.s2], modules: ['licenses'] });
      expect(res.body.export.records).toEqual([{ record_id: s.s2, subscription: expect.objectContaining({ id: s.s2, status: 'canceled' }) }]);
    });
  });

  describe('scopes', () => {
    /** The ids `GET /subscriptions` shows for these filters (one page, by id). */
    const listed = async (filters: Record<string, string>) => {
      const res = await app
        .as(admin)
        .get(`${BASE}/subscriptions`)
        .query({ per_page: 200, sort_by: 'id', sort_type: 'asc', ...filters });
      expect(res.status).toBe(200);
      return (res.body.data.data as Array<{ id: number }>).map((r) => r.id);
    };

    type Case = [string, Record<string, string>, () => number[]];
    const cases: Case[] = [
      ['start of the item name', { search: 'Pro' }, () => [s.s1, s.s3]],
      ['start of the customer email', { search: 'ann@' }, () => [s.s1, s.s3]],
      ['cancelled as the canceled status', { search: 'cancelled' }, () => [s.s2]],
      ['start of a vendor id, case-sensitive', { search: 'sub_A' }, () => [s.s1]],
      ['a vendor id in another case', { search: 'sub_a' }, () => []],
      ['operator syntax', { search: 'bill_count > 2' }, () => [s.s1]],
      ['a view', { active_view: 'trialing' }, () => [s.s3]],
      ['the view all', { active_view: 'all' }, () => [s.s1, s.s2, s.s3]],
      [
        'advanced filters',
        { filter_type: 'advanced', advanced_filters: JSON.stringify([{ property: 'billing_interval', operator: 'in', value: ['yearly', 'weekly'] }]) },
        () => [s.s2, s.s3],
      ],
      [
        'a date filter in user_tz',
        {
          filter_type: 'advanced',
          advanced_filters: JSON.stringify([{ property: 'created_at', operator: '=', value: '2026-03-09' }]),
          user_tz: 'America/New_York',
        },
        () => [s.s1],
      ],
    ];

    it.each(cases)('search_results holds what the list shows: %s', async (_name, filters, expected) => {
      expect(await listed(filters)).toEqual(expected());
      const res = await post({ scope: 'search_results', filters, columns: ['id'] });
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected());
      expect(res.body.export.total).toBe(expected().length);
    });

    it('search_results reads dates in user_tz: the same day in UTC is another set', async () => {
      const filter = [{ property: 'created_at', operator: '=', value: '2026-03-09' }];
      expect(ids(await post({ scope: 'search_results', filters: { filter_type: 'advanced', advanced_filters: filter }, columns: ['id'] }))).toEqual([]);
    });

    it('selected: the given ids, each once, by id', async () => {
      const res = await post({ scope: 'selected', ids: [s.s3, s.s1, s.s3, 999999], columns: ['id'] });
      expect(ids(res)).toEqual([s.s1, s.s3]);
      expect(res.body.export.total).toBe(2);
    });

    it('current_page: the given ids as the list filters narrow them', async () => {
      const res = await post({ scope: 'current_page', ids: [s.s1, s.s2, s.s3], filters: { search: 'Pro' }, columns: ['id'] });
      expect(ids(res)).toEqual([s.s1, s.s3]);
    });

    it('refuses what the list refuses, naming the field', async () => {
      const view = await post({ scope: 'search_results', filters: { active_view: 'completed' }, columns: ['id'] });
      expect(view.status).toBe(422);
      expect(Object.keys(view.body.errors ?? {})).toEqual(['filters.active_view']);
      const advanced = await post({
        scope: 'search_results',
        filters: { filter_type: 'advanced', advanced_filters: '[{"property": "status", "operator": "in", "value": ["gone"]}]' },
        columns: ['id'],
      });
      expect(advanced.status).toBe(422);
      expect(Object.keys(advanced.body.errors ?? {})).toEqual(['advanced_filters']);
    });
  });

  describe('walking an export', () => {
    it('returns every subscription that existed at the start exactly once while subscriptions are inserted between and during batches', async () => {
      const db = app.host.db;
      await insertMany(db, 260);
      const before: number[] = (await db('store_subscriptions').orderBy('id').pluck('id')).map(Number);
      const seen: number[] = [];
      const racing: Array<Promise<unknown>> = [];
      let cursor: number | null = null;
      let batches = 0;
      for (;;) {
        const res: ExportAnswer = await post({ columns: ['id', 'status', 'customer_email'], max_records: 100, ...(cursor === null ? {} : { cursor }) });
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

    it('walks search_results backwards with sort_type desc', async () => {
      const walkers: number[] = (await app.host.db('store_subscriptions').where('item_name', 'Walker Plan').orderBy('id', 'desc').pluck('id')).map(Number);
      const seen: number[] = [];
      let cursor: number | null = null;
      do {
        const res: ExportAnswer = await post({
          scope: 'search_results',
          filters: { search: 'Walker', sort_type: 'desc' },
          columns: ['id'],
          max_records: 100,
          ...(cursor === null ? {} : { cursor }),
        });
        seen.push(...ids(res));
        cursor = res.body.export.cursor;
      } while (cursor !== null);
      expect(seen).toEqual(walkers);
    });
  });
});
