/**
 * PayPal subscriptions through the real `@paypal/paypal-server-sdk` against the local fake: billing plans
 * (`getOrCreatePlan`), a subscription bought at `POST /checkout/place-order`, approved at PayPal and settled by the
 * return or the notifications, renewals from `PAYMENT.SALE.COMPLETED` exactly once, installment plans completing, and
 * the gateway's cancel, fetch and lookup.
 */
import { AppError } from '../../src/core/errors';
import { getOrCreatePlan, type PlanTerms } from '../../src/gateways/paypal/plans';
import { toGatewaySubscription } from '../../src/modules/subscriptions/checkout';
import { presentSubscription } from '../../src/modules/subscriptions/presenter';
import { startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';
import type { FakePayPal } from '../support/fakes/paypal-server';
import { RETURN_PATH, paypal, paypalStore, postWebhook } from '../support/paypal-orders';

type Row = Record<string, unknown>;

const RECEIPT = 'http://store.test/receipt/?order_hash=';
const DECLINED = 'http://store.test/checkout/?payment_error=paypal_declined';

describe('PayPal subscriptions (the real SDK against the local fake)', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakePayPal;
  let stop: () => Promise<void>;
  let fx: ReturnType<typeof checkoutFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('pp-sub-admin', ['administrator']);
    ({ fake, stop } = await paypalStore(app, admin));
    fake.now = () => app.clock.now();
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(() => {
    fake.resetSwitches();
    app.clock.set('2026-11-21T10:00:00Z');
  });

  const db = () => app.host.db;
  const ctx = () => app.ctx();
  const subscriptionRow = async (id: unknown) => (await db()('store_subscriptions').where({ id }).first()) as Row;
  const orderRow = async (id: unknown) => (await db()('store_orders').where({ id }).first()) as Row;
  const chargesOf = (orderId: unknown) =>
    db()('store_order_transactions').where({ order_id: orderId }).orderBy('id').select('status', 'total', 'vendor_charge_id', 'subscription_id', 'order_type');
  const renewalsOf = (orderId: unknown) => db()('store_orders').where({ parent_id: orderId, type: 'renewal' }).orderBy('id');
  const outcomeOf = async (eventId: unknown) =>
    ((await db()('store_webhook_events').where({ gateway: 'paypal', event_id: eventId }).first('outcome')) as Row | undefined)?.outcome;
  const activityTitles = async (objectType: string, id: unknown) =>
    ((await db()('store_activities').where({ object_type: objectType, object_id: id }).orderBy('id').select('title')) as Array<{ title: string }>).map(
      (row) => row.title,
    );
  const runJobs = async () => {
    while ((await app.host.jobs.runDue(50)) > 0);
  };

  /** A product whose variation is a subscription with these terms. */
  const product = (price: number, terms: Record<string, unknown> = {}) =>
    fx.variation(price, {
      title: 'Magazine',
      fulfillment_type: 'digital',
      variation: { title: 'Monthly', payment_type: 'subscription', billing_interval: 'monthly', ...terms },
    });

  /** A guest buys the subscription with PayPal at checkout: the place-order answer, the order and its subscription. */
  async function subscribe(price: number, terms: Record<string, unknown> = {}, quantity = 1) {
    const variation = await product(price, terms);
    const hash = await fx.cartWith([[variation.id, quantity]]);
    const res = await fx.place(hash, guestForm({ payment_method: 'paypal' }));
    const order = await fx.orderOfCart(hash);
    const subscription = (await db()('store_subscriptions').where({ parent_order_id: order.id }).first()) as Row;
    return { res, order, subscription, hash, paypalId: String(subscription.vendor_subscription_id) };
  }

  /** Where PayPal sends the subscriber after approving, as a path and query of the store. */
  const approve = (paypalId: string) => {
    const back = new URL(fake.billing.approve(paypalId));
    return `${back.pathname}${back.search}`;
  };

  /** PayPal notifies the store: a signed event around `resource`; returns the answer and the event's id. */
  async function notify(type: string, resource: Row) {
    const event = fake.event(type, resource);
    const res = await postWebhook(app, fake.deliver(event, { time: app.clock.now() }));
    return { res, id: event.id, event };
  }
  const sale = (subscriptionId: string, index = -1) => fake.billing.saleResource(fake.billing.subscriptions.get(subscriptionId)!.sales.at(index)!);

  describe('getOrCreatePlan', () => {
    const terms = (over: Partial<PlanTerms> = {}): PlanTerms => ({ amount: 1500, currency: 'USD', interval: 'monthly', product_name: 'Plan reuse', ...over });

    it('creates the catalog product once and a plan per terms; the same terms reuse the plan (created: false, no call)', async () => {
      const first = await getOrCreatePlan(ctx(), terms({ bill_times: 12 }));
      expect(first).toEqual({ id: expect.stringMatching(/^P-/), amount: 1500, billing_cycle: 'monthly', created: true });
      const [productCall] = fake.calls(/^\/v1\/catalogs\/products$/);
      expect(productCall.body).toEqual({ name: app.host.site.title, type: 'SERVICE', description: 'Subscriptions' });
      expect(productCall.requestId).toMatch(/^store-product-[0-9a-f]{64}$/);
      const [planCall] = fake.calls(/^\/v1\/billing\/plans$/);
      expect(planCall.requestId).toMatch(/^store-plan-[0-9a-f]{64}$/);
      expect(planCall.body).toEqual({
        product_id: productCall.requestId && [...fake.billing.products.keys()][0],
        name: 'Plan reuse',
        description: '15.00 USD monthly, 12 payments',
        status: 'ACTIVE',
        billing_cycles: [
          {
            frequency: { interval_unit: 'MONTH', interval_count: 1 },
            tenure_type: 'REGULAR',
            sequence: 1,
            total_cycles: 12,
            pricing_scheme: { fixed_price: { currency_code: 'USD', value: '15.00' } },
          },
        ],
        payment_preferences: { auto_bill_outstanding: true, setup_fee_failure_action: 'CANCEL', payment_failure_threshold: 3 },
      });
      expect(fake.billing.plans.get(first.id)!.status).toBe('ACTIVE');

      fake.resetSwitches();
      expect(await getOrCreatePlan(ctx(), terms({ bill_times: 12 }))).toEqual({ ...first, created: false });
      expect(fake.requests.filter((r) => r.path !== '/v1/oauth2/token')).toEqual([]);

      const other = await getOrCreatePlan(ctx(), terms({ bill_times: 6 }));
      expect(other.created).toBe(true);
      expect(other.id).not.toBe(first.id);
      expect(fake.calls(/^\/v1\/catalogs\/products$/)).toHaveLength(0);
      expect(await db()('store_paypal_plans').whereIn('vendor_plan_id', [first.id, other.id]).select('bill_times', 'mode')).toEqual(
        expect.arrayContaining([
          { bill_times: 12, mode: 'test' },
          { bill_times: 6, mode: 'test' },
        ]),
      );
    });

    it('maps every interval to PayPal’s frequency; a trial is a free TRIAL cycle first; the signup fee is the setup fee', async () => {
      const expected = {
        yearly: ['YEAR', 1],
        half_yearly: ['MONTH', 6],
        quarterly: ['MONTH', 3],
        monthly: ['MONTH', 1],
        weekly: ['WEEK', 1],
        daily: ['DAY', 1],
      };
      for (const [interval, [unit, count]] of Object.entries(expected)) {
        await getOrCreatePlan(ctx(), terms({ interval: interval as PlanTerms['interval'], product_name: `Every ${interval}` }));
        const body = fake.calls(/^\/v1\/billing\/plans$/).pop()!.body as { billing_cycles: Array<{ frequency: unknown }> };
        expect([interval, body.billing_cycles[0].frequency]).toEqual([interval, { interval_unit: unit, interval_count: count }]);
      }
      await getOrCreatePlan(ctx(), terms({ interval: 'quarterly', interval_count: 2, trial_days: 14, signup_fee: 999, currency: 'JPY', amount: 3000 }));
      const body = fake.calls(/^\/v1\/billing\/plans$/).pop()!.body;
      expect(body).toMatchObject({
        description: '3000 JPY every 2 × quarterly, 14-day free trial, sign-up fee 999 JPY',
        billing_cycles: [
          { frequency: { interval_unit: 'DAY', interval_count: 14 }, tenure_type: 'TRIAL', sequence: 1, total_cycles: 1 },
          {
            frequency: { interval_unit: 'MONTH', interval_count: 6 },
            tenure_type: 'REGULAR',
            sequence: 2,
            total_cycles: 0,
            pricing_scheme: { fixed_price: { currency_code: 'JPY', value: '3000' } },
          },
        ],
        payment_preferences: { setup_fee: { currency_code: 'JPY', value: '999' } },
      });
      expect((body.billing_cycles as Row[])[0]).not.toHaveProperty('pricing_scheme');
    });

    it('terms PayPal cannot bill are a 422 and call nothing; PayPal not answering is a 502 and stores nothing', async () => {
      for (const bad of [terms({ amount: 0 }), terms({ interval: 'monthly', interval_count: 13 }), terms({ trial_days: 400 }), terms({ bill_times: 1000 })]) {
        await expect(getOrCreatePlan(ctx(), bad)).rejects.toMatchObject({
          constructor: AppError,
          status: 422,
          message: expect.stringMatching(/^PayPal cannot bill/),
        });
      }
      expect(fake.requests.filter((r) => r.path !== '/v1/oauth2/token')).toEqual([]);

      const plans = await fx.count('store_paypal_plans');
      fake.failOn.create_plan = 'error500';
      await expect(getOrCreatePlan(ctx(), terms({ product_name: 'Not now' }))).rejects.toMatchObject({
        status: 502,
        message: 'PayPal could not be reached. Please try again in a moment.',
      });
      expect(await fx.count('store_paypal_plans')).toBe(plans);
    });
  });

  describe('POST /checkout/place-order with a PayPal subscription, approval and return', () => {
    it('creates the plan and the subscription, sends the shopper to approve; the return pays the order and activates the subscription', async () => {
      const activated = fx.record('store/subscription/activated');
      const { res, order, subscription, paypalId } = await subscribe(1500, { bill_times: 12 });

      const created = fake.billing.subscriptions.get(paypalId)!;
      expect([res.status, res.body]).toEqual([
        200,
        {
          status: 'success',
          redirect_url: `https://www.sandbox.paypal.com/webapps/billing/subscriptions?ba_token=${created.ba_token}`,
          message: 'Redirecting to PayPal to pay.',
        },
      ]);
      expect(subscription).toMatchObject({ status: 'pending', vendor_subscription_id: expect.stringMatching(/^I-/), vendor_plan_id: created.plan_id });
      expect(await chargesOf(order.id)).toEqual([
        { status: 'pending', total: 1500, vendor_charge_id: paypalId, subscription_id: subscription.id, order_type: 'subscription' },
      ]);
      const [call] = fake.calls(/^\/v1\/billing\/subscriptions$/);
      expect(call.requestId).toBe(`subscription-${String(subscription.uuid)}-${created.plan_id}-0.00USD`);
      expect(call.body).toEqual({
        plan_id: created.plan_id,
        custom_id: subscription.uuid,
        subscriber: { email_address: 'jane@example.com', name: { given_name: 'Jane', surname: 'Doe' } },
        plan: { payment_preferences: { setup_fee: { currency_code: 'USD', value: '0.00' } } },
        application_context: {
          brand_name: app.host.site.title,
          user_action: 'SUBSCRIBE_NOW',
          shipping_preference: 'NO_SHIPPING',
          return_url: `http://store.test${RETURN_PATH}?order_hash=${String(order.uuid)}`,
          cancel_url: 'http://store.test/checkout/',
        },
      });
      expect(fake.billing.plans.get(created.plan_id)).toMatchObject({ name: 'Magazine - Monthly', billing_cycles: [{ total_cycles: 12 }] });

      const back = await app.http.get(approve(paypalId));
      activated.off();
      expect([back.status, back.headers.location, back.body]).toEqual([
        302,
        `${RECEIPT}${String(order.uuid)}`,
        { redirect_url: `${RECEIPT}${String(order.uuid)}` },
      ]);
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'paid', total_paid: 1500 });
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1, next_billing_date: '2026-12-21 10:00:00' });
      // The first sale, found among the subscription's transactions, is the charge's id (what refunds need).
      const firstSale = sale(paypalId);
      expect(fake.calls(new RegExp(`/v1/billing/subscriptions/${paypalId}/transactions$`), 'GET')).toHaveLength(1);
      expect(await chargesOf(order.id)).toEqual([expect.objectContaining({ status: 'succeeded', total: 1500, vendor_charge_id: firstSale.id })]);
      expect(activated.calls.map(([sub]) => [sub.id, sub.status])).toEqual([[subscription.id, 'active']]);

      const activation = await notify('BILLING.SUBSCRIPTION.ACTIVATED', fake.billing.subscriptionResource(paypalId));
      expect(activation.res.status).toBe(200);
      expect(await outcomeOf(activation.id)).toBe('already_paid');
      const again = await notify('PAYMENT.SALE.COMPLETED', firstSale);
      expect(await outcomeOf(again.id)).toBe('duplicate_sale');
      expect(await renewalsOf(order.id)).toEqual([]);
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1 });
      expect(await activityTitles('subscription', subscription.id)).toEqual(['Subscription created at checkout', 'Subscription activated']);

      const reload = await app.http.get(approve(paypalId));
      expect(reload.headers.location).toBe(`${RECEIPT}${String(order.uuid)}`);
    });

    it('the first sale’s notification before the shopper returns pays the order with the sale; the return then only redirects', async () => {
      const { order, subscription, paypalId } = await subscribe(2000);
      const back = approve(paypalId);

      const first = await notify('PAYMENT.SALE.COMPLETED', sale(paypalId));
      expect(await outcomeOf(first.id)).toBe('first_payment_paid');
      const firstSale = sale(paypalId);
      expect(await chargesOf(order.id)).toEqual([expect.objectContaining({ status: 'succeeded', total: 2000, vendor_charge_id: firstSale.id })]);
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1 });

      const activation = await notify('BILLING.SUBSCRIPTION.ACTIVATED', fake.billing.subscriptionResource(paypalId));
      expect(await outcomeOf(activation.id)).toBe('already_paid');
      fake.resetSwitches();
      const res = await app.http.get(back);
      expect(res.headers.location).toBe(`${RECEIPT}${String(order.uuid)}`);
      expect(fake.calls(/\/v1\/billing\/subscriptions\//, 'GET')).toEqual([]);
      expect(await renewalsOf(order.id)).toEqual([]);
    });

    it('the return, ACTIVATED and the first sale (three deliveries) all at once: paid once, activated once, no renewal', async () => {
      const paid = fx.record('store/order/paid');
      const activated = fx.record('store/subscription/activated');
      const { order, subscription, paypalId } = await subscribe(1800);
      const back = approve(paypalId);
      const firstSale = sale(paypalId);
      const deliveries = [
        fake.deliver(fake.event('BILLING.SUBSCRIPTION.ACTIVATED', fake.billing.subscriptionResource(paypalId)), { time: app.clock.now() }),
        ...Array.from({ length: 3 }, () => fake.deliver(fake.event('PAYMENT.SALE.COMPLETED', firstSale), { time: app.clock.now() })),
      ];

      const [returned, ...answers] = await Promise.all([app.http.get(back), ...deliveries.map((delivery) => postWebhook(app, delivery))]);
      paid.off();
      activated.off();
      expect(returned.headers.location).toBe(`${RECEIPT}${String(order.uuid)}`);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect(paid.calls).toHaveLength(1);
      expect(activated.calls).toHaveLength(1);
      expect(await chargesOf(order.id)).toEqual([expect.objectContaining({ status: 'succeeded', total: 1800, vendor_charge_id: firstSale.id })]);
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1 });
      expect(await renewalsOf(order.id)).toEqual([]);
    });

    it('BILLING.SUBSCRIPTION.ACTIVATED pays the order with the first sale when the shopper never comes back', async () => {
      const { order, subscription, paypalId } = await subscribe(1200);
      fake.billing.approve(paypalId);
      const activation = await notify('BILLING.SUBSCRIPTION.ACTIVATED', fake.billing.subscriptionResource(paypalId));
      expect(await outcomeOf(activation.id)).toBe('first_payment_paid');
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'paid', total_paid: 1200 });
      expect(await chargesOf(order.id)).toEqual([expect.objectContaining({ status: 'succeeded', vendor_charge_id: sale(paypalId).id })]);
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active' });
      const again = await notify('PAYMENT.SALE.COMPLETED', sale(paypalId));
      expect(await outcomeOf(again.id)).toBe('duplicate_sale');
    });

    it('active before PayPal took the first payment: the receipt shows it pending; the sale pays it', async () => {
      const { order, subscription, paypalId } = await subscribe(900);
      fake.billing.paymentPending = true;
      const back = await app.http.get(approve(paypalId));
      expect(back.headers.location).toBe(`${RECEIPT}${String(order.uuid)}`);
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'pending' });
      const activation = await notify('BILLING.SUBSCRIPTION.ACTIVATED', fake.billing.subscriptionResource(paypalId));
      expect(await outcomeOf(activation.id)).toBe('awaiting_first_payment');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'pending' });

      const taken = fake.billing.takeFirstPayment(paypalId)!;
      const paid = await notify('PAYMENT.SALE.COMPLETED', taken);
      expect(await outcomeOf(paid.id)).toBe('first_payment_paid');
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'paid', total_paid: 900 });
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1 });
    });

    it('a trial with a signup fee: the fee is the first payment, the subscription trials, the first regular sale renews it', async () => {
      const { order, subscription, paypalId } = await subscribe(1000, { trial_days: 14, signup_fee: 500 });
      expect(order.total_amount).toBe(500);
      const plan = fake.billing.plans.get(fake.billing.subscriptions.get(paypalId)!.plan_id)!;
      expect(plan.billing_cycles.map((cycle) => [cycle.tenure_type, cycle.frequency])).toEqual([
        ['TRIAL', { interval_unit: 'DAY', interval_count: 14 }],
        ['REGULAR', { interval_unit: 'MONTH', interval_count: 1 }],
      ]);
      expect(fake.calls(/^\/v1\/billing\/subscriptions$/).pop()!.body.plan).toEqual({
        payment_preferences: { setup_fee: { currency_code: 'USD', value: '5.00' } },
      });

      await app.http.get(approve(paypalId));
      expect(sale(paypalId)).toMatchObject({ amount: { total: '5.00', currency: 'USD' } });
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'paid', total_paid: 500 });
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'trialing', bill_count: 0, trial_ends_at: '2026-12-05 10:00:00' });
      const remote = await paypal(app).fetchSubscription!(ctx(), toGatewaySubscription(presentSubscription(await subscriptionRow(subscription.id)), 'test'));
      expect(remote).toMatchObject({ status: 'trialing', amount: 1000, next_billing_date: '2026-12-05 10:00:00' });

      expect(await outcomeOf((await notify('PAYMENT.SALE.COMPLETED', sale(paypalId))).id)).toBe('duplicate_sale');
      const renewal = await notify('PAYMENT.SALE.COMPLETED', fake.billing.renew(paypalId));
      expect(await outcomeOf(renewal.id)).toBe('renewal_renewed');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1 });
      expect(await renewalsOf(order.id)).toEqual([expect.objectContaining({ total_amount: 1000, payment_status: 'paid' })]);
    });

    it('a free trial: the order is paid at checkout, PayPal bills from the trial’s end, and its first sale is a renewal', async () => {
      const { res, order, subscription, paypalId } = await subscribe(800, { trial_days: 7 });
      expect(res.body.redirect_url).toMatch(/^https:\/\/www\.sandbox\.paypal\.com\/webapps\/billing\/subscriptions\?ba_token=/);
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'paid', total_amount: 0 });
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'trialing', vendor_subscription_id: paypalId });

      const back = await app.http.get(approve(paypalId));
      expect(back.headers.location).toBe(`${RECEIPT}${String(order.uuid)}`);
      expect(fake.billing.subscriptions.get(paypalId)!.sales).toEqual([]);
      const renewal = await notify('PAYMENT.SALE.COMPLETED', fake.billing.renew(paypalId));
      expect(await outcomeOf(renewal.id)).toBe('renewal_renewed');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 1 });
    });
  });

  describe('renewals from PAYMENT.SALE.COMPLETED', () => {
    async function activeSubscription(price: number, terms: Record<string, unknown> = {}) {
      const bought = await subscribe(price, terms);
      await app.http.get(approve(bought.paypalId));
      await notify('PAYMENT.SALE.COMPLETED', sale(bought.paypalId));
      return bought;
    }

    it('each sale is a paid renewal order with the parent’s item and addresses and the sale as its charge', async () => {
      const renewed = fx.record('store/subscription/renewed');
      const { order, subscription, paypalId } = await activeSubscription(1500);
      const saleJson = fake.billing.renew(paypalId);
      const { res, id } = await notify('PAYMENT.SALE.COMPLETED', saleJson);
      renewed.off();
      expect([res.status, res.body]).toEqual([200, { received: true, duplicate: false }]);
      expect(await outcomeOf(id)).toBe('renewal_renewed');
      const [renewal] = await renewalsOf(order.id);
      expect(renewal).toMatchObject({ type: 'renewal', parent_id: order.id, payment_status: 'paid', total_amount: 1500, total_paid: 1500, currency: 'USD' });
      expect(renewal.invoice_no).toBeTruthy();
      expect(await chargesOf(renewal.id)).toEqual([
        { status: 'succeeded', total: 1500, vendor_charge_id: saleJson.id, subscription_id: subscription.id, order_type: 'renewal' },
      ]);
      expect(await fx.count('store_order_items', { order_id: renewal.id })).toBe(1);
      expect(await fx.count('store_order_addresses', { order_id: renewal.id })).toBe(await fx.count('store_order_addresses', { order_id: order.id }));
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 2, next_billing_date: '2027-01-21 10:00:00' });
      expect(renewed.calls.map(([sub, paid]) => [sub.id, paid.id])).toEqual([[subscription.id, renewal.id]]);
    });

    it('exactly once: one sale delivered as one event five times and as three other events, all at once', async () => {
      const renewed = fx.record('store/subscription/renewed');
      const { order, subscription, paypalId } = await activeSubscription(700);
      const saleJson = fake.billing.renew(paypalId);
      const events = [fake.event('PAYMENT.SALE.COMPLETED', saleJson), ...Array.from({ length: 3 }, () => fake.event('PAYMENT.SALE.COMPLETED', saleJson))];
      const deliveries = [...Array.from({ length: 5 }, () => events[0]), ...events.slice(1)].map((event) => fake.deliver(event, { time: app.clock.now() }));

      const answers = await Promise.all(deliveries.map((delivery) => postWebhook(app, delivery)));
      renewed.off();
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
      expect(await renewalsOf(order.id)).toHaveLength(1);
      expect(renewed.calls).toHaveLength(1);
      expect(await subscriptionRow(subscription.id)).toMatchObject({ bill_count: 2 });
      const outcomes = await Promise.all(events.map((event) => outcomeOf(event.id)));
      expect(outcomes.filter((outcome) => outcome === 'renewal_renewed')).toHaveLength(1);
      expect(outcomes.every((outcome) => outcome === undefined || ['renewal_renewed', 'duplicate_sale', 'renewal_duplicate'].includes(String(outcome)))).toBe(
        true,
      );
    });

    it('an installment plan completes with its last sale; PayPal had ended it, the job finds it so', async () => {
      const completed = fx.record('store/subscription/completed');
      const { order, subscription, paypalId } = await activeSubscription(1000, { bill_times: 3 });
      await notify('PAYMENT.SALE.COMPLETED', fake.billing.renew(paypalId));
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active', bill_count: 2 });
      const last = await notify('PAYMENT.SALE.COMPLETED', fake.billing.renew(paypalId));
      completed.off();
      expect(await outcomeOf(last.id)).toBe('renewal_renewed');
      expect(fake.billing.subscriptions.get(paypalId)!.status).toBe('EXPIRED');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'completed', bill_count: 3, next_billing_date: null });
      expect(completed.calls).toHaveLength(1);
      expect(await renewalsOf(order.id)).toHaveLength(2);

      await runJobs();
      expect(fake.calls(new RegExp(`/v1/billing/subscriptions/${paypalId}/cancel$`))).toHaveLength(1);
      expect(await activityTitles('subscription', subscription.id)).toContain('PayPal subscription ended');

      const expired = await notify('BILLING.SUBSCRIPTION.EXPIRED', fake.billing.subscriptionResource(paypalId));
      expect(await outcomeOf(expired.id)).toBe('unchanged_completed');
    });

    it('PayPal’s EXPIRED before the last sale’s notification completes it; the late sale is still recorded', async () => {
      const { order, subscription, paypalId } = await activeSubscription(1000, { bill_times: 2 });
      const lastSale = fake.billing.renew(paypalId);
      const expired = await notify('BILLING.SUBSCRIPTION.EXPIRED', fake.billing.subscriptionResource(paypalId));
      expect(await outcomeOf(expired.id)).toBe('completed');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'completed', bill_count: 1 });

      const late = await notify('PAYMENT.SALE.COMPLETED', lastSale);
      expect(await outcomeOf(late.id)).toBe('renewal_renewed');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'completed', bill_count: 2 });
      expect(await renewalsOf(order.id)).toHaveLength(1);
    });

    it('a sale of an unknown subscription, or not of a subscription, changes nothing', async () => {
      const orders = await fx.count('store_orders');
      const unknown = await notify('PAYMENT.SALE.COMPLETED', {
        id: 'SALE0000000000001',
        state: 'completed',
        amount: { total: '1.00', currency: 'USD' },
        billing_agreement_id: 'I-NOSUCH',
      });
      expect(await outcomeOf(unknown.id)).toBe('unknown_subscription');
      const plain = await notify('PAYMENT.SALE.COMPLETED', { id: 'SALE0000000000002', state: 'completed', amount: { total: '1.00', currency: 'USD' } });
      expect(await outcomeOf(plain.id)).toBe('ignored_not_a_subscription_sale');
      expect(await fx.count('store_orders')).toBe(orders);
    });
  });

  describe('status notifications', () => {
    async function activeSubscription() {
      const bought = await subscribe(1100);
      await app.http.get(approve(bought.paypalId));
      return bought;
    }

    it('CANCELLED cancels (canceled_at from PayPal), once', async () => {
      const canceled = fx.record('store/subscription/canceled');
      const { subscription, paypalId } = await activeSubscription();
      app.clock.advance(3_600_000);
      await paypal(app).cancelSubscription!(ctx(), toGatewaySubscription(presentSubscription(await subscriptionRow(subscription.id)), 'test'));
      const first = await notify('BILLING.SUBSCRIPTION.CANCELLED', fake.billing.subscriptionResource(paypalId));
      const second = await notify('BILLING.SUBSCRIPTION.CANCELLED', fake.billing.subscriptionResource(paypalId));
      canceled.off();
      expect([await outcomeOf(first.id), await outcomeOf(second.id)]).toEqual(['canceled', 'unchanged_canceled']);
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'canceled', canceled_at: '2026-11-21 11:00:00' });
      expect(canceled.calls).toHaveLength(1);
    });

    it('BILLING.SUBSCRIPTION.PAYMENT.FAILED and SUSPENDED mark it failing; the next sale makes it active again', async () => {
      const { subscription, paypalId } = await activeSubscription();
      fake.billing.failPayment(paypalId);
      expect(await outcomeOf((await notify('BILLING.SUBSCRIPTION.PAYMENT.FAILED', fake.billing.subscriptionResource(paypalId))).id)).toBe('failing');
      fake.billing.failPayment(paypalId);
      fake.billing.failPayment(paypalId);
      expect(fake.billing.subscriptions.get(paypalId)!.status).toBe('SUSPENDED');
      expect(await outcomeOf((await notify('BILLING.SUBSCRIPTION.SUSPENDED', fake.billing.subscriptionResource(paypalId))).id)).toBe('failing');
      const remote = await paypal(app).fetchSubscription!(ctx(), toGatewaySubscription(presentSubscription(await subscriptionRow(subscription.id)), 'test'));
      expect(remote.status).toBe('failing');

      fake.billing.subscriptions.get(paypalId)!.status = 'ACTIVE';
      expect(await outcomeOf((await notify('PAYMENT.SALE.COMPLETED', fake.billing.renew(paypalId))).id)).toBe('renewal_renewed');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'active' });
    });

    it('EXPIRED before the installments were billed expires it; a subscription PayPal does not know is reported as such', async () => {
      const { subscription, paypalId } = await activeSubscription();
      fake.billing.subscriptions.get(paypalId)!.status = 'EXPIRED';
      expect(await outcomeOf((await notify('BILLING.SUBSCRIPTION.EXPIRED', fake.billing.subscriptionResource(paypalId))).id)).toBe('expired');
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'expired' });
      const unknown = await notify('BILLING.SUBSCRIPTION.CANCELLED', { ...fake.billing.subscriptionResource(paypalId), id: 'I-NOSUCH00000' });
      expect(await outcomeOf(unknown.id)).toBe('unknown_subscription');
    });
  });

  describe('GET /checkout/paypal/return?subscription_id=…', () => {
    it('PayPal ended the subscription (its first payment declined): back to the checkout, noted on the order, nothing paid', async () => {
      const { order, subscription, paypalId } = await subscribe(1300);
      const back = approve(paypalId);
      Object.assign(fake.billing.subscriptions.get(paypalId)!, { status: 'CANCELLED', status_change_note: 'Setup fee payment failed' });
      const res = await app.http.get(back);
      expect([res.status, res.headers.location]).toEqual([302, DECLINED]);
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'pending' });
      expect(await subscriptionRow(subscription.id)).toMatchObject({ status: 'pending' });
      expect(await activityTitles('order', order.id)).toContain('PayPal subscription not started');
    });

    it('PayPal not answering is a 502 asking to reload; the reload pays', async () => {
      const { order, paypalId } = await subscribe(1400);
      const back = approve(paypalId);
      fake.failOn.get_subscription = 'hang';
      const res = await app.http.get(back);
      expect([res.status, res.body]).toEqual([
        502,
        { message: 'PayPal did not answer, so your payment is not confirmed yet. Please reload this page in a moment.' },
      ]);
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'pending' });
      fake.failOn = {};
      expect((await app.http.get(back)).headers.location).toBe(`${RECEIPT}${String(order.uuid)}`);
      expect(await orderRow(order.id)).toMatchObject({ payment_status: 'paid' });
    });

    it('404 for an unknown subscription or another order’s; 422 without token or subscription_id', async () => {
      const { paypalId } = await subscribe(1000);
      const other = await subscribe(1000);
      for (const query of [{ subscription_id: 'I-NOSUCH00000' }, { subscription_id: paypalId, order_hash: String(other.order.uuid) }]) {
        const res = await app.http.get(RETURN_PATH).query(query);
        expect([res.status, res.body]).toEqual([404, { message: 'PayPal subscription not found' }]);
      }
      const bare = await app.http.get(RETURN_PATH);
      expect(bare.status).toBe(422);
      expect(bare.body.errors.token).toBeDefined();
    });
  });

  describe('startSubscription, cancelSubscription, fetchSubscription, lookupSubscription', () => {
    const gatewayOf = async (id: unknown) => toGatewaySubscription(presentSubscription(await subscriptionRow(id)), 'test');

    it('declares subscriptions and vendor-id lookups', () => {
      expect(paypal(app).capabilities).toMatchObject({ subscriptions: true, verify_vendor_ids: true });
    });

    it('PayPal not answering at checkout is place-order’s 502; the order and subscription stay pending, and placing again works', async () => {
      const variation = await product(1600);
      const hash = await fx.cartWith([[variation.id, 1]]);
      fake.failOn.create_subscription = 'hang';
      const res = await fx.place(hash, guestForm({ payment_method: 'paypal' }));
      expect([res.status, res.body]).toEqual([
        502,
        { status: 'failed', message: 'PayPal could not start the payment. Your order is saved: please try again.' },
      ]);
      const order = await fx.orderOfCart(hash);
      expect(order).toMatchObject({ payment_status: 'pending' });
      fake.failOn = {};
      const again = await fx.place(hash, guestForm({ payment_method: 'paypal' }));
      expect(again.body.redirect_url).toMatch(/ba_token=BA-/);
    });

    it('the checkout placed again: an unapproved subscription is offered again, an approved one is settled, an ended one replaced', async () => {
      const { subscription, paypalId } = await subscribe(1700);
      const row = await subscriptionRow(subscription.id);
      const charge = (await db()('store_order_transactions').where({ subscription_id: subscription.id }).first()) as Row;
      const order = await orderRow(row.parent_order_id);
      const request = {
        order: { id: Number(order.id), uuid: String(order.uuid), currency: 'USD', total_amount: 1700, mode: 'test' },
        transaction: { id: Number(charge.id), uuid: String(charge.uuid), total: 1700 },
        customer: { id: Number(order.customer_id), email: 'jane@example.com', name: 'Jane Doe' },
        items: [],
        urls: { success_url: `${RECEIPT}${String(order.uuid)}`, cancel_url: 'http://store.test/checkout/', return_url: `http://store.test${RETURN_PATH}` },
        subscription: { ...(await gatewayOf(subscription.id)), trial_days: 0, signup_fee: 0, item_name: 'Magazine - Monthly' },
      };
      const start = () => paypal(app).startSubscription!(ctx(), request);
      fake.resetSwitches();

      expect(await start()).toMatchObject({ vendor_subscription_id: paypalId, redirect_url: expect.stringContaining('ba_token=') });
      expect(fake.calls(/^\/v1\/billing\/subscriptions$/)).toEqual([]);

      fake.billing.approve(paypalId);
      expect(await start()).toMatchObject({
        vendor_subscription_id: paypalId,
        redirect_url: `http://store.test${RETURN_PATH}?order_hash=${String(order.uuid)}&subscription_id=${paypalId}`,
      });
      expect(fake.calls(/^\/v1\/billing\/subscriptions$/)).toEqual([]);

      fake.billing.subscriptions.get(paypalId)!.status = 'CANCELLED';
      const replaced = await start();
      expect(replaced.vendor_subscription_id).not.toBe(paypalId);
      expect(fake.calls(/^\/v1\/billing\/subscriptions$/).map((call) => call.requestId)).toEqual([expect.stringMatching(new RegExp(`-after-${paypalId}$`))]);
    });

    it('fetch maps PayPal’s subscription; lookup finds it, or null for an unknown id or another payer; neither writes', async () => {
      const { subscription, paypalId } = await subscribe(2500, { bill_times: 4 });
      await app.http.get(approve(paypalId));
      const before = await subscriptionRow(subscription.id);
      const expected = {
        id: paypalId,
        status: 'active',
        customer_id: 'FAKEPAYER123',
        plan_id: before.vendor_plan_id,
        amount: 2500,
        currency: 'USD',
        next_billing_date: '2026-12-21 10:00:00',
        canceled_at: null,
      };
      expect(await paypal(app).fetchSubscription!(ctx(), await gatewayOf(subscription.id))).toEqual(expected);
      const lookup = (ids: { vendor_subscription_id: string; vendor_customer_id: string }) => paypal(app).lookupSubscription!(ctx(), { ...ids, mode: 'test' });
      expect(await lookup({ vendor_subscription_id: paypalId, vendor_customer_id: '' })).toEqual(expected);
      expect(await lookup({ vendor_subscription_id: paypalId, vendor_customer_id: 'FAKEPAYER123' })).toEqual(expected);
      expect(await lookup({ vendor_subscription_id: paypalId, vendor_customer_id: 'SOMEONEELSE' })).toBeNull();
      expect(await lookup({ vendor_subscription_id: 'I-NOSUCH00000', vendor_customer_id: '' })).toBeNull();
      expect(await subscriptionRow(subscription.id)).toEqual(before);

      fake.failOn.get_subscription = 'error500';
      await expect(paypal(app).fetchSubscription!(ctx(), await gatewayOf(subscription.id))).rejects.toMatchObject({
        status: 502,
        message: 'PayPal could not be reached. Please try again in a moment.',
      });
    });

    it('cancel ends it at PayPal with a reason; already ended there is skipped; unknown is failed; no answer throws', async () => {
      const { subscription, paypalId } = await subscribe(1900);
      await app.http.get(approve(paypalId));
      const cancel = async () => paypal(app).cancelSubscription!(ctx(), await gatewayOf(subscription.id));
      expect(await cancel()).toEqual({ status: 'success', message: `Canceled at PayPal (${paypalId}).`, vendor_id: paypalId });
      expect(fake.calls(/\/cancel$/).pop()!.body).toEqual({ reason: 'Canceled by the store.' });
      expect(fake.billing.subscriptions.get(paypalId)!.status).toBe('CANCELLED');
      expect(await cancel()).toEqual({ status: 'skipped', message: 'PayPal had already ended the subscription (CANCELLED).' });

      const unknown = await paypal(app).cancelSubscription!(ctx(), { ...(await gatewayOf(subscription.id)), vendor_subscription_id: 'I-NOSUCH00000' });
      expect(unknown).toEqual({ status: 'failed', message: 'INVALID_RESOURCE_ID: Requested resource ID was not found.' });
      fake.failOn.cancel_subscription = 'hang';
      await expect(cancel()).rejects.toThrow();
    });
  });
});
