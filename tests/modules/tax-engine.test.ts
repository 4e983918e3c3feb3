/**
 * The tax engine behind `store/order/tax`, over HTTP: every pricing (admin `POST /orders` and `POST /orders/{id}`,
 * `GET /cart`, the checkout summary, place-order) carries the tax of the rates, classes and category overrides stored
 * in the database, for the address the store's `tax_based_on` names. The tax settings are changed through
 * `PUT /settings/store`; rates, classes and overrides are inserted as rows (their own endpoints are tested elsewhere).
 */
import { presentOrderItem } from '../../src/modules/order-records/presenter';
import type { OrderTax, OrderTaxContext } from '../../src/modules/orders/totals';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm, NOW } from '../support/checkout';

describe('tax engine (store/order/tax)', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let caState: number;
  let laCity: number;
  let reducedClass: number;
  /** The one US shipping method (a destination falls in one zone): 10.00. */
  let usMethod: number;

  const db = () => app.host.db;
  const stamp = { created_at: NOW, updated_at: NOW };
  const insertRate = async (row: Record<string, unknown>) => Number((await db()('store_tax_rates').insert({ ...row, ...stamp }))[0]);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('tax-admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true } });
    reducedClass = Number((await db()('store_tax_classes').insert({ title: 'Reduced', slug: 'reduced', meta: '[]', ...stamp }))[0]);
    caState = await insertRate({ country: 'US', state: 'CA', rate: '7.2500', name: 'CA State', priority: 1 });
    laCity = await insertRate({ country: 'US', state: 'CA', city: 'Los Angeles', rate: '1.0000', name: 'LA City', priority: 2 });
    await insertRate({ country: 'US', state: 'CA', class_id: reducedClass, rate: '0.5000', name: 'CA Reduced', priority: 3 });
    await insertRate({ country: 'DE', rate: '19.0000', name: 'MwSt' });
    usMethod = await fx.shippingMethod({ title: 'Courier', charge_amount: 1000 }, ['US']);
  });
  afterAll(() => app.close());

  afterEach(async () => {
    await fx.storeSettings({
      tax_enabled: true,
      prices_include_tax: false,
      tax_based_on: 'shipping',
      tax_rounding: 'line',
      store_state: '',
      store_city: '',
      store_postcode: '',
    });
    await app.host.options.set('tax_country_status', {});
  });

  const createOrder = async (body: Record<string, unknown>) => {
    const res = await app.as(admin).post(`${BASE}/orders`).send(body);
    expect(res.status).toBe(200);
    return res.body.order_id as number;
  };
  const orderRow = async (id: number) => (await db()('store_orders').where({ id }).first()) as Record<string, unknown>;
  const itemsOf = async (id: number) =>
    ((await db()('store_order_items').where({ order_id: id }).orderBy('cart_index')) as Array<Record<string, unknown>>).map(presentOrderItem);
  const taxOf = async (id: number) => {
    const row = await orderRow(id);
    return {
      tax_total: Number(row.tax_total),
      shipping_tax: Number(row.shipping_tax),
      tax_behavior: Number(row.tax_behavior),
      total_amount: Number(row.total_amount),
      tax_data: row.tax_data === null ? null : JSON.parse(String(row.tax_data)),
    };
  };
  const caShare = (order_tax: number, shipping_tax: number) => ({
    tax_rate_id: caState,
    name: 'CA State',
    rate: '7.2500',
    country: 'US',
    state: 'CA',
    is_compound: 0,
    order_tax,
    shipping_tax,
  });
  const laShare = (order_tax: number, shipping_tax: number) => ({
    tax_rate_id: laCity,
    name: 'LA City',
    rate: '1.0000',
    country: 'US',
    state: 'CA',
    is_compound: 0,
    order_tax,
    shipping_tax,
  });

  /** A customer billed in Los Angeles (90001) and shipped to in San Diego (92101). */
  const customer = () => fx.customer({ address: true });
  const shipping = (cents: number) => [{ type: 'custom', rate_name: 'Courier', custom_price: cents }];

  describe('POST /orders', () => {
    it('adds exclusive tax per line and on shipping, for the shipping address; exempt lines pay none; the breakdown is stored', async () => {
      const mug = await fx.variation(10000);
      const exempt = await fx.variation(1999, { variation: { tax_class: 'tax_exempt' } });
      const id = await createOrder({
        customer_id: await customer(),
        order_items: [
          { id: mug.id, quantity: 1 },
          { id: exempt.id, quantity: 1 },
        ],
        shipping: shipping(1000),
      });
      // San Diego: the state rate only; shipping 1000 × 7.25% = 72.5 → 73
      expect(await taxOf(id)).toEqual({
        tax_total: 725,
        shipping_tax: 73,
        tax_behavior: 1,
        total_amount: 10000 + 1999 + 1000 + 725 + 73,
        tax_data: { rates: [caShare(725, 73)], tax_country: 'US' },
      });
      expect((await itemsOf(id)).map((item) => [item.tax_amount, item.line_total])).toEqual([
        [725, 10725],
        [0, 1999],
      ]);
    });

    it('takes the coupon off before tax', async () => {
      const mug = await fx.variation(10000);
      const coupon = await fx.coupon({ type: 'fixed', amount: 1000 });
      const id = await createOrder({
        customer_id: await customer(),
        order_items: [{ id: mug.id, quantity: 1 }],
        applied_coupon: [{ coupon_id: coupon.id, code: coupon.code, discounted_amount: 0, stackable: 1 }],
      });
      // 9000 × 7.25% = 652.5 → 653
      expect(await taxOf(id)).toMatchObject({ tax_total: 653, total_amount: 9000 + 653 });
    });

    it('tax_based_on billing: the Los Angeles billing address adds the city rate; store: the store address', async () => {
      const mug = await fx.variation(10000);
      const body = { customer_id: await customer(), order_items: [{ id: mug.id, quantity: 1 }], shipping: shipping(1000) };

      await fx.storeSettings({ tax_based_on: 'billing' });
      // shipping: 72.5 → 73 at the state rate, 10 at the city rate
      expect(await taxOf(await createOrder(body))).toEqual({
        tax_total: 825,
        shipping_tax: 83,
        tax_behavior: 1,
        total_amount: 10000 + 1000 + 825 + 83,
        tax_data: { rates: [caShare(725, 73), laShare(100, 10)], tax_country: 'US' },
      });

      await fx.storeSettings({ tax_based_on: 'store', store_state: 'NV', store_city: 'Reno', store_postcode: '89501' });
      expect(await taxOf(await createOrder(body))).toEqual({ tax_total: 0, shipping_tax: 0, tax_behavior: 0, total_amount: 11000, tax_data: null });

      await fx.storeSettings({ store_state: 'CA', store_city: 'Los Angeles', store_postcode: '90012' });
      expect(await taxOf(await createOrder(body))).toMatchObject({ tax_total: 825, shipping_tax: 83 });
    });

    it('without any address the store address decides', async () => {
      const mug = await fx.variation(10000);
      await fx.storeSettings({ store_state: 'CA', store_city: 'San Jose', store_postcode: '95113' });
      expect(await taxOf(await createOrder({ customer_id: await fx.customer(), order_items: [{ id: mug.id, quantity: 1 }] }))).toMatchObject({
        tax_total: 725,
        total_amount: 10725,
      });
    });

    it('prices with tax in them: the tax is reported, not added (tax_behavior 2)', async () => {
      await fx.storeSettings({ prices_include_tax: true });
      const mug = await fx.variation(10725);
      const id = await createOrder({ customer_id: await customer(), order_items: [{ id: mug.id, quantity: 1 }], shipping: shipping(1000) });
      // 10725 × 7.25 / 107.25 = 725; shipping 1000 × 7.25 / 107.25 = 67.6 → 68
      expect(await taxOf(id)).toEqual({
        tax_total: 725,
        shipping_tax: 68,
        tax_behavior: 2,
        total_amount: 11725,
        tax_data: { rates: [caShare(725, 68)], tax_country: 'US' },
      });
      expect((await itemsOf(id))[0]).toMatchObject({ tax_amount: 725, line_total: 10725 });
    });

    it('rounds per order with tax_rounding total', async () => {
      const order_items = [];
      for (let i = 0; i < 3; i++) order_items.push({ id: (await fx.variation(1010)).id, quantity: 1 });
      const body = { customer_id: await customer(), order_items };
      // each line 73.225: per line 73 × 3 = 219; per order 219.675 → 220
      expect((await taxOf(await createOrder(body))).tax_total).toBe(219);
      await fx.storeSettings({ tax_rounding: 'total' });
      const id = await createOrder(body);
      expect((await taxOf(id)).tax_total).toBe(220);
      expect((await itemsOf(id)).map((item) => item.tax_amount)).toEqual([74, 73, 73]);
    });

    it("reads the classes and the category overrides: a reduced line adds its class's rate, an overridden category pays the override", async () => {
      const reduced = await fx.variation(10000, { variation: { tax_class: 'reduced' } });
      const book = await fx.variation(10000);
      const category = Number((await db()('store_product_categories').insert({ name: 'Books', slug: 'books-tax', ...stamp }))[0]);
      await db()('store_product_category_relations').insert({ product_id: book.product_id, category_id: category });
      const overrideId = Number(
        (
          await db()('store_meta').insert({
            object_type: 'tax_override',
            object_id: category,
            meta_key: 'product_category_override',
            meta_value: JSON.stringify({
              country: 'US',
              state: 'CA',
              city: '',
              postcode: '',
              category_id: category,
              category_name: 'Books',
              tax_label: 'Book tax',
              override_state_tax: 'yes',
              rate: '2.5',
              class_id: 0,
            }),
            ...stamp,
          })
        )[0],
      );
      const id = await createOrder({
        customer_id: await customer(),
        order_items: [
          { id: reduced.id, quantity: 1 },
          { id: book.id, quantity: 1 },
        ],
      });
      // reduced: 725 + 0.5% = 50; book: 2.5% instead of every rate
      expect((await itemsOf(id)).map((item) => item.tax_amount)).toEqual([775, 250]);
      expect((await taxOf(id)).tax_data.rates).toEqual([
        caShare(725, 0),
        expect.objectContaining({ name: 'CA Reduced', order_tax: 50 }),
        {
          tax_rate_id: null,
          override_id: overrideId,
          name: 'Book tax',
          rate: '2.5',
          country: 'US',
          state: 'CA',
          is_compound: 0,
          order_tax: 250,
          shipping_tax: 0,
        },
      ]);
    });

    it('no tax for a country whose collection is off, nor with tax_enabled false', async () => {
      const mug = await fx.variation(10000);
      const body = { customer_id: await customer(), order_items: [{ id: mug.id, quantity: 1 }], shipping: shipping(1000) };
      const untaxed = { tax_total: 0, shipping_tax: 0, tax_behavior: 0, total_amount: 11000, tax_data: null };

      await app.host.options.set('tax_country_status', { US: 0, DE: 1 });
      expect(await taxOf(await createOrder(body))).toEqual(untaxed);

      await app.host.options.set('tax_country_status', { US: 1 });
      await fx.storeSettings({ tax_enabled: false });
      expect(await taxOf(await createOrder(body))).toEqual(untaxed);
    });

    it('answers before the default priority: an extension filter sees the engine’s tax and may change it', async () => {
      const mug = await fx.variation(10000);
      const seen: OrderTax[] = [];
      const off = app.host.hooks.addFilter('store/order/tax', (tax: OrderTax, _context: OrderTaxContext) => {
        seen.push(tax);
        return { ...tax, tax_total: 0, lines: tax.lines?.map((line) => ({ ...line, tax_amount: 0 })), rates: [] };
      });
      const id = await createOrder({ customer_id: await customer(), order_items: [{ id: mug.id, quantity: 1 }] });
      off();
      expect(seen).toEqual([expect.objectContaining({ tax_total: 725, lines: [{ cart_index: 0, tax_amount: 725 }], tax_country: 'US' })]);
      expect(await taxOf(id)).toMatchObject({ tax_total: 0, total_amount: 10000 });
    });
  });

  describe('POST /orders/{order_id}', () => {
    it('prices the edited order again', async () => {
      const mug = await fx.variation(10000);
      const customerId = await customer();
      const id = await createOrder({ customer_id: customerId, order_items: [{ id: mug.id, quantity: 1 }] });
      const [item] = await itemsOf(id);
      const res = await app
        .as(admin)
        .post(`${BASE}/orders/${id}`)
        .send({ customer_id: customerId, order_items: [{ id: item.id, variation_id: mug.id, quantity: 2 }] });
      expect(res.status).toBe(200);
      expect(await taxOf(id)).toEqual({
        tax_total: 1450,
        shipping_tax: 0,
        tax_behavior: 1,
        total_amount: 21450,
        tax_data: { rates: [caShare(1450, 0)], tax_country: 'US' },
      });
      expect((await itemsOf(id))[0]).toMatchObject({ quantity: 2, tax_amount: 1450, line_total: 21450 });
    });
  });

  describe('cart and checkout', () => {
    it("GET /cart shows the tax for the store's address", async () => {
      await fx.storeSettings({ store_state: 'CA', store_city: 'Los Angeles', store_postcode: '90012' });
      const hash = await fx.cartWith([[(await fx.variation(10000)).id, 1]]);
      const res = await app.http.get(`${BASE}/cart`).set('Cookie', `fct_cart_hash=${hash}`);
      expect(res.status).toBe(200);
      expect(res.body.cart).toMatchObject({ subtotal: 10000, tax_total: 825, total_amount: 10825, formatted: { total: '$108.25' } });
    });

    it('GET /checkout/get-checkout-summary-view shows the tax of the saved address the checkout chose', async () => {
      const buyer = await app.createUser('tax-buyer');
      const browser = app.browser();
      await browser.login('tax-buyer', buyer.password);
      const address = await browser.call('post', `${BASE}/customer-profile/create-address`).send({
        type: 'shipping',
        name: 'Bea Buyer',
        address_1: '1 Main St',
        city: 'Los Angeles',
        state: 'CA',
        postcode: '90012',
        country: 'US',
        email: 'buyer@example.com',
      });
      expect(address.status).toBe(200);
      await fx.cartWith([[(await fx.variation(10000)).id, 1]], browser);
      const cart = await db()('store_carts').where({ user_id: buyer.user.id }).first('id');
      await db()('store_carts')
        .where({ id: cart.id })
        .update({ checkout_data: JSON.stringify({ shipping_address_id: address.body.data.is_created.id, shipping_method_id: usMethod }) });

      const res = await browser.call('get', `${BASE}/checkout/get-checkout-summary-view`);
      expect(res.status).toBe(200);
      // goods 725 + 100, shipping 73 + 10
      expect(res.body.items).toMatchObject({ shipping_charge: 1000, unformatted_total: 10000 + 1000 + 825 + 83, total: '$119.08' });
      expect(res.body.items.views).toContain('<dd data-fct-summary="tax">$9.08</dd>');
    });

    it('POST /checkout/place-order writes the tax on the order, its items and its tax_data', async () => {
      const hash = await fx.cartWith([[(await fx.variation(10000)).id, 1]]);
      const res = await fx.place(hash, guestForm({ fc_selected_shipping_method: usMethod }));
      expect(res.status).toBe(200);
      const order = await fx.orderOfCart(hash);
      const id = Number(order.id);
      // San Francisco: the state rate; shipping 1000 × 7.25% = 72.5 → 73
      expect(await taxOf(id)).toEqual({
        tax_total: 725,
        shipping_tax: 73,
        tax_behavior: 1,
        total_amount: 10000 + 1000 + 725 + 73,
        tax_data: { rates: [caShare(725, 73)], tax_country: 'US' },
      });
      expect((await itemsOf(id))[0]).toMatchObject({ tax_amount: 725, line_total: 10725 });
    });

    it('place-order to a country that is not taxed writes no tax', async () => {
      await app.host.options.set('tax_country_status', { US: 0 });
      const hash = await fx.cartWith([[(await fx.variation(10000)).id, 1]]);
      expect((await fx.place(hash, guestForm({ fc_selected_shipping_method: usMethod }))).status).toBe(200);
      expect(await taxOf(Number((await fx.orderOfCart(hash)).id))).toEqual({
        tax_total: 0,
        shipping_tax: 0,
        tax_behavior: 0,
        total_amount: 11000,
        tax_data: null,
      });
    });
  });
});
