/**
 * `GET /checkout/get-checkout-summary-view` and `GET /checkout/get-order-info` (PublicPolicy, checkout envelope).
 */
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, testGateway, type TestGateway } from '../support/checkout';

describe('checkout summary and order info', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let gateway: TestGateway;
  /** One zone per country: a destination falls in one zone. */
  let german: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    gateway = testGateway();
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, gateway]);
    german = await fx.shippingMethod({ title: 'DHL', charge_amount: 900 }, ['DE']);
  });
  afterAll(() => app.close());

  const summary = (hash: string | null, query = '') => {
    const call = app.http.get(`${BASE}/checkout/get-checkout-summary-view${query}`);
    return hash ? call.set('Cookie', `fct_cart_hash=${hash}`) : call;
  };

  describe('GET /checkout/get-checkout-summary-view', () => {
    afterEach(() => fx.storeSettings({ currency: 'USD', currency_position: 'before', thousand_separator: ',', decimal_separator: '.', store_country: 'US' }));

    it('without a cart: an empty summary, every amount 0', async () => {
      const res = await summary(null);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: {
          views: expect.stringContaining('Your cart is empty.'),
          subtotal: '$0.00',
          has_subscriptions: false,
          shipping_charge: 0,
          unformatted_total: 0,
          total: '$0.00',
          shipping_charge_formated: '$0.00',
          shipping_method_id: '',
        },
      });
    });

    it("the cart priced with the query's shipping method for the store's country; the lines in escaped HTML", async () => {
      const method = await fx.shippingMethod({ title: 'Courier', charge_amount: 750 }, ['US']);
      const hostile = await fx.variation(1250, { title: '<script>alert(1)</script>', variation: { title: 'Red & Blue' } });
      const coupon = await fx.coupon({ type: 'fixed', amount: 250 });
      const hash = await fx.cartWith([[hostile.id, 2]]);
      await app.http.post(`${BASE}/cart/coupons`).set('Cookie', `fct_cart_hash=${hash}`).send({ code: coupon.code }).expect(200);

      const res = await summary(hash, `?shipping_method_id=${method}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual({
        views: expect.any(String),
        subtotal: '$25.00',
        has_subscriptions: false,
        shipping_charge: 750,
        unformatted_total: 3000,
        total: '$30.00',
        shipping_charge_formated: '$7.50',
        shipping_method_id: String(method),
      });
      const html = res.body.items.views as string;
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; - Red &amp; Blue');
      expect(html).toContain('<span class="fct-summary-item-quantity">&times; 2</span>');
      expect(html).toContain('<dd data-fct-summary="discount">-$2.50</dd>');
      expect(html).toContain('<dd data-fct-summary="shipping">$7.50</dd>');
      expect(html).toContain('<dd data-fct-summary="total">$30.00</dd>');

      const without = await summary(hash);
      expect(without.body.items).toMatchObject({ shipping_charge: 0, unformatted_total: 2250, shipping_method_id: '' });
    });

    it("without a saved address (a guest types it in), the method chosen from its country's list is priced for that country", async () => {
      const hash = await fx.cartWith([[(await fx.variation(1000)).id, 1]]);
      const res = await summary(hash, `?shipping_method_id=${german}`);
      expect(res.status).toBe(200);
      expect(res.body.items).toMatchObject({
        shipping_charge: 900,
        unformatted_total: 1900,
        shipping_charge_formated: '$9.00',
        shipping_method_id: String(german),
      });
    });

    it('an unknown method is a 422 on shipping_method', async () => {
      const hash = await fx.cartWith([[(await fx.variation(1000)).id, 1]]);
      const res = await summary(hash, '?shipping_method_id=999999');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        status: 'failed',
        errors: { shipping_method: { invalid: 'The selected shipping method is not available for this address.' } },
      });
    });

    it("prices shipping for the saved address the cart's checkout chose", async () => {
      const buyer = await app.createUser('buyer');
      const browser = app.browser();
      await browser.login('buyer', buyer.password);
      const address = await browser
        .call('post', `${BASE}/customer-profile/create-address`)
        .send({ type: 'shipping', name: 'Bea Buyer', address_1: 'Hauptstr. 1', city: 'Berlin', postcode: '10115', country: 'DE', email: 'buyer@example.com' });
      expect([address.status, address.body.message]).toEqual([200, expect.any(String)]);
      await fx.cartWith([[(await fx.variation(1000)).id, 1]], browser);
      const cart = await app.host.db('store_carts').where({ user_id: buyer.user.id }).first('id');
      await app.host
        .db('store_carts')
        .where({ id: cart.id })
        .update({ checkout_data: JSON.stringify({ shipping_address_id: address.body.data.is_created.id, shipping_method_id: german }) });

      const res = await browser.call('get', `${BASE}/checkout/get-checkout-summary-view`);
      expect(res.status).toBe(200);
      expect(res.body.items).toMatchObject({ shipping_charge: 900, unformatted_total: 1900, shipping_method_id: String(german) });

      // a method not offered at that address is a 422 on shipping_method
      const american = await fx.shippingMethod({ title: 'USPS', charge_amount: 400 }, ['US']);
      const refused = await browser.call('get', `${BASE}/checkout/get-checkout-summary-view?shipping_method_id=${american}`);
      expect([refused.status, refused.body]).toEqual([
        422,
        { status: 'failed', errors: { shipping_method: { invalid: 'The selected shipping method is not available for this address.' } } },
      ]);
    });

    it("formats with the store's currency settings and the currency's own decimals", async () => {
      const hash = await fx.cartWith([[(await fx.variation(123450, { fulfillment_type: 'digital' })).id, 1]]);
      await fx.storeSettings({ currency: 'EUR', currency_position: 'after_space', thousand_separator: '.', decimal_separator: ',' });
      expect((await summary(hash)).body.items).toMatchObject({ subtotal: '1.234,50 €', total: '1.234,50 €', unformatted_total: 123450 });
      await fx.storeSettings({ currency: 'JPY', currency_position: 'before', thousand_separator: ',', decimal_separator: '.' });
      expect((await summary(hash)).body.items).toMatchObject({ subtotal: '¥123,450', total: '¥123,450' });
    });

    it('flags subscriptions', async () => {
      const plan = await fx.variation(900, { fulfillment_type: 'digital', variation: { payment_type: 'subscription', billing_interval: 'monthly' } });
      const hash = await fx.cartWith([[plan.id, 1]]);
      expect((await summary(hash)).body.items.has_subscriptions).toBe(true);
    });
  });

  describe('GET /checkout/get-order-info', () => {
    const info = (query: string) => app.http.get(`${BASE}/checkout/get-order-info${query}`);
    const notOffered = { status: 'failed', errors: { method: { in: 'The selected payment method is not available.' } } };

    it('method is required', async () => {
      const res = await info('');
      expect([res.status, res.body]).toEqual([422, { status: 'failed', errors: { method: { required: 'The method field is required.' } } }]);
    });

    it('a method that is unknown, switched off or never offered to shoppers is a 422 on method', async () => {
      for (const method of ['bitcoin', 'cod', 'manual', 'free']) {
        const res = await info(`?method=${method}`);
        expect([method, res.status, res.body]).toEqual([method, 422, notOffered]);
      }
    });

    it("answers the gateway's own order info; a gateway that needs none answers an empty success", async () => {
      expect((await info('?method=testpay')).body).toEqual({
        status: 'success',
        message: 'ready',
        data: { key: 'public-key' },
        payment_args: { checkout_mode: 'onsite' },
      });
      await fx.paymentSettings({ cod: { enabled: true } });
      const res = await info('?method=cod');
      expect([res.status, res.body]).toEqual([
        200,
        { status: 'success', message: 'Cash on delivery needs no payment details at checkout.', data: [], payment_args: {} },
      ]);
    });
  });
});
