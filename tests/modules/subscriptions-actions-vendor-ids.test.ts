import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { actionGateway, remoteOf, subscriptionFamilies, useGateways, type Family } from '../support/subscription-actions';

const NOW = '2026-11-21 10:00:00';

describe('subscription vendor ids', () => {
  let app: TestApp;
  let admin: TestUser;
  const gateway = actionGateway();
  let fx: ReturnType<typeof subscriptionFamilies>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    useGateways(app, gateway);
    fx = subscriptionFamilies(app, NOW);
    await app.host.options.set('hourly_request_limits', { update: 100_000 });
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    gateway.remote = null;
    gateway.lookups.length = 0;
    gateway.cancels.length = 0;
    await setSwitch(true);
  });

  async function setSwitch(enabled: boolean) {
    const res = await app.as(admin).put(`${BASE}/settings/store`).send({ vendor_id_editing_enabled: enabled });
    expect(res.status).toBe(200);
  }
  const edit = (f: Family, body: Record<string, unknown>) =>
    app.as(admin).put(`${BASE}/orders/${f.orderId}/subscriptions/${f.subscriptionId}/vendor-ids`).send(body);
  const verify = (f: Family, body: Record<string, unknown>) =>
    app.as(admin).post(`${BASE}/orders/${f.orderId}/subscriptions/${f.subscriptionId}/verify-vendor-ids`).send(body);

  /** A refusal: the status and body, and every table as it was. */
  async function refused(send: () => Promise<{ status: number; body: unknown }>, status: number, body: unknown) {
    const before = await fx.snapshot();
    const res = await send();
    expect({ status: res.status, body: res.body }).toEqual({ status, body });
    expect(await fx.snapshot()).toEqual(before);
  }

  describe('PUT /orders/{order}/subscriptions/{subscription}/vendor-ids', () => {
    it('writes the two ids only: 200 with the short subscription, an activity entry, store/subscription/updated and no status event', async () => {
      const f = await fx.family();
      const before = await fx.subscription(f.subscriptionId);
      const updated = fx.record('store/subscription/updated');
      const statusChanged = fx.record('store/subscription/status_changed');
      app.clock.advance(60_000);
      const res = await edit(f, { vendor_subscription_id: 'sub_Real.1', vendor_customer_id: 'cus_real-1' });
      updated.off();
      statusChanged.off();

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Vendor IDs have been updated successfully!',
        subscription: {
          id: f.subscriptionId,
          collection_method: 'automatic',
          current_payment_method: 'subpay',
          vendor_subscription_id: 'sub_Real.1',
          vendor_customer_id: 'cus_real-1',
        },
      });
      const after = await fx.subscription(f.subscriptionId);
      expect(after).toEqual({ ...before, vendor_subscription_id: 'sub_Real.1', vendor_customer_id: 'cus_real-1', updated_at: '2026-11-21 10:01:00' });
      expect(updated.calls).toHaveLength(1);
      expect(statusChanged.calls).toEqual([]);
      expect(gateway.cancels).toEqual([]);
      expect(gateway.lookups).toEqual([]);
      const [activity] = await app.host.db('store_activities').where({ object_type: 'subscription', object_id: f.subscriptionId });
      expect(activity).toMatchObject({ title: 'Vendor IDs updated', content: expect.stringContaining("vendor_subscription_id: 'subpay_sub_") });
    });

    it('omitted is untouched, an empty string clears', async () => {
      const f = await fx.family();
      const before = await fx.subscription(f.subscriptionId);
      expect((await edit(f, { vendor_customer_id: '' })).status).toBe(200);
      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ vendor_subscription_id: before.vendor_subscription_id, vendor_customer_id: '' });
      expect((await edit(f, { vendor_subscription_id: '' })).status).toBe(200);
      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ vendor_subscription_id: '', vendor_customer_id: '' });
    });

    it('1. the site switch is off: 403, whatever the body', async () => {
      const f = await fx.family();
      await setSwitch(false);
      await refused(() => edit(f, { vendor_subscription_id: 'sub_ok' }), 403, { message: 'Vendor ID editing is disabled for this site.' });
      await refused(() => edit(f, { vendor_subscription_id: 'bad id!' }), 403, { message: 'Vendor ID editing is disabled for this site.' });
    });

    it('1. the store/subscription/vendor_id_editing_enabled filter decides over the setting', async () => {
      const f = await fx.family();
      const off = app.host.hooks.addFilter('store/subscription/vendor_id_editing_enabled', () => false);
      await refused(() => edit(f, { vendor_subscription_id: 'sub_ok' }), 403, { message: 'Vendor ID editing is disabled for this site.' });
      off();
      await setSwitch(false);
      const on = app.host.hooks.addFilter('store/subscription/vendor_id_editing_enabled', () => true);
      expect((await edit(f, { vendor_subscription_id: 'sub_ok' })).status).toBe(200);
      on();
    });

    it.each([
      [{ vendor_subscription_id: 'x'.repeat(46) }, 'vendor_subscription_id', 'max', 'The vendor subscription ID field must not be greater than 45 characters.'],
      [
        { vendor_customer_id: 'cus 1' },
        'vendor_customer_id',
        'regex',
        'The vendor customer ID may only contain letters, digits, dots, dashes and underscores.',
      ],
      [
        { vendor_subscription_id: 'sub/1' },
        'vendor_subscription_id',
        'regex',
        'The vendor subscription ID may only contain letters, digits, dots, dashes and underscores.',
      ],
      [{}, 'vendor_subscription_id', 'required', 'Send a vendor subscription ID or a vendor customer ID to change.'],
    ])('2. body %j: 422 naming %s', async (body, field, rule, message) => {
      const f = await fx.family();
      await refused(() => edit(f, body), 422, { message, errors: { [field]: { [rule]: message } } });
    });

    it('2. exactly 45 characters of the allowed set pass', async () => {
      const f = await fx.family();
      const id = `A-z_0.${'9'.repeat(39)}`;
      expect(id).toHaveLength(45);
      expect((await edit(f, { vendor_subscription_id: id })).status).toBe(200);
    });

    it('2. ids that are not text: 422', async () => {
      const f = await fx.family();
      const res = await edit(f, { vendor_subscription_id: 12 });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['vendor_subscription_id']);
    });

    it.each([[{ status: 'canceled' }], [{ status: 'trialing' }], [{ status: 'failing' }], [{ collection_method: 'manual' }]])(
      '3. not an active gateway-billed subscription (%j): 400',
      async (over) => {
        const f = await fx.family({ subscription: over });
        await refused(() => edit(f, { vendor_subscription_id: 'sub_new' }), 400, {
          message: 'Vendor IDs can only be edited on an active gateway-billed subscription.',
        });
      },
    );

    it('4. an id another subscription of the same payment method uses: 422; on another method it is free', async () => {
      const taken = await fx.family({ subscription: { vendor_subscription_id: 'sub_taken' } });
      const f = await fx.family();
      await refused(() => edit(f, { vendor_subscription_id: 'sub_taken' }), 422, {
        message: 'Another subscription on this payment method is already using this Vendor Subscription ID.',
        errors: { vendor_subscription_id: { unique: 'Another subscription on this payment method is already using this Vendor Subscription ID.' } },
      });
      await app.host.db('store_subscriptions').where({ id: taken.subscriptionId }).update({ current_payment_method: 'stripe' });
      expect((await edit(f, { vendor_subscription_id: 'sub_taken' })).status).toBe(200);
    });

    it('4. two subscriptions claiming one id at once: the unique key lets one through', async () => {
      const [a, b] = [await fx.family(), await fx.family()];
      const answers = await Promise.all([edit(a, { vendor_subscription_id: 'sub_race' }), edit(b, { vendor_subscription_id: 'sub_race' })]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(await fx.count('store_subscriptions', { vendor_subscription_id: 'sub_race' })).toBe(1);
    });

    it('5. the same ids again: 400 No changes detected.', async () => {
      const f = await fx.family();
      const { vendor_subscription_id, vendor_customer_id } = await fx.subscription(f.subscriptionId);
      await refused(() => edit(f, { vendor_subscription_id, vendor_customer_id }), 400, { message: 'No changes detected.' });
    });
  });

  describe('POST /orders/{order}/subscriptions/{subscription}/verify-vendor-ids', () => {
    it('found at the gateway: 200 with the verification, the amount as a decimal string; nothing written', async () => {
      const f = await fx.family();
      gateway.remote = remoteOf({
        id: 'sub_A',
        customer_id: 'cus_A',
        amount: 1999,
        currency: 'USD',
        status: 'active',
        next_billing_date: '2026-12-01 00:00:00',
      });
      const before = await fx.snapshot();
      const res = await verify(f, { vendor_subscription_id: 'sub_A', vendor_customer_id: 'cus_A' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Subscription found at the payment gateway.',
        verification: { id: 'sub_A', status: 'active', customer_id: 'cus_A', amount: '19.99', currency: 'USD', next_billing_date: '2026-12-01 00:00:00' },
      });
      expect(gateway.lookups).toEqual([{ vendor_subscription_id: 'sub_A', vendor_customer_id: 'cus_A', mode: 'test' }]);
      expect(await fx.snapshot()).toEqual(before);
    });

    it('amounts follow the currency minor units: JPY has none', async () => {
      const f = await fx.family();
      gateway.remote = remoteOf({ amount: 1500, currency: 'JPY' });
      const res = await verify(f, { vendor_subscription_id: 'sub_A' });
      expect(res.body.verification.amount).toBe('1500');
      expect(gateway.lookups[0].vendor_customer_id).toBe('');
    });

    it('not found at the gateway: 404', async () => {
      const f = await fx.family();
      await refused(() => verify(f, { vendor_subscription_id: 'sub_missing' }), 404, {
        message: 'No subscription with this Vendor Subscription ID was found at the payment gateway.',
      });
    });

    it('the gateway did not answer: 502', async () => {
      const f = await fx.family();
      gateway.remote = new Error('socket hang up');
      await refused(() => verify(f, { vendor_subscription_id: 'sub_A' }), 502, { message: 'Sub Pay did not answer. Please try again in a moment.' });
    });

    it('a gateway without verify_vendor_ids: 400 This payment method does not support subscription lookup.', async () => {
      const plain = actionGateway('plainpay');
      plain.capabilities = { refund: false, capture: false, subscriptions: true };
      const off = useGateways(app, plain);
      const f = await fx.family({ subscription: { current_payment_method: 'plainpay' } });
      await refused(() => verify(f, { vendor_subscription_id: 'sub_A' }), 400, { message: 'This payment method does not support subscription lookup.' });
      expect(plain.lookups).toEqual([]);
      off();
    });

    it('the same rules as editing, in order: switch, body, state', async () => {
      const f = await fx.family();
      await refused(() => verify(f, {}), 422, {
        message: 'The vendor subscription ID field is required.',
        errors: { vendor_subscription_id: { required: 'The vendor subscription ID field is required.' } },
      });
      await refused(() => verify(f, { vendor_subscription_id: 'a b' }), 422, {
        message: 'The vendor subscription ID may only contain letters, digits, dots, dashes and underscores.',
        errors: { vendor_subscription_id: { regex: 'The vendor subscription ID may only contain letters, digits, dots, dashes and underscores.' } },
      });
      const canceled = await fx.family({ subscription: { status: 'canceled' } });
      await refused(() => verify(canceled, { vendor_subscription_id: 'sub_A' }), 400, {
        message: 'Vendor IDs can only be edited on an active gateway-billed subscription.',
      });
      await setSwitch(false);
      await refused(() => verify(f, {}), 403, { message: 'Vendor ID editing is disabled for this site.' });
      expect(gateway.lookups).toEqual([]);
    });
  });
});
