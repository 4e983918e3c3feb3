/**
 * Stripe subscriptions end to end, through the real SDK against the local fake: a subscription product placed with
 * `POST /checkout/place-order` (on-site and hosted, trial, signup fee), its first payment, renewals from signed
 * `invoice.paid` webhooks (exactly one renewal order per invoice, whatever arrives twice or at once), installment
 * plans completing, failed payments, status changes Stripe reports, and the gateway's cancel / fetch / lookup.
 */
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';
import { signedEvent, type FakeStripe } from '../support/fakes/stripe-server';
import { WEBHOOK_SECRET, configureStripe, stripe, stripeStore } from '../support/stripe-orders';
import { toGatewaySubscription } from '../../src/modules/subscriptions/checkout';
import { readSubscription } from '../../src/modules/subscriptions/service';
import type { Subscription } from '../../src/modules/subscriptions/types';

type Json = Record<string, unknown>;

describe('Stripe subscriptions', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakeStripe;
  let stop: () => Promise<void>;
  let fx: ReturnType<typeof checkoutFixtures>;
  let serial = 0;
  const db = () => app.host.db;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    ({ fake, stop } = await stripeStore(app, admin));
    fake.now = () => app.clock.now();
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(async () => {
    fake.reset();
    await configureStripe(app, admin);
  });

  /** A signed Stripe event for `object`, delivered to the webhook route; `id` defaults to one per type and object. */
  const deliver = (type: string, object: Json, id = `evt_${type}_${String(object.id)}`) => {
    const { body, signature } = signedEvent({ id, type, object }, WEBHOOK_SECRET, Math.floor(app.clock.now().getTime() / 1000));
    return app.http.post(`${BASE}/webhooks/stripe`).set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(body);
  };

  const outcomeOf = async (eventId: string) => ((await db()('store_webhook_events').where({ gateway: 'stripe', event_id: eventId }).first()) as Json).outcome;

  /** A subscription product (one variation): `price` a month unless the terms say otherwise. */
  const plan = (price: number, terms: Json = {}) =>
    fx.variation(price, { fulfillment_type: 'digital', title: 'Magazine', variation: { payment_type: 'subscription', billing_interval: 'monthly', ...terms } });

  /** Places a cart of the plan with Stripe; returns the answer, the order and its subscription. */
  async function checkout(variationId: number, email = `reader${++serial}@example.com`) {
    const hash = await fx.cartWith([[variationId, 1]]);
    const res = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: email, billing_first_name: 'Rita', billing_last_name: 'Reader' }));
    if (res.status !== 200) throw new Error(`place-order: ${res.status} ${JSON.stringify(res.body)}`);
    const order = await fx.orderOfCart(hash);
    const subscription = (await db()('store_subscriptions').where({ parent_order_id: order.id }).first()) as Json;
    return { res, order, subscription: (await readSubscription(db(), Number(subscription.id))) as Subscription };
  }

  const remote = (subscription: Subscription) => fake.billing.subscriptions.get(subscription.vendor_subscription_id)!;
  const firstInvoice = (subscription: Subscription) => String(remote(subscription).latest_invoice);
  const current = async (subscription: Subscription) => (await readSubscription(db(), subscription.id)) as Subscription;
  const renewalOrders = (subscription: Subscription) =>
    db()('store_orders').where({ parent_id: subscription.parent_order_id!, type: 'renewal' }).orderBy('id') as Promise<Json[]>;

  /** A subscription checked out on-site and paid (first invoice paid at the fake, `invoice.paid` delivered). */
  async function activeSubscription(price = 1500, terms: Json = {}) {
    const variation = await plan(price, terms);
    const { subscription, order } = await checkout(variation.id);
    const paid = fake.billing.payInvoice(firstInvoice(subscription));
    const webhook = await deliver('invoice.paid', paid);
    if (webhook.status !== 200) throw new Error(`invoice.paid: ${webhook.status} ${JSON.stringify(webhook.body)}`);
    return { subscription: await current(subscription), order };
  }

  describe('POST /checkout/place-order with a Stripe subscription', () => {
    it('on-site: creates the customer, product and subscription through the SDK and answers the first invoice’s client secret', async () => {
      const variation = await plan(1500);

      const { res, order, subscription } = await checkout(variation.id, 'rita@example.com');

      const [customer] = [...fake.billing.customers.values()];
      const [created] = [...fake.billing.subscriptions.values()];
      const invoiceId = String(created.latest_invoice);
      const intentId = fake.billing.intentOfInvoice(invoiceId)!;
      const intent = fake.paymentIntents.get(intentId)!;
      expect(res.body).toEqual({
        status: 'success',
        payment_args: { client_secret: intent.client_secret, checkout_mode: 'onsite' },
        order_id: order.id,
        message: expect.any(String),
      });
      expect(customer).toMatchObject({ email: 'rita@example.com', name: 'Rita Reader' });
      const [call] = fake.calls('POST', '/v1/subscriptions');
      expect(call.stripeVersion).toBe('2026-10-28.endive');
      expect(call.idempotencyKey).toMatch(new RegExp(`^store-sub-${subscription.uuid}-`));
      expect(call.body).toMatchObject({
        customer: customer.id,
        items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '1500', recurring: { interval: 'month', interval_count: '1' } } }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        metadata: { subscription_uuid: subscription.uuid, order_uuid: order.uuid },
        expand: ['latest_invoice.payments', 'latest_invoice.confirmation_secret', 'pending_setup_intent'],
      });
      const [product] = [...fake.billing.products.values()];
      expect(product).toMatchObject({ name: subscription.item_name, metadata: { subscription_uuid: subscription.uuid } });
      expect((call.body.items as Array<{ price_data: Json }>)[0].price_data.product).toBe(product.id);
      expect(created).toMatchObject({ status: 'incomplete', customer: customer.id });
      expect(fake.billing.invoices.get(invoiceId)!.amount_due).toBe(1500);
      expect(subscription).toMatchObject({
        status: 'pending',
        current_payment_method: 'stripe',
        vendor_subscription_id: created.id,
        vendor_customer_id: customer.id,
        vendor_plan_id: ((created.items as { data: Array<{ price: Json }> }).data[0].price as Json).id,
        recurring_amount: 1500,
      });
      expect(await db()('store_order_transactions').where({ order_id: order.id }).first()).toMatchObject({ status: 'pending', vendor_charge_id: intentId });
    });

    it('the first payment activates it once, whether payment_intent.succeeded or invoice.paid comes first or both come', async () => {
      const variation = await plan(1500);
      const { order, subscription } = await checkout(variation.id);
      const activated = fx.record('store/subscription/activated');
      const paidHook = fx.record('store/order/paid');
      const invoice = fake.billing.payInvoice(firstInvoice(subscription));
      const intent = fake.paymentIntents.get(fake.billing.intentOfInvoice(String(invoice.id))!)!;

      const answers = await Promise.all([
        deliver('payment_intent.succeeded', intent),
        deliver('invoice.paid', invoice),
        deliver('invoice.payment_succeeded', invoice),
      ]);
      activated.off();
      paidHook.off();

      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 1500 });
      expect(await current(subscription)).toMatchObject({ status: 'active', bill_count: 1 });
      expect(activated.calls).toHaveLength(1);
      expect(paidHook.calls).toHaveLength(1);
      expect(await renewalOrders(subscription)).toHaveLength(0);
    });

    it('a signup fee and a trial: the first invoice is the fee alone, and paying it starts the trial', async () => {
      const variation = await plan(1500, { trial_days: 14, signup_fee: 500 });

      const { res, order, subscription } = await checkout(variation.id);

      const created = remote(subscription);
      expect(fake.calls('POST', '/v1/subscriptions')[0].body).toMatchObject({
        trial_period_days: '14',
        add_invoice_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '500' } }],
      });
      expect(created.status).toBe('trialing');
      expect(fake.billing.invoices.get(String(created.latest_invoice))!.amount_due).toBe(500);
      expect(res.body.payment_args.client_secret).toMatch(/^pi_.+_secret_/);
      expect(order).toMatchObject({ total_amount: 500 });

      const paid = await deliver('invoice.paid', fake.billing.payInvoice(String(created.latest_invoice)));
      expect(paid.status).toBe(200);
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 500 });
      expect(await current(subscription)).toMatchObject({ status: 'trialing', bill_count: 0, next_billing_date: '2026-12-05 10:00:00' });
    });

    it('a trial with nothing due now: paid at once, the answer is the setup intent that collects the card for later', async () => {
      const variation = await plan(1500, { trial_days: 7 });

      const { res, order, subscription } = await checkout(variation.id);

      const created = remote(subscription);
      const setup = fake.billing.setupIntents.get(String(created.pending_setup_intent))!;
      expect(res.body.payment_args).toEqual({ client_secret: setup.client_secret, checkout_mode: 'onsite' });
      expect(created.status).toBe('trialing');
      expect(fake.paymentIntents.size).toBe(0);
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_amount: 0 });
      expect(subscription).toMatchObject({ status: 'trialing', vendor_subscription_id: created.id });

      const zeroInvoice = fake.billing.invoiceView(String(created.latest_invoice));
      expect((await deliver('invoice.paid', zeroInvoice)).status).toBe(200);
      expect(await outcomeOf(`evt_invoice.paid_${String(zeroInvoice.id)}`)).toBe('nothing_due');
    });

    it('the same customer’s next subscription reuses their Stripe customer', async () => {
      const variation = await plan(900);
      await checkout(variation.id, 'loyal@example.com');
      const { subscription: second } = await checkout(variation.id, 'loyal@example.com');

      expect(fake.billing.customers.size).toBe(1);
      expect(fake.calls('POST', '/v1/customers')).toHaveLength(1);
      expect(second.vendor_customer_id).toBe([...fake.billing.customers.keys()][0]);
    });

    it('a first charge with more than the subscription (another item) bills the rest on the first invoice', async () => {
      const variation = await plan(1500);
      const poster = await fx.variation(700, { fulfillment_type: 'digital', title: 'Poster' });
      const hash = await fx.cartWith([
        [variation.id, 1],
        [poster.id, 1],
      ]);
      const res = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: 'mixed@example.com' }));
      expect(res.status).toBe(200);

      const [created] = [...fake.billing.subscriptions.values()];
      expect(fake.billing.invoices.get(String(created.latest_invoice))!.amount_due).toBe(2200);
      expect(fake.calls('POST', '/v1/subscriptions')[0].body.add_invoice_items).toEqual([
        { quantity: '1', price_data: expect.objectContaining({ unit_amount: '700' }) },
      ]);
    });

    it('hosted: redirects to a Checkout Session in subscription mode; its completion links the subscription and pays the order', async () => {
      await configureStripe(app, admin, { checkout_mode: 'hosted' });
      const variation = await plan(2500, { signup_fee: 1000 });

      const { res, order, subscription } = await checkout(variation.id, 'hosted@example.com');

      const [session] = [...fake.sessions.values()];
      expect(res.body).toEqual({ status: 'success', redirect_url: session.url, message: expect.any(String) });
      expect(fake.calls('POST', '/v1/checkout/sessions')[0].body).toMatchObject({
        mode: 'subscription',
        customer_email: 'hosted@example.com',
        line_items: [
          { quantity: '1', price_data: { unit_amount: '2500', recurring: { interval: 'month', interval_count: '1' } } },
          { quantity: '1', price_data: { unit_amount: '1000' } },
        ],
        subscription_data: { metadata: { subscription_uuid: subscription.uuid } },
      });
      expect(session.amount_total).toBe(3500);
      expect(subscription.vendor_subscription_id).toBe('');

      const completed = fake.completeSession(String(session.id));
      expect((await deliver('checkout.session.completed', completed)).status).toBe(200);
      const first = fake.billing.invoiceView(String(completed.invoice));
      expect((await deliver('invoice.paid', first)).status).toBe(200);

      expect(await current(subscription)).toMatchObject({
        status: 'active',
        vendor_subscription_id: completed.subscription,
        vendor_customer_id: completed.customer,
        bill_count: 1,
      });
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 3500 });
      expect(await db()('store_order_transactions').where({ order_id: order.id }).first()).toMatchObject({
        status: 'succeeded',
        vendor_charge_id: completed.invoice,
      });
    });

    it('hosted: the first invoice’s webhook may come before the session’s, and finds the subscription by its metadata', async () => {
      await configureStripe(app, admin, { checkout_mode: 'hosted' });
      const variation = await plan(2500);
      const { order, subscription } = await checkout(variation.id);
      const completed = fake.completeSession(String([...fake.sessions.values()][0].id));

      expect((await deliver('invoice.paid', fake.billing.invoiceView(String(completed.invoice)))).status).toBe(200);
      expect((await deliver('checkout.session.completed', completed)).status).toBe(200);

      expect(await current(subscription)).toMatchObject({ status: 'active', vendor_subscription_id: completed.subscription });
      expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 2500 });
    });

    it('Stripe refusing the subscription is a 502 and the order stays pending, to be placed again', async () => {
      const variation = await plan(1500);
      const hash = await fx.cartWith([[variation.id, 1]]);
      fake.failNext({ status: 400, error: { type: 'invalid_request_error', message: 'Invalid currency: xyz' } });

      const res = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: 'refused@example.com' }));

      expect(res.status).toBe(502);
      expect(await fx.orderOfCart(hash)).toMatchObject({ payment_status: 'pending' });
    });
  });

  describe('renewals (POST /webhooks/stripe, invoice.paid of a billing cycle)', () => {
    it('records one paid renewal order under the invoice id, bill_count + 1, with no call to Stripe', async () => {
      const { subscription, order } = await activeSubscription(1500);
      const renewed = fx.record('store/subscription/renewed');
      const invoice = fake.billing.renew(subscription.vendor_subscription_id);
      const calls = fake.requests.length;

      const res = await deliver('invoice.paid', invoice);
      renewed.off();

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, duplicate: false });
      expect(fake.requests.length).toBe(calls);
      const [renewal] = await renewalOrders(subscription);
      expect(renewal).toMatchObject({ type: 'renewal', parent_id: order.id, payment_status: 'paid', total_amount: 1500, total_paid: 1500 });
      expect(await db()('store_order_transactions').where({ order_id: renewal.id })).toEqual([
        expect.objectContaining({ status: 'succeeded', vendor_charge_id: invoice.id, subscription_id: subscription.id, total: 1500, payment_method: 'stripe' }),
      ]);
      expect(await current(subscription)).toMatchObject({ status: 'active', bill_count: 2 });
      expect(renewed.calls).toHaveLength(1);
      expect(await outcomeOf(`evt_invoice.paid_${String(invoice.id)}`)).toBe('renewed');
    });

    it('the same event delivered 5 times at once: one renewal, every delivery answered 200', async () => {
      const { subscription } = await activeSubscription(1500);
      const invoice = fake.billing.renew(subscription.vendor_subscription_id);
      const renewed = fx.record('store/subscription/renewed');

      const answers = await Promise.all(Array.from({ length: 5 }, () => deliver('invoice.paid', invoice, 'evt_same_renewal')));
      renewed.off();

      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
      expect(await renewalOrders(subscription)).toHaveLength(1);
      expect(renewed.calls).toHaveLength(1);
      expect(await current(subscription)).toMatchObject({ bill_count: 2 });
    });

    it('two different events of one payment (invoice.paid and invoice.payment_succeeded), at once and again later: one renewal', async () => {
      const { subscription } = await activeSubscription(1500);
      const invoice = fake.billing.renew(subscription.vendor_subscription_id);
      const intent = fake.paymentIntents.get(fake.billing.intentOfInvoice(String(invoice.id))!)!;

      const answers = await Promise.all([deliver('invoice.paid', invoice), deliver('invoice.payment_succeeded', invoice)]);
      const late = await deliver('invoice.paid', invoice, 'evt_redelivered_under_new_id');
      const intentEvent = await deliver('payment_intent.succeeded', intent);

      expect([...answers, late, intentEvent].map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(await renewalOrders(subscription)).toHaveLength(1);
      expect(await current(subscription)).toMatchObject({ bill_count: 2 });
      expect(await outcomeOf('evt_redelivered_under_new_id')).toBe('duplicate');
      expect(await outcomeOf(`evt_payment_intent.succeeded_${String(intent.id)}`)).toBe('unknown_charge');
    });

    it('each billing cycle is its own renewal', async () => {
      const { subscription } = await activeSubscription(1500);
      for (let cycle = 0; cycle < 3; cycle++) await deliver('invoice.paid', fake.billing.renew(subscription.vendor_subscription_id));

      expect(await renewalOrders(subscription)).toHaveLength(3);
      expect(await current(subscription)).toMatchObject({ status: 'active', bill_count: 4 });
    });

    it('an installment plan’s last payment completes it and ends the Stripe subscription after the commit, once', async () => {
      const { subscription } = await activeSubscription(1000, { bill_times: 3 });
      const completedHook = fx.record('store/subscription/completed');

      await deliver('invoice.paid', fake.billing.renew(subscription.vendor_subscription_id));
      expect(await current(subscription)).toMatchObject({ status: 'active', bill_count: 2 });
      const last = fake.billing.renew(subscription.vendor_subscription_id);
      await Promise.all([deliver('invoice.paid', last), deliver('invoice.payment_succeeded', last)]);
      completedHook.off();

      expect(await current(subscription)).toMatchObject({ status: 'completed', bill_count: 3 });
      expect(completedHook.calls).toHaveLength(1);
      expect(fake.calls('DELETE', `/v1/subscriptions/${subscription.vendor_subscription_id}`)).toHaveLength(0);

      // Every due job runs (the renewals' emails among them), twice over: the end-at-gateway job runs once.
      while ((await app.host.jobs.runDue(50)) > 0);
      while ((await app.host.jobs.runDue(50)) > 0);

      expect(fake.calls('DELETE', `/v1/subscriptions/${subscription.vendor_subscription_id}`)).toHaveLength(1);
      expect(remote(subscription).status).toBe('canceled');
      expect(
        await db()('store_activities').where({ object_type: 'subscription', object_id: subscription.id, title: 'Stripe subscription ended' }),
      ).toHaveLength(1);

      const deleted = await deliver('customer.subscription.deleted', fake.billing.subscriptionView(subscription.vendor_subscription_id));
      expect(deleted.status).toBe(200);
      expect(await current(subscription)).toMatchObject({ status: 'completed' });
    });

    it('a failed renewal makes it failing; the next paid invoice makes it active again', async () => {
      const { subscription } = await activeSubscription(1500);
      const failingHook = fx.record('store/subscription/failing');

      const failed = fake.billing.renew(subscription.vendor_subscription_id, { failed: true });
      expect((await deliver('invoice.payment_failed', failed)).status).toBe(200);
      failingHook.off();
      expect(await current(subscription)).toMatchObject({ status: 'failing', bill_count: 1 });
      expect(failingHook.calls).toHaveLength(1);
      expect(await renewalOrders(subscription)).toHaveLength(0);

      const retried = fake.billing.payInvoice(String(failed.id));
      expect((await deliver('invoice.paid', retried)).status).toBe(200);
      expect(await current(subscription)).toMatchObject({ status: 'active', bill_count: 2 });
      expect(await renewalOrders(subscription)).toHaveLength(1);
    });

    it('an invoice of a subscription the store does not know is recorded and ignored', async () => {
      const res = await deliver('invoice.paid', {
        id: 'in_unknown',
        object: 'invoice',
        billing_reason: 'subscription_cycle',
        amount_paid: 100,
        currency: 'usd',
        customer: 'cus_x',
        livemode: false,
        parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription: 'sub_elsewhere', metadata: {} } },
      });

      expect(res.status).toBe(200);
      expect(await outcomeOf('evt_invoice.paid_in_unknown')).toBe('unknown_subscription');
    });

    it('a renewal order refunds at Stripe through its invoice’s payment intent', async () => {
      const { subscription } = await activeSubscription(1500);
      const invoice = fake.billing.renew(subscription.vendor_subscription_id);
      await deliver('invoice.paid', invoice);
      const [renewal] = await renewalOrders(subscription);
      const charge = (await db()('store_order_transactions').where({ order_id: renewal.id }).first()) as Json;

      const res = await app
        .as(admin)
        .post(`${BASE}/orders/${String(renewal.id)}/refund`)
        .send({ refund_info: { transaction_id: charge.id, amount: '15.00' } });

      expect(res.status).toBe(200);
      const [refund] = [...fake.refunds.values()];
      expect(refund).toMatchObject({ amount: 1500, payment_intent: fake.billing.intentOfInvoice(String(invoice.id)), metadata: { invoice_id: invoice.id } });
      expect(await fx.orderRow(Number(renewal.id))).toMatchObject({ payment_status: 'refunded' });

      expect((await deliver('refund.updated', refund)).status).toBe(200);
      expect(await outcomeOf(`evt_refund.updated_${String(refund.id)}`)).toBe('already_settled');
    });
  });

  describe('status changes Stripe reports (customer.subscription.updated / deleted)', () => {
    it('cancel at period end → expiring; the subscription ending then → expired', async () => {
      const { subscription } = await activeSubscription(1500);
      const stripeSubscription = remote(subscription);
      stripeSubscription.cancel_at_period_end = true;

      expect((await deliver('customer.subscription.updated', fake.billing.subscriptionView(subscription.vendor_subscription_id), 'evt_upd_1')).status).toBe(
        200,
      );
      const expiring = await current(subscription);
      expect(expiring.status).toBe('expiring');
      expect(expiring.expire_at).not.toBeNull();

      Object.assign(stripeSubscription, { status: 'canceled', canceled_at: Math.floor(app.clock.now().getTime() / 1000) });
      expect((await deliver('customer.subscription.deleted', fake.billing.subscriptionView(subscription.vendor_subscription_id))).status).toBe(200);
      expect(await current(subscription)).toMatchObject({ status: 'expired' });
    });

    it('past due → failing; an unchanged status writes nothing; deleted → canceled', async () => {
      const { subscription } = await activeSubscription(1500);
      const view = () => fake.billing.subscriptionView(subscription.vendor_subscription_id);

      await deliver('customer.subscription.updated', view(), 'evt_same');
      expect(await outcomeOf('evt_same')).toBe('unchanged');

      remote(subscription).status = 'past_due';
      await deliver('customer.subscription.updated', view(), 'evt_past_due');
      expect(await current(subscription)).toMatchObject({ status: 'failing' });

      const canceled = fx.record('store/subscription/canceled');
      await stripe(app).cancelSubscription!(app.ctx(), toGatewaySubscription(subscription, 'test'));
      await deliver('customer.subscription.deleted', view());
      canceled.off();
      expect(await current(subscription)).toMatchObject({ status: 'canceled', canceled_at: '2026-11-21 10:00:00' });
      expect(canceled.calls).toHaveLength(1);
    });

    it('a pending subscription (first payment not made) is left to its payment', async () => {
      const variation = await plan(1500);
      const { subscription } = await checkout(variation.id);
      remote(subscription).status = 'active';

      await deliver('customer.subscription.updated', fake.billing.subscriptionView(subscription.vendor_subscription_id), 'evt_early');

      expect(await outcomeOf('evt_early')).toBe('ignored_pending');
      expect(await current(subscription)).toMatchObject({ status: 'pending' });
    });
  });

  describe('the admin routes under /orders/{order}/subscriptions/{subscription} with Stripe', () => {
    const at = (subscription: Subscription, action: string) => `${BASE}/orders/${subscription.parent_order_id}/subscriptions/${subscription.id}/${action}`;

    it('PUT cancel: ends it at Stripe, then in the store', async () => {
      const { subscription } = await activeSubscription(1500);

      const res = await app.as(admin).put(at(subscription, 'cancel')).send({ cancel_reason: 'Customer asked' });

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Subscription has been cancelled successfully!');
      expect(fake.calls('DELETE', `/v1/subscriptions/${subscription.vendor_subscription_id}`)).toHaveLength(1);
      expect(remote(subscription).status).toBe('canceled');
      expect(await current(subscription)).toMatchObject({ status: 'canceled' });
    });

    it('PUT cancel: Stripe refusing still cancels locally, and the message carries Stripe’s reason', async () => {
      const { subscription } = await activeSubscription(1500);
      await stripe(app).cancelSubscription!(app.ctx(), toGatewaySubscription(subscription, 'test'));

      const res = await app.as(admin).put(at(subscription, 'cancel')).send({ cancel_reason: 'Fraud' });

      expect(res.status).toBe(200);
      expect(res.body.message).toBe(
        `Subscription cancelled locally. Vendor Response: This subscription has already been canceled: ${subscription.vendor_subscription_id}.`,
      );
      expect(await current(subscription)).toMatchObject({ status: 'canceled' });
    });

    it('PUT fetch: takes the status and dates Stripe reports', async () => {
      const { subscription } = await activeSubscription(1500);
      remote(subscription).status = 'past_due';
      const periodEnd = Number((remote(subscription).items as { data: Json[] }).data[0].current_period_end);

      const res = await app.as(admin).put(at(subscription, 'fetch'));

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Subscription fetched successfully from remote payment gateway!');
      expect(res.body.subscription).toMatchObject({
        status: 'failing',
        next_billing_date: new Date(periodEnd * 1000).toISOString().slice(0, 19).replace('T', ' '),
      });
    });

    it('POST verify-vendor-ids: Stripe’s subscription, amount as a decimal string; an unknown id is a 404; nothing written', async () => {
      const { subscription } = await activeSubscription(1500);
      await fx.storeSettings({ vendor_id_editing_enabled: true });
      const before = await current(subscription);

      const found = await app
        .as(admin)
        .post(at(subscription, 'verify-vendor-ids'))
        .send({ vendor_subscription_id: subscription.vendor_subscription_id, vendor_customer_id: subscription.vendor_customer_id });
      const missing = await app.as(admin).post(at(subscription, 'verify-vendor-ids')).send({ vendor_subscription_id: 'sub_not_at_stripe' });
      await fx.storeSettings({ vendor_id_editing_enabled: false });

      expect(found.status).toBe(200);
      expect(found.body).toEqual({
        message: 'Subscription found at the payment gateway.',
        verification: {
          id: subscription.vendor_subscription_id,
          status: 'active',
          customer_id: subscription.vendor_customer_id,
          amount: '15.00',
          currency: 'USD',
          next_billing_date: expect.any(String),
        },
      });
      expect(missing.status).toBe(404);
      expect(await current(subscription)).toEqual(before);
    });
  });

  describe('the gateway’s cancelSubscription, fetchSubscription and lookupSubscription', () => {
    const gatewaySubscription = (subscription: Subscription) => toGatewaySubscription(subscription, 'test');

    it('cancel: success ends it at Stripe; a refusal is failed with Stripe’s message; no answer throws', async () => {
      const { subscription } = await activeSubscription(1500);
      const gateway = stripe(app);

      expect(await gateway.cancelSubscription!(app.ctx(), gatewaySubscription(subscription))).toEqual({
        status: 'success',
        message: `Canceled at Stripe (${subscription.vendor_subscription_id}).`,
        vendor_id: subscription.vendor_subscription_id,
      });
      expect(remote(subscription).status).toBe('canceled');

      expect(await gateway.cancelSubscription!(app.ctx(), gatewaySubscription(subscription))).toEqual({
        status: 'failed',
        message: `This subscription has already been canceled: ${subscription.vendor_subscription_id}.`,
      });

      fake.behaviour = 'reset';
      await expect(gateway.cancelSubscription!(app.ctx(), gatewaySubscription(subscription))).rejects.toThrow();
      fake.behaviour = 'normal';

      expect(await gateway.cancelSubscription!(app.ctx(), { ...gatewaySubscription(subscription), vendor_subscription_id: '' })).toMatchObject({
        status: 'skipped',
      });
    });

    it.each([
      ['active', false, 'active'],
      ['active', true, 'expiring'],
      ['trialing', false, 'trialing'],
      ['past_due', false, 'failing'],
      ['unpaid', false, 'failing'],
      ['canceled', false, 'canceled'],
      ['incomplete', false, 'pending'],
      ['incomplete_expired', false, 'expired'],
      ['paused', false, 'paused'],
    ])('fetch maps Stripe’s %s (cancel at period end: %s) to %s', async (stripeStatus, atPeriodEnd, storeStatus) => {
      const { subscription } = await activeSubscription(1500);
      const item = (remote(subscription).items as { data: Json[] }).data[0];
      Object.assign(remote(subscription), { status: stripeStatus, cancel_at_period_end: atPeriodEnd });

      const fetched = await stripe(app).fetchSubscription!(app.ctx(), gatewaySubscription(subscription));

      const ended = stripeStatus === 'canceled' || stripeStatus === 'incomplete_expired';
      expect(fetched).toEqual({
        id: subscription.vendor_subscription_id,
        status: storeStatus,
        customer_id: subscription.vendor_customer_id,
        plan_id: subscription.vendor_plan_id,
        amount: 1500,
        currency: 'USD',
        next_billing_date: ended ? null : new Date(Number(item.current_period_end) * 1000).toISOString().slice(0, 19).replace('T', ' '),
        canceled_at: null,
      });
    });

    it('fetch of an id Stripe does not know is a 502 gateway_error with Stripe’s message', async () => {
      const { subscription } = await activeSubscription(1500);
      await expect(
        stripe(app).fetchSubscription!(app.ctx(), { ...gatewaySubscription(subscription), vendor_subscription_id: 'sub_nope' }),
      ).rejects.toMatchObject({
        code: 'gateway_error',
        status: 502,
        message: "No such object: 'sub_nope'",
      });
    });

    it('lookup: found by id (and customer when given); another customer’s or an unknown id is null; writes nothing', async () => {
      const { subscription } = await activeSubscription(1500);
      const gateway = stripe(app);
      const ids = { vendor_subscription_id: subscription.vendor_subscription_id, vendor_customer_id: subscription.vendor_customer_id, mode: 'test' };
      const before = fake.requests.filter((r) => r.method !== 'GET').length;

      expect(await gateway.lookupSubscription!(app.ctx(), ids)).toMatchObject({ id: subscription.vendor_subscription_id, status: 'active', amount: 1500 });
      expect(await gateway.lookupSubscription!(app.ctx(), { ...ids, vendor_customer_id: '' })).toMatchObject({ id: subscription.vendor_subscription_id });
      expect(await gateway.lookupSubscription!(app.ctx(), { ...ids, vendor_customer_id: 'cus_someone_else' })).toBeNull();
      expect(await gateway.lookupSubscription!(app.ctx(), { ...ids, vendor_subscription_id: 'sub_missing' })).toBeNull();
      expect(fake.requests.filter((r) => r.method !== 'GET').length).toBe(before);
      expect(gateway.capabilities).toMatchObject({ subscriptions: true, verify_vendor_ids: true });
    });
  });
});
