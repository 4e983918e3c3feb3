/**
 * The customer portal's subscription actions that reach a payment gateway, through the real SDKs against the local
 * Stripe and PayPal fakes: a new card for a Stripe subscription, cancel-auto-renew at the end of the period and now,
 * reactivation, PayPal billing plans, and switching a Stripe subscription to PayPal with its signed confirmation.
 */
import type { FakePayPal } from '../support/fakes/paypal-server';
import type { FakeStripe } from '../support/fakes/stripe-server';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { paypalStore } from '../support/paypal-orders';
import { SECRET_KEY, stripeStore } from '../support/stripe-orders';
import { portalFixtures } from '../support/subscriptions-portal';
import { paypalApi } from '../../src/gateways/paypal/client';
import { paypalCredentials } from '../../src/gateways/paypal/config';
import { stripeClient } from '../../src/gateways/stripe/client';

const NOW = '2026-11-21 10:00:00';
const PORTAL = `${BASE}/customer-profile/subscriptions`;

describe('customer portal subscriptions at the gateways', () => {
  let app: TestApp;
  let admin: TestUser;
  let alice: TestUser;
  let stripeFake: FakeStripe;
  let paypalFake: FakePayPal;
  const stops: Array<() => Promise<void>> = [];
  let fx: ReturnType<typeof portalFixtures>;
  const db = () => app.host.db;
  const row = (id: number) => db()('store_subscriptions').where({ id }).first();

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    alice = await app.createUser('alice', ['customer']);
    fx = portalFixtures(app, () => admin, NOW);
    const stripe = await stripeStore(app, admin);
    const paypal = await paypalStore(app, admin);
    stripeFake = stripe.fake;
    paypalFake = paypal.fake;
    stops.push(stripe.stop, paypal.stop);
    // Nothing here tests a gateway that does not answer: generous timeouts keep a busy machine from failing the calls.
    process.env.STRIPE_TIMEOUT_MS = '10000';
    process.env.PAYPAL_TIMEOUT_MS = '10000';
    stripeFake.now = () => app.clock.now();
    paypalFake.now = () => app.clock.now();
    // The Stripe fake has no payment-method endpoints: attaching answers here (an unknown `pm_missing` as Stripe does).
    const route = stripeFake.billing.route.bind(stripeFake.billing);
    stripeFake.billing.route = (request) => {
      const attach = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(request.path);
      if (request.method !== 'POST' || !attach) return route(request);
      if (attach[1] === 'pm_missing') {
        return [
          404,
          { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method', message: "No such PaymentMethod: 'pm_missing'" } },
        ];
      }
      return [200, { id: attach[1], object: 'payment_method', type: 'card', customer: request.body.customer, livemode: false }];
    };
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    await app.close();
  });
  afterEach(() => {
    stripeFake.behaviour = 'normal';
  });

  /** An active Stripe subscription at the fake (created and paid through the SDK) and alice's record of it. */
  async function stripeSubscription(over: Record<string, unknown> = {}) {
    const stripe = stripeClient(SECRET_KEY);
    const customer = await stripe.customers.create({ email: 'alice@example.com' });
    const product = await stripe.products.create({ name: 'Magazine' });
    const created = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price_data: { currency: 'usd', product: product.id, unit_amount: 1500, recurring: { interval: 'month' } } }],
    });
    stripeFake.billing.payInvoice(String(stripeFake.billing.subscriptions.get(created.id)!.latest_invoice));
    const subscription = await fx.subscription(alice, {
      vendor_subscription_id: created.id,
      vendor_customer_id: customer.id,
      vendor_plan_id: created.items.data[0].price.id,
      ...over,
    });
    return { subscription, remote: () => stripeFake.billing.subscriptions.get(created.id)! };
  }

  const post = (uuid: string, action: string, body: Record<string, unknown>) => app.as(alice).post(`${PORTAL}/${uuid}/${action}`).send(body);

  describe('POST …/update-payment-method (Stripe)', () => {
    it('attaches the payment method to the Stripe customer, makes it the subscription’s default and keeps the reference', async () => {
      const { subscription } = await stripeSubscription();
      app.clock.advance(1000);

      const res = await post(subscription.uuid, 'update-payment-method', { payment_method_id: 'pm_card_visa', payment_method_type: 'card' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { subscription: { id: subscription.id, payment_method_id: 'pm_card_visa', updated_at: '2026-11-21 10:00:01' } },
      });
      expect(stripeFake.calls('POST', '/v1/payment_methods/pm_card_visa/attach').map((call) => call.body)).toEqual([
        { customer: subscription.vendor_customer_id },
      ]);
      expect(stripeFake.calls('POST', `/v1/subscriptions/${subscription.vendor_subscription_id}`).map((call) => call.body)).toEqual([
        { default_payment_method: 'pm_card_visa' },
      ]);
      expect((await fx.read(subscription.id)).config).toEqual({ payment_method_id: 'pm_card_visa', payment_method_type: 'card' });
      expect((await fx.activities(subscription.id)).at(-1)).toEqual({
        title: 'Payment method updated by the customer',
        content: 'Stripe now charges the card payment method pm_card_visa.',
      });
      const detail = (await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription;
      expect(detail.payment_info).toEqual({ method: 'stripe', title: 'Stripe', payment_method_type: 'card', payment_method_id: 'pm_card_visa' });
      app.clock.set(new Date('2026-11-21T10:00:00Z'));
    });

    it('a payment method Stripe refuses is payment_method_invalid with Stripe’s message; nothing is stored', async () => {
      const { subscription } = await stripeSubscription();
      const before = await row(subscription.id);
      const res = await post(subscription.uuid, 'update-payment-method', { payment_method_id: 'pm_missing', payment_method_type: 'card' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'payment_method_invalid', message: "Stripe did not accept the payment method: No such PaymentMethod: 'pm_missing'" },
      });
      expect(await row(subscription.id)).toEqual(before);
    });

    it('a kind of payment method Stripe does not take is payment_method_invalid before Stripe is asked', async () => {
      const { subscription } = await stripeSubscription();
      const calls = stripeFake.requests.length;
      const res = await post(subscription.uuid, 'update-payment-method', { payment_method_id: 'pm_1', payment_method_type: 'paypal' });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'payment_method_invalid', message: 'Stripe does not take paypal payment methods.' });
      expect(stripeFake.requests.length).toBe(calls);
    });

    it('Stripe failing (5xx) is a 502 gateway_error; nothing is stored', async () => {
      const { subscription } = await stripeSubscription();
      const before = await row(subscription.id);
      stripeFake.behaviour = 'error500';
      const res = await post(subscription.uuid, 'update-payment-method', { payment_method_id: 'pm_card_visa', payment_method_type: 'card' });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ success: false, error: { code: 'gateway_error', message: 'Stripe did not answer. Nothing was changed; please try again.' } });
      expect(await row(subscription.id)).toEqual(before);
    });
  });

  describe('POST …/cancel-auto-renew and …/confirm-subscription-reactivation (Stripe)', () => {
    it('at the end of the period: Stripe cancel_at_period_end, expiring here; the reactivate_url resumes both', async () => {
      const { subscription, remote } = await stripeSubscription();

      const res = await post(subscription.uuid, 'cancel-auto-renew', { reason: 'Moving abroad', cancel_at_period_end: true });

      expect(res.status).toBe(200);
      expect(res.body.data.subscription).toMatchObject({ auto_renew: false, cancel_at_period_end: true, cancellation_date: '2026-12-21 10:00:00' });
      expect(remote()).toMatchObject({ status: 'active', cancel_at_period_end: true });
      expect(await fx.read(subscription.id)).toMatchObject({ status: 'expiring' });
      const detail = (await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription;
      expect(detail.reactivate_url).toEqual(expect.stringContaining('reactivation_token='));
      expect(detail.can_update_payment_method).toBe(false);

      const token = new URL(detail.reactivate_url).searchParams.get('reactivation_token');
      const whileExpiring = await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: 'I-X', payment_method_type: 'paypal' });
      expect(whileExpiring.body.error.code).toBe('invalid_subscription_status');
      const back = await post(subscription.uuid, 'confirm-subscription-reactivation', { reactivation_token: token });

      expect(back.status).toBe(200);
      expect(back.body.data.subscription).toMatchObject({ id: subscription.id, status: 'active', next_billing_date: '2026-12-21 10:00:00' });
      expect(remote()).toMatchObject({ status: 'active', cancel_at_period_end: false });
      expect(await fx.read(subscription.id)).toMatchObject({ status: 'active', expire_at: null });
    });

    it('now: the Stripe subscription is canceled, then the record', async () => {
      const { subscription, remote } = await stripeSubscription();
      const res = await post(subscription.uuid, 'cancel-auto-renew', { cancel_at_period_end: false });
      expect(res.status).toBe(200);
      expect(stripeFake.calls('DELETE', `/v1/subscriptions/${subscription.vendor_subscription_id}`)).toHaveLength(1);
      expect(remote().status).toBe('canceled');
      expect(await fx.read(subscription.id)).toMatchObject({ status: 'canceled', canceled_at: NOW });
    });

    it('Stripe refusing the cancellation is a 502 gateway_error with its message, and the subscription stays active', async () => {
      const { subscription } = await stripeSubscription();
      await stripeClient(SECRET_KEY).subscriptions.cancel(subscription.vendor_subscription_id);
      const before = await row(subscription.id);
      const res = await post(subscription.uuid, 'cancel-auto-renew', { cancel_at_period_end: false });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({
        success: false,
        error: {
          code: 'gateway_error',
          message: `Stripe refused the request: This subscription has already been canceled: ${subscription.vendor_subscription_id}.`,
        },
      });
      expect(await row(subscription.id)).toEqual(before);
    });
  });

  describe('PayPal: plans and switching a Stripe subscription to PayPal', () => {
    /** A PayPal subscription on `planId` that the subscriber approved at the fake. */
    async function approvedPayPal(planId: string): Promise<string> {
      const api = paypalApi(await paypalCredentials(app.host));
      const { result } = await api.subscriptions.createSubscription({
        body: { planId, applicationContext: { returnUrl: 'https://store.test/back', cancelUrl: 'https://store.test/cancel' } },
      });
      paypalFake.billing.approve(result.id!);
      return result.id!;
    }

    it('get-or-create-plan: the plan of the subscription’s own terms, created once and then reused', async () => {
      const { subscription } = await stripeSubscription({ bill_times: 6, bill_count: 2 });
      const detail = (await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription;
      expect(detail).toMatchObject({ can_switch_payment_method: true, switchable_payment_methods: ['paypal'] });

      const first = await post(subscription.uuid, 'get-or-create-plan', { plan_id: 'P-ANY', amount: 1500, billing_cycle: 'monthly' });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: true,
        data: { plan: { id: expect.stringMatching(/^P-/), amount: 1500, billing_cycle: 'monthly', created: true } },
      });
      const plan = paypalFake.billing.plans.get(first.body.data.plan.id)!;
      expect(plan).toMatchObject({ status: 'ACTIVE', name: 'Magazine - Monthly' });
      expect(plan.billing_cycles).toEqual([
        expect.objectContaining({ tenure_type: 'REGULAR', total_cycles: 4, pricing_scheme: { fixed_price: { value: '15.00', currency_code: 'USD' } } }),
      ]);

      const again = await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' });
      expect(again.body.data.plan).toEqual({ ...first.body.data.plan, created: false });
    });

    it('get-or-create-plan: other terms than the subscription’s are refused (422) and create nothing', async () => {
      const { subscription } = await stripeSubscription();
      const plans = paypalFake.billing.plans.size;
      const cheaper = await post(subscription.uuid, 'get-or-create-plan', { amount: 100, billing_cycle: 'monthly' });
      expect(cheaper.status).toBe(422);
      expect(cheaper.body.error).toEqual({
        code: 'validation_error',
        message: "The amount must be the subscription's 15.00 USD (1500).",
        errors: { amount: { in: "The amount must be the subscription's 15.00 USD (1500)." } },
      });
      const yearly = await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'yearly' });
      expect(yearly.status).toBe(422);
      expect(yearly.body.error.errors).toEqual({ billing_cycle: { in: "The billing cycle must be the subscription's: monthly." } });
      expect(paypalFake.billing.plans.size).toBe(plans);
    });

    it('switch, then confirm: the record moves to the approved PayPal subscription and the Stripe one is canceled', async () => {
      const { subscription, remote } = await stripeSubscription();
      const plan = (await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' })).body.data.plan;
      const paypalId = await approvedPayPal(plan.id);

      const switched = await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: paypalId, payment_method_type: 'paypal' });

      expect(switched.status).toBe(200);
      expect(switched.body).toEqual({
        success: true,
        data: {
          subscription: { id: subscription.id, payment_method_id: paypalId, updated_at: NOW },
          payment_method: 'paypal',
          confirmation_token: expect.stringMatching(/^[\w-]+\.[\w-]+$/),
          expires_at: '2026-11-21 10:30:00',
        },
      });
      expect(await fx.read(subscription.id)).toMatchObject({ current_payment_method: 'stripe', vendor_subscription_id: subscription.vendor_subscription_id });
      expect(remote().status).toBe('active');

      const token = switched.body.data.confirmation_token as string;
      const confirmed = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });

      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toEqual({
        success: true,
        data: { subscription: { id: subscription.id, status: 'active', payment_method_switched: true, updated_at: NOW, payment_method: 'paypal' } },
      });
      expect(remote().status).toBe('canceled');
      const stored = await fx.read(subscription.id);
      expect(stored).toMatchObject({
        current_payment_method: 'paypal',
        vendor_subscription_id: paypalId,
        vendor_customer_id: 'FAKEPAYER123',
        vendor_plan_id: plan.id,
      });
      expect(stored.config).toEqual({
        payment_method_id: paypalId,
        payment_method_type: 'paypal',
        payment_method_switched_at: NOW,
        switched_from: { payment_method: 'stripe', vendor_subscription_id: subscription.vendor_subscription_id },
      });

      const replay = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });
      expect(replay.status).toBe(422);
      expect(replay.body.error.errors).toEqual({ confirmation_token: { invalid: 'The token is invalid or has expired.' } });
      const detail = (await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription;
      expect(detail).toMatchObject({ current_payment_method: 'paypal', switchable_payment_methods: ['stripe'], can_update_payment_method: false });
    });

    it('confirm refuses a PayPal subscription that is not approved or bills another amount (payment_method_invalid), and an expired token', async () => {
      const { subscription, remote } = await stripeSubscription();
      const plan = (await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' })).body.data.plan;
      const api = paypalApi(await paypalCredentials(app.host));
      const pending = (
        await api.subscriptions.createSubscription({
          body: { planId: plan.id, applicationContext: { returnUrl: 'https://s.test/b', cancelUrl: 'https://s.test/c' } },
        })
      ).result.id!;
      const other = await stripeSubscription({ recurring_amount: 900 });
      const cheapPlan = (await app.as(alice).post(`${PORTAL}/${other.subscription.uuid}/get-or-create-plan`).send({ amount: 900, billing_cycle: 'monthly' }))
        .body.data.plan;
      const cheap = await approvedPayPal(cheapPlan.id);

      const attempt = async (paypalId: string) => {
        const token = (await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: paypalId, payment_method_type: 'paypal' })).body.data
          .confirmation_token;
        return post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });
      };
      const notApproved = await attempt(pending);
      expect(notApproved.status).toBe(400);
      expect(notApproved.body.error).toEqual({
        code: 'payment_method_invalid',
        message: `The PayPal subscription ${pending} is pending; approve it at PayPal first.`,
      });
      const wrongAmount = await attempt(cheap);
      expect(wrongAmount.body.error).toEqual({ code: 'payment_method_invalid', message: 'The PayPal subscription bills 9.00 USD, not 15.00 USD.' });
      const unknown = await attempt('I-NOSUCH');
      expect(unknown.body.error).toEqual({ code: 'payment_method_invalid', message: 'PayPal has no subscription I-NOSUCH.' });

      const good = await approvedPayPal(plan.id);
      const token = (await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: good, payment_method_type: 'paypal' })).body.data
        .confirmation_token;
      app.clock.advance(31 * 60 * 1000);
      const expired = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });
      app.clock.set(new Date('2026-11-21T10:00:00Z'));
      expect(expired.status).toBe(422);
      expect(remote().status).toBe('active');
      expect(await fx.read(subscription.id)).toMatchObject({ current_payment_method: 'stripe', vendor_subscription_id: subscription.vendor_subscription_id });
    });

    it('the same confirmation sent twice at once is carried out once', async () => {
      const { subscription, remote } = await stripeSubscription();
      const plan = (await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' })).body.data.plan;
      const paypalId = await approvedPayPal(plan.id);
      const token = (await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: paypalId, payment_method_type: 'paypal' })).body.data
        .confirmation_token;

      const answers = await Promise.all([1, 2].map(() => post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token })));

      expect(answers.map((res) => res.status).sort()).toEqual([200, 422]);
      expect(stripeFake.calls('DELETE', `/v1/subscriptions/${subscription.vendor_subscription_id}`)).toHaveLength(1);
      expect(remote().status).toBe('canceled');
      expect(await fx.read(subscription.id)).toMatchObject({ current_payment_method: 'paypal', vendor_subscription_id: paypalId });
      expect((await fx.activities(subscription.id)).filter((a) => a.title === 'Payment method switched by the customer')).toHaveLength(1);
    });

    it('confirm refuses a PayPal subscription another subscription of the store already has', async () => {
      const { subscription, remote } = await stripeSubscription();
      const plan = (await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' })).body.data.plan;
      const paypalId = await approvedPayPal(plan.id);
      await fx.subscription(alice, { current_payment_method: 'paypal', vendor_subscription_id: paypalId });
      const token = (await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: paypalId, payment_method_type: 'paypal' })).body.data
        .confirmation_token;

      const res = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });

      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'payment_method_invalid',
        message: `The PayPal subscription ${paypalId} already belongs to another subscription.`,
      });
      expect(remote().status).toBe('active');
      expect((await fx.read(subscription.id)).current_payment_method).toBe('stripe');
    });

    it('only the latest switch’s token confirms; a kind no switchable gateway takes is payment_method_invalid', async () => {
      const { subscription } = await stripeSubscription();
      const first = (await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: 'I-FIRST', payment_method_type: 'paypal' })).body.data;
      await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: 'I-SECOND', payment_method_type: 'paypal' });
      const stale = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: first.confirmation_token });
      expect(stale.status).toBe(422);

      const card = await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: 'pm_1', payment_method_type: 'card' });
      expect(card.status).toBe(400);
      expect(card.body.error).toEqual({
        code: 'payment_method_invalid',
        message: 'This subscription can move to paypal; none of them takes card payment methods.',
      });
    });

    it('when Stripe cannot end the old subscription, the switch is put back (502) and the token stays valid for a retry', async () => {
      const { subscription, remote } = await stripeSubscription();
      const plan = (await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' })).body.data.plan;
      const paypalId = await approvedPayPal(plan.id);
      const token = (await post(subscription.uuid, 'switch-payment-method', { new_payment_method_id: paypalId, payment_method_type: 'paypal' })).body.data
        .confirmation_token;
      const pending = await row(subscription.id);
      stripeFake.behaviour = 'error500';

      const failed = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });

      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe('gateway_error');
      const stored = await row(subscription.id);
      expect({ ...stored, updated_at: pending.updated_at }).toEqual(pending);
      expect((await fx.activities(subscription.id)).slice(-2).map((a) => a.title)).toEqual([
        'Payment method switched by the customer',
        'Payment method switch undone',
      ]);

      stripeFake.behaviour = 'normal';
      const retried = await post(subscription.uuid, 'confirm-subscription-switch', { confirmation_token: token });
      expect(retried.status).toBe(200);
      expect(remote().status).toBe('canceled');
      expect((await fx.read(subscription.id)).current_payment_method).toBe('paypal');
    });
  });

  describe('POST …/cancel-auto-renew (PayPal)', () => {
    it('PayPal cannot end a subscription later: it is canceled there now, expiring here, and cannot be reactivated', async () => {
      const plan = await (async () => {
        const { subscription } = await stripeSubscription();
        return (await post(subscription.uuid, 'get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' })).body.data.plan;
      })();
      const api = paypalApi(await paypalCredentials(app.host));
      const created = (
        await api.subscriptions.createSubscription({
          body: { planId: plan.id, applicationContext: { returnUrl: 'https://s.test/b', cancelUrl: 'https://s.test/c' } },
        })
      ).result.id!;
      paypalFake.billing.approve(created);
      const subscription = await fx.subscription(alice, { current_payment_method: 'paypal', vendor_subscription_id: created, vendor_plan_id: plan.id });

      const res = await post(subscription.uuid, 'cancel-auto-renew', { cancel_at_period_end: true, reason: 'Done' });

      expect(res.status).toBe(200);
      expect(paypalFake.billing.subscriptions.get(created)!.status).toBe('CANCELLED');
      const stored = await fx.read(subscription.id);
      expect(stored).toMatchObject({ status: 'expiring', expire_at: '2026-12-21 10:00:00' });
      expect(stored.config).toMatchObject({ cancel_at_period_end: true, gateway_ended: true });
      expect((await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription.reactivate_url).toBeNull();
    });
  });
});
