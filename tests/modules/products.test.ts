import type { ActionMap, ActionName } from '../../src/host/contract';
import { isUniqueViolation } from '../../src/modules/products/validation';
import { createTaxClass } from '../../src/modules/tax-classes/service';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';

/** One valid variation body; override what a test is about. */
const variation = (over: Record<string, unknown> = {}) => ({ title: 'Default', price: 2500, ...over });

describe('products', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let clerk: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    await createTaxClass(app.ctx(), { title: 'Clothing' });
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['product_manager']);
    clerk = await app.createUser('clerk', ['customer_service']);
    shopper = await app.createUser('shopper', ['customer']);
  });
  afterAll(() => app.close());

  /** Records the arguments of every call of an action until `off()`. */
  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  const db = () => app.host.db;
  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number(((await db()(table).where(where).count({ n: '*' }).first()) as { n: number | string }).n);
  const activities = (productId: number) =>
    db()('store_activities')
      .where({ object_type: 'product', object_id: productId })
      .orderBy('id')
      .select('title', 'content', 'user_id', 'created_by', 'created_at');

  const post = (body: Record<string, unknown>, user = admin) => app.as(user).post(`${BASE}/products`).send(body);
  type Presented = Record<string, unknown> & { id: number; slug: string; variations: Array<Record<string, unknown> & { id: number; sku: string | null }> };
  async function product(body: Record<string, unknown> = {}): Promise<Presented> {
    const res = await post({ title: 'Thing', variations: [variation()], ...body });
    expect(res.status).toBe(200);
    return res.body.product;
  }
  async function category(name: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await app
      .as(admin)
      .post(`${BASE}/products/categories`)
      .send({ name, ...extra });
    expect(res.status).toBe(200);
    return res.body.category.id;
  }

  describe('POST /products', () => {
    it('keeps safe HTML in the description and drops scripts, handlers and javascript: links', async () => {
      const created = await product({
        description:
          '<p onclick="steal()">Soft <strong>cotton</strong><script>alert(1)</script> <a href="javascript:alert(1)">x</a> <a href="https://example.com">y</a></p>',
      });
      expect(created.description).toBe('<p>Soft <strong>cotton</strong> <a>x</a> <a href="https://example.com">y</a></p>');
    });

    it('creates a product with its variations and categories: 200, the presented product, an activity entry, store/product/created', async () => {
      const shirts = await category('Shirts');
      const linen = await category('Linen');
      const created = record('store/product/created');
      const res = await post(
        {
          title: 'Linen Shirt',
          status: 'publish',
          description: 'Soft and cool.',
          fulfillment_type: 'physical',
          category_ids: [shirts, linen],
          variations: [
            {
              title: 'Small',
              sku: 'LS-S',
              price: 2500,
              compare_price: 3000,
              cost: 900,
              manage_stock: true,
              stock_quantity: 7,
              tax_class: 'clothing',
              shipping_class: 'Light parcel',
            },
            { title: 'Large', sku: 'LS-L', price: 2700, manage_stock: 1, stock_quantity: 0, position: 5, status: 'active' },
          ],
        },
        manager,
      );
      created.off();

      expect(res.status).toBe(200);
      const id = res.body.product.id;
      const variationShape = {
        id: expect.any(Number),
        product_id: id,
        sku: null,
        compare_price: null,
        cost: null,
        manage_stock: 0,
        stock_quantity: 0,
        stock_on_hold: 0,
        stock_available: null,
        stock_status: 'in_stock',
        payment_type: 'onetime',
        billing_interval: null,
        trial_days: 0,
        bill_times: 0,
        signup_fee: 0,
        tax_class: null,
        shipping_class: null,
        status: 'active',
        created_at: NOW,
        updated_at: NOW,
      };
      expect(res.body).toEqual({
        message: 'Product created successfully!',
        product: {
          id: expect.any(Number),
          title: 'Linen Shirt',
          slug: 'linen-shirt',
          status: 'publish',
          description: 'Soft and cool.',
          fulfillment_type: 'physical',
          categories: [
            { id: linen, name: 'Linen', slug: 'linen' },
            { id: shirts, name: 'Shirts', slug: 'shirts' },
          ],
          variations: [
            {
              ...variationShape,
              title: 'Small',
              sku: 'LS-S',
              price: 2500,
              compare_price: 3000,
              cost: 900,
              manage_stock: 1,
              stock_quantity: 7,
              stock_available: 7,
              tax_class: 'clothing',
              shipping_class: 'Light parcel',
              position: 0,
            },
            { ...variationShape, title: 'Large', sku: 'LS-L', price: 2700, manage_stock: 1, stock_available: 0, stock_status: 'out_of_stock', position: 5 },
          ],
          min_price: 2500,
          max_price: 2700,
          has_subscription: false,
          created_at: NOW,
          updated_at: NOW,
        },
      });

      const stored = await db()('store_products').where({ id }).first();
      expect(stored).toMatchObject({ title: 'Linen Shirt', slug: 'linen-shirt', status: 'publish', fulfillment_type: 'physical', created_at: NOW });
      expect(await count('store_product_variations', { product_id: id })).toBe(2);
      expect(await count('store_product_category_relations', { product_id: id })).toBe(2);
      expect(await activities(id)).toEqual([
        { title: 'Product created', content: 'Linen Shirt with 2 variation(s)', user_id: manager.user.id, created_by: expect.any(String), created_at: NOW },
      ]);
      expect(created.calls).toEqual([[res.body.product]]);
    });

    it('defaults: draft, physical, no categories, a one-time variation at position 0 without managed stock', async () => {
      const res = await post({ title: 'Plain', variations: [{ title: 'Only', price: 0 }] });
      expect(res.status).toBe(200);
      expect(res.body.product).toMatchObject({
        status: 'draft',
        description: '',
        fulfillment_type: 'physical',
        categories: [],
        min_price: 0,
        max_price: 0,
        has_subscription: false,
        variations: [
          { title: 'Only', price: 0, position: 0, manage_stock: 0, stock_available: null, stock_status: 'in_stock', payment_type: 'onetime', status: 'active' },
        ],
      });
    });

    it('generates a unique slug from the title: my-shirt, my-shirt-2, my-shirt-3; accents are transliterated', async () => {
      const slugs: string[] = [];
      for (let i = 0; i < 3; i++) slugs.push((await product({ title: 'My Shirt' })).slug as string);
      expect(slugs).toEqual(['my-shirt', 'my-shirt-2', 'my-shirt-3']);
      expect((await product({ title: '  Café Crème — Große Tasse! ' })).slug).toBe('cafe-creme-grosse-tasse');
      expect((await product({ title: '商品' })).slug).toBe('product');
      expect((await product({ title: '製品' })).slug).toBe('product-2');
    });

    it('an explicit slug is kept; a taken one is a 422 and nothing is created', async () => {
      expect((await product({ title: 'Anything', slug: 'custom-slug' })).slug).toBe('custom-slug');
      const before = await count('store_products');
      const res = await post({ title: 'Other', slug: 'custom-slug', variations: [variation()] });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The slug has already been taken.', errors: { slug: { unique: 'The slug has already been taken.' } } });
      expect(await count('store_products')).toBe(before);
    });

    it.each([
      ['no title', { variations: [variation()] }, 'title', { required: 'The title field is required.' }],
      ['a blank title', { title: '   ', variations: [variation()] }, 'title', { required: 'The title field is required.' }],
      [
        'a title over 255 characters',
        { title: 'x'.repeat(256), variations: [variation()] },
        'title',
        { max: 'The title field must not be greater than 255 characters.' },
      ],
      [
        'a slug with spaces and capitals',
        { title: 'T', slug: 'My Slug', variations: [variation()] },
        'slug',
        { regex: 'The slug may only contain lowercase letters, numbers and single hyphens.' },
      ],
      ['an unknown status', { title: 'T', status: 'archived', variations: [variation()] }, 'status', { in: 'The selected status is invalid.' }],
      [
        'an unknown fulfillment type',
        { title: 'T', fulfillment_type: 'teleport', variations: [variation()] },
        'fulfillment_type',
        { in: 'The selected fulfillment type is invalid.' },
      ],
      ['no variations', { title: 'T' }, 'variations', { required: 'The variations field is required.' }],
      ['an empty variations list', { title: 'T', variations: [] }, 'variations', { min: 'A product needs at least one variation.' }],
      ['a variation without a title', { title: 'T', variations: [{ price: 1 }] }, 'variations.0.title', { required: 'The title field is required.' }],
      ['a variation without a price', { title: 'T', variations: [{ title: 'V' }] }, 'variations.0.price', { required: 'The price field is required.' }],
      ['a negative price', { title: 'T', variations: [variation({ price: -1 })] }, 'variations.0.price', { min: 'The price field must be at least 0.' }],
      [
        'a price with decimals (money is integer cents)',
        { title: 'T', variations: [variation({ price: 19.99 })] },
        'variations.0.price',
        { integer: 'The price field must be an integer.' },
      ],
      [
        'a price as a string',
        { title: 'T', variations: [variation({ price: '1999' })] },
        'variations.0.price',
        { integer: 'The price field must be an integer.' },
      ],
      ['a negative cost', { title: 'T', variations: [variation({ cost: -5 })] }, 'variations.0.cost', { min: 'The cost field must be at least 0.' }],
      [
        'a compare price below the price',
        { title: 'T', variations: [variation({ price: 2000, compare_price: 1999 })] },
        'variations.0.compare_price',
        { gte: 'The compare price must be greater than or equal to the price.' },
      ],
      [
        'a negative stock quantity',
        { title: 'T', variations: [variation({ stock_quantity: -1 })] },
        'variations.0.stock_quantity',
        { min: 'The stock quantity field must be at least 0.' },
      ],
      [
        'manage_stock 2',
        { title: 'T', variations: [variation({ manage_stock: 2 })] },
        'variations.0.manage_stock',
        { boolean: 'The manage stock field must be true, false, 0 or 1.' },
      ],
      [
        'an SKU over 100 characters',
        { title: 'T', variations: [variation({ sku: 'S'.repeat(101) })] },
        'variations.0.sku',
        { max: 'The sku field must not be greater than 100 characters.' },
      ],
      [
        'an unknown payment type',
        { title: 'T', variations: [variation({ payment_type: 'installments' })] },
        'variations.0.payment_type',
        { in: 'The selected payment type is invalid.' },
      ],
      [
        'a subscription without a billing interval',
        { title: 'T', variations: [variation({ payment_type: 'subscription' })] },
        'variations.0.billing_interval',
        { required: 'The billing interval field is required for a subscription.' },
      ],
      [
        'an unknown billing interval',
        { title: 'T', variations: [variation({ payment_type: 'subscription', billing_interval: 'fortnightly' })] },
        'variations.0.billing_interval',
        { in: 'The selected billing interval is invalid.' },
      ],
      [
        'a billing interval on a one-time variation',
        { title: 'T', variations: [variation({ payment_type: 'onetime', billing_interval: 'monthly' })] },
        'variations.0.billing_interval',
        { prohibited: 'The billing interval field is only allowed for subscriptions.' },
      ],
      [
        'a trial on a one-time variation',
        { title: 'T', variations: [variation({ trial_days: 14 })] },
        'variations.0.trial_days',
        { prohibited: 'The trial days field is only allowed for subscriptions.' },
      ],
      [
        'a trial over 365 days',
        { title: 'T', variations: [variation({ payment_type: 'subscription', billing_interval: 'monthly', trial_days: 366 })] },
        'variations.0.trial_days',
        { max: 'The trial days field must not be greater than 365.' },
      ],
      [
        'a negative bill_times',
        { title: 'T', variations: [variation({ payment_type: 'subscription', billing_interval: 'monthly', bill_times: -1 })] },
        'variations.0.bill_times',
        { min: 'The bill times field must be at least 0.' },
      ],
      [
        'a tax class that is not a slug',
        { title: 'T', variations: [variation({ tax_class: 'Reduced Rate' })] },
        'variations.0.tax_class',
        { regex: 'The tax class must be a slug (lowercase letters, numbers, - and _).' },
      ],
      [
        'an unknown variation status',
        { title: 'T', variations: [variation({ status: 'hidden' })] },
        'variations.0.status',
        { in: 'The selected status is invalid.' },
      ],
      [
        'a category id that does not exist',
        { title: 'T', category_ids: [999999], variations: [variation()] },
        'category_ids',
        { exists: 'The selected category ids are invalid: 999999.' },
      ],
    ])('refuses %s: 422, nothing stored', async (_name, body, field, error) => {
      const before = await Promise.all([count('store_products'), count('store_product_variations'), count('store_activities')]);
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual(error);
      expect(res.body.message).toEqual(expect.any(String));
      expect(await Promise.all([count('store_products'), count('store_product_variations'), count('store_activities')])).toEqual(before);
    });

    it('a bad second variation refuses the whole product: no half-created product, no hook', async () => {
      const created = record('store/product/created');
      const before = await Promise.all([count('store_products'), count('store_product_variations')]);
      const res = await post({ title: 'Half', variations: [variation({ title: 'Good' }), variation({ title: 'Bad', price: -100 })] });
      created.off();
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The price field must be at least 0.',
        errors: { 'variations.1.price': { min: 'The price field must be at least 0.' } },
      });
      expect(await Promise.all([count('store_products'), count('store_product_variations')])).toEqual(before);
      expect(created.calls).toEqual([]);
    });

    it('SKUs are unique across all variations, case-insensitively, and within one request', async () => {
      await product({ title: 'Sku owner', variations: [variation({ sku: 'UNIQ-1' })] });
      const taken = await post({ title: 'Copy', variations: [variation({ sku: 'uniq-1' })] });
      expect(taken.status).toBe(422);
      expect(taken.body.errors).toEqual({ 'variations.0.sku': { unique: 'The sku has already been taken.' } });
      const twice = await post({ title: 'Twice', variations: [variation({ sku: 'TWIN' }), variation({ sku: 'twin' })] });
      expect(twice.status).toBe(422);
      expect(twice.body.errors).toEqual({ 'variations.1.sku': { unique: 'The sku has already been taken.' } });
      // blank SKUs are no SKU: many variations may have none
      const blank = await product({ title: 'Blank skus', variations: [variation({ sku: '' }), variation({ sku: '  ' }), variation({ sku: null })] });
      expect(blank.variations.map((v) => v.sku)).toEqual([null, null, null]);
    });

    it('subscriptions: terms are stored; `one-time` is accepted and stored as `onetime`', async () => {
      const res = await post({
        title: 'Coffee Club',
        fulfillment_type: 'digital',
        variations: [
          { title: 'Monthly', price: 1500, payment_type: 'subscription', billing_interval: 'monthly', trial_days: 14, bill_times: 0, signup_fee: 500 },
          { title: 'Yearly, 3 payments', price: 15000, payment_type: 'subscription', billing_interval: 'yearly', bill_times: 3 },
          { title: 'Single bag', price: 1200, payment_type: 'one-time', trial_days: 0, signup_fee: 0, billing_interval: null },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.product).toMatchObject({
        fulfillment_type: 'digital',
        has_subscription: true,
        min_price: 1200,
        max_price: 15000,
        variations: [
          { payment_type: 'subscription', billing_interval: 'monthly', trial_days: 14, bill_times: 0, signup_fee: 500 },
          { payment_type: 'subscription', billing_interval: 'yearly', trial_days: 0, bill_times: 3, signup_fee: 0 },
          { payment_type: 'onetime', billing_interval: null, trial_days: 0, bill_times: 0, signup_fee: 0 },
        ],
      });
      const stored = await db()('store_product_variations').where({ product_id: res.body.product.id }).orderBy('position').pluck('payment_type');
      expect(stored).toEqual(['subscription', 'subscription', 'onetime']);
    });

    it('min/max price and has_subscription only count active variations', async () => {
      const p = await product({
        variations: [
          variation({ price: 100, status: 'inactive', payment_type: 'subscription', billing_interval: 'weekly' }),
          variation({ price: 500 }),
          variation({ price: 900 }),
        ],
      });
      expect(p).toMatchObject({ min_price: 500, max_price: 900, has_subscription: false });
      const none = await product({ variations: [variation({ status: 'inactive' })] });
      expect(none).toMatchObject({ min_price: null, max_price: null });
    });

    it('needs products/manage: 401 anonymous, 403 for a customer and for customer service', async () => {
      const body = { title: 'Nope', variations: [variation()] };
      const anonymous = await app.http.post(`${BASE}/products`).send(body);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'rest_forbidden' });
      expect((await post(body, shopper)).status).toBe(403);
      expect((await post(body, clerk)).status).toBe(403);
    });
  });

  describe('GET /products', () => {
    let listed: TestApp;
    let boss: TestUser;
    let reader: TestUser;
    const ids: Record<string, number> = {};
    let hats = 0;

    // A store of its own, so counts and orders are exact.
    beforeAll(async () => {
      listed = await startTestApp();
      boss = await listed.createUser('boss', ['administrator']);
      reader = await listed.createUser('reader', ['customer_service']);
      hats = (await listed.as(boss).post(`${BASE}/products/categories`).send({ name: 'Hats' })).body.category.id;
      const rows: Array<[string, Record<string, unknown>]> = [
        ['alpha', { title: 'Alpha Hat', status: 'publish', category_ids: [hats], variations: [variation({ sku: 'HAT-ALPHA', price: 1000 })] }],
        ['bravo', { title: 'Bravo Ebook', status: 'publish', fulfillment_type: 'digital', variations: [variation({ sku: 'EBOOK-B' })] }],
        [
          'charlie',
          {
            title: 'Charlie Club',
            status: 'draft',
            fulfillment_type: 'digital',
            variations: [variation({ payment_type: 'subscription', billing_interval: 'monthly' })],
          },
        ],
        ['delta', { title: '100% Wool Hat', status: 'draft', category_ids: [hats], variations: [variation(), variation({ title: 'Second' })] }],
        ['echo', { title: 'Echo_Mug', status: 'publish', variations: [variation({ sku: 'MUG-1' })] }],
      ];
      for (const [key, body] of rows) {
        listed.clock.advance(60_000);
        const res = await listed.as(boss).post(`${BASE}/products`).send(body);
        expect(res.status).toBe(200);
        ids[key] = res.body.product.id;
      }
    });
    afterAll(() => listed.close());

    const list = (query = '', user = reader) => listed.as(user).get(`${BASE}/products${query}`);
    const titles = (res: { body: { products: { data: Array<{ title: string }> } } }) => res.body.products.data.map((p) => p.title);

    it('a page object, newest first, each product with its variations and categories', async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.body.products).toMatchObject({ current_page: 1, per_page: 10, total: 5, last_page: 1, from: 1, to: 5 });
      expect(titles(res)).toEqual(['Echo_Mug', '100% Wool Hat', 'Charlie Club', 'Bravo Ebook', 'Alpha Hat']);
      const wool = res.body.products.data[1];
      expect(wool.categories).toEqual([{ id: hats, name: 'Hats', slug: 'hats' }]);
      expect(wool.variations.map((v: { title: string }) => v.title)).toEqual(['Default', 'Second']);
      expect(res.body.products.data[0].categories).toEqual([]);
    });

    it('pages: per_page and page; out-of-range sizes are clamped (max 200, min 1)', async () => {
      const second = await list('?per_page=2&page=2');
      expect(second.body.products).toMatchObject({ current_page: 2, per_page: 2, total: 5, last_page: 3, from: 3, to: 4 });
      expect(titles(second)).toEqual(['Charlie Club', 'Bravo Ebook']);
      expect((await list('?per_page=500')).body.products.per_page).toBe(200);
      expect((await list('?per_page=0')).body.products.per_page).toBe(1);
      const beyond = await list('?page=9');
      expect(beyond.body.products).toMatchObject({ current_page: 9, data: [], total: 5, from: null, to: null });
    });

    it('loads variations and categories in batched queries, never one query per product', async () => {
      const queries = async (query: string) => {
        let n = 0;
        const onQuery = () => n++;
        listed.host.db.on('query', onQuery);
        await list(query).expect(200);
        listed.host.db.off('query', onQuery);
        return n;
      };
      expect(await queries('?per_page=5')).toBe(await queries('?per_page=1'));
    });

    it.each([
      ['title text', 'bravo', ['Bravo Ebook']],
      ['slug text', 'echo-mug', ['Echo_Mug']],
      ['a variation SKU', 'hat-alpha', ['Alpha Hat']],
      ['% taken literally', '100%', ['100% Wool Hat']],
      ['_ taken literally', 'o_m', ['Echo_Mug']],
      ['status = draft', 'status = draft', ['100% Wool Hat', 'Charlie Club']],
      ['title ~ hat', 'title ~ hat', ['100% Wool Hat', 'Alpha Hat']],
      ['a column outside the allowlist is text', 'sku = MUG-1', []],
    ])('search by %s', async (_name, search, expected) => {
      const res = await list(`?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
      expect(titles(res)).toEqual(expected);
    });

    it('search by #id, id ranges and created_at', async () => {
      expect(titles(await list(`?search=${encodeURIComponent(`#${ids.bravo}`)}`))).toEqual(['Bravo Ebook']);
      expect(titles(await list(`?search=${encodeURIComponent(`id :: ${ids.bravo}-${ids.charlie}`)}`))).toEqual(['Charlie Club', 'Bravo Ebook']);
      expect(titles(await list(`?search=${encodeURIComponent(`id > ${ids.delta}`)}`))).toEqual(['Echo_Mug']);
      expect(titles(await list(`?search=${encodeURIComponent('created_at >= 2026-11-21 10:04:00')}`))).toEqual(['Echo_Mug', '100% Wool Hat']);
      expect((await list(`?search=${encodeURIComponent('created_at = 2026-11-21')}`)).body.products.total).toBe(5);
    });

    it('sorts by an allowlisted column; anything else falls back to id', async () => {
      expect(titles(await list('?sort_by=title&sort_type=asc'))).toEqual(['100% Wool Hat', 'Alpha Hat', 'Bravo Ebook', 'Charlie Club', 'Echo_Mug']);
      expect(titles(await list('?sort_by=title&sort_type=desc'))).toEqual(['Echo_Mug', 'Charlie Club', 'Bravo Ebook', 'Alpha Hat', '100% Wool Hat']);
      expect(titles(await list('?sort_by=status&sort_type=asc'))).toEqual(['Charlie Club', '100% Wool Hat', 'Alpha Hat', 'Bravo Ebook', 'Echo_Mug']);
      expect(titles(await list('?sort_by=created_at&sort_type=asc'))).toEqual(['Alpha Hat', 'Bravo Ebook', 'Charlie Club', '100% Wool Hat', 'Echo_Mug']);
      expect(titles(await list('?sort_by=price; drop table store_products&sort_type=asc'))).toEqual([
        'Alpha Hat',
        'Bravo Ebook',
        'Charlie Club',
        '100% Wool Hat',
        'Echo_Mug',
      ]);
      expect(titles(await list('?sort_by=title&sort_type=sideways'))[0]).toBe('Echo_Mug');
    });

    it('filters by status, fulfillment_type, payment_type and category_id', async () => {
      expect(titles(await list('?status=publish'))).toEqual(['Echo_Mug', 'Bravo Ebook', 'Alpha Hat']);
      expect(titles(await list('?fulfillment_type=digital'))).toEqual(['Charlie Club', 'Bravo Ebook']);
      expect(titles(await list('?payment_type=subscription'))).toEqual(['Charlie Club']);
      expect(titles(await list('?payment_type=one-time&status=publish&fulfillment_type=digital'))).toEqual(['Bravo Ebook']);
      expect(titles(await list(`?category_id=${hats}`))).toEqual(['100% Wool Hat', 'Alpha Hat']);
      expect((await list(`?category_id=${hats}&per_page=1`)).body.products).toMatchObject({ total: 2, last_page: 2 });
    });

    it.each([
      ['status=archived', 'status', { in: 'The selected status is invalid.' }],
      ['fulfillment_type=teleport', 'fulfillment_type', { in: 'The selected fulfillment type is invalid.' }],
      ['payment_type=installments', 'payment_type', { in: 'The selected payment type is invalid.' }],
      ['category_id=999999', 'category_id', { exists: 'The selected category id is invalid.' }],
      ['category_id=abc', 'category_id', { integer: 'The category id field must be an integer.' }],
    ])('refuses the unknown filter value %s: 422', async (query, field, error) => {
      const res = await list(`?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: error });
    });

    it('needs products/view: 401 anonymous, 403 for a customer', async () => {
      expect((await listed.http.get(`${BASE}/products`)).status).toBe(401);
      const customer = await listed.createUser('customer1', ['customer']);
      expect((await list('', customer)).status).toBe(403);
    });
  });

  describe('GET /products/{id}', () => {
    it('returns the product; 404 when missing; 422 for an id that is not a number', async () => {
      const p = await product({ title: 'Readable' });
      const res = await app.as(clerk).get(`${BASE}/products/${p.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ product: p });
      const missing = await app.as(clerk).get(`${BASE}/products/999999`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'Product not found' });
      expect((await app.as(clerk).get(`${BASE}/products/abc`)).status).toBe(422);
    });

    it('needs products/view', async () => {
      const p = await product();
      expect((await app.http.get(`${BASE}/products/${p.id}`)).status).toBe(401);
      expect((await app.as(shopper).get(`${BASE}/products/${p.id}`)).status).toBe(403);
    });
  });

  describe('PUT /products/{id}', () => {
    it('changes only the fields sent; category_ids replaces the set; activity and store/product/updated (current, previous)', async () => {
      const a = await category('Updates A');
      const b = await category('Updates B');
      const p = await product({ title: 'Before', description: 'Kept', category_ids: [a] });
      app.clock.advance(60_000);
      const updated = record('store/product/updated');
      const res = await app
        .as(manager)
        .put(`${BASE}/products/${p.id}`)
        .send({ title: 'After', status: 'publish', category_ids: [b] });
      updated.off();
      app.clock.set('2026-11-21T10:00:00Z');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Product updated successfully!',
        product: {
          ...p,
          title: 'After',
          status: 'publish',
          categories: [{ id: b, name: 'Updates B', slug: 'updates-b' }],
          updated_at: '2026-11-21 10:01:00',
        },
      });
      // the slug stays when the title changes: links keep working
      expect(res.body.product.slug).toBe(p.slug);
      expect(await db()('store_product_category_relations').where({ product_id: p.id }).pluck('category_id')).toEqual([b]);
      expect(updated.calls).toEqual([[res.body.product, p]]);
      expect((await activities(p.id)).map((e) => [e.title, e.content])).toEqual([
        ['Product created', 'Before with 1 variation(s)'],
        ['Product updated', 'Changed: title, status, categories'],
      ]);
    });

    it('category_ids [] removes every category; a new slug is checked for uniqueness', async () => {
      const c = await category('Removable');
      const p = await product({ category_ids: [c] });
      const cleared = await app.as(admin).put(`${BASE}/products/${p.id}`).send({ category_ids: [] });
      expect(cleared.body.product.categories).toEqual([]);
      const other = await product({ title: 'Slug holder', slug: 'slug-holder' });
      const taken = await app.as(admin).put(`${BASE}/products/${p.id}`).send({ slug: 'slug-holder' });
      expect(taken.status).toBe(422);
      expect(taken.body.errors).toEqual({ slug: { unique: 'The slug has already been taken.' } });
      // its own slug is not "taken"
      expect((await app.as(admin).put(`${BASE}/products/${other.id}`).send({ slug: 'slug-holder' })).status).toBe(200);
      expect((await app.as(admin).put(`${BASE}/products/${p.id}`).send({ slug: 'fresh-slug' })).body.product.slug).toBe('fresh-slug');
    });

    it.each([
      [{ title: '' }, 'title', { required: 'The title field is required.' }],
      [{ status: 'deleted' }, 'status', { in: 'The selected status is invalid.' }],
      [{ fulfillment_type: 'both' }, 'fulfillment_type', { in: 'The selected fulfillment type is invalid.' }],
      [{ category_ids: [999999] }, 'category_ids', { exists: 'The selected category ids are invalid: 999999.' }],
      [{ slug: 'Not A Slug' }, 'slug', { regex: 'The slug may only contain lowercase letters, numbers and single hyphens.' }],
      [{ variations: [variation()] }, 'variations', { prohibited: 'Variations are changed through /products/{id}/variations.' }],
    ])('refuses %j: 422 naming %s, nothing changed', async (body, field, error) => {
      const p = await product({ title: 'Unchanged' });
      const res = await app.as(admin).put(`${BASE}/products/${p.id}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: error });
      expect((await app.as(admin).get(`${BASE}/products/${p.id}`)).body.product).toEqual(p);
    });

    it('404 for a missing product; needs products/manage', async () => {
      const missing = await app.as(admin).put(`${BASE}/products/999999`).send({ title: 'X' });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'Product not found' });
      const p = await product();
      expect((await app.http.put(`${BASE}/products/${p.id}`).send({ title: 'X' })).status).toBe(401);
      expect((await app.as(clerk).put(`${BASE}/products/${p.id}`).send({ title: 'X' })).status).toBe(403);
      expect((await app.as(shopper).put(`${BASE}/products/${p.id}`).send({ title: 'X' })).status).toBe(403);
    });
  });

  describe('DELETE /products/{id}', () => {
    it('deletes the product with its variations and category links; activity and store/product/deleted', async () => {
      const c = await category('Doomed links');
      const p = await product({ title: 'Doomed', category_ids: [c], variations: [variation(), variation({ title: 'Two' })] });
      const deleted = record('store/product/deleted');
      const res = await app.as(manager).delete(`${BASE}/products/${p.id}`);
      deleted.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Product deleted successfully!' });
      expect(await count('store_products', { id: p.id })).toBe(0);
      expect(await count('store_product_variations', { product_id: p.id })).toBe(0);
      expect(await count('store_product_category_relations', { product_id: p.id })).toBe(0);
      expect(await count('store_product_categories', { id: c })).toBe(1);
      expect(deleted.calls).toEqual([[p]]);
      expect((await activities(p.id)).map((e) => [e.title, e.content])).toEqual([
        ['Product created', 'Doomed with 2 variation(s)'],
        ['Product deleted', 'Doomed'],
      ]);
      const again = await app.as(manager).delete(`${BASE}/products/${p.id}`);
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ message: 'Product not found' });
    });

    it('needs products/delete', async () => {
      const p = await product();
      expect((await app.http.delete(`${BASE}/products/${p.id}`)).status).toBe(401);
      expect((await app.as(clerk).delete(`${BASE}/products/${p.id}`)).status).toBe(403);
      expect((await app.as(shopper).delete(`${BASE}/products/${p.id}`)).status).toBe(403);
      expect(await count('store_products', { id: p.id })).toBe(1);
    });
  });

  describe('GET /products/{id}/variations', () => {
    it('lists the variations ordered by position, then id; 404 for a missing product', async () => {
      const p = await product({
        variations: [variation({ title: 'C', position: 2 }), variation({ title: 'A', position: 0 }), variation({ title: 'B', position: 0 })],
      });
      const res = await app.as(clerk).get(`${BASE}/products/${p.id}/variations`);
      expect(res.status).toBe(200);
      expect(res.body.variations.map((v: { title: string }) => v.title)).toEqual(['A', 'B', 'C']);
      expect(res.body.variations).toEqual(p.variations);
      const missing = await app.as(clerk).get(`${BASE}/products/999999/variations`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'Product not found' });
      expect((await app.as(shopper).get(`${BASE}/products/${p.id}/variations`)).status).toBe(403);
    });
  });

  describe('POST /products/{id}/variations', () => {
    it('adds a variation after the last position: activity and store/variation/created', async () => {
      const p = await product({ title: 'Growing', variations: [variation({ position: 3 })] });
      const created = record('store/variation/created');
      const res = await app
        .as(manager)
        .post(`${BASE}/products/${p.id}/variations`)
        .send({ title: 'Annual', sku: 'GROW-Y', price: 9900, payment_type: 'subscription', billing_interval: 'yearly', trial_days: 30 });
      created.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Variation created successfully!',
        variation: {
          id: expect.any(Number),
          product_id: p.id,
          title: 'Annual',
          sku: 'GROW-Y',
          price: 9900,
          compare_price: null,
          cost: null,
          manage_stock: 0,
          stock_quantity: 0,
          stock_on_hold: 0,
          stock_available: null,
          stock_status: 'in_stock',
          payment_type: 'subscription',
          billing_interval: 'yearly',
          trial_days: 30,
          bill_times: 0,
          signup_fee: 0,
          tax_class: null,
          shipping_class: null,
          position: 4,
          status: 'active',
          created_at: NOW,
          updated_at: NOW,
        },
      });
      expect(created.calls).toEqual([[res.body.variation]]);
      expect((await activities(p.id)).map((e) => e.title)).toEqual(['Product created', 'Variation created']);
      expect((await app.as(admin).get(`${BASE}/products/${p.id}`)).body.product).toMatchObject({ has_subscription: true, max_price: 9900 });
    });

    it.each([
      [{ price: 100 }, 'title', { required: 'The title field is required.' }],
      [{ title: 'V', price: -1 }, 'price', { min: 'The price field must be at least 0.' }],
      [{ title: 'V', price: 500, compare_price: 400 }, 'compare_price', { gte: 'The compare price must be greater than or equal to the price.' }],
      [
        { title: 'V', price: 500, billing_interval: 'monthly' },
        'billing_interval',
        { prohibited: 'The billing interval field is only allowed for subscriptions.' },
      ],
      [{ title: 'V', price: 500, signup_fee: 100 }, 'signup_fee', { prohibited: 'The signup fee field is only allowed for subscriptions.' }],
      [
        { title: 'V', price: 500, payment_type: 'subscription' },
        'billing_interval',
        { required: 'The billing interval field is required for a subscription.' },
      ],
      [
        { title: 'V', price: 500, shipping_class: 'x'.repeat(51) },
        'shipping_class',
        { max: 'The shipping class field must not be greater than 50 characters.' },
      ],
    ])('refuses %j: 422 naming %s', async (body, field, error) => {
      const p = await product();
      const res = await app.as(admin).post(`${BASE}/products/${p.id}/variations`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: error });
      expect(await count('store_product_variations', { product_id: p.id })).toBe(1);
    });

    it('a taken SKU is a 422', async () => {
      const p = await product({ variations: [variation({ sku: 'TAKEN-SKU' })] });
      const res = await app
        .as(admin)
        .post(`${BASE}/products/${p.id}/variations`)
        .send(variation({ sku: 'Taken-Sku' }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The sku has already been taken.', errors: { sku: { unique: 'The sku has already been taken.' } } });
    });

    it('404 for a missing product; needs products/manage', async () => {
      const missing = await app.as(admin).post(`${BASE}/products/999999/variations`).send(variation());
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'Product not found' });
      const p = await product();
      expect((await app.http.post(`${BASE}/products/${p.id}/variations`).send(variation())).status).toBe(401);
      expect((await app.as(clerk).post(`${BASE}/products/${p.id}/variations`).send(variation())).status).toBe(403);
    });
  });

  describe('PUT /products/{id}/variations/{variation_id}', () => {
    it('changes the fields sent: activity, store/variation/updated (current, previous) and store/variation/stock_changed', async () => {
      const p = await product({ variations: [variation({ title: 'Tee', sku: 'TEE', manage_stock: 1, stock_quantity: 4 })] });
      const before = p.variations[0];
      app.clock.advance(120_000);
      const updated = record('store/variation/updated');
      const stock = record('store/variation/stock_changed');
      const res = await app
        .as(manager)
        .put(`${BASE}/products/${p.id}/variations/${before.id}`)
        .send({ price: 2000, compare_price: 2500, stock_quantity: 10, sku: 'TEE' });
      updated.off();
      stock.off();
      app.clock.set('2026-11-21T10:00:00Z');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Variation updated successfully!',
        variation: { ...before, price: 2000, compare_price: 2500, stock_quantity: 10, stock_available: 10, updated_at: '2026-11-21 10:02:00' },
      });
      expect(updated.calls).toEqual([[res.body.variation, before]]);
      expect(stock.calls).toEqual([[res.body.variation, 4]]);
      expect((await activities(p.id)).pop()).toMatchObject({
        title: 'Variation updated',
        content: 'Tee (#' + before.id + '); changed: price, compare_price, stock_quantity',
      });
    });

    it('a price above the stored compare price is refused; clearing it is fine', async () => {
      const p = await product({ variations: [variation({ price: 1000, compare_price: 1500 })] });
      const url = `${BASE}/products/${p.id}/variations/${p.variations[0].id}`;
      const res = await app.as(admin).put(url).send({ price: 2000 });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ compare_price: { gte: 'The compare price must be greater than or equal to the price.' } });
      const ok = await app.as(admin).put(url).send({ price: 2000, compare_price: null });
      expect(ok.body.variation).toMatchObject({ price: 2000, compare_price: null });
    });

    it('switching to one-time drops the subscription terms; switching to a subscription needs a billing interval', async () => {
      const p = await product({
        variations: [variation({ payment_type: 'subscription', billing_interval: 'quarterly', trial_days: 7, bill_times: 4, signup_fee: 300 })],
      });
      const url = `${BASE}/products/${p.id}/variations/${p.variations[0].id}`;
      const once = await app.as(admin).put(url).send({ payment_type: 'one-time' });
      expect(once.status).toBe(200);
      expect(once.body.variation).toMatchObject({ payment_type: 'onetime', billing_interval: null, trial_days: 0, bill_times: 0, signup_fee: 0 });
      const refused = await app.as(admin).put(url).send({ payment_type: 'subscription' });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ billing_interval: { required: 'The billing interval field is required for a subscription.' } });
      const again = await app.as(admin).put(url).send({ payment_type: 'subscription', billing_interval: 'half_yearly' });
      expect(again.body.variation).toMatchObject({ payment_type: 'subscription', billing_interval: 'half_yearly' });
    });

    it('the SKU stays unique; the stock quantity cannot go below what is on hold', async () => {
      await product({ variations: [variation({ sku: 'OTHER-SKU' })] });
      const p = await product({ variations: [variation({ sku: 'MINE', manage_stock: 1, stock_quantity: 5 })] });
      const v = p.variations[0];
      const url = `${BASE}/products/${p.id}/variations/${v.id}`;
      const taken = await app.as(admin).put(url).send({ sku: 'other-sku' });
      expect(taken.status).toBe(422);
      expect(taken.body.errors).toEqual({ sku: { unique: 'The sku has already been taken.' } });
      await db()('store_product_variations').where({ id: v.id }).update({ stock_on_hold: 3 });
      const low = await app.as(admin).put(url).send({ stock_quantity: 2 });
      expect(low.status).toBe(422);
      expect(low.body.errors).toEqual({ stock_quantity: { min: 'The stock quantity cannot be less than the 3 unit(s) on hold.' } });
      const ok = await app.as(admin).put(url).send({ stock_quantity: 3 });
      expect(ok.body.variation).toMatchObject({ stock_quantity: 3, stock_on_hold: 3, stock_available: 0, stock_status: 'out_of_stock' });
    });

    it('a variation of another product is a 404; so is a missing one or a missing product', async () => {
      const a = await product();
      const b = await product();
      const foreign = await app.as(admin).put(`${BASE}/products/${a.id}/variations/${b.variations[0].id}`).send({ title: 'Hijack' });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ message: 'Variation not found' });
      expect((await app.as(admin).put(`${BASE}/products/${a.id}/variations/999999`).send({ title: 'X' })).body).toEqual({ message: 'Variation not found' });
      expect((await app.as(admin).put(`${BASE}/products/999999/variations/${a.variations[0].id}`).send({ title: 'X' })).body).toEqual({
        message: 'Product not found',
      });
      expect((await db()('store_product_variations').where({ id: b.variations[0].id }).first()).title).toBe('Default');
    });

    it('needs products/manage', async () => {
      const p = await product();
      const url = `${BASE}/products/${p.id}/variations/${p.variations[0].id}`;
      expect((await app.http.put(url).send({ price: 1 })).status).toBe(401);
      expect((await app.as(clerk).put(url).send({ price: 1 })).status).toBe(403);
    });
  });

  describe('DELETE /products/{id}/variations/{variation_id}', () => {
    it('deletes a variation: activity and store/variation/deleted; the last one stays with a 400', async () => {
      const p = await product({ variations: [variation({ title: 'Keep' }), variation({ title: 'Drop' })] });
      const [keep, drop] = p.variations;
      const deleted = record('store/variation/deleted');
      const res = await app.as(manager).delete(`${BASE}/products/${p.id}/variations/${drop.id}`);
      deleted.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Variation deleted successfully!' });
      expect(deleted.calls).toEqual([[drop]]);
      expect(await count('store_product_variations', { id: drop.id })).toBe(0);
      expect((await activities(p.id)).pop()).toMatchObject({ title: 'Variation deleted', content: `Drop (#${drop.id})` });

      const last = await app.as(manager).delete(`${BASE}/products/${p.id}/variations/${keep.id}`);
      expect(last.status).toBe(400);
      expect(last.body).toEqual({ message: 'A product needs at least one variation.' });
      expect(await count('store_product_variations', { id: keep.id })).toBe(1);
    });

    it('a variation of another product is a 404 and stays', async () => {
      const a = await product({ variations: [variation(), variation()] });
      const b = await product({ variations: [variation(), variation()] });
      const res = await app.as(admin).delete(`${BASE}/products/${a.id}/variations/${b.variations[0].id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Variation not found' });
      expect(await count('store_product_variations', { id: b.variations[0].id })).toBe(1);
    });

    it('needs products/delete', async () => {
      const p = await product({ variations: [variation(), variation()] });
      const url = `${BASE}/products/${p.id}/variations/${p.variations[1].id}`;
      expect((await app.http.delete(url)).status).toBe(401);
      expect((await app.as(clerk).delete(url)).status).toBe(403);
    });
  });

  describe('unique keys', () => {
    it('a duplicate slug or SKU that slips past the checks (a concurrent write) is recognised on this database', async () => {
      const p = await product({ title: 'Race', variations: [variation({ sku: 'RACE-1' })] });
      const now = NOW;
      const duplicateSlug = await db()('store_products')
        .insert({ title: 'Race', slug: p.slug, status: 'draft', description: '', fulfillment_type: 'physical', created_at: now, updated_at: now })
        .catch((error: unknown) => error);
      expect(isUniqueViolation(duplicateSlug, 'store_products', 'slug')).toBe(true);
      expect(isUniqueViolation(duplicateSlug, 'store_product_variations', 'sku')).toBe(false);
      const duplicateSku = await db()('store_product_variations')
        .insert({ product_id: p.id, title: 'Copy', sku: 'RACE-1', price: 1, created_at: now, updated_at: now })
        .catch((error: unknown) => error);
      expect(isUniqueViolation(duplicateSku, 'store_product_variations', 'sku')).toBe(true);
    });
  });

  describe('product categories', () => {
    const categories = (user = admin) => app.as(user).get(`${BASE}/products/categories`);

    describe('POST /products/categories', () => {
      it('creates a category with a generated unique slug: store/category/created', async () => {
        const created = record('store/category/created');
        const res = await app.as(manager).post(`${BASE}/products/categories`).send({ name: 'Tea & Coffee' });
        created.off();
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          message: 'Category created successfully!',
          category: { id: expect.any(Number), name: 'Tea & Coffee', slug: 'tea-coffee', parent_id: null, created_at: NOW, updated_at: NOW },
        });
        expect(created.calls).toEqual([[res.body.category]]);
        const child = await app.as(manager).post(`${BASE}/products/categories`).send({ name: 'Tea coffee', parent_id: res.body.category.id });
        expect(child.body.category).toMatchObject({ slug: 'tea-coffee-2', parent_id: res.body.category.id });
      });

      it.each([
        [{}, 'name', { required: 'The name field is required.' }],
        [{ name: '  ' }, 'name', { required: 'The name field is required.' }],
        [{ name: 'x'.repeat(192) }, 'name', { max: 'The name field must not be greater than 191 characters.' }],
        [{ name: 'N', slug: 'Bad Slug' }, 'slug', { regex: 'The slug may only contain lowercase letters, numbers and single hyphens.' }],
        [{ name: 'N', parent_id: 999999 }, 'parent_id', { exists: 'The selected parent id is invalid.' }],
      ])('refuses %j: 422 naming %s', async (body, field, error) => {
        const before = await count('store_product_categories');
        const res = await app.as(admin).post(`${BASE}/products/categories`).send(body);
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ [field]: error });
        expect(await count('store_product_categories')).toBe(before);
      });

      it('an explicit slug that is taken is a 422', async () => {
        await category('Original', { slug: 'original' });
        const res = await app.as(admin).post(`${BASE}/products/categories`).send({ name: 'Copy', slug: 'original' });
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ slug: { unique: 'The slug has already been taken.' } });
      });

      it('needs products/manage', async () => {
        expect((await app.http.post(`${BASE}/products/categories`).send({ name: 'X' })).status).toBe(401);
        expect((await app.as(clerk).post(`${BASE}/products/categories`).send({ name: 'X' })).status).toBe(403);
      });
    });

    describe('GET /products/categories', () => {
      it('lists every category ordered by name (not mistaken for GET /products/{id})', async () => {
        await category('Zebra stripes');
        await category('Aardvark');
        const res = await categories(clerk);
        expect(res.status).toBe(200);
        const names = res.body.categories.map((c: { name: string }) => c.name);
        expect(names).toContain('Aardvark');
        expect(names.indexOf('Aardvark')).toBeLessThan(names.indexOf('Zebra stripes'));
        expect(names).toEqual([...names].sort((x: string, y: string) => x.localeCompare(y, 'en', { sensitivity: 'base' })));
        expect(res.body.categories[0]).toEqual({
          id: expect.any(Number),
          name: expect.any(String),
          slug: expect.any(String),
          parent_id: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        });
        expect((await categories(shopper)).status).toBe(403);
        expect((await app.http.get(`${BASE}/products/categories`)).status).toBe(401);
      });
    });

    describe('GET, PUT /products/categories/{id}', () => {
      it('reads and renames a category: store/category/updated (current, previous); 404 when missing', async () => {
        const id = await category('Old name');
        const previous = (await app.as(clerk).get(`${BASE}/products/categories/${id}`)).body.category;
        expect(previous).toMatchObject({ id, name: 'Old name', slug: 'old-name' });
        const updated = record('store/category/updated');
        const res = await app.as(manager).put(`${BASE}/products/categories/${id}`).send({ name: 'New name', slug: 'new-name' });
        updated.off();
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Category updated successfully!', category: { ...previous, name: 'New name', slug: 'new-name' } });
        expect(updated.calls).toEqual([[res.body.category, previous]]);
        const missing = await app.as(admin).put(`${BASE}/products/categories/999999`).send({ name: 'X' });
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ message: 'Category not found' });
        expect((await app.as(admin).get(`${BASE}/products/categories/999999`)).status).toBe(404);
        expect((await app.as(clerk).put(`${BASE}/products/categories/${id}`).send({ name: 'X' })).status).toBe(403);
      });

      it('a category cannot be its own ancestor: 422', async () => {
        const root = await category('Root');
        const mid = await category('Mid', { parent_id: root });
        const leaf = await category('Leaf', { parent_id: mid });
        // itself, its child, its grandchild
        for (const parent of [root, mid, leaf]) {
          const res = await app.as(admin).put(`${BASE}/products/categories/${root}`).send({ parent_id: parent });
          expect(res.status).toBe(422);
          expect(res.body.errors).toEqual({ parent_id: { ancestor: 'A category cannot be its own ancestor.' } });
        }
        expect((await db()('store_product_categories').where({ id: root }).first()).parent_id).toBeNull();
        // moving the leaf up is fine, and so is detaching it
        expect((await app.as(admin).put(`${BASE}/products/categories/${leaf}`).send({ parent_id: root })).body.category.parent_id).toBe(root);
        expect((await app.as(admin).put(`${BASE}/products/categories/${leaf}`).send({ parent_id: null })).body.category.parent_id).toBeNull();
      });
    });

    describe('DELETE /products/categories/{id}', () => {
      it('deletes a category: its products lose it, its children move up to its parent; store/category/deleted', async () => {
        const top = await category('Top');
        const doomed = await category('Doomed', { parent_id: top });
        const child = await category('Child', { parent_id: doomed });
        const p = await product({ category_ids: [doomed, top] });
        const deleted = record('store/category/deleted');
        const res = await app.as(manager).delete(`${BASE}/products/categories/${doomed}`);
        deleted.off();
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Category deleted successfully!' });
        expect(deleted.calls).toEqual([[expect.objectContaining({ id: doomed, name: 'Doomed', parent_id: top })]]);
        expect((await app.as(admin).get(`${BASE}/products/${p.id}`)).body.product.categories).toEqual([{ id: top, name: 'Top', slug: 'top' }]);
        expect((await db()('store_product_categories').where({ id: child }).first()).parent_id).toBe(top);
        expect((await app.as(manager).delete(`${BASE}/products/categories/${doomed}`)).body).toEqual({ message: 'Category not found' });
      });

      it('needs products/delete', async () => {
        const id = await category('Protected');
        expect((await app.http.delete(`${BASE}/products/categories/${id}`)).status).toBe(401);
        expect((await app.as(clerk).delete(`${BASE}/products/categories/${id}`)).status).toBe(403);
        expect(await count('store_product_categories', { id })).toBe(1);
      });
    });
  });
});
