import type { Coupon } from '../../src/modules/coupons/types';
import { findCouponsByCodes, incrementCouponUse } from '../../src/modules/coupons/service';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';

interface Users {
  admin: TestUser;
  manager: TestUser;
  viewer: TestUser;
  shopper: TestUser;
}

/** An app with an administrator, a shop manager (everything), a product manager (coupons/view) and a customer. */
async function setup(): Promise<{ app: TestApp; users: Users; products: number[] }> {
  const app = await startTestApp();
  const users = {
    admin: await app.createUser('admin', ['administrator']),
    manager: await app.createUser('manager', ['shop_manager']),
    viewer: await app.createUser('viewer', ['product_manager']),
    shopper: await app.createUser('shopper', ['customer']),
  };
  for (const slug of ['hoodie', 'mug', 'ebook']) {
    await app.database.db('store_products').insert({ title: slug, slug, status: 'publish', created_at: NOW, updated_at: NOW });
  }
  const rows = (await app.database.db('store_products').orderBy('id').select('id')) as Array<{ id: number }>;
  return { app, users, products: rows.map((r) => Number(r.id)) };
}

/** Records every coupon hook call. */
function recordHooks(app: TestApp) {
  const calls: Array<{ name: string; args: Coupon[] }> = [];
  app.host.hooks.addAction('store/coupon/created', (coupon) => void calls.push({ name: 'created', args: [coupon] }));
  app.host.hooks.addAction('store/coupon/updated', (coupon, previous) => void calls.push({ name: 'updated', args: [coupon, previous] }));
  app.host.hooks.addAction('store/coupon/deleted', (coupon) => void calls.push({ name: 'deleted', args: [coupon] }));
  return calls;
}

async function activities(app: TestApp, couponId: number) {
  return (await app.database.db('store_activities').where({ object_type: 'coupon', object_id: couponId }).orderBy('id')).map((row) => ({
    title: row.title as string,
    content: row.content as string,
    created_by: row.created_by as string,
  }));
}

