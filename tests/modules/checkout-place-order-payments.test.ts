/**
 * `POST /checkout/place-order`: what is stored and answered per payment path (free, cash on delivery / bank transfer,
 * an online gateway redirecting or paying on site, a gateway that fails), placing a cart again, the cart states that
 * answer HTTP 200 failures, products that cannot be bought (422 `{message}`) and the rate limit.
 */
import { transaction } from '../../src/core/context';
import { settleGatewayPayment } from '../../src/modules/payments/settle';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm, testGateway, type TestGateway } from '../support/checkout';

describe('POST /checkout/place-order: payments, reuse, refusals', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let gateway: TestGateway;
  let usMethod: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true, title: 'Pay on delivery' }, bank_transfer: { enabled: true } });
    gateway = testGateway();
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, gateway]);
    usMethod = await fx.shippingMethod({ title: 'US Standard', charge_amount: 500 }, ['US']);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    gateway.requests.length = 0;
    gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/checkout/1', vendor_charge_id: 'tp' };
    gateway.offered = true;
  });

  const db = () => app.host.db;
  const form = (over: Record<string, unknown> = {}) => guestForm({ fc_selected_shipping_method: usMethod, ...over });
  const receiptOf = (uuid: unknown) => `http://store.test/receipt/?order_hash=${String(uuid)}`;
  const chargesOf = (orderId: unknown) =>
    db()('store_order_transactions')
      .where({ order_id: orderId })
      .orderBy('id')
      .select('id', 'uuid', 'transaction_type', 'status', 'total', 'payment_method', 'vendor_charge_id', 'payment_mode');

  describe('cash on delivery and bank transfer', () => {
    it('stores the whole order (items, addresses, coupon use, pending charge, stock hold, operation record), completes the cart and fires placed_offline', async () => {
      const shirt = await fx.stocked(2500, 10, { title: 'Shirt' });
      const coupon = await fx.coupon({ type: 'fixed', amount: 500 });
      const hash = await fx.cartWith([[shirt.id, 2]]);
      expect((await app.http.post(`${BASE}/cart/coupons`).set('Cookie', `fct_cart_hash=${hash}`).send({ code: coupon.code })).status).toBe(200);
      const created = fx.record('store/order/created');
      const offline = fx.record('store/order/placed_offline');
      const paid = fx.record('store/order/paid');

      const res = await fx
        .place(hash, form({ order_notes: 'Leave at the door', utm_source: 'newsletter', utm_campaign: 'winter' }))
        .set('Referer', 'https://blog.example/post')
        .set('User-Agent', 'jest');

      const order = await fx.orderOfCart(hash);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', redirect_url: receiptOf(order.uuid), message: 'Order placed successfully.' });
      expect(order).toMatchObject({
        status: 'on-hold',
        payment_status: 'pending',
        shipping_status: 'unshipped',
        payment_method: 'cod',
        payment_method_title: 'Pay on delivery',
        type: 'payment',
        fulfillment_type: 'physical',
        mode: 'test',
        currency: 'USD',
        subtotal: 5000,
        coupon_discount_total: 500,
        shipping_total: 500,
        total_amount: 5000,
        total_paid: 0,
        note: 'Leave at the door',
        stock_state: 'held',
        invoice_no: '',
      });
      expect(JSON.parse(String(order.config)).shipping).toEqual([
        { type: 'shipping_method', rate_name: 'US Standard', custom_price: 500, method_id: usMethod },
      ]);
      expect(
        await db()('store_order_items')
          .where({ order_id: order.id })
          .select('variation_id', 'post_title', 'quantity', 'unit_price', 'subtotal', 'discount_total', 'shipping_charge', 'line_total'),
      ).toEqual([
        {
          variation_id: shirt.id,
          post_title: 'Shirt',
          quantity: 2,
          unit_price: 2500,
          subtotal: 5000,
          discount_total: 500,
          shipping_charge: 500,
          line_total: 4500,
        },
      ]);
      expect(await db()('store_order_addresses').where({ order_id: order.id }).orderBy('type').pluck('type')).toEqual(['billing', 'shipping']);
      expect(await chargesOf(order.id)).toEqual([
        expect.objectContaining({
          transaction_type: 'charge',
          status: 'pending',
          total: 5000,
          payment_method: 'cod',
          vendor_charge_id: '',
          payment_mode: 'test',
        }),
      ]);
      expect(await db()('store_applied_coupons').where({ order_id: order.id }).select('code', 'discounted_amount')).toEqual([
        { code: coupon.code, discounted_amount: 500 },
      ]);
      expect(await fx.count('store_coupons', { id: coupon.id, use_count: 1 })).toBe(1);
      expect(await fx.stockOf(shirt.id)).toEqual({ quantity: 10, on_hold: 2 });
      expect(
        await db()('store_order_operations').where({ order_id: order.id }).first('created_via', 'cart_hash', 'utm_source', 'utm_campaign', 'refer_url'),
      ).toEqual({
        created_via: 'checkout',
        cart_hash: hash,
        utm_source: 'newsletter',
        utm_campaign: 'winter',
        refer_url: 'https://blog.example/post',
      });
      expect(await fx.cartRow(hash)).toMatchObject({ stage: 'completed', order_id: order.id });
      expect(await db()('store_activities').where({ object_type: 'order', object_id: order.id }).pluck('title')).toEqual(['Order placed at checkout']);
      expect(created.calls.map(([o]) => o.id)).toEqual([order.id]);
      expect(offline.calls.map(([o]) => [o.id, o.payment_status])).toEqual([[order.id, 'pending']]);
      expect(paid.calls).toEqual([]);
      [created, offline, paid].forEach((r) => r.off());
    });

    it('bank transfer takes the same path', async () => {
      const hash = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      const res = await fx.place(hash, form({ payment_method: 'bank_transfer' }));
      expect(res.status).toBe(200);
      expect(await fx.orderOfCart(hash)).toMatchObject({
        status: 'on-hold',
        payment_status: 'pending',
        payment_method: 'bank_transfer',
        payment_method_title: 'Bank transfer',
      });
      expect((await fx.cartRow(hash)).stage).toBe('completed');
    });
  });

  describe('a zero total', () => {
    it('is paid at once through the free method, whatever method is sent: stock taken, invoice number, store/order/paid once', async () => {
      const ebook = await fx.stocked(1200, 3, { fulfillment_type: 'digital', title: 'Ebook' });
      const coupon = await fx.coupon({ type: 'percentage', amount: 100 });
      const hash = await fx.cartWith([[ebook.id, 1]]);
      await app.http.post(`${BASE}/cart/coupons`).set('Cookie', `fct_cart_hash=${hash}`).send({ code: coupon.code }).expect(200);
      const paid = fx.record('store/order/paid');
      const offline = fx.record('store/order/placed_offline');

      const res = await fx.place(hash, guestForm({ payment_method: 'bitcoin', billing_email: 'free@example.com' }));

      const order = await fx.orderOfCart(hash);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', redirect_url: receiptOf(order.uuid), message: 'Order placed successfully.' });
      expect(order).toMatchObject({
        status: 'completed',
        payment_status: 'paid',
        payment_method: 'free',
        payment_method_title: 'Free order',
        total_amount: 0,
        stock_state: 'taken',
        invoice_no: 'INV-1',
      });
      expect(await chargesOf(order.id)).toEqual([expect.objectContaining({ status: 'succeeded', total: 0, payment_method: 'free' })]);
      expect(await fx.stockOf(ebook.id)).toEqual({ quantity: 2, on_hold: 0 });
      expect((await fx.cartRow(hash)).stage).toBe('completed');
      expect(paid.calls.map(([o]) => o.id)).toEqual([order.id]);
      expect(offline.calls).toEqual([]);
      expect(gateway.requests).toEqual([]);
      paid.off();
      offline.off();
    });
  });

  describe('an online gateway', () => {
    it('redirect: the gateway gets the order, its pending charge and the urls; its payment id is kept; the cart waits (intended)', async () => {
      const shirt = await fx.stocked(1999, 5, { title: 'Shirt' });
      const hash = await fx.cartWith([[shirt.id, 3]]);
      const res = await fx.place(hash, form({ payment_method: 'testpay' }));

      const order = await fx.orderOfCart(hash);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', redirect_url: 'https://pay.example/checkout/1', message: 'Redirecting to Test Pay to pay.' });
      const [charge] = await chargesOf(order.id);
      expect(charge).toMatchObject({ status: 'pending', total: 6497, payment_method: 'testpay', vendor_charge_id: 'tp_1' });
      expect(gateway.requests).toEqual([
        {
          order: { id: order.id, uuid: order.uuid, currency: 'USD', total_amount: 6497, mode: 'test' },
          transaction: { id: charge.id, uuid: charge.uuid, total: 6497 },
          customer: { id: order.customer_id, email: 'jane@example.com', name: 'Jane Doe' },
          items: [{ title: expect.stringContaining('Shirt'), quantity: 3, unit_price: 1999, line_total: 5997 }],
          urls: {
            success_url: receiptOf(order.uuid),
            cancel_url: 'http://store.test/checkout/',
            return_url: 'http://store.test/wp-json/store/v2/checkout/testpay/return',
          },
        },
      ]);
      expect(order).toMatchObject({ status: 'on-hold', payment_status: 'pending', stock_state: 'held' });
      expect(await fx.cartRow(hash)).toMatchObject({ stage: 'intended', order_id: order.id });
    });

    it('on site: answers the client secret and the order id', async () => {
      gateway.next = { kind: 'onsite', client_secret: 'pi_secret_abc', vendor_charge_id: 'pi' };
      const hash = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      const res = await fx.place(hash, form({ payment_method: 'testpay' }));
      const order = await fx.orderOfCart(hash);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'success',
        payment_args: { client_secret: 'pi_secret_abc', checkout_mode: 'onsite' },
        order_id: order.id,
        message: 'Order placed: complete the payment.',
      });
      expect((await chargesOf(order.id))[0].vendor_charge_id).toMatch(/^pi_\d+$/);
    });

    it('a gateway that is not offered now is refused', async () => {
      gateway.offered = false;
      const hash = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      const res = await fx.place(hash, form({ payment_method: 'testpay' }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'failed', errors: { payment_method: { in: 'The selected payment method is not available.' } } });
    });

    it('a failing gateway leaves the order pending and the cart intended; placing the cart again reuses the order', async () => {
      const shirt = await fx.stocked(1500, 5, { title: 'Shirt' });
      const coupon = await fx.coupon({ type: 'fixed', amount: 100 });
      const hash = await fx.cartWith([[shirt.id, 2]]);
      await app.http.post(`${BASE}/cart/coupons`).set('Cookie', `fct_cart_hash=${hash}`).send({ code: coupon.code }).expect(200);
      gateway.next = new Error('connect ETIMEDOUT');

      const failed = await fx.place(hash, form({ payment_method: 'testpay', billing_email: 'retry@example.com' }));
      expect(failed.status).toBe(502);
      expect(failed.body).toEqual({ status: 'failed', message: 'Test Pay could not start the payment. Your order is saved: please try again.' });
      const first = await fx.orderOfCart(hash);
      expect(first).toMatchObject({ status: 'on-hold', payment_status: 'pending', stock_state: 'held' });
      expect((await fx.cartRow(hash)).stage).toBe('intended');
      const [pending] = await chargesOf(first.id);

      gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/retry', vendor_charge_id: 'tp' };
      const created = fx.record('store/order/created');
      const updated = fx.record('store/order/updated');
      const retried = await fx.place(hash, form({ payment_method: 'testpay', billing_email: 'retry@example.com', billing_first_name: 'Janet' }));
      expect(retried.status).toBe(200);
      expect(retried.body.redirect_url).toBe('https://pay.example/retry');

      expect((await fx.cartRow(hash)).order_id).toBe(first.id);
      expect(await fx.count('store_orders', { customer_id: first.customer_id })).toBe(1);
      expect(await fx.count('store_order_items', { order_id: first.id })).toBe(1);
      expect(await fx.stockOf(shirt.id)).toEqual({ quantity: 5, on_hold: 2 });
      expect(await fx.count('store_coupons', { id: coupon.id, use_count: 1 })).toBe(1);
      expect(await fx.count('store_applied_coupons', { order_id: first.id })).toBe(1);
      // the charge no gateway saw is the one the retry uses (same amount: same uuid, so the gateway may dedupe)
      expect(await chargesOf(first.id)).toEqual([{ ...pending, vendor_charge_id: expect.stringMatching(/^tp_\d+$/) }]);
      expect(await db()('store_order_addresses').where({ order_id: first.id, type: 'billing' }).first('name')).toEqual({ name: 'Janet Doe' });
      expect(created.calls).toEqual([]);
      expect(updated.calls.map(([o]) => o.id)).toEqual([first.id]);
      expect(await db()('store_activities').where({ object_type: 'order', object_id: first.id }).orderBy('id').pluck('title')).toEqual([
        'Order placed at checkout',
        'Order placed again at checkout',
      ]);
      created.off();
      updated.off();
    });

    it("a placed cart edited and placed again rewrites its order: the units it held stay the shopper's, nothing is held twice", async () => {
      const lastTwo = await fx.stocked(1000, 2, { title: 'Last Two' });
      const hash = await fx.cartWith([[lastTwo.id, 1]]);
      gateway.next = new Error('connect ETIMEDOUT');
      expect((await fx.place(hash, form({ payment_method: 'testpay' }))).status).toBe(502);
      const first = await fx.orderOfCart(hash);
      expect(await fx.stockOf(lastTwo.id)).toEqual({ quantity: 2, on_hold: 1 });

      const edit = await app.http.put(`${BASE}/cart/items/${lastTwo.id}`).set('Cookie', `fct_cart_hash=${hash}`).send({ quantity: 2 });
      expect([edit.status, edit.body.cart?.stage]).toEqual([200, 'draft']);
      expect((await fx.cartRow(hash)).order_id).toBe(first.id);

      gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/again', vendor_charge_id: 'tp' };
      const again = await fx.place(hash, form({ payment_method: 'testpay' }));
      expect([again.status, again.body.redirect_url]).toEqual([200, 'https://pay.example/again']);
      expect((await fx.orderOfCart(hash)).id).toBe(first.id);
      expect(await db()('store_order_items').where({ order_id: first.id }).pluck('quantity')).toEqual([2]);
      expect(await fx.stockOf(lastTwo.id)).toEqual({ quantity: 2, on_hold: 2 });
    });

    it('placed again after the gateway started a payment: that charge stays pending (it may still complete), a new one is added', async () => {
      const hash = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      expect((await fx.place(hash, form({ payment_method: 'testpay' }))).status).toBe(200);
      const order = await fx.orderOfCart(hash);
      expect((await fx.place(hash, form({ payment_method: 'cod' }))).status).toBe(200);
      const charges = await chargesOf(order.id);
      expect(charges.map((c) => [c.status, c.payment_method, c.vendor_charge_id.replace(/\d+$/, 'N')])).toEqual([
        ['pending', 'testpay', 'tp_N'],
        ['pending', 'cod', ''],
      ]);
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_method: 'cod', status: 'on-hold' });
      expect((await fx.cartRow(hash)).stage).toBe('completed');
    });
  });

  describe('a payment the order did not wait for (settleGatewayPayment)', () => {
    const settle = (vendorChargeId: string, amount: number) =>
      transaction(app.ctx(), (trx, afterCommit) =>
        settleGatewayPayment(app.ctx(), trx, afterCommit, { method: 'testpay', vendor_charge_id: vendorChargeId, amount }),
      );

    it('the earlier attempt paid as well as the later one: both payments are in the ledger, a warning asks for a refund; reported again, nothing changes', async () => {
      const hash = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/1', vendor_charge_id: 'first' };
      expect((await fx.place(hash, form({ payment_method: 'testpay' }))).status).toBe(200);
      const order = await fx.orderOfCart(hash);
      const [first] = await chargesOf(order.id);
      await db()('store_carts').where({ cart_hash: hash }).update({ stage: 'draft' });
      gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/2', vendor_charge_id: 'second' };
      expect((await fx.place(hash, form({ payment_method: 'testpay' }))).status).toBe(200);
      const [, second] = await chargesOf(order.id);
      const total = Number(order.total_amount);

      expect(await settle(String(second.vendor_charge_id), total)).toBe('paid');
      expect(await settle(String(first.vendor_charge_id), total)).toBe('paid_twice');
      expect(await settle(String(first.vendor_charge_id), total)).toBe('already_paid');
      expect((await chargesOf(order.id)).map((c) => c.status)).toEqual(['succeeded', 'succeeded']);
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 2 * total });
      const warnings = await db()('store_activities').where({ object_type: 'order', object_id: order.id, title: 'Second payment received' }).count({ n: '*' });
      expect(Number(warnings[0].n)).toBe(1);
    });
  });

  describe('cart states answered with HTTP 200', () => {
    it('no cart, an empty cart, a completed cart: Cart is empty or already completed', async () => {
      const empty = { status: 'failed', message: 'Cart is empty or already completed' };
      const before = await fx.snapshot();
      const none = await app.http.post(`${BASE}/checkout/place-order`).send(form());
      expect([none.status, none.body]).toEqual([200, empty]);

      const variation = await fx.stocked(1000, 5);
      const hash = await fx.cartWith([[variation.id, 1]]);
      await app.http.delete(`${BASE}/cart/items/${variation.id}`).set('Cookie', `fct_cart_hash=${hash}`).expect(200);
      expect((await fx.place(hash, form())).body).toEqual(empty);
      expect(await fx.snapshot()).toEqual(before);

      const done = await fx.cartWith([[variation.id, 1]]);
      expect((await fx.place(done, form())).status).toBe(200);
      const again = await fx.place(done, form());
      expect([again.status, again.body]).toEqual([200, empty]);
    });

    it('a cart whose order was paid meanwhile: You have already completed this order.', async () => {
      const hash = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      expect((await fx.place(hash, form({ payment_method: 'testpay' }))).status).toBe(200);
      const order = await fx.orderOfCart(hash);
      await app.as(admin).post(`${BASE}/orders/${order.id}/mark-as-paid`).send({}).expect(200);
      const before = await fx.snapshot();
      const res = await fx.place(hash, form({ payment_method: 'testpay' }));
      expect([res.status, res.body]).toEqual([200, { status: 'failed', message: 'You have already completed this order.' }]);
      expect(await fx.snapshot()).toEqual(before);
    });

    it('a cart completed by its paid order (free, or cash on delivery marked paid): You have already completed this order.', async () => {
      const already = { status: 'failed', message: 'You have already completed this order.' };
      const free = await fx.cartWith([[(await fx.variation(0, { title: 'Freebie', fulfillment_type: 'digital' })).id, 1]]);
      expect((await fx.place(free, guestForm())).body.status).toBe('success');
      const cod = await fx.cartWith([[(await fx.stocked(1000, 5)).id, 1]]);
      expect((await fx.place(cod, form())).body.status).toBe('success');
      await app
        .as(admin)
        .post(`${BASE}/orders/${(await fx.orderOfCart(cod)).id}/mark-as-paid`)
        .send({})
        .expect(200);
      expect([(await fx.cartRow(free)).stage, (await fx.cartRow(cod)).stage]).toEqual(['completed', 'completed']);

      const before = await fx.snapshot();
      for (const hash of [free, cod]) {
        const res = await fx.place(hash, form());
        expect([res.status, res.body]).toEqual([200, already]);
      }
      expect(await fx.snapshot()).toEqual(before);
    });
  });

  describe('products that cannot be bought: 422 {message}', () => {
    it('out of stock since it was put in the cart: nothing written', async () => {
      const shirt = await fx.stocked(1000, 2, { title: 'Scarce' });
      const hash = await fx.cartWith([[shirt.id, 2]]);
      await db()('store_product_variations').where({ id: shirt.id }).update({ stock_quantity: 1 });
      const before = await fx.snapshot();
      const res = await fx.place(hash, form());
      expect([res.status, res.body]).toEqual([422, { message: expect.stringMatching(/^Insufficient stock for Scarce/) }]);
      expect(await fx.snapshot()).toEqual(before);
      expect((await fx.cartRow(hash)).stage).toBe('draft');
    });

    it('a second subscription product (one subscription per order)', async () => {
      const subscription = { payment_type: 'subscription', billing_interval: 'monthly' };
      const plan = await fx.variation(900, { title: 'Plan', fulfillment_type: 'digital', variation: subscription });
      const other = await fx.variation(1900, { title: 'Other plan', fulfillment_type: 'digital', variation: subscription });
      const hash = await fx.cartWith([
        [plan.id, 1],
        [other.id, 1],
      ]);
      const before = await fx.snapshot();
      const res = await fx.place(hash, guestForm());
      expect([res.status, res.body]).toEqual([422, { message: 'Only one subscription product can be bought per order.' }]);
      expect(await fx.snapshot()).toEqual(before);
    });
  });

  describe('rate limit', () => {
    afterAll(() => app.host.options.set('checkout_rate_limit', 100_000));

    it('5 requests per 60 s per user (or IP): the 6th is 429 with Retry-After, whatever it asks', async () => {
      await app.host.options.set('checkout_rate_limit', 5);
      const limited = await app.createUser('limited');
      const browser = app.browser();
      await browser.login('limited', limited.password);
      for (let i = 0; i < 5; i++) {
        const res = await fx.place(null, form(), browser);
        expect([res.status, res.body.message]).toEqual([200, 'Cart is empty or already completed']);
      }
      const sixth = await fx.place(null, form(), browser);
      expect(sixth.status).toBe(429);
      expect(sixth.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
      // another caller has their own budget
      const other = await app.createUser('other');
      const second = app.browser();
      await second.login('other', other.password);
      expect((await fx.place(null, form(), second)).status).toBe(200);
    });
  });
});
