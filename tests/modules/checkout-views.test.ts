import crypto from 'node:crypto';
import { insertCart, updateCart } from '../../src/modules/cart/repo';
import type { CartData, CheckoutData } from '../../src/modules/cart/types';
import { createAddress, type AddressInput } from '../../src/modules/customers/addresses';
import { createProduct } from '../../src/modules/products/service';
import { createMethod, createZone } from '../../src/modules/shipping/service';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';
const TOMORROW = '2026-11-22 10:00:00';
const NO_COUNTRY = { status: false, message: 'Country code is required' };

/**
 * The checkout page's views: `GET /checkout/get-country-info`, `get-available-shipping-methods`,
 * `get-shipping-methods-list-view` (public), and `GET /customers/{customerAddressId}/update-address-select` (portal).
 */
describe('checkout views', () => {
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let stranger: TestUser;
  let aliceId: number;
  let bobId: number;
  /** Methods of the California zone and of the Germany zone. */
  const ids = { standard: 0, perItem: 0, free: 0, hostile: 0, dhl: 0 };
  /** A physical variation at 40.00 and a digital one. */
  let shirt: number;
  let ebook: number;

  const db = () => app.host.db;

  async function customer(user: TestUser, first_name: string): Promise<number> {
    const [id] = await db()('store_customers').insert({
      user_id: user.user.id,
      email: user.user.email,
      first_name,
      last_name: 'Doe',
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      notes: '',
      created_at: NOW,
      updated_at: NOW,
    });
    return Number(id);
  }

  async function variation(price: number, fulfillment_type: 'physical' | 'digital'): Promise<number> {
    const product = await createProduct(app.ctx(), {
      title: `Product ${price} ${fulfillment_type}`,
      status: 'publish',
      fulfillment_type,
      variations: [{ title: 'Default', price, sku: `SKU-${crypto.randomInt(1e9)}` }],
    } as Parameters<typeof createProduct>[1]);
    return product.variations[0].id;
  }

  async function method(zone_id: number, over: Record<string, unknown>): Promise<number> {
    return (await createMethod(app.ctx(), { zone_id, ...over } as Parameters<typeof createMethod>[1])).id;
  }

  /** A cart row (the cart API's own tests cover how carts are filled). */
  async function cart(over: { items?: CartData['items']; checkout?: CheckoutData; user?: TestUser; stage?: string } = {}) {
    const row = await insertCart(db(), { user_id: over.user?.user.id ?? null, customer_id: null, now: NOW, expires_at: TOMORROW });
    await updateCart(db(), row.id, { data: { items: over.items ?? [], coupons: [] }, checkout: over.checkout ?? {}, now: NOW });
    if (over.stage) await db()('store_carts').where({ id: row.id }).update({ stage: over.stage });
    return row;
  }

  const checkoutOf = async (cartId: number) => JSON.parse((await db()('store_carts').where({ id: cartId }).first()).checkout_data);

  beforeAll(async () => {
    app = await startTestApp();
    alice = await app.createUser('alice', ['customer']);
    bob = await app.createUser('bob', ['customer']);
    stranger = await app.createUser('stranger', ['customer']);
    aliceId = await customer(alice, 'Alice');
    bobId = await customer(bob, 'Bob');

    const california = await createZone(app.ctx(), { name: 'California', countries: ['US'], states: ['US:CA'] } as Parameters<typeof createZone>[1]);
    ids.standard = await method(california.id, { title: 'Standard', charge_type: 'flat_rate', charge_amount: 500, position: 1 });
    ids.perItem = await method(california.id, { title: 'Per item', charge_type: 'per_item', charge_amount: 200, position: 2 });
    ids.free = await method(california.id, { title: 'Free over 100', charge_type: 'free', free_above: 10000, position: 3 });
    await method(california.id, { title: 'Retired', charge_type: 'flat_rate', charge_amount: 100, status: 'inactive', position: 4 });
    const germany = await createZone(app.ctx(), { name: 'Germany', countries: ['DE'] } as Parameters<typeof createZone>[1]);
    ids.dhl = await method(germany.id, { title: 'DHL Paket', charge_type: 'flat_rate', charge_amount: 123456 });
    const japan = await createZone(app.ctx(), { name: 'Japan', countries: ['JP'] } as Parameters<typeof createZone>[1]);
    ids.hostile = await method(japan.id, { title: '<script>alert("x")</script>', charge_type: 'flat_rate', charge_amount: 700 });

    shirt = await variation(4000, 'physical');
    ebook = await variation(1500, 'digital');
  });
  afterAll(() => app.close());

  describe('GET /checkout/get-country-info', () => {
    const info = (query: string) => app.http.get(`${BASE}/checkout/get-country-info${query}`);

    it.each([
      [
        'US',
        62,
        { label: 'California', value: 'CA' },
        { state: { label: 'State', required: true }, postcode: { label: 'ZIP Code', required: true }, city: { label: 'City', required: true } },
      ],
      [
        'CA',
        13,
        { label: 'Quebec', value: 'QC' },
        { state: { label: 'Province', required: true }, postcode: { label: 'Postcode', required: true }, city: { label: 'City', required: true } },
      ],
      [
        'DE',
        0,
        null,
        { state: { label: 'Province', required: false }, postcode: { label: 'Postcode', required: true }, city: { label: 'City', required: true } },
      ],
      [
        'GB',
        0,
        null,
        { state: { label: 'Province', required: false }, postcode: { label: 'Postcode', required: true }, city: { label: 'Post Town', required: true } },
      ],
      [
        'JP',
        47,
        { label: 'Tokyo', value: '13' },
        { state: { label: 'Prefecture', required: true }, postcode: { label: 'Postcode', required: true }, city: { label: 'City', required: false } },
      ],
    ])('country_code=%s: its states (label, value) and the labels and required flags of state, postcode and city', async (code, count, state, locale) => {
      const res = await info(`?country_code=${code}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { country_code: code, states: expect.any(Array), address_locale: locale } });
      expect(res.body.data.states).toHaveLength(count);
      if (state) expect(res.body.data.states).toContainEqual(state);
    });

    it('a country code in lower case is the same country', async () => {
      expect((await info('?country_code=jp')).body.data.country_code).toBe('JP');
    });

    it.each([
      ['America/Los_Angeles', 'US'],
      ['Europe/Berlin', 'DE'],
      ['Europe/London', 'GB'],
      ['Asia/Tokyo', 'JP'],
      ['America/Toronto', 'CA'],
      ['america/new_york', 'US'],
      ['Asia/Calcutta', 'IN'],
    ])('timezone=%s alone: the country of the time zone (%s)', async (timezone, code) => {
      const res = await info(`?timezone=${encodeURIComponent(timezone)}`);
      expect(res.status).toBe(200);
      expect(res.body.data.country_code).toBe(code);
    });

    it('both: the country code wins over the time zone', async () => {
      const res = await info('?country_code=DE&timezone=Asia%2FTokyo');
      expect(res.body.data).toMatchObject({ country_code: 'DE', states: [] });
    });

    it.each([
      ['neither', ''],
      ['empty values', '?country_code=&timezone='],
      ['a time zone of no country', '?timezone=UTC'],
    ])('%s: 422 Country code is required', async (_name, query) => {
      const res = await info(query);
      expect([res.status, res.body]).toEqual([422, NO_COUNTRY]);
    });

    it.each([
      ['?country_code=XX', 'country_code', 'country', 'The country code must be an ISO 3166-1 alpha-2 code such as US.'],
      ['?country_code=USA', 'country_code', 'country', 'The country code must be an ISO 3166-1 alpha-2 code such as US.'],
      ['?timezone=Mars%2FOlympus_Mons', 'timezone', 'timezone', 'The timezone must be an IANA time zone such as Europe/Berlin.'],
      ['?timezone=constructor', 'timezone', 'timezone', 'The timezone must be an IANA time zone such as Europe/Berlin.'],
      ['?timezone=toString', 'timezone', 'timezone', 'The timezone must be an IANA time zone such as Europe/Berlin.'],
      ['?country_code=ABCDEFGHIJK', 'country_code', 'max', 'The country code field must not be greater than 10 characters.'],
    ])('unknown %s: 422 in the checkout envelope', async (query, field, rule, message) => {
      const res = await info(query);
      expect([res.status, res.body]).toEqual([422, { status: 'failed', errors: { [field]: { [rule]: message } } }]);
    });
  });

  describe('GET /checkout/get-available-shipping-methods', () => {
    const available = (query: string, cookie?: string) => {
      const req = app.http.get(`${BASE}/checkout/get-available-shipping-methods${query}`);
      return cookie ? req.set('Cookie', cookie) : req;
    };
    const offered = (body: { available_shipping_methods: Array<{ id: number; shipping_charge: number }> }) =>
      body.available_shipping_methods.map((m) => [m.id, m.shipping_charge]);

    it("lists the destination zone's active methods as the spec's shipping method, with what they cost", async () => {
      const res = await available('?country_code=US&state=CA');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ available_shipping_methods: expect.any(Array), country_code: 'US' });
      expect(res.body.available_shipping_methods[0]).toMatchObject({
        id: ids.standard,
        title: 'Standard',
        charge_type: 'flat_rate',
        charge_amount: 500,
        status: 'active',
        countries: ['US'],
        states: ['CA'],
        shipping_charge: 500,
      });
      // No cart: priced for one unit worth nothing, so the free method's threshold is not met.
      expect(offered(res.body)).toEqual([
        [ids.standard, 500],
        [ids.perItem, 200],
      ]);
    });

    it('the state may be sent by name and in any case; a timezone names the country', async () => {
      for (const query of ['?country_code=us&state=california', '?timezone=America%2FLos_Angeles&state=ca']) {
        const res = await available(query);
        expect([query, res.status, offered(res.body)]).toEqual([
          query,
          200,
          [
            [ids.standard, 500],
            [ids.perItem, 200],
          ],
        ]);
      }
    });

    it('a state the country does not list is a 422; a country without states ignores the state', async () => {
      const bad = await available('?country_code=US&state=ZZ');
      expect([bad.status, bad.body]).toEqual([
        422,
        { status: 'failed', errors: { state: { in: 'The state must be one of the state codes of US, such as AL.' } } },
      ]);
      const germany = await available('?country_code=DE&state=Bavaria');
      expect(offered(germany.body)).toEqual([[ids.dhl, 123456]]);
    });

    it('priced for the cart when one is known (query or cookie): per-item charges and the free threshold follow its lines', async () => {
      const { cart_hash } = await cart({
        items: [
          { variation_id: shirt, quantity: 3 },
          { variation_id: ebook, quantity: 5 },
        ],
      });
      const expected = [
        [ids.standard, 500],
        [ids.perItem, 600],
        [ids.free, 0],
      ];
      expect(offered((await available(`?country_code=US&state=CA&fct_cart_hash=${cart_hash}`)).body)).toEqual(expected);
      expect(offered((await available('?country_code=US&state=CA', `fct_cart_hash=${cart_hash}`)).body)).toEqual(expected);
      // an unknown hash is no cart
      expect(offered((await available(`?country_code=US&state=CA&fct_cart_hash=${'0'.repeat(32)}`)).body)).toHaveLength(2);
    });

    it('the store/shipping/available_methods filter has the last word', async () => {
      const off = app.host.hooks.addFilter('store/shipping/available_methods', (methods) => methods.filter((m) => m.id !== ids.standard));
      try {
        expect(offered((await available('?country_code=US&state=CA')).body)).toEqual([[ids.perItem, 200]]);
      } finally {
        off();
      }
    });

    it.each([
      ['a country no zone covers', '?country_code=FR', 'FR', 'France'],
      ['a state outside the zone', '?country_code=US&state=NY', 'US', 'United States of America'],
    ])('none available (%s): HTTP 200 {status: false, country_code, view}', async (_name, query, code, name) => {
      const res = await available(query);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: false, country_code: code, view: expect.stringContaining(`No shipping methods are available for ${name}.`) });
      expect(res.body.view).toContain('data-fct-shipping-methods');
    });

    it('no country: 422 Country code is required', async () => {
      const res = await available('?state=CA');
      expect([res.status, res.body]).toEqual([422, NO_COUNTRY]);
    });
  });

  describe('GET /checkout/get-shipping-methods-list-view', () => {
    const listView = (query: string) => app.http.get(`${BASE}/checkout/get-shipping-methods-list-view${query}`);
    const radios = (view: string) =>
      [...view.matchAll(/<input type="radio" name="fc_selected_shipping_method" value="(\d+)"( checked)?>/g)].map((m) => [Number(m[1]), !!m[2]]);

    it('{data: {status: true, view, country_code}}: a radio input per method with its charge written the store way, the first checked', async () => {
      const res = await listView('?country_code=US&state=CA');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { status: true, view: expect.any(String), country_code: 'US' } });
      const { view } = res.body.data;
      expect(radios(view)).toEqual([
        [ids.standard, true],
        [ids.perItem, false],
      ]);
      expect(view).toContain('<span class="fct-shipping-method-title">Standard</span>');
      expect(view).toContain('<span class="fct-shipping-method-charge">$5.00</span>');
      expect(view).toContain('<span class="fct-shipping-method-charge">$2.00</span>');
    });

    it("the cart's chosen method is checked; a free charge reads Free", async () => {
      const { cart_hash } = await cart({ items: [{ variation_id: shirt, quantity: 3 }], checkout: { shipping_method_id: ids.free } });
      const { view } = (await listView(`?country_code=US&state=CA&fct_cart_hash=${cart_hash}`)).body.data;
      expect(radios(view)).toEqual([
        [ids.standard, false],
        [ids.perItem, false],
        [ids.free, true],
      ]);
      expect(view).toContain('<span class="fct-shipping-method-charge">Free</span>');
    });

    it("charges follow the store's currency and format settings", async () => {
      await app.host.options.set('store_settings', { currency: 'EUR', currency_position: 'after_space', thousand_separator: '.', decimal_separator: ',' });
      try {
        const { view } = (await listView('?country_code=DE')).body.data;
        expect(view).toContain('<span class="fct-shipping-method-charge">1.234,56 €</span>');
        await app.host.options.set('store_settings', { currency: 'JPY', currency_position: 'before', thousand_separator: ',', decimal_separator: '.' });
        expect((await listView('?country_code=DE')).body.data.view).toContain('<span class="fct-shipping-method-charge">¥123,456</span>');
      } finally {
        await app.host.options.delete('store_settings');
      }
    });

    it('method titles are escaped', async () => {
      const { view } = (await listView('?country_code=JP')).body.data;
      expect(view).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
      expect(view).not.toContain('<script');
    });

    it('errors as get-available-shipping-methods: none available, no country, unknown country', async () => {
      const none = await listView('?country_code=FR');
      expect([none.status, none.body]).toEqual([200, { status: false, country_code: 'FR', view: expect.stringContaining('France') }]);
      const neither = await listView('');
      expect([neither.status, neither.body]).toEqual([422, NO_COUNTRY]);
      expect((await listView('?country_code=XX')).body.errors).toHaveProperty('country_code');
    });
  });

  describe('GET /customers/{customerAddressId}/update-address-select', () => {
    const base: AddressInput = {
      type: 'shipping',
      name: 'Alice Doe',
      email: 'alice@example.com',
      address_1: '1 Market Street',
      city: 'San Francisco',
      state: 'CA',
      postcode: '94105',
      country: 'US',
      phone: '+1 415 555 0100',
      label: 'Home',
    };
    const address = async (customerId: number, over: Partial<AddressInput> = {}) => (await createAddress(app.ctx(), customerId, { ...base, ...over })).id;
    const select = (user: TestUser, addressId: number, query = '') => app.as(user).get(`${BASE}/customers/${addressId}/update-address-select${query}`);

    it('answers the address card and the fragments, and makes it the cart’s shipping address', async () => {
      const addressId = await address(aliceId);
      const row = await cart({ user: alice, items: [{ variation_id: shirt, quantity: 1 }], checkout: { billing_address_id: 7 } });
      const res = await select(alice, addressId, `?fct_cart_hash=${row.cart_hash}&with[]=customer`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Address Attached',
        data: expect.stringContaining('1 Market Street, SAN FRANCISCO, CA 94105, United States of America'),
        fragments: {
          '[data-fct-address-info="shipping"]': expect.stringContaining('data-fct-address-info="shipping"'),
          '[data-fct-shipping-methods]': expect.stringContaining('value="' + ids.standard + '" checked'),
        },
      });
      expect(res.body.data).toContain('<span class="fct-address-label">Home</span>');
      expect(res.body.data).toContain('<strong class="fct-address-name">Alice Doe</strong>');
      expect(res.body.data).toContain('<span class="fct-address-phone">+1 415 555 0100</span>');
      expect(res.body.fragments['[data-fct-address-info="shipping"]']).toContain(res.body.data);
      expect(await checkoutOf(row.id)).toEqual({ billing_address_id: 7, shipping_address_id: addressId });
    });

    it("a billing address is the cart's billing choice; the logged-in user's open cart is found without a hash", async () => {
      const billing = await address(aliceId, { type: 'billing', country: 'DE', state: '', postcode: '10115', city: 'Berlin', address_1: 'Unter den Linden 1' });
      const row = await cart({ user: alice, items: [{ variation_id: shirt, quantity: 1 }] });
      const res = await select(alice, billing);
      expect(res.status).toBe(200);
      expect(await checkoutOf(row.id)).toEqual({ billing_address_id: billing });
      // no shipping address chosen yet: the billing address is where the cart ships, so its methods come along
      expect(res.body.fragments['[data-fct-shipping-methods]']).toContain('DHL Paket');
      expect(Object.keys(res.body.fragments)).toEqual(['[data-fct-address-info="billing"]', '[data-fct-shipping-methods]']);
    });

    it('a destination without methods gets the none-available view; a cart with nothing to ship gets no shipping fragment', async () => {
      const paris = await address(aliceId, { country: 'FR', state: '', postcode: '75001', city: 'Paris', address_1: '1 Rue de Rivoli' });
      const physical = await cart({ items: [{ variation_id: shirt, quantity: 1 }] });
      const none = await select(alice, paris, `?fct_cart_hash=${physical.cart_hash}`);
      expect(none.body.fragments['[data-fct-shipping-methods]']).toContain('No shipping methods are available for France.');
      const digital = await cart({ items: [{ variation_id: ebook, quantity: 1 }] });
      const res = await select(alice, paris, `?fct_cart_hash=${digital.cart_hash}`);
      expect(Object.keys(res.body.fragments)).toEqual(['[data-fct-address-info="shipping"]']);
      expect(await checkoutOf(digital.id)).toEqual({ shipping_address_id: paris });
    });

    it('billing and shipping chosen at the same time both stay', async () => {
      const shipping = await address(aliceId);
      const billing = await address(aliceId, { type: 'billing' });
      const row = await cart();
      const answers = await Promise.all([
        select(alice, shipping, `?fct_cart_hash=${row.cart_hash}`),
        select(alice, billing, `?fct_cart_hash=${row.cart_hash}`),
      ]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      expect(await checkoutOf(row.id)).toEqual({ shipping_address_id: shipping, billing_address_id: billing });
    });

    it('a completed cart, or none, is left alone', async () => {
      const addressId = await address(aliceId);
      const done = await cart({ stage: 'completed' });
      const res = await select(alice, addressId, `?fct_cart_hash=${done.cart_hash}`);
      expect([res.status, res.body.message]).toEqual([200, 'Address Attached']);
      expect(Object.keys(res.body.fragments)).toEqual(['[data-fct-address-info="shipping"]']);
      expect(await checkoutOf(done.id)).toEqual({});
    });

    it('text from the address is escaped', async () => {
      const addressId = await address(aliceId, { name: '<img src=x onerror=alert(1)>', label: '<b>x</b>' });
      const res = await select(alice, addressId);
      expect(res.body.data).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(res.body.data).toContain('&lt;b&gt;x&lt;/b&gt;');
      expect(res.body.data).not.toContain('<img');
    });

    it("404 Address not found; 403 for another customer's address or a user without a customer record; 401 anonymous; nothing stored", async () => {
      const bobs = await address(bobId);
      const row = await cart({ user: alice });
      const missing = await select(alice, 999999, `?fct_cart_hash=${row.cart_hash}`);
      expect([missing.status, missing.body]).toEqual([404, { message: 'Address not found' }]);
      const foreign = await select(alice, bobs, `?fct_cart_hash=${row.cart_hash}`);
      expect([foreign.status, foreign.body]).toEqual([403, { message: 'You are not authorized to view this address' }]);
      const noRecord = await select(stranger, bobs);
      expect([noRecord.status, noRecord.body]).toEqual([403, { message: 'You are not authorized to view this address' }]);
      const anonymous = await app.http.get(`${BASE}/customers/${bobs}/update-address-select`);
      expect(anonymous.status).toBe(401);
      expect(await checkoutOf(row.id)).toEqual({});
    });

    it('a malformed id is a 422 in the portal envelope', async () => {
      const res = await select(alice, 0);
      expect([res.status, Object.keys(res.body.errors)]).toEqual([422, ['customerAddressId']]);
    });
  });
});
