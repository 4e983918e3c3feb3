import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { actionGateway, remoteOf, subscriptionFamilies, useGateways, type Family } from '../support/subscription-actions';

const NOW = '2026-11-21 10:00:00';
const NO_LIMITS = { list: 100_000, create: 100_000, update: 100_000, cancel: 100_000 };

describe('subscription admin actions: cancel, fetch, reactivate, pause, resume', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let productManager: TestUser;
  const gateway = actionGateway();
  let fx: ReturnType<typeof subscriptionFamilies>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    productManager = await app.createUser('pm', ['product_manager']);
    useGateways(app, gateway);
    fx = subscriptionFamilies(app, NOW);
    await app.host.options.set('hourly_request_limits', NO_LIMITS);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    gateway.cancelAnswer = { status: 'success', message: 'Canceled at Sub Pay.' };
    gateway.remote = null;
    gateway.cancels.length = 0;
    gateway.fetches.length = 0;
  });

  const path = (f: Pick<Family, 'orderId' | 'subscriptionId'>, action: string) => `${BASE}/orders/${f.orderId}/subscriptions/${f.subscriptionId}/${action}`;
  const activities = (id: number) => app.host.db('store_activities').where({ object_type: 'subscription', object_id: id }).orderBy('id');

  describe('PUT /orders/{order}/subscriptions/{subscription}/cancel', () => {
    it('cancels at the gateway, then in the store: 200 with the subscription, reason kept, hooks after commit', async () => {
      const f = await fx.family();
      const canceled = fx.record('store/subscription/canceled');
      const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'too_expensive' });
      canceled.off();

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Subscription has been cancelled successfully!');
      expect(res.body.subscription).toMatchObject({ id: f.subscriptionId, status: 'canceled', canceled_at: NOW, config: { cancel_reason: 'too_expensive' } });
      expect(gateway.cancels).toEqual([
        expect.objectContaining({ id: f.subscriptionId, vendor_subscription_id: res.body.subscription.vendor_subscription_id, mode: 'test' }),
      ]);
      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ status: 'canceled', canceled_at: NOW });
      expect(canceled.calls.map(([s, previous]) => [s.id, previous])).toEqual([[f.subscriptionId, 'active']]);
      expect((await activities(f.subscriptionId)).map((a) => a.content)).toEqual([expect.stringContaining('Reason: too_expensive.')]);
    });

    it('the gateway refused: still canceled in the store, 200 with the vendor response in the message', async () => {
      const f = await fx.family();
      gateway.cancelAnswer = { status: 'failed', message: 'No such subscription: subpay_sub_x' };
      const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' });

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Subscription cancelled locally. Vendor Response: No such subscription: subpay_sub_x');
      expect(res.body.subscription.status).toBe('canceled');
      expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
      expect((await activities(f.subscriptionId)).at(-1)!.content).toContain('Sub Pay did not cancel it: No such subscription: subpay_sub_x');
    });

    it('the gateway did not answer: canceled in the store, the message says so without internals', async () => {
      const f = await fx.family();
      gateway.cancelAnswer = new Error('connect ECONNREFUSED 10.0.0.5:443');
      const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' });

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Subscription cancelled locally. Vendor Response: Sub Pay did not answer. Please try again in a moment.');
      expect(JSON.stringify(res.body)).not.toContain('ECONNREFUSED');
      expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
    });

    it('without a vendor id, or with a method that bills nothing itself, only the store cancels', async () => {
      const noVendor = await fx.family({ subscription: { vendor_subscription_id: '' } });
      const offline = await fx.family({ subscription: { current_payment_method: 'cod', collection_method: 'manual' } });
      for (const f of [noVendor, offline]) {
        const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' });
        expect(res.status).toBe(200);
        expect(res.body.message).toBe('Subscription has been cancelled successfully!');
      }
      expect(gateway.cancels).toEqual([]);
    });

    it.each([[{}], [{ cancel_reason: '' }], [{ cancel_reason: '   ' }]])('no reason (%j): 422 with the spec message, nothing changes', async (body) => {
      const f = await fx.family();
      const before = await fx.snapshot();
      const res = await app.as(admin).put(path(f, 'cancel')).send(body);

      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'Please select cancel reason!', errors: { cancel_reason: { required: 'Please select cancel reason!' } } });
      expect(await fx.snapshot()).toEqual(before);
      expect(gateway.cancels).toEqual([]);
    });

    it('a reason longer than 255 characters or not text: 422 naming the field', async () => {
      const f = await fx.family();
      const long = await app
        .as(admin)
        .put(path(f, 'cancel'))
        .send({ cancel_reason: 'x'.repeat(256) });
      const number = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 5 });
      expect([long.status, number.status]).toEqual([422, 422]);
      expect(Object.keys(long.body.errors)).toEqual(['cancel_reason']);
      expect(Object.keys(number.body.errors)).toEqual(['cancel_reason']);
      expect((await fx.subscription(f.subscriptionId)).status).toBe('active');
    });

    it('already canceled (the state table: any → canceled): 200 as canceled, the gateway is not called again, nothing changes', async () => {
      const f = await fx.family({ subscription: { status: 'canceled', canceled_at: NOW } });
      const before = await fx.snapshot();
      const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ message: 'Subscription has been cancelled successfully!', subscription: { id: f.subscriptionId, status: 'canceled' } });
      expect(gateway.cancels).toEqual([]);
      expect(await fx.snapshot()).toEqual(before);
    });

    it('two cancels at once: both answer canceled, the subscription is canceled once', async () => {
      const f = await fx.family();
      const answers = await Promise.all([0, 1].map(() => app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' })));
      expect(answers.map((r) => [r.status, r.body.subscription?.status])).toEqual([
        [200, 'canceled'],
        [200, 'canceled'],
      ]);
      expect((await activities(f.subscriptionId)).filter((a) => a.title === 'Subscription canceled')).toHaveLength(1);
    });
  });

  describe('PUT .../fetch', () => {
    it('copies the gateway status and dates: 200 with the refreshed subscription', async () => {
      const f = await fx.family();
      gateway.remote = remoteOf({ status: 'failing', next_billing_date: '2026-12-24 08:00:00' });
      const res = await app.as(clerk).put(path(f, 'fetch'));

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Subscription fetched successfully from remote payment gateway!');
      expect(res.body.subscription).toMatchObject({ id: f.subscriptionId, status: 'failing', next_billing_date: '2026-12-24 08:00:00' });
      expect(gateway.fetches.map((s) => s.id)).toEqual([f.subscriptionId]);
      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ status: 'failing', next_billing_date: '2026-12-24 08:00:00' });
    });

    it('a canceled subscription at the gateway: canceled here with its date', async () => {
      const f = await fx.family();
      gateway.remote = remoteOf({ status: 'canceled', next_billing_date: null, canceled_at: '2026-11-20 09:00:00' });
      const res = await app.as(admin).put(path(f, 'fetch'));
      expect(res.status).toBe(200);
      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ status: 'canceled', canceled_at: '2026-11-20 09:00:00', next_billing_date: null });
    });

    it('the gateway refused or did not answer: 502 with its message, nothing written', async () => {
      const f = await fx.family();
      const before = await fx.snapshot();
      gateway.remote = new Error('socket hang up');
      const silent = await app.as(admin).put(path(f, 'fetch'));
      expect(silent.status).toBe(502);
      expect(silent.body).toEqual({ message: 'Sub Pay did not answer. Please try again in a moment.' });

      gateway.remote = remoteOf({ status: 'past_due' });
      const unknown = await app.as(admin).put(path(f, 'fetch'));
      expect(unknown.status).toBe(502);
      expect(unknown.body).toEqual({ message: 'Sub Pay reported a subscription status the store does not know: past_due.' });
      expect(await fx.snapshot()).toEqual(before);
    });

    it('no vendor id, or a method without subscriptions at a gateway: 400 saying why', async () => {
      const noVendor = await fx.family({ subscription: { vendor_subscription_id: '' } });
      const offline = await fx.family({ subscription: { current_payment_method: 'cod' } });
      const a = await app.as(admin).put(path(noVendor, 'fetch'));
      const b = await app.as(admin).put(path(offline, 'fetch'));
      expect([a.status, b.status]).toEqual([400, 400]);
      expect(a.body).toEqual({ message: 'This subscription has no vendor subscription ID at Sub Pay to fetch it by.' });
      expect(b.body).toEqual({ message: 'Cash on delivery does not keep subscriptions at a payment gateway: there is nothing to fetch.' });
      expect(gateway.fetches).toEqual([]);
    });
  });

  describe.each(['reactivate', 'pause', 'resume'])('PUT .../%s', (action) => {
    it('answers 200 Not available yet and changes nothing', async () => {
      const f = await fx.family();
      const before = await fx.snapshot();
      const res = await app.as(admin).put(path(f, action));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Not available yet' });
      expect(await fx.snapshot()).toEqual(before);
    });
  });

  describe('every route', () => {
    const routes: Array<[method: 'put' | 'post', action: string, body: Record<string, unknown>]> = [
      ['put', 'cancel', { cancel_reason: 'other' }],
      ['put', 'fetch', {}],
      ['put', 'vendor-ids', { vendor_subscription_id: 'sub_new' }],
      ['post', 'verify-vendor-ids', { vendor_subscription_id: 'sub_new' }],
      ['post', 'early-payment-link', {}],
      ['put', 'reactivate', {}],
      ['put', 'pause', {}],
      ['put', 'resume', {}],
    ];

    beforeAll(async () => {
      const res = await app.as(admin).put(`${BASE}/settings/store`).send({ vendor_id_editing_enabled: true, early_payment_enabled: true });
      expect(res.status).toBe(200);
    });
    afterAll(() => app.as(admin).put(`${BASE}/settings/store`).send({ vendor_id_editing_enabled: false, early_payment_enabled: false }));

    it.each(routes)('%s %s: a subscription of another order is 404 Subscription not found, nothing changes', async (method, action, body) => {
      const mine = await fx.family({ subscription: { bill_times: 6 } });
      const other = await fx.family();
      const before = await fx.snapshot();
      const res = await app
        .as(admin)
        [method](path({ orderId: other.orderId, subscriptionId: mine.subscriptionId }, action))
        .send(body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: action === 'early-payment-link' ? 'Invalid subscription for the specified order.' : 'Subscription not found' });
      expect(await fx.snapshot()).toEqual(before);
    });

    it.each(routes)('%s %s: no such subscription is 404', async (method, action, body) => {
      const f = await fx.family();
      const res = await app
        .as(admin)
        [method](path({ orderId: f.orderId, subscriptionId: 999_999 }, action))
        .send(body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Subscription not found' });
    });

    it.each(routes)('%s %s: 401 without credentials, 403 without the permission', async (method, action, body) => {
      const f = await fx.family();
      const anonymous = await app.http[method](path(f, action)).send(body);
      const denied = await app.as(productManager)[method](path(f, action)).send(body);
      expect([anonymous.status, denied.status]).toEqual([401, 403]);
      if (action !== 'fetch') expect((await app.as(clerk)[method](path(f, action)).send(body)).status).toBe(403);
      expect((await fx.subscription(f.subscriptionId)).status).toBe('active');
    });
  });

  describe('hourly request classes (API callers)', () => {
    afterEach(() => app.host.options.set('hourly_request_limits', NO_LIMITS));

    it('cancel counts in the cancel class: past it 429 with Retry-After, the subscription untouched', async () => {
      const caller = await app.createUser('api-cancel', ['order_manager']);
      await app.host.options.set('hourly_request_limits', { ...NO_LIMITS, cancel: 1 });
      const f = await fx.family();
      expect((await app.as(caller).put(path(f, 'cancel')).send({})).status).toBe(422);
      const limited = await app.as(caller).put(path(f, 'cancel')).send({ cancel_reason: 'other' });
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(limited.headers['retry-after']).toBeDefined();
      expect((await fx.subscription(f.subscriptionId)).status).toBe('active');
    });
  });
});
