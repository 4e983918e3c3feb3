/**
 * `POST /checkout/place-order` with a subscription product: the `pending` subscription written with the order, the
 * gateway's `startSubscription` instead of `startPayment`, the first charge (signup fee + first period, or only the
 * fee during a trial), the first payment starting it (`active`, or `trialing`), the free path of a trial without a
 * fee, and the refusals (a second subscription line, a payment method that cannot bill subscriptions).
 */
import { expireUnpaidOrder } from '../../src/modules/checkout/expire-unpaid';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures } from '../support/checkout';
import { settleFirstPayment, subscriptionForm, subscriptionGateway, type SubscriptionTestGateway } from '../support/subscription-checkout';

describe('POST /checkout/place-order with a subscription product', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let gateway: SubscriptionTestGateway;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('sub-admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true } });
    gateway = subscriptionGateway();
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, gateway]);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    gateway.requests.length = 0;
    gateway.subscriptionRequests.length = 0;
    gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/subscribe', vendor_charge_id: 'inv' };
  });

  const db = () => app.host.db;
  const plan = (price: number, terms: Record<string, unknown> = {}, title = 'Plan') =>
    fx.variation(price, {
      title,
      fulfillment_type: 'digital',
      variation: { title: 'Pro', payment_type: 'subscription', billing_interval: 'monthly', ...terms },
    });
  const subscriptionsOf = (orderId: unknown) => db()('store_subscriptions').where({ parent_order_id: orderId }).orderBy('id');
  const chargesOf = (orderId: unknown) =>
    db()('store_order_transactions')
      .where({ order_id: orderId })
      .orderBy('id')
      .select('id', 'order_type', 'status', 'total', 'vendor_charge_id', 'subscription_id');
  const itemsOf = (orderId: unknown) =>
    db()('store_order_items')
      .where({ order_id: orderId })
      .orderBy('id')
      .select('variation_id', 'payment_type', 'title', 'quantity', 'unit_price', 'line_total');
  /** The gateway's id of the order's pending charge (each payment the test gateway starts has its own). */
  const pendingChargeId = async (orderId: unknown) => String((await chargesOf(orderId))[0].vendor_charge_id);
  const activityOf = async (id: unknown) =>
    ((await db()('store_activities').where({ object_type: 'subscription', object_id: id }).orderBy('id').select('title')) as Array<{ title: string }>).map(
      (row) => row.title,
    );

  it('an online gateway: the order and its pending subscription, startSubscription with the terms, the ids stored; the first payment activates it', async () => {
    const pro = await plan(1500, { bill_times: 12 });
    const hash = await fx.cartWith([[pro.id, 2]]);
    const created = fx.record('store/subscription/created');

    const res = await fx.place(hash, subscriptionForm('subpay'));
    created.off();

    expect([res.status, res.body]).toEqual([
      200,
      { status: 'success', redirect_url: 'https://pay.example/subscribe', message: 'Redirecting to Sub Pay to pay.' },
    ]);
    const order = await fx.orderOfCart(hash);
    expect(order).toMatchObject({ type: 'subscription', payment_status: 'pending', total_amount: 3000, payment_method: 'subpay' });
    const [subscription] = await subscriptionsOf(order.id);
    expect(subscription).toMatchObject({
      status: 'pending',
      customer_id: order.customer_id,
      product_id: pro.product_id,
      variation_id: pro.id,
      item_name: 'Plan - Pro',
      quantity: 2,
      collection_method: 'automatic',
      current_payment_method: 'subpay',
      billing_interval: 'monthly',
      currency: 'USD',
      bill_times: 12,
      bill_count: 0,
      trial_days: 0,
      vendor_subscription_id: 'subpay_sub_1',
      vendor_customer_id: 'subpay_cus_1',
      vendor_plan_id: 'subpay_plan',
      next_billing_date: null,
    });
    expect(Number(subscription.recurring_amount)).toBe(3000);
    expect(Number(subscription.signup_fee)).toBe(0);
    expect(subscription.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await chargesOf(order.id)).toEqual([
      { id: expect.anything(), order_type: 'subscription', status: 'pending', total: 3000, vendor_charge_id: 'inv_1', subscription_id: subscription.id },
    ]);
    expect(gateway.requests).toEqual([]);
    expect(gateway.subscriptionRequests).toHaveLength(1);
    expect(gateway.subscriptionRequests[0]).toMatchObject({
      order: { id: order.id, total_amount: 3000 },
      subscription: {
        id: subscription.id,
        uuid: subscription.uuid,
        billing_interval: 'monthly',
        recurring_amount: 3000,
        bill_times: 12,
        trial_days: 0,
        signup_fee: 0,
        item_name: 'Plan - Pro',
      },
    });
    expect(created.calls.map(([sub, ord]) => [sub.id, sub.status, ord.id])).toEqual([[subscription.id, 'pending', order.id]]);

    const activated = fx.record('store/subscription/activated');
    expect(await settleFirstPayment(app, 'subpay', 'inv_1', 3000)).toBe('paid');
    activated.off();
    const [after] = await subscriptionsOf(order.id);
    expect(after).toMatchObject({ status: 'active', bill_count: 1, next_billing_date: '2026-12-21 10:00:00', trial_ends_at: null });
    expect((await fx.orderRow(Number(order.id))).payment_status).toBe('paid');
    expect(activated.calls.map(([sub, previous]) => [sub.id, sub.status, previous])).toEqual([[subscription.id, 'active', 'pending']]);
    expect(await activityOf(subscription.id)).toEqual(['Subscription created at checkout', 'Subscription activated']);

    // the same payment reported again starts nothing twice
    expect(await settleFirstPayment(app, 'subpay', 'inv_1', 3000)).toBe('already_paid');
    expect(await activityOf(subscription.id)).toHaveLength(2);
  });

  it('an admin marking the unpaid subscription order paid starts its subscription too (in the same transaction)', async () => {
    const variation = await plan(1500, {}, 'Marked Plan');
    const hash = await fx.cartWith([[variation.id, 1]]);
    expect((await fx.place(hash, subscriptionForm(gateway.key))).status).toBe(200);
    const order = await fx.orderOfCart(hash);
    expect((await subscriptionsOf(order.id))[0]).toMatchObject({ status: 'pending' });

    const res = await app
      .as(admin)
      .post(`${BASE}/orders/${String(order.id)}/mark-as-paid`)
      .send({ mark_paid_note: 'paid by phone' });
    expect(res.status).toBe(200);
    expect((await subscriptionsOf(order.id))[0]).toMatchObject({ status: 'active', bill_count: 1 });
  });

  it('a signup fee is its own line and part of the first charge; the recurring amount leaves it out', async () => {
    const pro = await plan(1000, { signup_fee: 499 });
    const hash = await fx.cartWith([[pro.id, 1]]);
    expect((await fx.place(hash, subscriptionForm('subpay'))).status).toBe(200);
    const order = await fx.orderOfCart(hash);
    expect(order.total_amount).toBe(1499);
    expect(await itemsOf(order.id)).toEqual([
      { variation_id: pro.id, payment_type: 'subscription', title: 'Pro', quantity: 1, unit_price: 1000, line_total: 1000 },
      { variation_id: null, payment_type: 'signup_fee', title: 'Pro - Signup fee', quantity: 1, unit_price: 499, line_total: 499 },
    ]);
    const [subscription] = await subscriptionsOf(order.id);
    expect([Number(subscription.recurring_amount), Number(subscription.signup_fee)]).toEqual([1000, 499]);
    expect(gateway.subscriptionRequests[0].subscription).toMatchObject({ recurring_amount: 1000, signup_fee: 499 });
  });

  it('a trial with a signup fee: only the fee now; the payment starts the trial (trialing, next charge when it ends, bill_count 0)', async () => {
    const pro = await plan(1000, { signup_fee: 250, trial_days: 14 });
    const hash = await fx.cartWith([[pro.id, 1]]);
    expect((await fx.place(hash, subscriptionForm('subpay'))).status).toBe(200);
    const order = await fx.orderOfCart(hash);
    expect(order.total_amount).toBe(250);
    expect((await itemsOf(order.id)).map((item) => [item.payment_type, item.line_total])).toEqual([
      ['subscription', 0],
      ['signup_fee', 250],
    ]);

    const activated = fx.record('store/subscription/activated');
    expect(await settleFirstPayment(app, 'subpay', await pendingChargeId(order.id), 250)).toBe('paid');
    activated.off();
    const [subscription] = await subscriptionsOf(order.id);
    expect(subscription).toMatchObject({ status: 'trialing', bill_count: 0, trial_ends_at: '2026-12-05 10:00:00', next_billing_date: '2026-12-05 10:00:00' });
    expect(Number(subscription.recurring_amount)).toBe(1000);
    expect(activated.calls.map(([sub, previous]) => [sub.status, previous])).toEqual([['trialing', 'pending']]);
  });

  it('a trial without a fee is free now: paid at once, trialing at once, and the gateway still asked to bill it from the trial end', async () => {
    const pro = await plan(1000, { trial_days: 7 });
    const hash = await fx.cartWith([[pro.id, 1]]);
    gateway.next = { kind: 'onsite', client_secret: 'seti_secret', vendor_charge_id: 'seti' };
    const paid = fx.record('store/order/paid');

    const res = await fx.place(hash, subscriptionForm('subpay'));
    paid.off();

    const order = await fx.orderOfCart(hash);
    expect([res.status, res.body]).toEqual([
      200,
      {
        status: 'success',
        payment_args: { client_secret: 'seti_secret', checkout_mode: 'onsite' },
        order_id: order.id,
        message: 'Order placed: complete the payment.',
      },
    ]);
    expect(order).toMatchObject({ payment_status: 'paid', payment_method: 'subpay', total_amount: 0, type: 'subscription' });
    expect(paid.calls).toHaveLength(1);
    expect((await fx.cartRow(hash)).stage).toBe('completed');
    const [subscription] = await subscriptionsOf(order.id);
    expect(subscription).toMatchObject({
      status: 'trialing',
      bill_count: 0,
      next_billing_date: '2026-11-28 10:00:00',
      vendor_subscription_id: expect.stringMatching(/^subpay_sub_\d+$/),
    });
    expect(gateway.subscriptionRequests[0].subscription).toMatchObject({ trial_days: 7, recurring_amount: 1000 });
    // the zero charge was settled at checkout, not left for the gateway
    expect(await chargesOf(order.id)).toEqual([
      expect.objectContaining({ status: 'succeeded', total: 0, vendor_charge_id: '', subscription_id: subscription.id }),
    ]);
  });

  it('a free trial whose gateway fails: the receipt all the same, the failure logged on the subscription', async () => {
    const pro = await plan(1000, { trial_days: 7 });
    const hash = await fx.cartWith([[pro.id, 1]]);
    gateway.next = new Error('vendor down');
    const res = await fx.place(hash, subscriptionForm('subpay'));
    const order = await fx.orderOfCart(hash);
    expect([res.status, res.body]).toEqual([
      200,
      { status: 'success', redirect_url: `http://store.test/receipt/?order_hash=${String(order.uuid)}`, message: 'Order placed successfully.' },
    ]);
    const [subscription] = await subscriptionsOf(order.id);
    expect(subscription).toMatchObject({ status: 'trialing', vendor_subscription_id: '' });
    expect(await activityOf(subscription.id)).toContain('Billing could not be set up at the gateway');
  });

  it('one-time products may come along: they are billed in the first order only', async () => {
    const pro = await plan(1000);
    const book = await fx.variation(2500, { title: 'Book', fulfillment_type: 'digital' });
    const hash = await fx.cartWith([
      [book.id, 1],
      [pro.id, 1],
    ]);
    expect((await fx.place(hash, subscriptionForm('subpay'))).status).toBe(200);
    const order = await fx.orderOfCart(hash);
    expect(order.total_amount).toBe(3500);
    const [subscription] = await subscriptionsOf(order.id);
    expect([Number(subscription.recurring_amount), subscription.variation_id]).toEqual([1000, pro.id]);
  });

  it('placed again (the gateway failed the first time): the order is rewritten and still has exactly one subscription', async () => {
    const pro = await plan(1000);
    const hash = await fx.cartWith([[pro.id, 1]]);
    gateway.next = new Error('timeout');
    expect((await fx.place(hash, subscriptionForm('subpay'))).status).toBe(502);
    const order = await fx.orderOfCart(hash);
    const [first] = await subscriptionsOf(order.id);
    expect(first).toMatchObject({ status: 'pending', vendor_subscription_id: '' });

    gateway.next = { kind: 'redirect', redirect_url: 'https://pay.example/again', vendor_charge_id: 'again' };
    expect((await fx.place(hash, subscriptionForm('subpay'))).status).toBe(200);
    expect((await fx.orderOfCart(hash)).id).toBe(order.id);
    const subscriptions = await subscriptionsOf(order.id);
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]).toMatchObject({ status: 'pending', vendor_subscription_id: expect.stringMatching(/^subpay_sub_/) });
    expect((await chargesOf(order.id)).map((charge) => charge.subscription_id)).toEqual([subscriptions[0].id]);
  });

  it('an order left unpaid and expired by the unpaid-order sweep cancels the subscription it would have started', async () => {
    const pro = await plan(1000);
    const hash = await fx.cartWith([[pro.id, 1]]);
    expect((await fx.place(hash, subscriptionForm('subpay'))).status).toBe(200);
    const order = await fx.orderOfCart(hash);
    const canceled = fx.record('store/subscription/canceled');
    expect(await expireUnpaidOrder(app.ctx(), Number(order.id), 60)).toBe(true);
    canceled.off();
    const [subscription] = await subscriptionsOf(order.id);
    expect(subscription).toMatchObject({ status: 'canceled', canceled_at: '2026-11-21 10:00:00' });
    expect(canceled.calls.map(([sub, previous]) => [sub.id, previous])).toEqual([[subscription.id, 'pending']]);
    expect((await activityOf(subscription.id)).at(-1)).toBe('Subscription canceled');
  });

  describe('refused: 422, nothing written', () => {
    it('a payment method that cannot bill subscriptions (cash on delivery)', async () => {
      const pro = await plan(1000);
      const hash = await fx.cartWith([[pro.id, 1]]);
      const before = { ...(await fx.snapshot()), subscriptions: await fx.count('store_subscriptions') };
      const res = await fx.place(hash, subscriptionForm('cod'));
      expect([res.status, res.body]).toEqual([
        422,
        { status: 'failed', errors: { payment_method: { subscriptions: 'The selected payment method cannot pay subscriptions.' } } },
      ]);
      expect({ ...(await fx.snapshot()), subscriptions: await fx.count('store_subscriptions') }).toEqual(before);
    });

    it('a free trial on such a method too (nothing would bill it later)', async () => {
      const pro = await plan(1000, { trial_days: 7 });
      const hash = await fx.cartWith([[pro.id, 1]]);
      const res = await fx.place(hash, subscriptionForm('cod'));
      expect([res.status, res.body.errors]).toEqual([422, { payment_method: { subscriptions: 'The selected payment method cannot pay subscriptions.' } }]);
    });

    it('a second subscription line', async () => {
      const hash = await fx.cartWith([
        [(await plan(1000)).id, 1],
        [(await plan(2000, {}, 'Other')).id, 1],
      ]);
      const before = await fx.count('store_subscriptions');
      const res = await fx.place(hash, subscriptionForm('subpay'));
      expect([res.status, res.body]).toEqual([422, { message: 'Only one subscription product can be bought per order.' }]);
      expect(await fx.count('store_subscriptions')).toBe(before);
    });
  });

  it('the cart shows the first charge: the trial line at 0 and the fee', async () => {
    const pro = await plan(1000, { signup_fee: 300, trial_days: 30 });
    const hash = await fx.cartWith([[pro.id, 1]]);
    const res = await app.http.get(`${BASE}/checkout/get-checkout-summary-view`).set('Cookie', `fct_cart_hash=${hash}`);
    expect(res.status).toBe(200);
    expect(res.body.items).toMatchObject({ has_subscriptions: true, unformatted_total: 300, total: '$3.00' });
    expect(res.body.items.views).toContain('Pro - Signup fee');
  });
});
