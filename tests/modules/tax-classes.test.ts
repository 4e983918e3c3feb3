/**
 * Tax classes (admin API): `GET /tax/classes`, `POST /tax/classes`, `DELETE /tax/classes/{id}`, and the checks that
 * keep every reference to a class valid (a variation's `tax_class`, the `shipping_tax_class` store setting).
 *
 * Reads need `store/settings`, writes `store/sensitive`; errors come in the `{message}` envelope with the spec's
 * statuses (423 for the class limit, duplicates and a missing name; 422 for a long name and malformed input; 404 for
 * an unknown id). Every write logs an activity (object_type `tax_class`) and fires `store/tax_class/created` or
 * `store/tax_class/deleted` after the commit.
 */
import type { ActionMap } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';
const TAX_CLASS_ACTIONS = ['store/tax_class/created', 'store/tax_class/deleted'] as const;
type TaxClassAction = (typeof TAX_CLASS_ACTIONS)[number];

interface ClassBody {
  id: number;
  title: string;
  slug: string;
  meta: unknown[];
  created_at: string;
  updated_at: string;
}

describe('tax classes', () => {
  let app: TestApp;
  let admin: TestUser;
  let reader: TestUser;
  let productManager: TestUser;
  let shopper: TestUser;
  let standardId: number;

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.users.roles.register('settings_reader', { title: 'Settings reader', capabilities: ['store/settings'] });
    admin = await app.createUser('admin', ['administrator']);
    reader = await app.createUser('reader', ['settings_reader']);
    productManager = await app.createUser('products', ['product_manager']);
    shopper = await app.createUser('shopper');
    standardId = Number((await db()('store_tax_classes').where({ slug: 'standard' }).first('id')).id);
  });
  afterAll(() => app.close());

  const db = () => app.database.db;

  beforeEach(async () => {
    app.clock.set('2026-11-21T10:00:00Z');
    await db()('store_tax_classes').whereNot({ slug: 'standard' }).delete();
    for (const table of [
      'store_tax_rates',
      'store_meta',
      'store_activities',
      'store_product_category_relations',
      'store_product_variations',
      'store_products',
    ]) {
      await db()(table).delete();
    }
    await app.host.options.set('store_settings', {});
  });

  const api = () => app.as(admin);
  const post = (body: unknown) =>
    api()
      .post(`${BASE}/tax/classes`)
      .send(body as object);
  const remove = (id: number | string) => api().delete(`${BASE}/tax/classes/${id}`);

  async function create(body: Record<string, unknown>): Promise<ClassBody> {
    const res = await post(body);
    expect([res.status, res.body.message]).toEqual([200, 'Tax class created successfully']);
    return res.body.class as ClassBody;
  }

  const storedClasses = async () => (await db()('store_tax_classes').orderBy('id').select('id', 'title', 'slug')).map((r) => ({ ...r, id: Number(r.id) }));
  const activities = () => db()('store_activities').where({ object_type: 'tax_class' }).orderBy('id').select('object_id', 'title', 'content', 'user_id');

  /** Everything a refused write must leave as it was. */
  async function snapshot() {
    return {
      classes: await storedClasses(),
      activities: await activities(),
      variations: await db()('store_product_variations').orderBy('id').select('id', 'tax_class'),
      rates: await db()('store_tax_rates').orderBy('id').select('id', 'class_id'),
      meta: await db()('store_meta').orderBy('id').select('id', 'meta_value'),
      settings: (await app.host.options.get('store_settings')) ?? null,
    };
  }

  /** Records the tax class actions fired while `work` runs. */
  async function recordHooks(work: () => Promise<unknown>): Promise<Array<[TaxClassAction, ...unknown[]]>> {
    const fired: Array<[TaxClassAction, ...unknown[]]> = [];
    const offs = TAX_CLASS_ACTIONS.map((name) =>
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

  describe('GET /tax/classes', () => {
    it('lists the Standard class the store starts with, the limit, and the first built-in still missing', async () => {
      const res = await app.as(reader).get(`${BASE}/tax/classes`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        classes: [{ id: standardId, title: 'Standard', slug: 'standard', meta: [], created_at: expect.any(String), updated_at: expect.any(String) }],
        max_classes: 6,
        next_builtin: { slug: 'reduced', title: 'Reduced rate' },
      });
    });

    it('orders classes by id, not by title', async () => {
      const zeta = await create({ title: 'Zeta' });
      const alpha = await create({ title: 'Alpha' });
      const res = await api().get(`${BASE}/tax/classes`);
      expect(res.body.classes.map((c: ClassBody) => [c.id, c.title])).toEqual([
        [standardId, 'Standard'],
        [zeta.id, 'Zeta'],
        [alpha.id, 'Alpha'],
      ]);
      expect(zeta.id).toBeLessThan(alpha.id);
    });

    it('offers reduced, then zero, then nothing; a deleted built-in is offered again', async () => {
      const next = async () => (await api().get(`${BASE}/tax/classes`)).body.next_builtin;
      expect(await next()).toEqual({ slug: 'reduced', title: 'Reduced rate' });
      const reduced = await create({ slug: 'reduced' });
      expect(await next()).toEqual({ slug: 'zero', title: 'Zero rate' });
      await create({ slug: 'zero' });
      expect(await next()).toBeNull();
      expect((await remove(reduced.id)).status).toBe(200);
      expect(await next()).toEqual({ slug: 'reduced', title: 'Reduced rate' });
    });

    it('offers reduced while it is missing even when zero exists', async () => {
      await create({ slug: 'zero' });
      expect((await api().get(`${BASE}/tax/classes`)).body.next_builtin).toEqual({ slug: 'reduced', title: 'Reduced rate' });
    });

    it('shows meta as an array (unreadable stored meta as an empty one)', async () => {
      const books = await create({ title: 'Books' });
      const music = await create({ title: 'Music' });
      await db()('store_tax_classes')
        .where({ id: books.id })
        .update({ meta: JSON.stringify([{ note: 'EU' }]) });
      await db()('store_tax_classes').where({ id: music.id }).update({ meta: '{not json' });
      const classes = (await api().get(`${BASE}/tax/classes`)).body.classes as ClassBody[];
      expect(classes.map((c) => c.meta)).toEqual([[], [{ note: 'EU' }], []]);
    });
  });

  describe('POST /tax/classes', () => {
    it('creates a class named by its title, with a slug from the title; logs it and fires store/tax_class/created after the commit', async () => {
      let res!: Awaited<ReturnType<typeof post>>;
      const fired = await recordHooks(async () => {
        res = await post({ title: '  Luxury Goods (EU) ' });
      });
      expect(res.status).toBe(200);
      const created = { id: expect.any(Number), title: 'Luxury Goods (EU)', slug: 'luxury-goods-eu', meta: [], created_at: NOW, updated_at: NOW };
      expect(res.body).toEqual({ class: created, message: 'Tax class created successfully' });
      expect(await storedClasses()).toEqual([
        { id: standardId, title: 'Standard', slug: 'standard' },
        { id: res.body.class.id, title: 'Luxury Goods (EU)', slug: 'luxury-goods-eu' },
      ]);
      expect(await activities()).toEqual([
        { object_id: res.body.class.id, title: 'Tax class created', content: 'Luxury Goods (EU) (luxury-goods-eu)', user_id: admin.user.id },
      ]);
      expect(fired).toEqual([['store/tax_class/created', res.body.class]]);
    });

    it.each([
      ['reduced', undefined, 'Reduced rate'],
      ['zero', undefined, 'Zero rate'],
      ['reduced', '   ', 'Reduced rate'],
      ['zero', 'Zero-rated goods', 'Zero-rated goods'],
    ])('slug %s creates that built-in class (title %j → %s)', async (slug, title, expected) => {
      const made = await create({ slug, ...(title === undefined ? {} : { title }) });
      expect(made).toMatchObject({ slug, title: expected });
      expect((await storedClasses()).map((c) => c.slug)).toEqual(['standard', slug]);
    });

    it('423 "This tax class already exists" for a built-in slug that exists; nothing changes', async () => {
      await create({ slug: 'reduced' });
      const before = await snapshot();
      const res = await post({ slug: 'reduced', title: 'Another' });
      expect([res.status, res.body]).toEqual([423, { message: 'This tax class already exists' }]);
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['no title', {}],
      ['a blank title', { title: '   ' }],
      ['a null title', { title: null }],
      ['an empty slug and no title', { slug: '' }],
      ['a null slug and no title', { slug: null }],
    ])('423 "Tax class name is required" for %s; nothing changes', async (_case, body) => {
      const before = await snapshot();
      const res = await post(body);
      expect([res.status, res.body.message]).toEqual([423, 'Tax class name is required']);
      expect(await snapshot()).toEqual(before);
    });

    it('422 "Tax class name must be 30 characters or fewer" for 31 characters; 30 are fine, counted as characters', async () => {
      const before = await snapshot();
      const res = await post({ title: 'x'.repeat(31) });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        message: 'Tax class name must be 30 characters or fewer',
        errors: { title: { max: 'Tax class name must be 30 characters or fewer' } },
      });
      expect((await post({ slug: 'zero', title: 'z'.repeat(31) })).status).toBe(422);
      expect(await snapshot()).toEqual(before);
      expect((await create({ title: 'x'.repeat(30) })).slug).toBe('x'.repeat(30));
      expect((await create({ title: `${'€'.repeat(29)}A` })).title).toBe(`${'€'.repeat(29)}A`);
    });

    it.each([
      ['the same title', 'Books', 'Books'],
      ['another title with the same slug', 'Luxury goods', 'luxury  GOODS!'],
      ['the same title in other letter case', 'Élan', 'élan'],
    ])('423 "A tax class with this name already exists" for %s; nothing changes', async (_case, first, second) => {
      await create({ title: first });
      const before = await snapshot();
      const res = await post({ title: second });
      expect([res.status, res.body.message]).toEqual([423, 'A tax class with this name already exists']);
      expect(await snapshot()).toEqual(before);
    });

    it('423 "A tax class with this name already exists" for the Standard class name, and for a built-in whose title another class has', async () => {
      expect((await post({ title: 'standard' })).body).toMatchObject({ message: 'A tax class with this name already exists' });
      await create({ slug: 'reduced' });
      const before = await snapshot();
      const same = await post({ title: 'Reduced Rate' });
      expect([same.status, same.body.message]).toEqual([423, 'A tax class with this name already exists']);
      await create({ title: 'Zero rate' });
      const builtin = await post({ slug: 'zero' });
      expect([builtin.status, builtin.body.message]).toEqual([423, 'A tax class with this name already exists']);
      expect((await create({ slug: 'zero', title: 'Zero' })).slug).toBe('zero');
      expect((await storedClasses()).slice(before.classes.length).map((c) => c.slug)).toEqual(['zero-rate', 'zero']);
    });

    it('a title whose slug is a missing built-in creates that built-in, and it is no longer offered', async () => {
      expect(await create({ title: 'Reduced' })).toMatchObject({ title: 'Reduced', slug: 'reduced' });
      expect((await api().get(`${BASE}/tax/classes`)).body.next_builtin).toEqual({ slug: 'zero', title: 'Zero rate' });
      expect((await post({ slug: 'reduced' })).body.message).toBe('This tax class already exists');
    });

    it('a slug other than reduced or zero is not used: the slug comes from the title (spec: "otherwise a unique slug is generated from the title")', async () => {
      expect(await create({ title: 'Luxury Goods', slug: 'luxury' })).toMatchObject({ title: 'Luxury Goods', slug: 'luxury-goods' });
      expect(await create({ title: 'Books', slug: 'standard' })).toMatchObject({ title: 'Books', slug: 'books' });
      expect(await create({ title: 'Kids', slug: 'tax_exempt' })).toMatchObject({ title: 'Kids', slug: 'kids' });
      const before = await snapshot();
      expect((await post({ slug: 'anything' })).body.message).toBe('Tax class name is required');
      expect(await snapshot()).toEqual(before);
    });

    it('the built-in slugs are read in any case and with spaces around them', async () => {
      expect(await create({ slug: ' Reduced ' })).toMatchObject({ title: 'Reduced rate', slug: 'reduced' });
      expect((await post({ slug: 'REDUCED' })).body.message).toBe('This tax class already exists');
    });

    it('a title never takes the tax_exempt marker: "Tax exempt" is the class tax-exempt', async () => {
      expect((await create({ title: 'Tax exempt' })).slug).toBe('tax-exempt');
    });

    it('a title without letters a slug can hold gets class_1, class_2…; its name is still unique', async () => {
      expect((await create({ title: '税' })).slug).toBe('class_1');
      expect((await create({ title: '稅' })).slug).toBe('class_2');
      expect((await create({ title: 'Class 1' })).slug).toBe('class-1');
      expect((await post({ title: '税' })).body.message).toBe('A tax class with this name already exists');
    });

    it('423 "Maximum of 6 tax classes allowed" at six classes, before any other check; nothing changes', async () => {
      for (const title of ['A', 'B', 'C', 'D', 'E']) await create({ title });
      const before = await snapshot();
      expect(before.classes).toHaveLength(6);
      for (const body of [{ title: 'F' }, { slug: 'reduced' }, { title: '' }, { title: 'x'.repeat(31) }, { title: 'A' }]) {
        const res = await post(body);
        expect([body, res.status, res.body.message]).toEqual([body, 423, 'Maximum of 6 tax classes allowed']);
      }
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['a number as title', { title: 5 }, 'title', { string: 'The title field must be a string.' }],
      ['an array as title', { title: ['Books'] }, 'title', { string: 'The title field must be a string.' }],
      ['a number as slug', { slug: 1 }, 'slug', { string: 'The slug field must be a string.' }],
      ['an unknown field', { title: 'Books', rate: '5' }, 'rate', { unknown: 'The rate field is not recognised.' }],
    ])('422 for %s; nothing changes', async (_case, body, field, error) => {
      const before = await snapshot();
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: error });
      expect(await snapshot()).toEqual(before);
    });

    it('422 for a body that is not an object; nothing changes', async () => {
      const before = await snapshot();
      expect((await post(['Books'])).status).toBe(422);
      expect(await snapshot()).toEqual(before);
    });

    describe('in parallel', () => {
      it.each([
        ['from one class', [], 5],
        ['from five classes', ['A', 'B', 'C', 'D'], 1],
      ])('never makes a seventh class (%s)', async (_case, existing, fit) => {
        for (const title of existing) await create({ title });
        const titles = ['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight'];
        const answers = await Promise.all(titles.map((title) => post({ title })));
        expect(answers.filter((r) => r.status === 200)).toHaveLength(fit);
        for (const refused of answers.filter((r) => r.status !== 200))
          expect([refused.status, refused.body.message]).toEqual([423, 'Maximum of 6 tax classes allowed']);
        expect(await storedClasses()).toHaveLength(6);
      });

      it('never makes two classes with one slug (by title, or the same built-in)', async () => {
        const byTitle = await Promise.all(['Books', 'books', 'BOOKS!', 'Books'].map((title) => post({ title })));
        expect(byTitle.map((r) => [r.status, r.body.message]).sort()).toEqual([
          [200, 'Tax class created successfully'],
          [423, 'A tax class with this name already exists'],
          [423, 'A tax class with this name already exists'],
          [423, 'A tax class with this name already exists'],
        ]);
        const builtins = await Promise.all([1, 2, 3, 4].map(() => post({ slug: 'zero' })));
        expect(builtins.map((r) => [r.status, r.body.message]).sort()).toEqual([
          [200, 'Tax class created successfully'],
          [423, 'This tax class already exists'],
          [423, 'This tax class already exists'],
          [423, 'This tax class already exists'],
        ]);
        expect((await storedClasses()).map((c) => c.slug)).toEqual(['standard', 'books', 'zero']);
      });
    });
  });

  describe('DELETE /tax/classes/{id}', () => {
    /** A store whose products, rates, category overrides and shipping all use classes. */
    async function referencingStore() {
      const reduced = await create({ slug: 'reduced' });
      const books = await create({ title: 'Books' });
      const product = await api()
        .post(`${BASE}/products`)
        .send({
          title: 'Shelf',
          variations: ['reduced', 'books', null, 'tax_exempt', 'standard'].map((tax_class, i) => ({ title: `V${i}`, price: 1000, tax_class })),
        });
      expect(product.status).toBe(200);
      const rate = (class_id: number, name: string) => ({
        class_id,
        country: 'DE',
        rate: '7.0000',
        name,
        group: 'EU',
        priority: 1,
        created_at: NOW,
        updated_at: NOW,
      });
      await db()('store_tax_rates').insert([rate(reduced.id, 'DE reduced'), rate(books.id, 'DE books'), rate(0, 'DE none'), rate(standardId, 'DE standard')]);
      const override = (categoryId: number, class_id: number) => ({
        object_type: 'tax_override',
        object_id: categoryId,
        meta_key: 'product_category_override',
        meta_value: JSON.stringify({
          country: 'DE',
          state: '',
          city: '',
          postcode: '',
          category_id: categoryId,
          category_name: `Category ${categoryId}`,
          tax_label: 'VAT',
          override_state_tax: 'no',
          rate: '7',
          class_id,
        }),
        created_at: NOW,
        updated_at: NOW,
      });
      await db()('store_meta').insert([override(1, reduced.id), override(2, books.id), override(3, 0)]);
      await db()('store_meta').insert({
        object_type: 'note',
        object_id: 9,
        meta_key: 'product_category_override',
        meta_value: `{"class_id":${reduced.id}}`,
        created_at: NOW,
        updated_at: NOW,
      });
      const settings = await api().put(`${BASE}/settings/store`).send({ shipping_tax_class: 'reduced' });
      expect(settings.status).toBe(200);
      await db()('store_activities').delete();
      return { reduced, books, productId: product.body.product.id as number };
    }

    it('deletes the class; its variations, rates, category overrides and the shipping tax class fall back to Standard', async () => {
      const { reduced, books, productId } = await referencingStore();
      app.clock.set('2026-11-22T08:00:00Z');
      let res!: Awaited<ReturnType<typeof remove>>;
      const fired = await recordHooks(async () => {
        res = await remove(reduced.id);
      });
      expect([res.status, res.body]).toEqual([200, { message: 'Tax class deleted successfully' }]);
      expect((await storedClasses()).map((c) => c.slug)).toEqual(['standard', 'books']);

      const variations = await db()('store_product_variations').where({ product_id: productId }).orderBy('id').select('tax_class', 'updated_at');
      expect(variations).toEqual([
        { tax_class: 'standard', updated_at: '2026-11-22 08:00:00' },
        { tax_class: 'books', updated_at: NOW },
        { tax_class: null, updated_at: NOW },
        { tax_class: 'tax_exempt', updated_at: NOW },
        { tax_class: 'standard', updated_at: NOW },
      ]);
      const rates = await db()('store_tax_rates').orderBy('id').select('name', 'class_id');
      expect(rates.map((r) => [r.name, Number(r.class_id)])).toEqual([
        ['DE reduced', standardId],
        ['DE books', books.id],
        ['DE none', 0],
        ['DE standard', standardId],
      ]);
      const meta = await db()('store_meta').orderBy('id').select('object_type', 'meta_value');
      const values = meta.map((m) => [m.object_type, JSON.parse(m.meta_value)]);
      expect(values.map(([type, value]) => [type, value.class_id])).toEqual([
        ['tax_override', standardId],
        ['tax_override', books.id],
        ['tax_override', 0],
        ['note', reduced.id],
      ]);
      expect(values[0][1]).toEqual({
        country: 'DE',
        state: '',
        city: '',
        postcode: '',
        category_id: 1,
        category_name: 'Category 1',
        tax_label: 'VAT',
        override_state_tax: 'no',
        rate: '7',
        class_id: standardId,
      });
      expect((await api().get(`${BASE}/settings/store`)).body.settings.shipping_tax_class).toBe('standard');
      expect((await api().get(`${BASE}/products/${productId}`)).body.product.variations[0].tax_class).toBe('standard');

      expect(await activities()).toEqual([
        {
          object_id: reduced.id,
          title: 'Tax class deleted',
          content: 'Reduced rate (reduced); moved to Standard: 1 variation, 1 rate, 1 category override, the shipping tax class',
          user_id: admin.user.id,
        },
      ]);
      const standard = (await api().get(`${BASE}/tax/classes`)).body.classes[0];
      expect(fired).toEqual([['store/tax_class/deleted', reduced, { standard, variations: 1, rates: 1, overrides: 1, shipping_tax_class: true }]]);
    });

    it('leaves the shipping tax class setting alone when it names another class, and logs only what moved', async () => {
      const { books } = await referencingStore();
      const res = await remove(books.id);
      expect(res.status).toBe(200);
      expect((await app.host.options.get('store_settings'))?.shipping_tax_class).toBe('reduced');
      expect((await activities())[0].content).toBe('Books (books); moved to Standard: 1 variation, 1 rate, 1 category override');
    });

    it('logs a class nothing referenced by its name alone', async () => {
      const unused = await create({ title: 'Unused' });
      await db()('store_activities').delete();
      expect((await remove(unused.id)).status).toBe(200);
      expect((await activities()).map((a) => a.content)).toEqual(['Unused (unused)']);
    });

    it('423 "Cannot delete the Standard tax class"; nothing changes', async () => {
      await referencingStore();
      const before = await snapshot();
      const res = await remove(standardId);
      expect([res.status, res.body.message]).toEqual([423, 'Cannot delete the Standard tax class']);
      expect(await snapshot()).toEqual(before);
    });

    it('423 "Standard tax class could not be found" when the Standard class is missing; nothing changes', async () => {
      const { reduced } = await referencingStore();
      const standard = await db()('store_tax_classes').where({ id: standardId }).first();
      await db()('store_tax_classes').where({ id: standardId }).delete();
      try {
        const before = await snapshot();
        const res = await remove(reduced.id);
        expect([res.status, res.body.message]).toEqual([423, 'Standard tax class could not be found']);
        expect(await snapshot()).toEqual(before);
      } finally {
        await db()('store_tax_classes').insert(standard);
      }
    });

    it('404 "Tax class not found" for an id no class has; nothing changes', async () => {
      const { books } = await referencingStore();
      const before = await snapshot();
      const res = await remove(books.id + 100);
      expect([res.status, res.body]).toEqual([404, { message: 'Tax class not found' }]);
      expect(await snapshot()).toEqual(before);
    });

    it.each([['0'], ['4294967296'], ['99999999999999999999'], ['abc'], ['1.5'], ['-1']])('422 on id for the id %s; nothing changes', async (id) => {
      await referencingStore();
      const before = await snapshot();
      const res = await remove(id);
      expect([res.status, Object.keys(res.body.errors)]).toEqual([422, ['id']]);
      expect(await snapshot()).toEqual(before);
    });

    it('racing writes that start to use the class either land before the delete (and fall back) or are refused: no reference is left', async () => {
      const { reduced, productId } = await referencingStore();
      await api().put(`${BASE}/settings/store`).send({ shipping_tax_class: 'standard' });
      const variations = (await db()('store_product_variations').where({ product_id: productId }).orderBy('id').pluck('id')) as number[];
      const writes = [
        ...variations.map((id) => api().put(`${BASE}/products/${productId}/variations/${id}`).send({ tax_class: 'reduced' })),
        api().post(`${BASE}/products/${productId}/variations`).send({ title: 'New', price: 100, tax_class: 'reduced' }),
        api().put(`${BASE}/settings/store`).send({ shipping_tax_class: 'reduced' }),
      ];
      const middle = Math.floor(writes.length / 2);
      const answers = await Promise.all([...writes.slice(0, middle), remove(reduced.id), ...writes.slice(middle)]);
      const [deleted] = answers.splice(middle, 1);
      expect(deleted.status).toBe(200);
      for (const res of answers) expect([200, 422]).toContain(res.status);
      expect(await db()('store_product_variations').where({ tax_class: 'reduced' }).count({ n: '*' })).toEqual([{ n: 0 }]);
      expect((await app.host.options.get('store_settings'))?.shipping_tax_class).toBe('standard');
    });

    it('400 "Failed to delete tax class" when the database fails midway: nothing is moved, the failure is logged', async () => {
      const { reduced } = await referencingStore();
      const before = await snapshot();
      await db().schema.renameTable('store_meta', 'store_meta_away');
      let res!: Awaited<ReturnType<typeof remove>>;
      try {
        res = await remove(reduced.id);
      } finally {
        await db().schema.renameTable('store_meta_away', 'store_meta');
      }
      expect([res.status, res.body.message]).toEqual([400, 'Failed to delete tax class']);
      expect(await snapshot()).toEqual(before);
      expect(app.logger.entries.filter((e) => e.msg === 'tax class could not be deleted')).toHaveLength(1);
    });
  });

  describe('references to classes must name a class', () => {
    const product = (tax_class: unknown, more: Array<Record<string, unknown>> = []) =>
      api()
        .post(`${BASE}/products`)
        .send({ title: 'Lamp', variations: [{ title: 'Default', price: 1000, tax_class }, ...more] });

    it.each([['reduced'], ['standard'], ['tax_exempt'], [''], [null]])('a variation may have tax_class %j', async (taxClass) => {
      await create({ slug: 'reduced' });
      const res = await product(taxClass);
      expect(res.status).toBe(200);
      expect(res.body.product.variations[0].tax_class).toBe(taxClass || null);
    });

    it('POST /products: 422 on each variation whose tax_class is no class; nothing is created', async () => {
      const res = await product('zero', [
        { title: 'Second', price: 1000, tax_class: 'standard' },
        { title: 'Third', price: 1000, tax_class: 'luxury' },
      ]);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        'variations.0.tax_class': { exists: 'The selected tax class is invalid.' },
        'variations.2.tax_class': { exists: 'The selected tax class is invalid.' },
      });
      expect(await db()('store_products').count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it('POST and PUT /products/{id}/variations: 422 for a tax_class that is no class; nothing changes', async () => {
      const made = await product(null);
      const productId = made.body.product.id as number;
      const variationId = made.body.product.variations[0].id as number;
      const before = await snapshot();
      const created = await api().post(`${BASE}/products/${productId}/variations`).send({ title: 'Big', price: 2000, tax_class: 'reduced' });
      expect([created.status, created.body.errors]).toEqual([422, { tax_class: { exists: 'The selected tax class is invalid.' } }]);
      const updated = await api().put(`${BASE}/products/${productId}/variations/${variationId}`).send({ tax_class: 'reduced', price: 5 });
      expect([updated.status, updated.body.errors]).toEqual([422, { tax_class: { exists: 'The selected tax class is invalid.' } }]);
      expect(await snapshot()).toEqual(before);

      await create({ slug: 'reduced' });
      expect((await api().put(`${BASE}/products/${productId}/variations/${variationId}`).send({ tax_class: 'reduced' })).body.variation.tax_class).toBe(
        'reduced',
      );
      expect((await api().post(`${BASE}/products/${productId}/variations`).send({ title: 'Big', price: 2000, tax_class: 'reduced' })).status).toBe(200);
    });

    it('PUT /products/{id}/variations/{id} without tax_class keeps the class it has', async () => {
      const made = await product('tax_exempt');
      const { id: productId, variations } = made.body.product;
      const res = await api().put(`${BASE}/products/${productId}/variations/${variations[0].id}`).send({ price: 1500 });
      expect([res.status, res.body.variation.tax_class]).toEqual([200, 'tax_exempt']);
    });

    it.each([
      ['a slug no class has', 'luxury'],
      ['the tax_exempt marker (shipping needs a class)', 'tax_exempt'],
    ])('PUT /settings/store: 422 on shipping_tax_class for %s; nothing changes', async (_case, slug) => {
      const before = await snapshot();
      const res = await api().put(`${BASE}/settings/store`).send({ shipping_tax_class: slug, store_name: 'Renamed' });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ shipping_tax_class: { exists: 'The selected shipping tax class is invalid.' } });
      expect(await snapshot()).toEqual(before);
    });

    it('PUT /settings/store accepts a class slug as shipping_tax_class', async () => {
      await create({ slug: 'zero' });
      const res = await api().put(`${BASE}/settings/store`).send({ shipping_tax_class: 'zero' });
      expect([res.status, res.body.settings.shipping_tax_class]).toEqual([200, 'zero']);
      expect((await app.host.options.get('store_settings'))?.shipping_tax_class).toBe('zero');
    });
  });

  describe('permissions', () => {
    type Verb = 'get' | 'post' | 'delete';
    const routes = (id: number): Array<[Verb, string, object?]> => [
      ['get', '/tax/classes'],
      ['post', '/tax/classes', { title: 'Books' }],
      ['delete', `/tax/classes/${id}`],
    ];

    it('anonymous callers get 401 on every route; nothing changes', async () => {
      const { id } = await create({ slug: 'zero' });
      const before = await snapshot();
      for (const [verb, path, body] of routes(id)) {
        const res = await app.http[verb](`${BASE}${path}`).send(body);
        expect([verb, res.status]).toEqual([verb, 401]);
      }
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['a customer', () => shopper],
      ['a product manager (no store/settings)', () => productManager],
    ])('%s gets 403 on every route; nothing changes', async (_who, who) => {
      const { id } = await create({ slug: 'zero' });
      const before = await snapshot();
      for (const [verb, path, body] of routes(id)) {
        const res = await app.as(who())[verb](`${BASE}${path}`).send(body);
        expect([verb, res.status, res.body.code]).toEqual([verb, 403, 'rest_forbidden']);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('store/settings without store/sensitive reads but cannot create or delete', async () => {
      const { id } = await create({ slug: 'zero' });
      const before = await snapshot();
      const [read, ...writes] = routes(id);
      expect((await app.as(reader).get(`${BASE}${read[1]}`)).status).toBe(200);
      for (const [verb, path, body] of writes) expect([verb, (await app.as(reader)[verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, 403]);
      expect(await snapshot()).toEqual(before);
    });
  });
});
