import type { TObject, TSchema } from '@sinclair/typebox';
import type request from 'supertest';
import { MAX_ID } from '../../src/core/schema';
import { storeRoutes } from '../../src/plugin';
import { BASE, startTestApp, type Browser, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

/** Names every plain object inherits: client text naming them must never find anything in a table. */
const INHERITED = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const NOW = '2026-11-21 10:00:00';

/** Field errors in either envelope the store answers validation in (`errors` under `{message}`, `data` under admin). */
const fieldErrors = (body: { errors?: Record<string, unknown>; data?: Record<string, unknown> }) => body.errors ?? body.data ?? {};

describe('hostile input', () => {
  let app: TestApp;
  let admin: TestUser;
  /** A logged-in dashboard session: exempt from the hourly request classes, so a table of requests stays 4xx. */
  let dashboard: Browser;
  let customerId: number;
  let variationId: number;

  const count = async (table: string) => Number((await app.host.db(table).count({ n: '*' }).first())?.n);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    dashboard = app.browser();
    expect((await dashboard.login('admin', admin.password)).status).toBe(200);
    const api = app.as(admin);
    for (const n of [1, 2]) {
      await api
        .post(`${BASE}/labels`)
        .send({ title: `Label ${n}` })
        .expect(200);
      await api
        .post(`${BASE}/customers`)
        .send({ email: `c${n}@example.com`, first_name: `C${n}`, last_name: 'Doe' })
        .expect(200);
      await api
        .post(`${BASE}/products`)
        .send({ title: `Product ${n}`, status: 'publish', variations: [{ title: 'Default', price: 1000 * n }] })
        .expect(200);
      await api
        .post(`${BASE}/coupons`)
        .send({ code: `SAVE${n}`, type: 'fixed', amount: 100 * n })
        .expect(200);
    }
    customerId = Number((await app.host.db('store_customers').orderBy('id').first()).id);
    variationId = Number((await app.host.db('store_product_variations').orderBy('id').first()).id);
    await insertOrder(app.host.db, customerId, NOW, { total_amount: 500 });
    await insertOrder(app.host.db, customerId, '2026-11-21 11:00:00', { total_amount: 900, status: 'processing', payment_status: 'partially-refunded' });
  });
  afterAll(() => app.close());

  describe('sort_by naming an inherited member falls back to the default order (DESIGN §4)', () => {
    const lists = () => ['/customers', '/orders', '/products', '/coupons', '/labels', '/activities', `/customers/${customerId}/orders`];
    it.each(INHERITED)('sort_by=%s: 200 and the default order on every sortable list', async (name) => {
      for (const list of lists()) {
        const plain = await dashboard.call('get', `${BASE}${list}?sort_type=asc`);
        const res = await dashboard.call('get', `${BASE}${list}?sort_by=${name}&sort_type=asc`);
        expect([list, res.status]).toEqual([list, 200]);
        expect(res.body).toEqual(plain.body);
      }
    });

    it('a real column still sorts', async () => {
      const res = await dashboard.call('get', `${BASE}/labels?sort_by=title&sort_type=asc`);
      expect(res.body.labels.data.map((l: { title: string }) => l.title)).toEqual(['Label 1', 'Label 2']);
    });
  });

  describe('search naming an inherited member is free text', () => {
    it.each(INHERITED.flatMap((name) => [`${name} = 1`, `${name} ~ x`]))('search=%s: 200, nothing matches', async (search) => {
      for (const list of ['/customers', '/orders', '/products', '/coupons', '/labels']) {
        const res = await dashboard.call('get', `${BASE}${list}?search=${encodeURIComponent(search)}`);
        expect([list, res.status]).toEqual([list, 200]);
        expect(Object.values(res.body as Record<string, { total: number }>)[0].total).toBe(0);
      }
    });
  });

  describe('GET /orders status filters accept only statuses', () => {
    it.each([
      ['order_statuses', 'order status'],
      ['payment_statuses', 'payment status'],
      ['shipping_statuses', 'shipping status'],
    ])('%s[]=<inherited name>: 422 naming the field', async (field, what) => {
      for (const name of INHERITED) {
        const res = await dashboard.call('get', `${BASE}/orders?${field}[]=${name}`);
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual([field]);
        expect(res.body.errors[field].in).toMatch(new RegExp(`^Unknown ${what}: ${name}\\. Use one of: `));
      }
    });

    it('a reference spelling is still an alias: payment_statuses[]=partially_refunded', async () => {
      const res = await dashboard.call('get', `${BASE}/orders?payment_statuses[]=partially_refunded`);
      expect(res.status).toBe(200);
      expect(res.body.orders.data.map((o: { payment_status: string }) => o.payment_status)).toEqual(['partially-refunded']);
    });
  });

  describe('order writes: inherited names are no discount type, payment status or bulk status', () => {
    const order = (extra: Record<string, unknown>) =>
      dashboard.call('post', `${BASE}/orders`).send({ customer_id: customerId, order_items: [{ variation_id: variationId, quantity: 1 }], ...extra });

    it.each([
      ['discount.type', { discount: { type: 'constructor', value: 10 } }],
      ['discount.type', { discount: { type: 'toString', value: 10 } }],
      ['payment_status', { payment_status: '__proto__' }],
      ['payment_status', { payment_status: 'constructor' }],
    ])('POST /orders with %s inherited: 422 naming it, no order', async (field, extra) => {
      const before = await count('store_orders');
      const res = await order(extra);
      expect(res.status).toBe(422);
      expect(res.body.errors).toHaveProperty([field]);
      expect(await count('store_orders')).toBe(before);
    });

    it.each(INHERITED)('do-bulk-action change_payment_status to %s: 422 naming new_status', async (name) => {
      const res = await dashboard.call('post', `${BASE}/orders/do-bulk-action`).send({ action: 'change_payment_status', order_ids: [1], new_status: name });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['new_status']);
    });
  });

  describe('ids and other integers the database could not hold', () => {
    /** Every route with an integer path parameter, as `[method path, parameter]`. */
    const idRoutes = storeRoutes.flatMap((def) => {
      const params = (def.schema?.params as TObject | undefined)?.properties ?? {};
      return Object.entries(params)
        .filter(([, schema]) => (schema as TSchema).type === 'integer')
        .map(([param]) => ({ method: def.method, path: def.path, param, names: Object.keys(params) }));
    });

    it('every integer any route accepts has both bounds, within the exact integers', () => {
      const unbounded: string[] = [];
      const visit = (schema: unknown, where: string): void => {
        if (Array.isArray(schema)) return schema.forEach((s, i) => visit(s, `${where}[${i}]`));
        if (!schema || typeof schema !== 'object') return;
        const { type, minimum, maximum } = schema as { type?: unknown; minimum?: number; maximum?: number };
        const bounded = (n: number | undefined) => typeof n === 'number' && Math.abs(n) <= Number.MAX_SAFE_INTEGER;
        if (type === 'integer' && !(bounded(minimum) && bounded(maximum))) unbounded.push(where);
        for (const [key, value] of Object.entries(schema)) visit(value, `${where}.${key}`);
      };
      for (const def of storeRoutes) visit(def.schema ?? {}, `${def.method} ${def.path}`);
      expect(unbounded).toEqual([]);
    });

    it('covers every {id} route family', () => {
      const paths = new Set(idRoutes.map((r) => r.path.split('/:')[0]));
      for (const family of ['/customers', '/orders', '/products', '/products/categories', '/labels', '/coupons', '/shipping/methods', '/shipping/zones']) {
        expect([...paths]).toContain(family);
      }
      expect(idRoutes.length).toBeGreaterThanOrEqual(27);
    });

    it.each([
      ['1e400', 'max'],
      ['9'.repeat(400), 'max'],
      ['Infinity', 'max'],
      [String(MAX_ID + 1), 'max'],
      ['-0', 'min'],
      ['NaN', 'integer'],
      ['1.5', 'integer'],
    ])('%s as a path id: 422 naming the parameter (%s) on every route, never a 404 or 500', async (value, rule) => {
      for (const { method, path, param, names } of idRoutes) {
        const url = names.reduce((p, name) => p.replace(`:${name}`, name === param ? value : '1'), path);
        const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
        const call = dashboard.call(verb, `${BASE}${url}`);
        const res: request.Response = await (verb === 'get' ? call : call.send({}));
        expect([method, url, res.status]).toEqual([method, url, 422]);
        expect([method, url, Object.keys(fieldErrors(res.body)[param] ?? {})]).toEqual([method, url, [rule]]);
      }
    });

    it('the largest id is looked up: 404, not 422', async () => {
      const res = await dashboard.call('get', `${BASE}/labels/${MAX_ID}`);
      expect(res.status).toBe(404);
    });

    it.each(['/orders', '/customers'])('GET %s?include_ids[]=1e400: 422 naming include_ids.0', async (list) => {
      const res = await dashboard.call('get', `${BASE}${list}?include_ids[]=1e400&include_ids[]=${'9'.repeat(30)}`);
      expect(res.status).toBe(422);
      expect(Object.keys(fieldErrors(res.body))).toEqual(['include_ids.0', 'include_ids.1']);
    });

    it('JSON numbers out of range name their fields: 1e400 (Infinity), -0, beyond 2^53', async () => {
      const before = await count('store_orders');
      const res = await dashboard
        .call('post', `${BASE}/orders`)
        .set('Content-Type', 'application/json')
        .send(`{"customer_id":1e400,"order_items":[{"variation_id":${variationId},"quantity":-0}],"subtotal":1e400,"rate":9007199254740993}`);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        customer_id: { max: `The customer id field must not be greater than ${MAX_ID}.` },
        'order_items.0.quantity': { min: 'The quantity field must be at least 1.' },
        subtotal: { numeric: 'The subtotal field must be a number between -9007199254740991 and 9007199254740991.' },
        rate: { max: 'The rate field must not be greater than 1000000000.' },
      });
      expect(await count('store_orders')).toBe(before);
    });

    it('-0 is refused even where 0 is allowed', async () => {
      const res = await dashboard.call('put', `${BASE}/coupons/1`).set('Content-Type', 'application/json').send('{"priority":-0}');
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ priority: { integer: 'The priority field must not be -0.' } });
    });

    it.each([
      ['page=9007199254740991', 2147483647],
      ['page=1e400', 1],
      ['page=-0', 1],
    ])('a page out of range is clamped: %s answers page %d', async (query, page) => {
      const res = await dashboard.call('get', `${BASE}/labels?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.labels.current_page).toBe(page);
    });

    it.each(['per_page=1e400', 'per_page=9007199254740993', 'limit=1e400&offset=1e400'])('%s on GET /orders: clamped, 200', async (query) => {
      const res = await dashboard.call('get', `${BASE}/orders?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.orders.data).toHaveLength(2);
    });

    it.each([
      ['/customers', 'ltv'],
      ['/orders', 'total_amount'],
    ])('GET %s advanced filter on %s with a 400-digit number: 422 naming advanced_filters', async (list, property) => {
      const filters = JSON.stringify([[{ property, operator: '>', value: '9'.repeat(400) }]]);
      const res = await dashboard.call('get', `${BASE}${list}?filter_type=advanced&advanced_filters=${encodeURIComponent(filters)}`);
      expect(res.status).toBe(422);
      expect(Object.keys(fieldErrors(res.body))).toEqual(['advanced_filters']);
    });

    it.each(['id = 1e400', `#${'9'.repeat(400)}`, `total_amount > ${'9'.repeat(400)}`, 'id :: 1-1e400'])('search=%s is free text: 200', async (search) => {
      const res = await dashboard.call('get', `${BASE}/orders?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
    });
  });

  it('none of it reached the error log', () => {
    expect(app.logger.entries.filter((e) => e.level === 'error')).toEqual([]);
  });
});