describe('coupons admin API', () => {
  let app: TestApp;
  let users: Users;
  let products: number[];
  let hooks: ReturnType<typeof recordHooks>;

  const create = (body: Record<string, unknown>, as: TestUser = users.admin) => app.as(as).post(`${BASE}/coupons`).send(body);
  const count = async () => Number(((await app.database.db('store_coupons').count({ n: '*' }).first()) as { n: number | string }).n);

  beforeAll(async () => {
    ({ app, users, products } = await setup());
    hooks = recordHooks(app);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    hooks.length = 0;
    app.clock.set('2026-11-21T10:00:00Z');
  });

  describe('POST /coupons', () => {
    it('creates a percentage coupon with every field: 200, the coupon, the stored row, an activity entry and store/coupon/created', async () => {
      const res = await create({
        code: '  Summer25 ',
        title: 'Summer sale',
        type: 'percentage',
        amount: 12.5,
        status: 'active',
        starts_at: '2026-11-01 00:00:00',
        ends_at: '2026-12-31 23:59:59',
        min_purchase_amount: 5000,
        max_discount_amount: 2500,
        max_uses: 100,
        max_per_customer: 1,
        included_products: [products[0], products[1], products[0]],
        excluded_products: [products[2]],
        stackable: 1,
        priority: 5,
        notes: 'Newsletter #12',
      });

      expect(res.status).toBe(200);
      const coupon = {
        id: expect.any(Number),
        code: 'Summer25',
        title: 'Summer sale',
        type: 'percentage',
        amount: 12.5,
        status: 'active',
        effective_status: 'active',
        starts_at: '2026-11-01 00:00:00',
        ends_at: '2026-12-31 23:59:59',
        min_purchase_amount: 5000,
        max_discount_amount: 2500,
        max_uses: 100,
        max_per_customer: 1,
        included_products: [products[0], products[1]],
        excluded_products: [products[2]],
        stackable: 1,
        priority: 5,
        use_count: 0,
        notes: 'Newsletter #12',
        created_at: NOW,
        updated_at: NOW,
      };
      expect(res.body).toEqual({ message: 'Coupon created successfully!', coupon });

      const row = await app.database.db('store_coupons').where({ id: res.body.coupon.id }).first();
      expect(row).toMatchObject({ code: 'Summer25', code_key: 'summer25', type: 'percentage', status: 'active' });
      expect(Number(row.amount)).toBe(1250); // basis points
      expect(JSON.parse(row.included_products)).toEqual([products[0], products[1]]);

      expect(hooks).toEqual([{ name: 'created', args: [coupon] }]);
      expect(await activities(app, res.body.coupon.id)).toEqual([{ title: 'Coupon created', content: 'Coupon Summer25 was created.', created_by: 'admin' }]);
    });

    it('a fixed coupon with only code, type and amount: cents, defaults for the rest', async () => {
      const res = await create({ code: 'FIVEOFF', type: 'fixed', amount: 500 });
      expect(res.status).toBe(200);
      expect(res.body.coupon).toMatchObject({
        code: 'FIVEOFF',
        title: '',
        type: 'fixed',
        amount: 500,
        status: 'active',
        effective_status: 'active',
        starts_at: null,
        ends_at: null,
        min_purchase_amount: null,
        max_discount_amount: null,
        max_uses: null,
        max_per_customer: null,
        included_products: [],
        excluded_products: [],
        stackable: 0,
        priority: 10,
        use_count: 0,
        notes: '',
      });
    });

    it('a free-shipping coupon needs no amount (0)', async () => {
      const res = await create({ code: 'SHIPFREE', type: 'free_shipping' });
      expect(res.status).toBe(200);
      expect(res.body.coupon).toMatchObject({ type: 'free_shipping', amount: 0 });
    });

    it('a percentage may be sent as a decimal string; 100 is allowed', async () => {
      expect((await create({ code: 'PCT-STR', type: 'percentage', amount: '7.25' })).body.coupon.amount).toBe(7.25);
      expect((await create({ code: 'PCT_ALL', type: 'percentage', amount: 100 })).body.coupon.amount).toBe(100);
    });

    it('codes are unique whatever their case: SAVE10 then save10 → 422, nothing stored', async () => {
      expect((await create({ code: 'SAVE10', type: 'fixed', amount: 1000 })).status).toBe(200);
      const before = await count();
      hooks.length = 0;

      const res = await create({ code: 'save10', type: 'fixed', amount: 1000 });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The code has already been taken.', errors: { code: { unique: 'The code has already been taken.' } } });
      expect(await count()).toBe(before);
      expect(hooks).toEqual([]);
    });

    it('five simultaneous creates of one code (in different cases): one 200, four 422 unique', async () => {
      const results = await Promise.all(['RACE', 'race', 'Race', 'rACE', 'RaCe'].map((code) => create({ code, type: 'fixed', amount: 100 })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422]);
      for (const r of results.filter((r) => r.status === 422)) expect(r.body.errors).toEqual({ code: { unique: 'The code has already been taken.' } });
      expect(await app.database.db('store_coupons').where({ code_key: 'race' }).count({ n: '*' }).first()).toEqual({ n: 1 });
    });

    it.each<[string, Record<string, unknown>, string, string, string]>([
      ['no code', { type: 'fixed', amount: 100 }, 'code', 'required', 'The code field is required.'],
      ['an empty code', { code: '', type: 'fixed', amount: 100 }, 'code', 'required', 'The code field is required.'],
      ['a blank code', { code: '   ', type: 'fixed', amount: 100 }, 'code', 'required', 'The code field is required.'],
      [
        'a code with a space',
        { code: 'SAVE 10', type: 'fixed', amount: 100 },
        'code',
        'regex',
        'The code may only contain letters, numbers, dashes and underscores.',
      ],
      [
        'a code with punctuation',
        { code: 'SAVE10!', type: 'fixed', amount: 100 },
        'code',
        'regex',
        'The code may only contain letters, numbers, dashes and underscores.',
      ],
      [
        'a code of 101 characters',
        { code: 'A'.repeat(101), type: 'fixed', amount: 100 },
        'code',
        'max',
        'The code field must not be greater than 100 characters.',
      ],
      ['a code that is not a string', { code: 10, type: 'fixed', amount: 100 }, 'code', 'string', 'The code field must be a string.'],
      ['no type', { code: 'X1', amount: 100 }, 'type', 'required', 'The type field is required.'],
      ['an unknown type', { code: 'X1', type: 'bogo', amount: 100 }, 'type', 'in', 'The selected type is invalid.'],
      ['a fixed coupon without amount', { code: 'X1', type: 'fixed' }, 'amount', 'required', 'The amount field is required.'],
      [
        'a fixed amount of 0',
        { code: 'X1', type: 'fixed', amount: 0 },
        'amount',
        'integer',
        'The amount of a fixed coupon must be a whole number of cents greater than 0.',
      ],
      [
        'a negative fixed amount',
        { code: 'X1', type: 'fixed', amount: -5 },
        'amount',
        'integer',
        'The amount of a fixed coupon must be a whole number of cents greater than 0.',
      ],
      [
        'a fractional fixed amount',
        { code: 'X1', type: 'fixed', amount: 10.5 },
        'amount',
        'integer',
        'The amount of a fixed coupon must be a whole number of cents greater than 0.',
      ],
      ['an amount that is not a number', { code: 'X1', type: 'fixed', amount: true }, 'amount', 'numeric', 'The amount field must be a number.'],
      ['a percentage without amount', { code: 'X1', type: 'percentage' }, 'amount', 'required', 'The amount field is required.'],
      [
        'a percentage of 0',
        { code: 'X1', type: 'percentage', amount: 0 },
        'amount',
        'between',
        'The amount of a percentage coupon must be greater than 0 and at most 100.',
      ],
      [
        'a percentage above 100',
        { code: 'X1', type: 'percentage', amount: 100.01 },
        'amount',
        'between',
        'The amount of a percentage coupon must be greater than 0 and at most 100.',
      ],
      [
        'a percentage with 3 decimals',
        { code: 'X1', type: 'percentage', amount: 12.345 },
        'amount',
        'decimal',
        'The amount of a percentage coupon must be a number with at most 2 decimals.',
      ],
      [
        'a percentage that is not a decimal',
        { code: 'X1', type: 'percentage', amount: '1e2' },
        'amount',
        'decimal',
        'The amount of a percentage coupon must be a number with at most 2 decimals.',
      ],
      [
        'free shipping with an amount',
        { code: 'X1', type: 'free_shipping', amount: 500 },
        'amount',
        'in',
        'A free shipping coupon has no amount: send 0 or leave it out.',
      ],
      ['an unknown status', { code: 'X1', type: 'fixed', amount: 100, status: 'paused' }, 'status', 'in', 'The selected status is invalid.'],
      [
        'a date without time',
        { code: 'X1', type: 'fixed', amount: 100, starts_at: '2026-12-01' },
        'starts_at',
        'date_format',
        'The starts at field must match the format YYYY-MM-DD HH:MM:SS.',
      ],
      [
        'an impossible date',
        { code: 'X1', type: 'fixed', amount: 100, ends_at: '2026-02-30 00:00:00' },
        'ends_at',
        'date_format',
        'The ends at field must match the format YYYY-MM-DD HH:MM:SS.',
      ],
      [
        'an ISO date',
        { code: 'X1', type: 'fixed', amount: 100, ends_at: '2026-12-01T00:00:00Z' },
        'ends_at',
        'date_format',
        'The ends at field must match the format YYYY-MM-DD HH:MM:SS.',
      ],
      [
        'ends_at before starts_at',
        { code: 'X1', type: 'fixed', amount: 100, starts_at: '2026-12-01 00:00:00', ends_at: '2026-11-30 23:59:59' },
        'ends_at',
        'after',
        'The ends at field must be a date after starts at.',
      ],
      [
        'ends_at equal to starts_at',
        { code: 'X1', type: 'fixed', amount: 100, starts_at: '2026-12-01 00:00:00', ends_at: '2026-12-01 00:00:00' },
        'ends_at',
        'after',
        'The ends at field must be a date after starts at.',
      ],
      [
        'a negative minimum',
        { code: 'X1', type: 'fixed', amount: 100, min_purchase_amount: -1 },
        'min_purchase_amount',
        'min',
        'The min purchase amount field must be at least 0.',
      ],
      [
        'a decimal minimum',
        { code: 'X1', type: 'fixed', amount: 100, min_purchase_amount: 10.5 },
        'min_purchase_amount',
        'integer',
        'The min purchase amount field must be an integer.',
      ],
      [
        'a cap of 0',
        { code: 'X1', type: 'fixed', amount: 100, max_discount_amount: 0 },
        'max_discount_amount',
        'min',
        'The max discount amount field must be at least 1.',
      ],
      ['max_uses 0', { code: 'X1', type: 'fixed', amount: 100, max_uses: 0 }, 'max_uses', 'min', 'The max uses field must be at least 1.'],
      ['max_uses as text', { code: 'X1', type: 'fixed', amount: 100, max_uses: 'ten' }, 'max_uses', 'integer', 'The max uses field must be an integer.'],
      [
        'max_per_customer 0',
        { code: 'X1', type: 'fixed', amount: 100, max_per_customer: 0 },
        'max_per_customer',
        'min',
        'The max per customer field must be at least 1.',
      ],
      [
        'included products not a list',
        { code: 'X1', type: 'fixed', amount: 100, included_products: 5 },
        'included_products',
        'array',
        'The included products field must be an array.',
      ],
      [
        'an unknown included product',
        { code: 'X1', type: 'fixed', amount: 100, included_products: [999998, 999999] },
        'included_products',
        'exists',
        'The selected included products are invalid: 999998, 999999.',
      ],
      [
        'an unknown excluded product',
        { code: 'X1', type: 'fixed', amount: 100, excluded_products: [999999] },
        'excluded_products',
        'exists',
        'The selected excluded products are invalid: 999999.',
      ],
      ['stackable 2', { code: 'X1', type: 'fixed', amount: 100, stackable: 2 }, 'stackable', 'in', 'The stackable field must be 0 or 1.'],
      ['stackable true', { code: 'X1', type: 'fixed', amount: 100, stackable: true }, 'stackable', 'numeric', 'The stackable field must be 0 or 1.'],
      ['a negative priority', { code: 'X1', type: 'fixed', amount: 100, priority: -1 }, 'priority', 'min', 'The priority field must be at least 0.'],
      ['a fractional priority', { code: 'X1', type: 'fixed', amount: 100, priority: 1.5 }, 'priority', 'integer', 'The priority field must be an integer.'],
      [
        'notes of 101 characters',
        { code: 'X1', type: 'fixed', amount: 100, notes: 'n'.repeat(101) },
        'notes',
        'max',
        'The notes field must not be greater than 100 characters.',
      ],
      [
        'a title of 256 characters',
        { code: 'X1', type: 'fixed', amount: 100, title: 't'.repeat(256) },
        'title',
        'max',
        'The title field must not be greater than 255 characters.',
      ],
    ])('%s → 422 naming the field, nothing stored', async (_name, body, field, rule, message) => {
      const before = await count();
      const res = await create(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(res.body.message).toEqual(expect.any(String));
      expect(await count()).toBe(before);
      expect(hooks).toEqual([]);
    });

    it('a product both included and excluded → 422 on excluded_products', async () => {
      const res = await create({ code: 'BOTH', type: 'fixed', amount: 100, included_products: [products[0], products[1]], excluded_products: [products[1]] });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: `A product cannot be both included and excluded: ${products[1]}.`,
        errors: { excluded_products: { distinct: `A product cannot be both included and excluded: ${products[1]}.` } },
      });
    });

    it('reports every invalid field at once', async () => {
      const res = await create({ code: 'BAD CODE', type: 'percentage', amount: 150, max_uses: 0, stackable: 3 });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['max_uses', 'stackable']);
      // schema errors come first; the service rules run once the shapes are right
      const second = await create({ code: 'BAD CODE', type: 'percentage', amount: 150 });
      expect(Object.keys(second.body.errors).sort()).toEqual(['amount', 'code']);
    });

    it('a body that is not JSON → 400', async () => {
      const res = await app.as(users.admin).post(`${BASE}/coupons`).set('Content-Type', 'application/json').send('{"code":');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'The request body is not valid JSON.' });
    });

    it('401 without credentials, 403 for a customer and a product manager (coupons/view only), 200 for a shop manager', async () => {
      const body = { code: 'PERM1', type: 'fixed', amount: 100 };
      expect((await app.http.post(`${BASE}/coupons`).send(body)).status).toBe(401);
      const forbidden = await create(body, users.shopper);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual({ code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status: 403 } });
      expect((await create(body, users.viewer)).status).toBe(403);
      const res = await create(body, users.manager);
      expect(res.status).toBe(200);
      expect(await activities(app, res.body.coupon.id)).toEqual([{ title: 'Coupon created', content: 'Coupon PERM1 was created.', created_by: 'manager' }]);
    });
  });

  describe('GET /coupons/:id', () => {
    let id: number;
    beforeAll(async () => {
      id = (await create({ code: 'SHOWME', type: 'fixed', amount: 750, starts_at: '2026-12-01 00:00:00', ends_at: '2026-12-31 23:59:59', max_uses: 2 })).body
        .coupon.id;
    });

    it('200 with the coupon (the product manager may view)', async () => {
      const res = await app.as(users.viewer).get(`${BASE}/coupons/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ coupon: expect.objectContaining({ id, code: 'SHOWME', amount: 750, type: 'fixed' }) });
    });

    it('effective_status follows the clock and the use count: scheduled, active, expired', async () => {
      const status = async () => (await app.as(users.admin).get(`${BASE}/coupons/${id}`)).body.coupon.effective_status;
      expect(await status()).toBe('scheduled');
      app.clock.set('2026-12-01T00:00:00Z');
      expect(await status()).toBe('active');
      app.clock.set('2026-12-31T23:59:59Z');
      expect(await status()).toBe('active');
      app.clock.set('2027-01-01T00:00:00Z');
      expect(await status()).toBe('expired');
      app.clock.set('2026-12-15T00:00:00Z');
      await app.database.db('store_coupons').where({ id }).update({ use_count: 2 });
      expect(await status()).toBe('expired');
      await app.database.db('store_coupons').where({ id }).update({ use_count: 0, status: 'inactive' });
      expect(await status()).toBe('inactive');
      await app.database.db('store_coupons').where({ id }).update({ status: 'active' });
    });

    it('404 {message: Coupon not found} for an unknown id', async () => {
      const res = await app.as(users.admin).get(`${BASE}/coupons/999999`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Coupon not found' });
    });

    it('401 without credentials, 403 for a customer', async () => {
      expect((await app.http.get(`${BASE}/coupons/${id}`)).status).toBe(401);
      expect((await app.as(users.shopper).get(`${BASE}/coupons/${id}`)).status).toBe(403);
    });
  });

  describe('PUT /coupons/:id', () => {
    const update = (id: number, body: Record<string, unknown>, as: TestUser = users.admin) => app.as(as).put(`${BASE}/coupons/${id}`).send(body);
    let id: number;
    let original: Coupon;

    beforeEach(async () => {
      const code = `EDIT${Math.random().toString(36).slice(2, 8)}`;
      original = (await create({ code, title: 'Editable', type: 'fixed', amount: 1000, max_uses: 5, notes: 'first' })).body.coupon;
      id = original.id;
      hooks.length = 0;
    });

    it('changes only the fields sent: 200, the coupon, the row, store/coupon/updated with the previous coupon, an activity entry', async () => {
      app.clock.set('2026-11-22T08:30:00Z');
      const res = await update(id, { title: 'Edited', status: 'inactive', max_uses: null });
      expect(res.status).toBe(200);
      const coupon = { ...original, title: 'Edited', status: 'inactive', effective_status: 'inactive', max_uses: null, updated_at: '2026-11-22 08:30:00' };
      expect(res.body).toEqual({ message: 'Coupon updated successfully!', coupon });
      expect((await app.as(users.admin).get(`${BASE}/coupons/${id}`)).body.coupon).toEqual(coupon);
      expect(hooks).toEqual([{ name: 'updated', args: [coupon, original] }]);
      expect((await activities(app, id)).pop()).toEqual({
        title: 'Coupon updated',
        content: `Coupon ${original.code}: changed title, status, max_uses.`,
        created_by: 'admin',
      });
    });

    it('the same code in another case is the same coupon: allowed, code_key unchanged', async () => {
      const res = await update(id, { code: original.code.toLowerCase() });
      expect(res.status).toBe(200);
      expect(res.body.coupon.code).toBe(original.code.toLowerCase());
      const row = await app.database.db('store_coupons').where({ id }).first();
      expect(row.code_key).toBe(original.code.toLowerCase());
    });

    it("another coupon's code (any case) → 422 unique, nothing changed", async () => {
      await create({ code: 'TAKEN', type: 'fixed', amount: 100 });
      hooks.length = 0;
      const res = await update(id, { code: 'taken', title: 'Changed' });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ code: { unique: 'The code has already been taken.' } });
      expect((await app.as(users.admin).get(`${BASE}/coupons/${id}`)).body.coupon).toEqual(original);
      expect(hooks).toEqual([]);
    });

    it('changing the type needs an amount for the new type', async () => {
      const missing = await update(id, { type: 'percentage' });
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toEqual({ amount: { required: 'The amount field is required.' } });

      const res = await update(id, { type: 'percentage', amount: 15 });
      expect(res.status).toBe(200);
      expect(res.body.coupon).toMatchObject({ type: 'percentage', amount: 15 });
      expect(Number((await app.database.db('store_coupons').where({ id }).first()).amount)).toBe(1500);

      // the amount alone, type unchanged, is read for the stored type
      expect((await update(id, { amount: 33.33 })).body.coupon.amount).toBe(33.33);
      expect((await update(id, { amount: 101 })).body.errors).toEqual({
        amount: { between: 'The amount of a percentage coupon must be greater than 0 and at most 100.' },
      });

      const free = await update(id, { type: 'free_shipping' });
      expect(free.status).toBe(200);
      expect(free.body.coupon).toMatchObject({ type: 'free_shipping', amount: 0 });
    });

    it('dates are checked against the stored ones: an ends_at before the stored starts_at → 422', async () => {
      expect((await update(id, { starts_at: '2026-12-01 00:00:00' })).status).toBe(200);
      const res = await update(id, { ends_at: '2026-11-30 00:00:00' });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ ends_at: { after: 'The ends at field must be a date after starts at.' } });
      const cleared = await update(id, { starts_at: null, ends_at: '2026-11-30 00:00:00' });
      expect(cleared.status).toBe(200);
      expect(cleared.body.coupon).toMatchObject({ starts_at: null, ends_at: '2026-11-30 00:00:00' });
      expect((await update(id, { ends_at: '' })).body.coupon.ends_at).toBeNull();
    });

    it('products: replaced when sent, checked against the stored list for overlap', async () => {
      expect((await update(id, { included_products: [products[0]] })).body.coupon.included_products).toEqual([products[0]]);
      const res = await update(id, { excluded_products: [products[0]] });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ excluded_products: { distinct: `A product cannot be both included and excluded: ${products[0]}.` } });
      expect((await update(id, { included_products: [], excluded_products: [products[0]] })).body.coupon).toMatchObject({
        included_products: [],
        excluded_products: [products[0]],
      });
    });

    it('a PUT that changes nothing answers 200 and writes, logs and fires nothing', async () => {
      const before = await activities(app, id);
      app.clock.set('2026-11-23T00:00:00Z');
      const res = await update(id, { title: 'Editable', amount: 1000 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Coupon updated successfully!', coupon: original });
      expect(await activities(app, id)).toEqual(before);
      expect(hooks).toEqual([]);
    });

    it('validates the fields sent like a create', async () => {
      const res = await update(id, { code: 'NO SPACES', priority: -3 });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ priority: { min: 'The priority field must be at least 0.' } });
      expect((await update(id, { code: 'NO SPACES' })).body.errors).toEqual({
        code: { regex: 'The code may only contain letters, numbers, dashes and underscores.' },
      });
    });

    it('404 for an unknown coupon; 401/403 without coupons/manage; a shop manager may edit', async () => {
      expect((await update(999999, { title: 'x' })).status).toBe(404);
      expect((await update(999999, { title: 'x' })).body).toEqual({ message: 'Coupon not found' });
      expect((await app.http.put(`${BASE}/coupons/${id}`).send({ title: 'x' })).status).toBe(401);
      expect((await update(id, { title: 'x' }, users.viewer)).status).toBe(403);
      expect((await update(id, { title: 'x' }, users.shopper)).status).toBe(403);
      expect((await update(id, { title: 'by manager' }, users.manager)).body.coupon.title).toBe('by manager');
    });
  });

  describe('DELETE /coupons/:id', () => {
    it('200, the row gone, store/coupon/deleted with the coupon, an activity entry', async () => {
      const coupon = (await create({ code: 'BYEBYE', type: 'fixed', amount: 100 })).body.coupon as Coupon;
      hooks.length = 0;
      const res = await app.as(users.admin).delete(`${BASE}/coupons/${coupon.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Coupon deleted successfully!' });
      expect(await app.database.db('store_coupons').where({ id: coupon.id }).first()).toBeUndefined();
      expect(hooks).toEqual([{ name: 'deleted', args: [coupon] }]);
      expect((await activities(app, coupon.id)).pop()).toEqual({ title: 'Coupon deleted', content: 'Coupon BYEBYE was deleted.', created_by: 'admin' });
      expect((await app.as(users.admin).get(`${BASE}/coupons/${coupon.id}`)).status).toBe(404);
      // the code is free again
      expect((await create({ code: 'byebye', type: 'fixed', amount: 100 })).status).toBe(200);
    });

    it('404 for an unknown coupon', async () => {
      const res = await app.as(users.admin).delete(`${BASE}/coupons/999999`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Coupon not found' });
    });

    it('401 without credentials, 403 without coupons/delete, a shop manager may delete', async () => {
      const { id } = (await create({ code: 'DELPERM', type: 'fixed', amount: 100 })).body.coupon;
      expect((await app.http.delete(`${BASE}/coupons/${id}`)).status).toBe(401);
      expect((await app.as(users.viewer).delete(`${BASE}/coupons/${id}`)).status).toBe(403);
      expect((await app.as(users.shopper).delete(`${BASE}/coupons/${id}`)).status).toBe(403);
      expect((await app.as(users.manager).delete(`${BASE}/coupons/${id}`)).status).toBe(200);
    });
  });
});

describe('GET /coupons', () => {
  let app: TestApp;
  let users: Users;
  const ids: Record<string, number> = {};

  const list = (query = '', as?: TestUser) => app.as(as ?? users.admin).get(`${BASE}/coupons${query}`);
  const codes = (res: { body: { coupons: { data: Coupon[] } } }) => res.body.coupons.data.map((c) => c.code);

  beforeAll(async () => {
    ({ app, users } = await setup());
    const seed: Array<Record<string, unknown>> = [
      { code: 'alpha', title: 'First coupon', type: 'fixed', amount: 100, priority: 5, ends_at: '2026-12-31 00:00:00' },
      { code: 'Bravo', title: 'Summer sale', type: 'percentage', amount: 10, priority: 1, ends_at: '2026-12-01 00:00:00' },
      { code: 'charlie', title: '50% off everything', type: 'percentage', amount: 50, priority: 3, status: 'inactive' },
      { code: 'SUMMER24', title: 'Old promo', type: 'free_shipping', priority: 2 },
      { code: 'under_score', title: 'Literal_underscore', type: 'fixed', amount: 200, priority: 4 },
    ];
    for (const [i, body] of seed.entries()) {
      app.clock.set(`2026-11-2${i}T10:00:00Z`);
      const res = await app.as(users.admin).post(`${BASE}/coupons`).send(body);
      ids[body.code as string] = res.body.coupon.id;
    }
    for (let i = 1; i <= 7; i++) {
      const res = await app
        .as(users.admin)
        .post(`${BASE}/coupons`)
        .send({ code: `BULK${i}`, type: 'fixed', amount: 100 * i });
      ids[`BULK${i}`] = res.body.coupon.id;
    }
    await app.database.db('store_coupons').where({ id: ids.alpha }).update({ use_count: 3 });
    await app.database.db('store_coupons').where({ id: ids.Bravo }).update({ use_count: 1 });
    await app.database.db('store_coupons').where({ id: ids.SUMMER24 }).update({ use_count: 7 });
  });
  afterAll(() => app.close());

  it('the page object, 10 per page by default, newest (highest id) first', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.coupons).toEqual({ current_page: 1, data: expect.any(Array), per_page: 10, total: 12, last_page: 2, from: 1, to: 10 });
    expect(codes(res).slice(0, 3)).toEqual(['BULK7', 'BULK6', 'BULK5']);
    expect(res.body.coupons.data[0]).toMatchObject({ code: 'BULK7', amount: 700, effective_status: 'active' });

    const second = await list('?page=2');
    expect(second.body.coupons).toMatchObject({ current_page: 2, per_page: 10, total: 12, last_page: 2, from: 11, to: 12 });
    expect(codes(second)).toEqual(['Bravo', 'alpha']);
  });

  it('per_page is clamped to 1..200, not refused', async () => {
    expect((await list('?per_page=500')).body.coupons).toMatchObject({ per_page: 200, last_page: 1, total: 12 });
    expect((await list('?per_page=0')).body.coupons).toMatchObject({ per_page: 1, last_page: 12 });
    expect((await list('?per_page=3&page=99')).body.coupons).toMatchObject({ current_page: 99, data: [], from: null, to: null });
  });

  it.each<[string, string[]]>([
    ['?sort_by=code&sort_type=asc&per_page=5', ['alpha', 'Bravo', 'BULK1', 'BULK2', 'BULK3']],
    ['?sort_by=priority&sort_type=asc&per_page=5', ['Bravo', 'SUMMER24', 'charlie', 'under_score', 'alpha']],
    ['?sort_by=use_count&sort_type=desc&per_page=3', ['SUMMER24', 'alpha', 'Bravo']],
    ['?sort_by=ends_at&sort_type=desc&per_page=2', ['alpha', 'Bravo']],
    ['?sort_by=created_at&sort_type=asc&per_page=2', ['alpha', 'Bravo']],
    ['?sort_by=id&sort_type=asc&per_page=2', ['alpha', 'Bravo']],
    ['?sort_by=amount&sort_type=asc&per_page=2', ['alpha', 'Bravo']],
    ['?sort_by=title&per_page=2', ['BULK7', 'BULK6']],
  ])('sorts %s (code case-insensitively; an unknown sort_by falls back to id)', async (query, expected) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(expected);
  });

  it.each<[string, string[]]>([
    ['summer', ['SUMMER24', 'Bravo']],
    ['SUMMER', ['SUMMER24', 'Bravo']],
    ['50%', ['charlie']],
    ['%', ['charlie']],
    ['_', ['under_score']],
    ['r_s', ['under_score']],
    ['code = bravo', ['Bravo']],
    ['code = BRAVO', ['Bravo']],
    ['code ~ bulk', ['BULK7', 'BULK6', 'BULK5', 'BULK4', 'BULK3', 'BULK2', 'BULK1']],
    ['status = inactive', ['charlie']],
    ['status = Inactive', ['charlie']],
    ['type = free_shipping', ['SUMMER24']],
    ['type = percentage', ['charlie', 'Bravo']],
    ['use_count > 1', ['SUMMER24', 'alpha']],
    ['use_count :: 1-3', ['Bravo', 'alpha']],
    ['nothing-matches', []],
  ])('search %s', async (search, expected) => {
    const res = await list(`?per_page=50&search=${encodeURIComponent(search)}`);
    expect(res.status).toBe(200);
    expect(codes(res)).toEqual(expected);
  });

  it('search #id and id conditions', async () => {
    expect(codes(await list(`?search=${encodeURIComponent(`#${ids.charlie}`)}`))).toEqual(['charlie']);
    expect(codes(await list(`?search=${encodeURIComponent(`id = ${ids.alpha}`)}`))).toEqual(['alpha']);
    expect(codes(await list(`?search=${encodeURIComponent(`id :: ${ids.alpha}-${ids.charlie}`)}&sort_type=asc`))).toEqual(['alpha', 'Bravo', 'charlie']);
  });

  it('filters status and type', async () => {
    expect(codes(await list('?status=inactive'))).toEqual(['charlie']);
    expect((await list('?status=active')).body.coupons.total).toBe(11);
    expect(codes(await list('?type=percentage'))).toEqual(['charlie', 'Bravo']);
    expect(codes(await list('?type=percentage&status=active'))).toEqual(['Bravo']);
    expect(codes(await list('?type=fixed&search=score'))).toEqual(['under_score']);
  });

  it.each([
    ['?status=expired', 'status'],
    ['?status=ACTIVE', 'status'],
    ['?type=bogo', 'type'],
  ])('an unknown filter value %s → 422', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: `The selected ${field} is invalid.`, errors: { [field]: { in: `The selected ${field} is invalid.` } } });
  });

  it('percentages are presented as numbers, fixed amounts as cents', async () => {
    const data = (await list('?per_page=50')).body.coupons.data as Coupon[];
    expect(data.find((c) => c.code === 'Bravo')).toMatchObject({ type: 'percentage', amount: 10, use_count: 1 });
    expect(data.find((c) => c.code === 'alpha')).toMatchObject({ type: 'fixed', amount: 100, use_count: 3 });
  });

  it('401 without credentials, 403 for a customer, 200 for a product manager', async () => {
    expect((await app.http.get(`${BASE}/coupons`)).status).toBe(401);
    expect((await list('', users.shopper)).status).toBe(403);
    expect((await list('', users.viewer)).status).toBe(200);
  });
});

