/**
 * Product-category tax overrides: `GET /tax/product-overrides/{country_code}`, `POST /tax/product-overrides`,
 * `DELETE /tax/product-overrides/override/{id}`, and what happens to overrides when their category changes.
 *
 * An override is a `store_meta` row (`object_type: 'tax_override'`, `meta_key: 'product_category_override'`,
 * `object_id` = the category) whose JSON `meta_value` says where (country, state, city, postcode), for which category
 * and what: a rate, or a tax class. Reads need `store/settings`, writes `store/sensitive`; errors come as `{message}`,
 * validation errors as 422 `{message, errors: {field: {rule: message}}}`. Every write logs an activity (object type
 * `tax_override`) and fires `store/tax_override/saved` or `store/tax_override/deleted` after the commit.
 */
import type { Response } from 'supertest';
import type { ActionMap } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const ACTIONS = ['store/tax_override/saved', 'store/tax_override/deleted', 'store/category/deleted'] as const;
type Action = (typeof ACTIONS)[number];

const NOW = '2026-11-21 10:00:00';
const SAVED = 'Tax override has been saved successfully';

describe('product-category tax overrides', () => {
  let app: TestApp;
  let admin: TestUser;
  let reader: TestUser;
  let productManager: TestUser;
  let shopper: TestUser;
  let books: number;
  let music: number;
  let reduced: number;

  const db = () => app.database.db;
  const api = () => app.as(admin);
  const save = (body: Record<string, unknown>, user: TestUser = admin) => app.as(user).post(`${BASE}/tax/product-overrides`).send(body);
  const list = (country: string, user: TestUser = admin) => app.as(user).get(`${BASE}/tax/product-overrides/${country}`);

  async function category(name: string): Promise<number> {
    const res = await api().post(`${BASE}/products/categories`).send({ name });
    expect(res.status).toBe(200);
    return res.body.category.id as number;
  }

  async function taxRate(fields: Record<string, unknown>): Promise<number> {
    const [id] = await db()('store_tax_rates').insert({ country: 'US', rate: '7.2500', name: 'Tax', created_at: NOW, updated_at: NOW, ...fields });
    return Number(id);
  }

  async function saved(body: Record<string, unknown>): Promise<Record<string, unknown> & { id: number }> {
    const res = await save(body);
    expect(res.status).toBe(200);
    return res.body.override;
  }

  /** Everything a refused request must leave as it was. */
  const state = async () => ({
    meta: await db()('store_meta').orderBy('id'),
    rates: (await db()('store_tax_rates').orderBy('id')).map((r: Record<string, unknown>) => ({
      ...r,
      for_shipping: r.for_shipping === null ? null : Number(r.for_shipping),
    })),
    activities: await db()('store_activities').orderBy('id'),
  });

  const activities = async (objectType = 'tax_override') =>
    (await db()('store_activities').where({ object_type: objectType }).orderBy('id')).map((a: Record<string, unknown>) => ({
      object_id: Number(a.object_id),
      title: a.title,
      content: a.content,
    }));

  /** Records the actions fired while `work` runs. */
  async function recordHooks(work: () => Promise<unknown>): Promise<Array<[Action, ...unknown[]]>> {
    const fired: Array<[Action, ...unknown[]]> = [];
    const offs = ACTIONS.map((name) =>
      app.host.hooks.addAction(name, (...args: ActionMap[typeof name]) => {
        fired.push([name, ...args]);
      }),
    );
    try {
      await work();
    } finally {
      offs.forEach((off) => off());
    }
    return fired;
  }

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.users.roles.register('settings_reader', { title: 'Settings reader', capabilities: ['store/settings'] });
    admin = await app.createUser('admin', ['administrator']);
    reader = await app.createUser('reader', ['settings_reader']);
    productManager = await app.createUser('products', ['product_manager']);
    shopper = await app.createUser('shopper');
    books = await category('Books');
    music = await category('Music');
    const [id] = await db()('store_tax_classes').insert({ title: 'Reduced', slug: 'reduced', meta: '[]', created_at: NOW, updated_at: NOW });
    reduced = Number(id);
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    app.clock.set('2026-11-21T10:00:00Z');
    await db()('store_meta').delete();
    await db()('store_tax_rates').delete();
    await db()('store_activities').delete();
  });

  describe('POST /tax/product-overrides', () => {
    it('creates an override: the stored meta row, the presented override, an activity, store/tax_override/saved', async () => {
      let res: Response | undefined;
      const fired = await recordHooks(async () => {
        res = await save({ country: 'US', state: 'CA', city: 'Los Angeles', postcode: '90001', category_id: books, tax_label: 'Book tax', rate: 5 });
      });
      expect(res?.status).toBe(200);
      const override = res?.body.override;
      expect(res?.body).toEqual({
        message: SAVED,
        override: {
          id: expect.any(Number),
          object_type: 'tax_override',
          object_id: books,
          meta_key: 'product_category_override',
          meta_value: {
            country: 'US',
            state: 'CA',
            city: 'Los Angeles',
            postcode: '90001',
            category_id: books,
            category_name: 'Books',
            tax_label: 'Book tax',
            override_state_tax: 'no',
            rate: '5',
            class_id: 0,
          },
          class_id: 0,
          class_label: '',
          created_at: NOW,
          updated_at: NOW,
        },
      });
      const row = await db()('store_meta').where({ id: override.id }).first();
      expect({ ...row, id: Number(row.id), object_id: Number(row.object_id), meta_value: JSON.parse(row.meta_value) }).toEqual({
        id: override.id,
        object_type: 'tax_override',
        object_id: books,
        meta_key: 'product_category_override',
        meta_value: override.meta_value,
        created_at: NOW,
        updated_at: NOW,
      });
      expect(await activities()).toEqual([
        { object_id: override.id, title: 'Tax override created', content: `Books (#${books}) in US:CA, Los Angeles, 90001: 5%` },
      ]);
      expect(fired).toEqual([['store/tax_override/saved', override, null, null]]);
    });

    it('normalises the place as tax rates do: state codes, city and postcode lists (prefixes, ranges), upper-cased postcodes', async () => {
      const override = await saved({ country: 'us', state: 'california', city: '  San Diego ', postcode: ' 92101 ', category_id: books, rate: '7.25' });
      expect(override.meta_value).toMatchObject({ country: 'US', state: 'CA', city: 'San Diego', postcode: '92101', rate: '7.25' });
      const lists = await saved({
        country: 'US',
        state: 'CA',
        city: 'Los Angeles; Pasadena ,',
        postcode: '90001...90099; 902* , 91101',
        category_id: music,
        rate: 9,
      });
      expect(lists.meta_value).toMatchObject({ city: 'Los Angeles,Pasadena', postcode: '90001...90099,902*,91101' });
      const canada = await saved({ country: 'CA', state: 'British Columbia', postcode: 'v6b 1a1', category_id: books, rate: 7 });
      expect(canada.meta_value).toMatchObject({ country: 'CA', state: 'BC', postcode: 'V6B 1A1' });
      // Germany's addresses have no states: the text is kept as entered.
      const germany = await saved({ country: 'DE', state: ' Bayern ', postcode: '80331', category_id: books, rate: 7 });
      expect(germany.meta_value).toMatchObject({ country: 'DE', state: 'Bayern', postcode: '80331' });
    });

    it('parses the rate exactly: numbers and decimal strings, at most 4 decimals, stored as the shortest decimal string', async () => {
      const cases: Array<[unknown, string]> = [
        [5, '5'],
        [7.25, '7.25'],
        ['7.2500', '7.25'],
        ['9.975', '9.975'],
        ['0.0001', '0.0001'],
        ['100', '100'],
        [' 12.5 ', '12.5'],
        [0, '0'],
      ];
      for (const [rate, stored] of cases) {
        const override = await saved({ country: 'US', category_id: books, rate });
        expect([rate, (override.meta_value as { rate: string }).rate]).toEqual([rate, stored]);
        const row = await db()('store_meta').where({ id: override.id }).first();
        expect(JSON.parse(row.meta_value).rate).toBe(stored);
      }
    });

    it('clamps a negative rate to 0; an omitted, null or empty rate is 0', async () => {
      for (const rate of [-5, '-2.5', '-0', '-100.0001', null, '']) {
        const override = await saved({ country: 'US', category_id: books, rate });
        expect([rate, (override.meta_value as { rate: string }).rate]).toEqual([rate, '0']);
      }
      const omitted = await saved({ country: 'GB', category_id: books });
      expect(omitted.meta_value).toMatchObject({ rate: '0', override_state_tax: 'no', class_id: 0, state: '', city: '', postcode: '', tax_label: '' });
    });

    it('a class override names the class: class_id and class_label from store_tax_classes', async () => {
      const override = await saved({ country: 'US', category_id: books, class_id: reduced });
      expect(override).toMatchObject({ class_id: reduced, class_label: 'Reduced', meta_value: expect.objectContaining({ class_id: reduced }) });
      expect((await list('US')).body.overrides).toEqual([override]);
      expect(await activities()).toEqual([{ object_id: override.id, title: 'Tax override created', content: `Books (#${books}) in US: taxed as Reduced` }]);
    });

    it('updates in place: the same category, place and class is the same override (city compared without case)', async () => {
      const first = await saved({ country: 'US', state: 'CA', city: 'Fresno', category_id: books, rate: 5, tax_label: 'Old' });
      app.clock.set('2026-11-21T11:00:00Z');
      let res: Response | undefined;
      const fired = await recordHooks(async () => {
        res = await save({ country: 'us', state: 'California', city: 'FRESNO', category_id: books, rate: '6.5', tax_label: 'New', override_state_tax: 'yes' });
      });
      expect(res?.status).toBe(200);
      const second = res?.body.override;
      expect(second).toEqual({
        ...first,
        meta_value: { ...(first.meta_value as object), city: 'FRESNO', rate: '6.5', tax_label: 'New', override_state_tax: 'yes' },
        updated_at: '2026-11-21 11:00:00',
      });
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 1 }]);
      expect(fired).toEqual([['store/tax_override/saved', second, first, null]]);
      expect((await activities()).map((a) => a.title)).toEqual(['Tax override created', 'Tax override updated']);
    });

    it('another category, state, city, postcode or class is another override', async () => {
      const base = { country: 'US', state: 'CA', city: 'Fresno', postcode: '93650', category_id: books, rate: 5 };
      const variants = [
        base,
        { ...base, category_id: music },
        { ...base, state: 'NV', postcode: '89501' },
        { ...base, city: 'Clovis' },
        { ...base, postcode: '93651' },
        { ...base, class_id: reduced },
        { ...base, state: '', city: '', postcode: '' },
        { ...base, country: 'CA', state: 'BC', postcode: '' },
      ];
      const ids = [];
      for (const body of variants) ids.push((await saved(body)).id);
      expect(new Set(ids).size).toBe(variants.length);
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: variants.length }]);
    });

    it('with an id, rewrites that override, also to another category or place; the category name follows', async () => {
      const override = await saved({ country: 'US', state: 'CA', category_id: books, rate: 5 });
      const res = await save({ id: override.id, country: 'US', state: 'NY', category_id: music, rate: 4 });
      expect(res.status).toBe(200);
      expect(res.body.override).toMatchObject({
        id: override.id,
        object_id: music,
        meta_value: expect.objectContaining({ state: 'NY', category_id: music, category_name: 'Music', rate: '4' }),
      });
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 1 }]);
      const form = await api().post(`${BASE}/tax/product-overrides`).type('form').send(`id=${override.id}&country=US&category_id=${music}&rate=3&class_id=0`);
      expect(form.status).toBe(200);
      expect(form.body.override).toMatchObject({ id: override.id, meta_value: expect.objectContaining({ state: '', rate: '3' }) });
    });

    it('with an unknown id: 404 "Tax override not found", nothing saved', async () => {
      await saved({ country: 'US', category_id: books, rate: 5 });
      const before = await state();
      const res = await save({ id: 999999, country: 'US', category_id: books, rate: 9 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Tax override not found' });
      expect(await state()).toEqual(before);
    });

    it('with an id, may not take the scope of another override: 422, nothing saved', async () => {
      const ca = await saved({ country: 'US', state: 'CA', category_id: books, rate: 5 });
      const ny = await saved({ country: 'US', state: 'NY', category_id: books, rate: 4 });
      const before = await state();
      const res = await save({ id: ny.id, country: 'US', state: 'CA', category_id: books, rate: 9 });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ id: { unique: `Tax override #${ca.id} already covers this category, place and class.` } });
      expect(await state()).toEqual(before);
    });

    it('parallel identical saves make one override (the category row is locked while the scope is checked)', async () => {
      const body = { country: 'US', state: 'TX', category_id: books, rate: 6.25 };
      const results = await Promise.all(Array.from({ length: 8 }, () => save(body)));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      const ids = new Set(results.map((r) => r.body.override.id));
      expect(ids.size).toBe(1);
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 1 }]);
      expect((await activities()).map((a) => a.title).sort()).toEqual(['Tax override created', ...Array(7).fill('Tax override updated')]);
    });

    it('a save waits for a class delete in progress, then refuses the class it removed (never an override of a missing class)', async () => {
      const [id] = await db()('store_tax_classes').insert({ title: 'Doomed', slug: 'doomed', meta: '[]', created_at: NOW, updated_at: NOW });
      const doomed = Number(id);
      const trx = await db().transaction();
      await trx('store_tax_classes').where({ id: doomed }).forUpdate().first();
      await trx('store_tax_classes').where({ id: doomed }).delete();
      const pending = save({ country: 'US', category_id: books, class_id: doomed }).then((res) => res);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await trx.commit();
      const res = await pending;
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ class_id: { exists: 'The selected class id is invalid.' } });
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    describe('source_type shipping: converting a shipping override', () => {
      it("removes the tax rate's shipping override in the same save; the activity and the hook say so", async () => {
        const rateId = await taxRate({ country: 'US', state: 'CA', for_shipping: '2.5000' });
        const other = await taxRate({ country: 'US', state: 'NV', for_shipping: '3.0000' });
        let res: Response | undefined;
        const fired = await recordHooks(async () => {
          res = await save({ country: 'US', state: 'CA', category_id: books, rate: 2.5, source_type: 'shipping', source_id: rateId });
        });
        expect(res?.status).toBe(200);
        expect(res?.body.message).toBe(SAVED);
        const rates = await db()('store_tax_rates').orderBy('id');
        expect(rates.map((r: { id: number; for_shipping: unknown }) => [Number(r.id), r.for_shipping === null ? null : Number(r.for_shipping)])).toEqual([
          [rateId, null],
          [other, 3],
        ]);
        expect(fired).toEqual([['store/tax_override/saved', res?.body.override, null, rateId]]);
        expect((await activities())[0].content).toBe(`Books (#${books}) in US:CA: 2.5%; replaces the shipping override of tax rate #${rateId}`);
      });

      it('an unknown tax rate: 404 "Tax rate not found", nothing saved', async () => {
        const before = await state();
        const res = await save({ country: 'US', category_id: books, rate: 1, source_type: 'shipping', source_id: 999999 });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Tax rate not found' });
        expect(await state()).toEqual(before);
      });

      it('a save that fails leaves the shipping override in place', async () => {
        const rateId = await taxRate({ for_shipping: '4.0000' });
        const before = await state();
        const source = { source_type: 'shipping', source_id: rateId };
        const refusals: Array<[Record<string, unknown>, number]> = [
          [{ country: 'US', category_id: books, class_id: 999999, ...source }, 422],
          [{ country: 'US', category_id: 999999, ...source }, 422],
          [{ id: 999999, country: 'US', category_id: books, ...source }, 404],
          [{ country: 'US', category_id: books, rate: 'x', ...source }, 422],
        ];
        for (const [body, status] of refusals) expect([body, (await save(body)).status]).toEqual([body, status]);
        expect(await state()).toEqual(before);
        expect(Number((await db()('store_tax_rates').where({ id: rateId }).first()).for_shipping)).toBe(4);
      });

      it.each([
        [{ source_type: 'shipping' }, 'source_id', { required: 'The source id field is required when source type is shipping.' }],
        [{ source_id: 1 }, 'source_type', { required: 'The source type field is required when source id is present.' }],
        [{ source_type: 'billing', source_id: 1 }, 'source_type', { in: 'The source type must be shipping.' }],
      ])('%j: 422 naming %s', async (extra, field, error) => {
        const before = await state();
        const res = await save({ country: 'US', category_id: books, rate: 1, ...extra });
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ [field]: error });
        expect(await state()).toEqual(before);
      });
    });

    describe('refuses bad input with 422 naming the field, and changes nothing', () => {
      const long = 'x'.repeat(46);
      it.each([
        ['no country', { country: undefined }, 'country', { required: 'The country field is required.' }],
        ['an empty country', { country: '' }, 'country', { required: 'The country field is required.' }],
        ['an unknown country', { country: 'XX' }, 'country', { in: 'Invalid country code' }],
        ['a three-letter country', { country: 'USA' }, 'country', { in: 'Invalid country code' }],
        ['no category', { category_id: undefined }, 'category_id', { required: 'The category id field is required.' }],
        ['a category that does not exist', { category_id: 999999 }, 'category_id', { exists: 'The selected category id is invalid.' }],
        ['a category id that is not an integer', { category_id: 'books' }, 'category_id', { integer: 'The category id field must be a positive integer.' }],
        ['a state the country does not have', { state: 'ZZ' }, 'state', { in: 'The state ZZ is not one of the states of United States of America.' }],
        ['a postcode the country does not have', { postcode: 'ABC' }, 'postcode', { postcode: 'The postcode ABC is not valid for United States of America.' }],
        [
          'a postcode outside the state',
          { state: 'CA', postcode: '10001' },
          'postcode',
          { postcode: 'The postcode 10001 is not valid for California, United States of America.' },
        ],
        ['a backwards postcode range', { postcode: '90099...90001' }, 'postcode', { postcode: 'The postcode range 90099...90001 ends before it starts.' }],
        ['a city past 45 characters', { city: long }, 'city', { max: 'The city field must not be greater than 45 characters.' }],
        ['a postcode past 45 characters', { postcode: long }, 'postcode', { max: 'The postcode field must not be greater than 45 characters.' }],
        ['a tax label past 45 characters', { tax_label: long }, 'tax_label', { max: 'The tax label field must not be greater than 45 characters.' }],
        ['override_state_tax other than yes/no', { override_state_tax: 'maybe' }, 'override_state_tax', { in: 'The selected override state tax is invalid.' }],
        ['a rate over 100', { rate: '100.0001' }, 'rate', { max: 'The rate field must not be greater than 100.' }],
        ['a rate with 5 decimals', { rate: '7.12345' }, 'rate', { numeric: 'The rate field must be a number with at most 4 decimals.' }],
        ['a rate that is not a number', { rate: 'seven' }, 'rate', { numeric: 'The rate field must be a number with at most 4 decimals.' }],
        ['a rate in exponent notation', { rate: '1e2' }, 'rate', { numeric: 'The rate field must be a number with at most 4 decimals.' }],
        ['a rate of another type', { rate: true }, 'rate', { numeric: 'The rate field must be a number.' }],
        ['a class that does not exist', { class_id: 999999 }, 'class_id', { exists: 'The selected class id is invalid.' }],
        ['a negative class', { class_id: -1 }, 'class_id', { min: 'The class id field must be at least 0.' }],
        ['an id that is not an integer', { id: 'abc' }, 'id', { integer: 'The id field must be a positive integer.' }],
      ])('%s', async (_name, fields, field, error) => {
        await saved({ country: 'US', state: 'CA', category_id: books, rate: 5 });
        const before = await state();
        const body: Record<string, unknown> = { country: 'US', category_id: books, rate: 5, ...fields };
        for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
        const res = await save(body);
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ [field]: error });
        expect(res.body.message).toBe(Object.values(error)[0]);
        expect(await state()).toEqual(before);
      });
    });

    it('needs store/sensitive: 401 without a login, 403 for settings readers, product managers and shoppers', async () => {
      const body = { country: 'US', category_id: books, rate: 5 };
      expect((await app.http.post(`${BASE}/tax/product-overrides`).send(body)).status).toBe(401);
      for (const user of [reader, productManager, shopper]) expect((await save(body, user)).status).toBe(403);
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 0 }]);
    });
  });

  describe('GET /tax/product-overrides/{country_code}', () => {
    it("lists the country's overrides in id order, the code in any case; another country's are left out", async () => {
      const a = await saved({ country: 'US', state: 'CA', category_id: books, rate: 5 });
      await saved({ country: 'CA', state: 'BC', category_id: books, rate: 7 });
      const b = await saved({ country: 'US', category_id: music, class_id: reduced });
      const res = await list('us', reader);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ overrides: [a, b] });
      expect((await list('US')).body).toEqual(res.body);
      expect((await list('DE')).body).toEqual({ overrides: [] });
    });

    it('an unknown country code: 422 "Invalid country code"', async () => {
      for (const code of ['XX', 'zz', 'USA', '1A']) {
        const res = await list(code);
        expect([code, res.status, res.body.message]).toEqual([code, 422, 'Invalid country code']);
      }
    });

    it('needs store/settings: 401 without a login, 403 for product managers and shoppers', async () => {
      expect((await app.http.get(`${BASE}/tax/product-overrides/US`)).status).toBe(401);
      expect((await list('US', productManager)).status).toBe(403);
      expect((await list('US', shopper)).status).toBe(403);
    });
  });

  describe('DELETE /tax/product-overrides/override/{id}', () => {
    it('deletes the override: message, activity, store/tax_override/deleted; a second delete is 404', async () => {
      const override = await saved({ country: 'US', category_id: books, rate: 5 });
      const keep = await saved({ country: 'US', category_id: music, rate: 5 });
      let res: Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().delete(`${BASE}/tax/product-overrides/override/${override.id}`);
      });
      expect(res?.status).toBe(200);
      expect(res?.body).toEqual({ message: 'Tax override has been deleted successfully' });
      expect(fired).toEqual([['store/tax_override/deleted', override]]);
      expect((await db()('store_meta').select('id')).map((r: { id: number }) => Number(r.id))).toEqual([keep.id]);
      expect((await activities()).pop()).toEqual({ object_id: override.id, title: 'Tax override deleted', content: `Books (#${books}) in US: 5%` });
      const again = await api().delete(`${BASE}/tax/product-overrides/override/${override.id}`);
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ message: 'Tax override not found' });
    });

    it('only deletes overrides: another meta row with that id is "not found"', async () => {
      const [id] = await db()('store_meta').insert({ object_type: 'other', object_id: 1, meta_key: 'x', meta_value: '{}', created_at: NOW, updated_at: NOW });
      const res = await api().delete(`${BASE}/tax/product-overrides/override/${Number(id)}`);
      expect(res.status).toBe(404);
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 1 }]);
    });

    it('needs store/sensitive', async () => {
      const override = await saved({ country: 'US', category_id: books, rate: 5 });
      expect((await app.http.delete(`${BASE}/tax/product-overrides/override/${override.id}`)).status).toBe(401);
      for (const user of [reader, productManager])
        expect((await app.as(user).delete(`${BASE}/tax/product-overrides/override/${override.id}`)).status).toBe(403);
      expect(await db()('store_meta').count({ n: '*' })).toEqual([{ n: 1 }]);
    });
  });

  describe('categories and their overrides', () => {
    it('category create, update and delete are logged (object type category), readable with products/view', async () => {
      const id = await category('Games');
      await api().put(`${BASE}/products/categories/${id}`).send({ name: 'Board games', slug: 'board-games' }).expect(200);
      await api().put(`${BASE}/products/categories/${id}`).send({ name: 'Board games' }).expect(200);
      await api().delete(`${BASE}/products/categories/${id}`).expect(200);
      expect(await activities('category')).toEqual([
        { object_id: id, title: 'Category created', content: 'Games' },
        { object_id: id, title: 'Category updated', content: 'Board games: name, slug' },
        { object_id: id, title: 'Category updated', content: 'Board games: no changes' },
        { object_id: id, title: 'Category deleted', content: 'Board games' },
      ]);
      const res = await app.as(productManager).get(`${BASE}/activities`).query({ object_type: 'category', object_id: id });
      expect(res.status).toBe(200);
      expect(res.body.activities.data.map((a: { title: string }) => a.title)).toEqual([
        'Category deleted',
        'Category updated',
        'Category updated',
        'Category created',
      ]);
      expect((await app.as(productManager).get(`${BASE}/activities`).query({ object_type: 'tax_override' })).status).toBe(403);
      expect((await app.as(reader).get(`${BASE}/activities`).query({ object_type: 'tax_override' })).status).toBe(200);
    });

    it("renaming a category renames it in its overrides' category_name", async () => {
      const id = await category('Comics');
      const override = await saved({ country: 'US', category_id: id, rate: 5 });
      app.clock.set('2026-11-21T12:00:00Z');
      await api().put(`${BASE}/products/categories/${id}`).send({ name: 'Graphic novels' }).expect(200);
      expect((await list('US')).body.overrides).toEqual([
        { ...override, meta_value: { ...(override.meta_value as object), category_name: 'Graphic novels' }, updated_at: '2026-11-21 12:00:00' },
      ]);
    });

    it("deleting a category removes its overrides with it: logged, store/tax_override/deleted for each; others' stay", async () => {
      const id = await category('Magazines');
      const us = await saved({ country: 'US', category_id: id, rate: 5 });
      const ca = await saved({ country: 'CA', state: 'QC', category_id: id, rate: 9.975 });
      const keep = await saved({ country: 'US', category_id: books, rate: 5 });
      let res: Response | undefined;
      const fired = await recordHooks(async () => {
        res = await app.as(productManager).delete(`${BASE}/products/categories/${id}`);
      });
      expect(res?.status).toBe(200);
      expect((await db()('store_meta').select('id')).map((r: { id: number }) => Number(r.id))).toEqual([keep.id]);
      expect(fired).toEqual([
        ['store/tax_override/deleted', us],
        ['store/tax_override/deleted', ca],
        ['store/category/deleted', expect.objectContaining({ id, name: 'Magazines' })],
      ]);
      expect((await activities('category')).pop()).toEqual({ object_id: id, title: 'Category deleted', content: 'Magazines (2 tax overrides removed)' });
      expect((await activities()).slice(-2)).toEqual([
        { object_id: us.id, title: 'Tax override deleted', content: `Magazines (#${id}) in US: 5%; its category was deleted` },
        { object_id: ca.id, title: 'Tax override deleted', content: `Magazines (#${id}) in CA:QC: 9.975%; its category was deleted` },
      ]);
    });
  });
});
