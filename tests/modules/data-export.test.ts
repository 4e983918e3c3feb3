import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { batch, seedOrders, type ExportAnswer } from './data-export-fixtures';

describe('Data export: orders', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let shopManager: TestUser;
  let clerk: TestUser;
  let o: Awaited<ReturnType<typeof seedOrders>>['orders'];
  const all = () => Object.values(o);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['order_manager']);
    shopManager = await app.createUser('shop', ['shop_manager']);
    clerk = await app.createUser('clerk', ['customer_service']);
    ({ orders: o } = await seedOrders(app.host.db));
  });
  afterAll(() => app.close());

  const post = (body: Record<string, unknown>, user = admin) => batch(app, user, body);
  const refused = (res: ExportAnswer, field: string) => {
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors ?? {})).toEqual([field]);
    expect(res.body.message).toEqual(expect.any(String));
  };

  describe('GET /data-export/orders/schema', () => {
    it('answers the formats, the CSV columns and the JSON modules the batch accepts, schema_version 1', async () => {
      const res = await app.as(admin).get(`${BASE}/data-export/orders/schema`);
      expect(res.status).toBe(200);
      const schema = res.body.export;
      expect(schema).toMatchObject({
        entity: 'orders',
        schema_version: 1,
        formats: [
          { value: 'csv', label: 'CSV' },
          { value: 'json', label: 'JSON' },
        ],
      });
      const keys = schema.csv_columns.map((c: { key: string }) => c.key);
      expect(keys.length).toBeGreaterThanOrEqual(30);
      expect(new Set(keys).size).toBe(keys.length);
      for (const key of [
        'id',
        'invoice_no',
        'status',
        'total_amount',
        'total_amount_formatted',
        'customer_email',
        'created_at',
        'created_at_local',
        'coupon_values',
      ])
        expect(keys).toContain(key);
      for (const column of schema.csv_columns)
        expect(column).toEqual({ key: expect.any(String), label: expect.any(String), default_selected: expect.any(Boolean) });
      expect(schema.json_modules.map((m: { key: string }) => m.key)).toEqual(['items', 'transactions', 'addresses', 'customer', 'coupons']);
    });

    it('needs orders/export: order_manager and shop_manager pass, customer_service gets 403, a guest 401', async () => {
      expect((await app.as(manager).get(`${BASE}/data-export/orders/schema`)).status).toBe(200);
      expect((await app.as(shopManager).get(`${BASE}/data-export/orders/schema`)).status).toBe(200);
      const denied = await app.as(clerk).get(`${BASE}/data-export/orders/schema`);
      expect(denied.status).toBe(403);
      expect(denied.body).toMatchObject({ code: 'rest_forbidden' });
      expect((await post({ columns: ['id'] }, clerk)).status).toBe(403);
      expect((await app.http.get(`${BASE}/data-export/orders/schema`)).status).toBe(401);
    });

    it('has no license routes while licensing is off: 404 rest_no_route', async () => {
      for (const res of [
        await app.as(admin).get(`${BASE}/data-export/licenses/schema`),
        await app
          .as(admin)
          .post(`${BASE}/data-export/licenses/batch`)
          .send({ columns: ['id'] }),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'rest_no_route' });
      }
    });
  });

  describe('POST /data-export/orders/batch', () => {
    it('answers csv records holding exactly record_id and the selected columns, as CSV cells', async () => {
      const res = await post({
        columns: ['invoice_no', 'total_amount', 'total_amount_formatted', 'customer_name', 'customer_email', 'billing_city', 'item_count'],
      });
      expect(res.status).toBe(200);
      const first = res.body.export.records[0];
      expect(Object.keys(first)).toEqual([
        'record_id',
        'invoice_no',
        'total_amount',
        'total_amount_formatted',
        'customer_name',
        'customer_email',
        'billing_city',
        'item_count',
      ]);
      expect(first).toEqual({
        record_id: o.o1,
        invoice_no: 'INV-100',
        total_amount: 123456,
        total_amount_formatted: '$1,234.56',
        customer_name: 'Ann Archer',
        customer_email: 'ann@example.com',
        billing_city: 'San Francisco',
        item_count: 5,
      });
      const eur = res.body.export.records.find((r) => r.record_id === o.o5)!;
      expect(eur).toMatchObject({ total_amount: 99900, total_amount_formatted: '€999.00', billing_city: 'Berlin, Mitte', item_count: 0 });
      expect(res.body.export.records.find((r) => r.record_id === o.o2)).toMatchObject({ billing_city: '' });
    });

    it('answers the whole envelope: total on the first call, no cursor when nothing is left, the batch measures', async () => {
      const res = await post({ columns: ['id'] });
      expect(res.body.export).toEqual({
        entity: 'orders',
        schema_version: 1,
        records: all().map((id) => ({ record_id: id, id })),
        total: 6,
        cursor: null,
        has_more: false,
        batch: { records: 6, elapsed_ms: expect.any(Number), estimated_bytes: expect.any(Number), requested_max: 500, next_max: expect.any(Number) },
      });
      expect(res.body.export.batch.estimated_bytes).toBeGreaterThan(JSON.stringify(res.body.export.records).length);
    });

    it('writes coupons with percentages (stored in basis points) as percentages, and money in the order currency', async () => {
      const res = await post({
        scope: 'selected',
        ids: [o.o1],
        columns: ['coupon_codes', 'coupon_values', 'coupon_discount_total', 'coupon_discount_total_formatted'],
      });
      expect(res.body.export.records).toEqual([
        {
          record_id: o.o1,
          coupon_codes: 'SPRING, FLAT1',
          coupon_values: 'SPRING: 12.5%, FLAT1: $1.00',
          coupon_discount_total: 500,
          coupon_discount_total_formatted: '$5.00',
        },
      ]);
    });

    it('writes dates in UTC and in user_tz (else the site zone, UTC here)', async () => {
      const local = await post({ scope: 'selected', ids: [o.o1], columns: ['created_at', 'created_at_local'], filters: { user_tz: 'Europe/Berlin' } });
      expect(local.body.export.records).toEqual([{ record_id: o.o1, created_at: '2026-01-10 23:30:00', created_at_local: '2026-01-11 00:30:00' }]);
      const tokyo = await post({ scope: 'selected', ids: [o.o3], columns: ['created_at_local'], filters: { user_tz: 'Asia/Tokyo' } });
      expect(tokyo.body.export.records).toEqual([{ record_id: o.o3, created_at_local: '2026-03-10 11:00:00' }]);
      const site = await post({ scope: 'selected', ids: [o.o1], columns: ['created_at_local', 'completed_at_local'] });
      expect(site.body.export.records).toEqual([{ record_id: o.o1, created_at_local: '2026-01-10 23:30:00', completed_at_local: '' }]);
    });

    it('answers json records keyed by modules: the order and its nested items, transactions, addresses, customer, coupons', async () => {
      const res = await post({ format: 'json', scope: 'selected', ids: [o.o1, o.o2], modules: ['items', 'transactions', 'addresses', 'customer', 'coupons'] });
      expect(res.status).toBe(200);
      const [first, second] = res.body.export.records;
      expect(Object.keys(first)).toEqual(['record_id', 'order', 'items', 'transactions', 'addresses', 'customer', 'coupons']);
      expect(first.order).toMatchObject({ id: o.o1, invoice_no: 'INV-100', total_amount: 123456, currency: 'USD' });
      expect((first.items as Array<Record<string, unknown>>).map((i) => [i.post_title, i.quantity])).toEqual([
        ['Cotton Shirt', 2],
        ['Socks', 3],
      ]);
      expect(first.transactions).toEqual([expect.objectContaining({ order_id: o.o1, total: 123456, payment_method: 'stripe' })]);
      expect(first.addresses).toEqual({
        billing: expect.objectContaining({ type: 'billing', city: 'San Francisco' }),
        shipping: expect.objectContaining({ type: 'shipping', city: 'Austin' }),
      });
      expect(first.customer).toMatchObject({ email: 'ann@example.com', first_name: 'Ann' });
      expect(first.coupons).toEqual([
        expect.objectContaining({ code: 'SPRING', type: 'percentage', amount: 12.5 }),
        expect.objectContaining({ code: 'FLAT1', type: 'fixed', amount: 100 }),
      ]);
      expect(second).toMatchObject({
        record_id: o.o2,
        items: [expect.any(Object)],
        transactions: [],
        addresses: { billing: null, shipping: null },
        coupons: [],
      });
    });

    it('answers json with only the record when no module is chosen, and drops unknown modules', async () => {
      const res = await post({ format: 'json', scope: 'selected', ids: [o.o2], modules: ['nope', 'items', 'items'] });
      expect(Object.keys(res.body.export.records[0])).toEqual(['record_id', 'order', 'items']);
      const bare = await post({ format: 'json', scope: 'selected', ids: [o.o2] });
      expect(Object.keys(bare.body.export.records[0])).toEqual(['record_id', 'order']);
    });
  });

  describe('request rules', () => {
    it('refuses an unknown format or scope with 422 naming the field', async () => {
      refused(await post({ format: 'xml', columns: ['id'] }), 'format');
      refused(await post({ scope: 'everything', columns: ['id'] }), 'scope');
    });

    it('needs ids for current_page and selected', async () => {
      for (const scope of ['current_page', 'selected']) {
        refused(await post({ scope, columns: ['id'] }), 'ids');
        refused(await post({ scope, ids: [], columns: ['id'] }), 'ids');
      }
      refused(await post({ scope: 'selected', ids: ['x'], columns: ['id'] }), 'ids.0');
    });

    it('deduplicates ids and keeps the first 5000', async () => {
      const dup = await post({ scope: 'selected', ids: [o.o3, o.o1, o.o3, o.o1], columns: ['id'] });
      expect(dup.body.export).toMatchObject({ total: 2, records: [{ record_id: o.o1 }, { record_id: o.o3 }] });
      const padding = Array.from({ length: 5000 }, (_, i) => 100_000 + i);
      const truncated = await post({ scope: 'selected', ids: [o.o2, ...padding, o.o4], columns: ['id'] });
      expect(truncated.body.export.records.map((r) => r.record_id)).toEqual([o.o2]);
    });

    it('drops unknown columns, keeps the first 100 sent, and refuses csv without a valid column', async () => {
      const res = await post({ scope: 'selected', ids: [o.o1], columns: ['nope', 'status', 'status', 'password'] });
      expect(res.body.export.records).toEqual([{ record_id: o.o1, status: 'completed' }]);
      refused(await post({ columns: ['nope'] }), 'columns');
      refused(await post({}), 'columns');
      refused(await post({ columns: [...Array.from({ length: 100 }, (_, i) => `x${i}`), 'id'] }), 'columns');
      expect((await post({ format: 'json' })).status).toBe(200);
    });

    it('keeps only the allowlisted filters and discards them all for scope all', async () => {
      const scoped = await post({ scope: 'search_results', filters: { search: 'INV-10', customer_id: o.o1, include_ids: [o.o6] }, columns: ['id'] });
      expect(scoped.body.export.total).toBe(5);
      const everything = await post({ scope: 'all', filters: { search: 'INV-100', active_view: 'not-a-view', sort_by: 'total' }, columns: ['id'] });
      expect(everything.status).toBe(200);
      expect(everything.body.export.total).toBe(6);
    });

    it('walks by id only: sort_by other than id and sort_type other than asc/desc are 422s that say so', async () => {
      const bySort = await post({ scope: 'search_results', filters: { sort_by: 'total_amount' }, columns: ['id'] });
      refused(bySort, 'filters.sort_by');
      expect(bySort.body.message).toMatch(/only id/);
      refused(await post({ scope: 'search_results', filters: { sort_type: 'sideways' }, columns: ['id'] }), 'filters.sort_type');
      const desc = await post({ scope: 'search_results', filters: { sort_by: 'id', sort_type: 'DESC' }, columns: ['id'] });
      expect(desc.body.export.records.map((r) => r.record_id)).toEqual([...all()].reverse());
    });

    it('refuses list filter values the list refuses (a view, filter_type, advanced filters)', async () => {
      refused(await post({ scope: 'search_results', filters: { active_view: 'nope' }, columns: ['id'] }), 'filters.active_view');
      refused(await post({ scope: 'search_results', filters: { filter_type: 'fancy' }, columns: ['id'] }), 'filters.filter_type');
      const bad = await post({ scope: 'search_results', filters: { filter_type: 'advanced', advanced_filters: '[[{"property":"nope"' }, columns: ['id'] });
      expect(bad.status).toBe(422);
    });

    it('clamps max_records to 100-1000 (default 500) and refuses a cursor that is not a whole number', async () => {
      expect((await post({ columns: ['id'], max_records: 5 })).body.export.batch.requested_max).toBe(100);
      expect((await post({ columns: ['id'], max_records: 50_000 })).body.export.batch.requested_max).toBe(1000);
      expect((await post({ columns: ['id'], max_records: 700 })).body.export.batch.requested_max).toBe(700);
      refused(await post({ columns: ['id'], max_records: 'lots' }), 'max_records');
      refused(await post({ columns: ['id'], cursor: -1 }), 'cursor');
      refused(await post({ columns: ['id'], cursor: 1.5 }), 'cursor');
    });
  });

  describe('scopes', () => {
    const listIds = async (query: string) => {
      const res = await app.as(admin).get(`${BASE}/orders?per_page=200&${query}`);
      expect(res.status).toBe(200);
      return (res.body.orders.data as Array<{ id: number }>).map((r) => r.id).sort((a, b) => a - b);
    };
    const exported = async (filters: Record<string, unknown>, scope = 'search_results', ids?: number[]) => {
      const res = await post({ scope, filters, columns: ['id'], ...(ids ? { ids } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.export.total).toBe(res.body.export.records.length);
      return res.body.export.records.map((r) => r.record_id);
    };

    it.each([
      ['start-of-text search on the invoice', { search: 'INV-10' }, 'search=INV-10'],
      ['search on the customer name', { search: 'ann' }, 'search=ann'],
      ['a full name', { search: 'Cat O' }, `search=${encodeURIComponent('Cat O')}`],
      ['an operator', { search: 'total_amount > 1000' }, `search=${encodeURIComponent('total_amount > 1000')}`],
      ['an id', { search: '#3' }, `search=${encodeURIComponent('#3')}`],
      ['a view', { active_view: 'on-hold' }, 'active_view=on-hold'],
      ['a view and a search', { active_view: 'paid', search: 'bob' }, 'active_view=paid&search=bob'],
      [
        'advanced filters',
        {
          filter_type: 'advanced',
          advanced_filters: [
            [{ property: 'total_amount', operator: '>', value: 1000 }],
            [{ property: 'customer_email', operator: 'starts_with', value: 'cat' }],
          ],
        },
        `filter_type=advanced&advanced_filters=${encodeURIComponent(JSON.stringify([[{ property: 'total_amount', operator: '>', value: 1000 }], [{ property: 'customer_email', operator: 'starts_with', value: 'cat' }]]))}`,
      ],
      [
        'a date search in user_tz',
        { search: 'created_at = 2026-01-11', user_tz: 'Europe/Berlin' },
        `search=${encodeURIComponent('created_at = 2026-01-11')}&user_tz=Europe/Berlin`,
      ],
    ])('search_results holds exactly what GET /orders lists for %s', async (_what, filters, query) => {
      const expected = await listIds(query);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all().length);
      expect(await exported(filters)).toEqual(expected);
    });

    it('current_page is the ids sent, within the list filters; selected is the ids alone', async () => {
      expect(await exported({ active_view: 'on-hold' }, 'current_page', [o.o1, o.o2, o.o3])).toEqual([o.o2]);
      expect(await exported({ active_view: 'on-hold' }, 'selected', [o.o1, o.o2, o.o3])).toEqual([o.o1, o.o2, o.o3]);
    });
  });
});