describe('coupon service helpers for checkout and orders', () => {
  let app: TestApp;
  let users: Users;
  const make = async (body: Record<string, unknown>) => (await app.as(users.admin).post(`${BASE}/coupons`).send(body)).body.coupon as Coupon;

  beforeAll(async () => {
    ({ app, users } = await setup());
  });
  afterAll(() => app.close());

  describe('findCouponsByCodes', () => {
    it('matches codes case-insensitively, in the order asked, once each, leaving unknown codes out', async () => {
      const welcome = await make({ code: 'Welcome10', type: 'percentage', amount: 10 });
      const ship = await make({ code: 'SHIP', type: 'free_shipping', ends_at: '2026-11-30 00:00:00' });
      const found = await findCouponsByCodes(app.database.db, ['ship', ' WELCOME10 ', 'nope', 'Ship', ''], new Date('2026-12-01T00:00:00Z'));
      expect(found.map((c) => c.id)).toEqual([ship.id, welcome.id]);
      expect(found[0]).toMatchObject({ code: 'SHIP', effective_status: 'expired' });
      expect(found[1]).toMatchObject({ code: 'Welcome10', amount: 10, effective_status: 'active' });
      expect(await findCouponsByCodes(app.database.db, [])).toEqual([]);
    });
  });

  describe('incrementCouponUse', () => {
    it('counts uses up to max_uses, then answers false', async () => {
      const coupon = await make({ code: 'TWICE', type: 'fixed', amount: 100, max_uses: 2 });
      const db = app.database.db;
      expect(await incrementCouponUse(db, coupon.id)).toBe(true);
      expect(await incrementCouponUse(db, coupon.id)).toBe(true);
      expect(await incrementCouponUse(db, coupon.id)).toBe(false);
      expect(Number((await db('store_coupons').where({ id: coupon.id }).first()).use_count)).toBe(2);
    });

    it('10 parallel transactions on a coupon with max_uses 3: exactly 3 succeed', async () => {
      const coupon = await make({ code: 'RACE3', type: 'fixed', amount: 100, max_uses: 3 });
      const db = app.database.db;
      const results = await Promise.all(Array.from({ length: 10 }, () => db.transaction((trx) => incrementCouponUse(trx, coupon.id))));
      expect(results.filter(Boolean)).toHaveLength(3);
      expect(Number((await db('store_coupons').where({ id: coupon.id }).first()).use_count)).toBe(3);
    });

    it('a rolled-back transaction gives the use back', async () => {
      const coupon = await make({ code: 'ROLLBACK', type: 'fixed', amount: 100, max_uses: 1 });
      const db = app.database.db;
      await expect(
        db.transaction(async (trx) => {
          expect(await incrementCouponUse(trx, coupon.id)).toBe(true);
          throw new Error('payment failed');
        }),
      ).rejects.toThrow('payment failed');
      expect(await incrementCouponUse(db, coupon.id)).toBe(true);
    });

    it('without max_uses every use counts; an unknown coupon answers false', async () => {
      const coupon = await make({ code: 'UNLIMITED', type: 'fixed', amount: 100 });
      const db = app.database.db;
      const results = await Promise.all(Array.from({ length: 10 }, () => db.transaction((trx) => incrementCouponUse(trx, coupon.id))));
      expect(results.every(Boolean)).toBe(true);
      expect(Number((await db('store_coupons').where({ id: coupon.id }).first()).use_count)).toBe(10);
      expect(await incrementCouponUse(db, 999999)).toBe(false);
    });
  });
});
