/**
 * The customer portal's subscription routes without a payment gateway in the way (subscriptions not billed by a
 * gateway subscription yet, or billed by hand): the list and the detail view, ownership on every route, the anonymous
 * answers, the status rules, cancel-auto-renew and reactivation, the signed tokens, validation and the hourly classes.
 * Gateway calls (Stripe, PayPal) are in `subscriptions-portal-gateways.test.ts`.
 */
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { portalFixtures } from '../support/subscriptions-portal';

const NOW = '2026-11-21 10:00:00';
const PORTAL = `${BASE}/customer-profile/subscriptions`;

describe('customer portal subscriptions', () => {
  let app: TestApp;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let fx: ReturnType<typeof portalFixtures>;
  const db = () => app.host.db;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    alice = await app.createUser('alice', ['customer']);
    bob = await app.createUser('bob', ['customer']);
    fx = portalFixtures(app, () => admin, NOW);
  });
  afterAll(() => app.close());

  /** The stored row, to show that a refused request changed nothing. */
  const row = (id: number) => db()('store_subscriptions').where({ id }).first();

  describe('GET /customer-profile/subscriptions', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await app.createUser('lister', ['customer']);
    });

    it("lists the caller's subscriptions newest first, without pending or intended ones, in the portal's compact view", async () => {
      const older = await fx.subscription(user, { status: 'canceled', created_at: '2026-10-01 09:00:00' });
      await fx.subscription(user, { status: 'pending' });
      await fx.subscription(user, { status: 'intended' });
      const newer = await fx.subscription(user, {
        status: 'trialing',
        item_name: 'Box - Yearly',
        billing_interval: 'yearly',
        recurring_amount: 12000,
        bill_times: 3,
      });
      await fx.subscription(bob);

      const res = await app.as(user).get(PORTAL);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Success',
        subscriptions: { current_page: 1, per_page: 10, total: 2, last_page: 1, from: 1, to: 2, data: [expect.any(Object), expect.any(Object)] },
      });
      expect(res.body.subscriptions.data[0]).toEqual({
        uuid: newer.uuid,
        status: 'trialing',
        title: 'Box - Yearly',
        subtitle: '120.00 USD / year, 1 of 3 payments made',
        item_name: 'Box - Yearly',
        billing_info: { interval: 'year', interval_count: 1, amount: 12000, currency: 'USD' },
        recurring_amount: 12000,
        currency: 'USD',
        next_billing_date: '2026-12-21 10:00:00',
        bill_times: 3,
        bill_count: 1,
        current_payment_method: 'stripe',
        order: { uuid: newer.order_uuid },
        created_at: NOW,
      });
      expect(res.body.subscriptions.data[1]).toMatchObject({ uuid: older.uuid, status: 'canceled', subtitle: '15.00 USD / month' });
    });

    it('pages: page and per_page, clamped rather than refused', async () => {
      const second = await app.as(user).get(`${PORTAL}?page=2&per_page=1`);
      expect(second.status).toBe(200);
      expect(second.body.subscriptions).toMatchObject({ current_page: 2, per_page: 1, total: 2, last_page: 2, from: 2, to: 2 });
      expect(second.body.subscriptions.data.map((s: { status: string }) => s.status)).toEqual(['canceled']);

      expect((await app.as(user).get(`${PORTAL}?per_page=5000`)).body.subscriptions.per_page).toBe(200);
      expect((await app.as(user).get(`${PORTAL}?per_page=0&page=-3`)).body.subscriptions).toMatchObject({ per_page: 1, current_page: 1 });
      expect((await app.as(user).get(`${PORTAL}?page=9`)).body.subscriptions).toMatchObject({ current_page: 9, data: [], from: null, to: null, total: 2 });
    });

    it('answers an empty page, not an error, when nobody is logged in', async () => {
      const res = await app.http.get(`${PORTAL}?per_page=5`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Success', subscriptions: { current_page: 1, data: [], per_page: 5, total: 0, last_page: 1, from: null, to: null } });
    });

    it('answers an empty page to a logged-in user without a customer record', async () => {
      const stranger = await app.createUser('stranger', ['customer']);
      const res = await app.as(stranger).get(PORTAL);
      expect(res.status).toBe(200);
      expect(res.body.subscriptions).toMatchObject({ data: [], total: 0 });
    });
  });

  describe('GET /customer-profile/subscriptions/{subscription_uuid}', () => {
    it('answers the portal detail view with every field of the spec', async () => {
      const subscription = await fx.subscription(alice, {
        vendor_subscription_id: 'sub_123',
        vendor_customer_id: 'cus_9',
        billing_interval: 'half_yearly',
        recurring_amount: 4999,
        bill_times: 4,
        bill_count: 2,
        config: JSON.stringify({ payment_method_type: 'card', payment_method_id: 'pm_1', internal_note: 'for staff', overridden_status: 'paused' }),
      });
      const billing = (await db()('store_order_addresses').where({ order_id: subscription.parent_order_id, type: 'billing' }).first()) as { id: number };

      const res = await app.as(alice).get(`${PORTAL}/${subscription.uuid}`);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Success',
        subscription: {
          uuid: subscription.uuid,
          status: 'active',
          overridden_status: 'paused',
          vendor_subscription_id: 'sub_123',
          next_billing_date: '2026-12-21 10:00:00',
          billing_info: { interval: 'month', interval_count: 6, amount: 4999, currency: 'USD' },
          current_payment_method: 'stripe',
          payment_method: 'Stripe',
          payment_info: { method: 'stripe', title: 'Stripe', payment_method_type: 'card', payment_method_id: 'pm_1' },
          bill_times: 4,
          bill_count: 2,
          variation_id: 9,
          product_id: 7,
          config: { payment_method_type: 'card', payment_method_id: 'pm_1' },
          reactivate_url: null,
          title: 'Magazine - Monthly',
          subtitle: '49.99 USD / half year, 2 of 4 payments made',
          can_upgrade: false,
          can_switch_payment_method: false,
          switchable_payment_methods: [],
          can_update_payment_method: true,
          order: { uuid: subscription.order_uuid },
          billing_addresses: [
            {
              id: billing.id,
              order_id: subscription.parent_order_id,
              type: 'billing',
              country: 'US',
              state: 'CA',
              city: 'Los Angeles',
              postcode: '90001',
              address_1: '1 Main St',
              address_2: '',
              name: 'Buyer',
              company_name: '',
              phone: '',
              email: 'buyer@example.com',
              meta: {},
              created_at: NOW,
              updated_at: NOW,
              formatted_address: {
                country: 'US',
                state: 'CA',
                city: 'Los Angeles',
                postcode: '90001',
                address_1: '1 Main St',
                address_2: '',
                name: 'Buyer',
                company_name: '',
                type: 'billing',
                phone: '',
                full_address: 'Buyer, 1 Main St, LOS ANGELES, CA 90001, United States of America',
              },
            },
          ],
          recurring_amount: 4999,
          currency: 'USD',
          trial_ends_at: null,
          expire_at: null,
          canceled_at: null,
          created_at: NOW,
        },
      });
    });

    it('answers 404 for another customer’s subscription, an unknown uuid and a uuid of another shape', async () => {
      const bobs = await fx.subscription(bob);
      for (const uuid of [bobs.uuid, '00000000-0000-4000-8000-000000000000', 'not_a_uuid', "x' OR 1=1", '%E2%98%83']) {
        const res = await app.as(alice).get(`${PORTAL}/${encodeURIComponent(uuid)}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Subscription not found' });
      }
    });

    it('answers 401 to a caller who is not logged in', async () => {
      const subscription = await fx.subscription(alice);
      const res = await app.http.get(`${PORTAL}/${subscription.uuid}`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'You are not logged in' });
    });
  });

  describe('POST …/cancel-auto-renew', () => {
    it('cancel_at_period_end (the default): expiring until the next billing date, the reason kept, activity and hooks', async () => {
      const subscription = await fx.subscription(alice, { vendor_subscription_id: '' });
      const hooks: string[] = [];
      const offs = [
        app.host.hooks.addAction('store/subscription/expiring', (s, from) => void hooks.push(`expiring:${from}->${s.status}`)),
        app.host.hooks.addAction('store/subscription/status_changed', (s, from) => void hooks.push(`status_changed:${from}->${s.status}`)),
      ];

      const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`).send({ reason: 'Too expensive' });
      offs.forEach((off) => off());

      expect(res.status).toBe(200);
      const stored = await fx.read(subscription.id);
      expect(res.body).toEqual({
        success: true,
        data: {
          subscription: { id: subscription.id, auto_renew: false, cancel_at_period_end: true, cancellation_date: '2026-12-21 10:00:00', updated_at: NOW },
        },
      });
      expect(stored).toMatchObject({ status: 'expiring', expire_at: '2026-12-21 10:00:00', canceled_at: NOW });
      expect(stored.config).toMatchObject({ cancel_at_period_end: true, customer_cancel_reason: 'Too expensive' });
      expect(hooks.sort()).toEqual(['expiring:active->expiring', 'status_changed:active->expiring']);
      expect((await fx.activities(subscription.id)).at(-1)).toEqual({
        title: 'Subscription set to cancel at the end of its period',
        content: 'Status changed from active to expiring. Canceled by the customer at the end of the paid period: Too expensive',
      });
    });

    it('cancel_at_period_end false: canceled now', async () => {
      const subscription = await fx.subscription(alice, { vendor_subscription_id: '', status: 'failing' });
      const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`).send({ cancel_at_period_end: false });
      expect(res.status).toBe(200);
      expect(res.body.data.subscription).toEqual({
        id: subscription.id,
        auto_renew: false,
        cancel_at_period_end: false,
        cancellation_date: NOW,
        updated_at: NOW,
      });
      expect(await fx.read(subscription.id)).toMatchObject({ status: 'canceled', canceled_at: NOW });
    });

    it('refuses a subscription that is no longer billed (invalid_subscription_status) and one the store bills by hand (insufficient_permissions)', async () => {
      for (const status of ['canceled', 'expired', 'expiring', 'completed', 'pending', 'paused']) {
        const subscription = await fx.subscription(alice, { status });
        const before = await row(subscription.id);
        const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`).send({});
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          success: false,
          error: {
            code: 'invalid_subscription_status',
            message: `This subscription is ${status}; only active, trialing or failing subscriptions can be changed.`,
          },
        });
        expect(await row(subscription.id)).toEqual(before);
      }
      const manual = await fx.subscription(alice, { collection_method: 'manual' });
      const res = await app.as(alice).post(`${PORTAL}/${manual.uuid}/cancel-auto-renew`).send({});
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'insufficient_permissions', message: 'This subscription is billed by the store directly; please contact the store to change it.' },
      });
      expect((await fx.read(manual.id)).status).toBe('active');
    });

    it('refuses bad input with 422 validation_error and changes nothing', async () => {
      const subscription = await fx.subscription(alice);
      const before = await row(subscription.id);
      const res = await app
        .as(alice)
        .post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`)
        .send({ cancel_at_period_end: 'soon', reason: 'x'.repeat(501) });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        success: false,
        error: {
          code: 'validation_error',
          message: expect.any(String),
          errors: { cancel_at_period_end: { boolean: expect.any(String) }, reason: { max: 'The reason field must not be greater than 500 characters.' } },
        },
      });
      expect(await row(subscription.id)).toEqual(before);
    });
  });

  describe('POST …/confirm-subscription-reactivation', () => {
    /** An expiring subscription of alice's (canceled at the end of its period) and the token of its detail view's `reactivate_url`. */
    async function expiring(over: Record<string, unknown> = {}) {
      const subscription = await fx.subscription(alice, { vendor_subscription_id: '' });
      await app.as(alice).post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`).send({ cancel_at_period_end: true });
      if (Object.keys(over).length) await db()('store_subscriptions').where({ id: subscription.id }).update(over);
      const detail = await app.as(alice).get(`${PORTAL}/${subscription.uuid}`);
      const url = detail.body.subscription.reactivate_url as string | null;
      return { subscription, url, token: url ? new URL(url).searchParams.get('reactivation_token')! : '' };
    }

    it('the detail view of an expiring subscription carries a reactivate_url whose token brings it back to active', async () => {
      const { subscription, url, token } = await expiring();
      expect(url).toBe(
        `http://store.test/wp-json/store/v2/customer-profile/subscriptions/${subscription.uuid}/confirm-subscription-reactivation?reactivation_token=${encodeURIComponent(token)}`,
      );
      app.clock.advance(60_000);

      const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({ reactivation_token: token });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { subscription: { id: subscription.id, status: 'active', reactivated_at: '2026-11-21 10:01:00', next_billing_date: '2026-12-21 10:00:00' } },
      });
      const stored = await fx.read(subscription.id);
      expect(stored).toMatchObject({ status: 'active', expire_at: null, canceled_at: null });
      expect(stored.config).toMatchObject({ cancel_at_period_end: false, reactivated_at: '2026-11-21 10:01:00' });
      expect((await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription.reactivate_url).toBeNull();

      const again = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({ reactivation_token: token });
      expect(again.status).toBe(400);
      expect(again.body.error).toEqual({
        code: 'invalid_subscription_status',
        message: 'This subscription is active; only a subscription set to end with its period can be reactivated.',
      });
    });

    it('takes the token from the query of the reactivate_url as well', async () => {
      const { subscription, url } = await expiring();
      const res = await app.as(alice).post(new URL(url!).pathname.replace('/wp-json/store/v2', BASE) + new URL(url!).search);
      expect(res.status).toBe(200);
      expect((await fx.read(subscription.id)).status).toBe('active');
    });

    it('refuses a tampered, foreign, expired or missing token with 422 and changes nothing', async () => {
      const { subscription, token } = await expiring({ expire_at: '2027-06-01 00:00:00' });
      const other = await expiring();
      const [payload, mac] = token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), exp: 9_999_999_999 })).toString('base64url');
      const before = await row(subscription.id);
      const cases: Array<[unknown, string]> = [
        [`${forged}.${mac}`, 'invalid'],
        [`${payload}.${mac.slice(0, -2)}xx`, 'invalid'],
        [other.token, 'invalid'],
        ['garbage', 'invalid'],
      ];
      for (const [sent, rule] of cases) {
        const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({ reactivation_token: sent });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          success: false,
          error: {
            code: 'validation_error',
            message: 'The token is invalid or has expired.',
            errors: { reactivation_token: { [rule]: 'The token is invalid or has expired.' } },
          },
        });
      }
      const missing = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({});
      expect(missing.status).toBe(422);
      expect(missing.body.error.errors).toEqual({ reactivation_token: { required: 'The reactivation token field is required.' } });

      app.clock.advance(24 * 60 * 60 * 1000 + 1000);
      const expired = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({ reactivation_token: token });
      expect(expired.status).toBe(422);
      expect(expired.body.error.code).toBe('validation_error');
      expect(await row(subscription.id)).toEqual(before);
      app.clock.set(new Date('2026-11-21T10:00:00Z'));
    });

    it('a token of another user (the same subscription) does not pass', async () => {
      const { subscription, token } = await expiring();
      const heir = await app.createUser('heir', ['customer']);
      await db()('store_customers').where({ user_id: alice.user.id }).update({ user_id: heir.user.id });
      try {
        const res = await app.as(heir).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({ reactivation_token: token });
        expect(res.status).toBe(422);
        expect(res.body.error.errors).toEqual({ reactivation_token: { invalid: 'The token is invalid or has expired.' } });
        expect((await fx.read(subscription.id)).status).toBe('expiring');
      } finally {
        await db()('store_customers').where({ user_id: heir.user.id }).update({ user_id: alice.user.id });
      }
    });

    it('no reactivate_url once the paid period ended; confirming then is invalid_subscription_status', async () => {
      const { subscription, token } = await expiring();
      await db()('store_subscriptions').where({ id: subscription.id }).update({ expire_at: '2026-11-21 09:00:00' });
      expect((await app.as(alice).get(`${PORTAL}/${subscription.uuid}`)).body.subscription.reactivate_url).toBeNull();
      const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-reactivation`).send({ reactivation_token: token });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'invalid_subscription_status',
        message: 'This subscription can no longer be reactivated: its period has ended or its payment was stopped at the gateway.',
      });
      expect((await fx.read(subscription.id)).status).toBe('expiring');
    });
  });

  describe('payment methods without a gateway that takes them', () => {
    it('update-payment-method: a subscription its gateway cannot re-point is payment_method_invalid', async () => {
      for (const over of [
        { vendor_subscription_id: '' },
        { current_payment_method: 'paypal', vendor_subscription_id: 'I-1' },
        { current_payment_method: 'cod' },
      ]) {
        const subscription = await fx.subscription(alice, over);
        const before = await row(subscription.id);
        const res = await app
          .as(alice)
          .post(`${PORTAL}/${subscription.uuid}/update-payment-method`)
          .send({ payment_method_id: 'pm_2', payment_method_type: 'card' });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('payment_method_invalid');
        expect(await row(subscription.id)).toEqual(before);
      }
    });

    it('switch-payment-method: nothing to switch to while no other subscription gateway is available', async () => {
      const subscription = await fx.subscription(alice);
      const res = await app
        .as(alice)
        .post(`${PORTAL}/${subscription.uuid}/switch-payment-method`)
        .send({ new_payment_method_id: 'I-77', payment_method_type: 'paypal' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: { code: 'payment_method_invalid', message: 'No other payment method can take over this subscription now.' },
      });
      expect((await fx.read(subscription.id)).config).toEqual({});
    });

    it('get-or-create-plan: PayPal is not available for the subscription', async () => {
      const subscription = await fx.subscription(alice);
      const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/get-or-create-plan`).send({ amount: 1500, billing_cycle: 'monthly' });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'payment_method_invalid',
        message: 'Billing plans are for moving a subscription to PayPal, which is not available for this subscription.',
      });
    });

    it('confirm-subscription-switch: a token that was never issued is refused', async () => {
      const subscription = await fx.subscription(alice);
      const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/confirm-subscription-switch`).send({ confirmation_token: 'abc.def' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_error', errors: { confirmation_token: { invalid: 'The token is invalid or has expired.' } } });
    });

    it('validates the bodies (422 validation_error naming the field)', async () => {
      const subscription = await fx.subscription(alice);
      const before = await row(subscription.id);
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['update-payment-method', { payment_method_type: 'card' }, 'payment_method_id'],
        ['update-payment-method', { payment_method_id: 'pm 1 <script>', payment_method_type: 'card' }, 'payment_method_id'],
        ['update-payment-method', { payment_method_id: 'pm_1', payment_method_type: 'Card!' }, 'payment_method_type'],
        ['switch-payment-method', { new_payment_method_id: '', payment_method_type: 'paypal' }, 'new_payment_method_id'],
        ['get-or-create-plan', { amount: -1, billing_cycle: 'monthly' }, 'amount'],
        ['get-or-create-plan', { amount: 1500, billing_cycle: 'fortnightly' }, 'billing_cycle'],
        ['confirm-subscription-switch', {}, 'confirmation_token'],
      ];
      for (const [action, body, field] of cases) {
        const res = await app.as(alice).post(`${PORTAL}/${subscription.uuid}/${action}`).send(body);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ success: false, error: { code: 'validation_error', errors: { [field]: expect.any(Object) } } });
      }
      expect(await row(subscription.id)).toEqual(before);
    });
  });

  describe('ownership and anonymous callers on every action', () => {
    const ACTIONS: Array<[string, Record<string, unknown>]> = [
      ['update-payment-method', { payment_method_id: 'pm_1', payment_method_type: 'card' }],
      ['get-or-create-plan', { amount: 1500, billing_cycle: 'monthly' }],
      ['switch-payment-method', { new_payment_method_id: 'I-1', payment_method_type: 'paypal' }],
      ['confirm-subscription-switch', { confirmation_token: 'a.b' }],
      ['confirm-subscription-reactivation', { reactivation_token: 'a.b' }],
      ['cancel-auto-renew', { cancel_at_period_end: false }],
    ];

    it.each(ACTIONS)("%s: another customer's uuid is subscription_not_found (404) and changes nothing", async (action, body) => {
      const bobs = await fx.subscription(bob, { status: 'expiring', vendor_subscription_id: '' });
      const before = await row(bobs.id);
      for (const uuid of [bobs.uuid, '00000000-0000-4000-8000-000000000000', 'bad_shape']) {
        const res = await app.as(alice).post(`${PORTAL}/${uuid}/${action}`).send(body);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ success: false, error: { code: 'subscription_not_found', message: 'Subscription not found' } });
      }
      expect(await row(bobs.id)).toEqual(before);
    });

    it.each(ACTIONS)('%s: a caller who is not logged in gets 401 insufficient_permissions', async (action, body) => {
      const subscription = await fx.subscription(alice, { vendor_subscription_id: '' });
      const before = await row(subscription.id);
      const res = await app.http.post(`${PORTAL}/${subscription.uuid}/${action}`).send(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'insufficient_permissions', message: 'You must be logged in to manage your subscriptions.' } });
      expect(await row(subscription.id)).toEqual(before);
    });
  });

  describe('hourly request classes', () => {
    afterEach(() => app.host.options.set('hourly_request_limits', {}));

    it('list (the list and the detail) and cancel answer 429 past their budget', async () => {
      const carol = await app.createUser('carol', ['customer']);
      const subscription = await fx.subscription(carol, { vendor_subscription_id: '' });
      await app.host.options.set('hourly_request_limits', { list: 2, cancel: 1 });

      expect((await app.as(carol).get(PORTAL)).status).toBe(200);
      expect((await app.as(carol).get(`${PORTAL}/${subscription.uuid}`)).status).toBe(200);
      const limited = await app.as(carol).get(PORTAL);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);

      expect((await app.as(carol).post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`).send({ cancel_at_period_end: true })).status).toBe(200);
      const cancel = await app.as(carol).post(`${PORTAL}/${subscription.uuid}/cancel-auto-renew`).send({ cancel_at_period_end: false });
      expect(cancel.status).toBe(429);
      expect(cancel.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect((await fx.read(subscription.id)).status).toBe('expiring');
    });

    it('update and create answer 429 past their budget, counted per user', async () => {
      const dave = await app.createUser('dave', ['customer']);
      const subscription = await fx.subscription(dave);
      await app.host.options.set('hourly_request_limits', { update: 1, create: 1 });
      const update = () =>
        app.as(dave).post(`${PORTAL}/${subscription.uuid}/switch-payment-method`).send({ new_payment_method_id: 'I-1', payment_method_type: 'paypal' });
      const create = () => app.as(dave).post(`${PORTAL}/${subscription.uuid}/get-or-create-plan`).send({ amount: 1500, billing_cycle: 'monthly' });
      expect((await update()).status).toBe(400);
      expect((await update()).status).toBe(429);
      expect((await create()).status).toBe(400);
      expect((await create()).status).toBe(429);
      const erin = await app.createUser('erin', ['customer']);
      const hers = await fx.subscription(erin);
      expect((await app.as(erin).post(`${PORTAL}/${hers.uuid}/get-or-create-plan`).send({ amount: 1500, billing_cycle: 'monthly' })).status).toBe(400);
    });
  });
});
