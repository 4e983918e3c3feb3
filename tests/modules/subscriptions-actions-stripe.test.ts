import { stripeClient } from '../../src/gateways/stripe/client';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { SECRET_KEY, stripeStore } from '../support/stripe-orders';
import { subscriptionFamilies, type Family } from '../support/subscription-actions';
import type { FakeStripe } from '../support/fakes/stripe-server';

const NOW = '2026-11-21 10:00:00';

/** The admin actions through the Stripe SDK against the local fake Stripe. */
describe('subscription admin actions on Stripe', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakeStripe;
  let stop: () => Promise<void>;
  let fx: ReturnType<typeof subscriptionFamilies>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    ({ fake, stop } = await stripeStore(app, admin));
    fx = subscriptionFamilies(app, NOW);
    await app.host.options.set('hourly_request_limits', { update: 100_000, cancel: 100_000 });
    expect((await app.as(admin).put(`${BASE}/settings/store`).send({ vendor_id_editing_enabled: true })).status).toBe(200);
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(() => {
    fake.behaviour = 'normal';
  });

  /** A paid monthly Stripe subscription of $19.99 in the fake, and the store's record of it. */
  async function stripeFamily(): Promise<Family & { vendorId: string; customer: string }> {
    const stripe = stripeClient(SECRET_KEY);
    const customer = await stripe.customers.create({ email: 'reader@example.com' });
    const product = await stripe.products.create({ name: 'Magazine' });
    const created = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price_data: { currency: 'usd', product: product.id, unit_amount: 1999, recurring: { interval: 'month' } } }],
      payment_behavior: 'default_incomplete',
    });
    fake.billing.payInvoice(String(created.latest_invoice));
    const f = await fx.family({ subscription: { current_payment_method: 'stripe', vendor_subscription_id: created.id, vendor_customer_id: customer.id } });
    return { ...f, vendorId: created.id, customer: customer.id };
  }
  const path = (f: Family, action: string) => `${BASE}/orders/${f.orderId}/subscriptions/${f.subscriptionId}/${action}`;

  it('cancel ends the subscription at Stripe and in the store', async () => {
    const f = await stripeFamily();
    const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'too_expensive' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Subscription has been cancelled successfully!');
    expect(fake.billing.subscriptions.get(f.vendorId)!.status).toBe('canceled');
    expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
  });

  it("Stripe refuses (no such subscription): canceled in the store, Stripe's message in the answer", async () => {
    const f = await fx.family({ subscription: { current_payment_method: 'stripe', vendor_subscription_id: 'sub_gone' } });
    const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Subscription cancelled locally. Vendor Response: No such object: 'sub_gone'");
    expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
  });

  it('Stripe does not answer: canceled in the store, the message says so', async () => {
    const f = await stripeFamily();
    fake.behaviour = 'hang';
    const res = await app.as(admin).put(path(f, 'cancel')).send({ cancel_reason: 'other' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Subscription cancelled locally. Vendor Response: Stripe did not answer. Please try again in a moment.');
    expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
  });

  it('fetch copies what Stripe has: a subscription canceled at Stripe is canceled here', async () => {
    const f = await stripeFamily();
    await stripeClient(SECRET_KEY).subscriptions.cancel(f.vendorId);
    const res = await app.as(admin).put(path(f, 'fetch'));
    expect(res.status).toBe(200);
    expect(res.body.subscription).toMatchObject({
      status: 'canceled',
      next_billing_date: null,
      canceled_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
  });

  it('verify-vendor-ids finds the subscription with its amount as a decimal string; an unknown id is 404', async () => {
    const f = await stripeFamily();
    const found = await app.as(admin).post(path(f, 'verify-vendor-ids')).send({ vendor_subscription_id: f.vendorId, vendor_customer_id: f.customer });
    expect(found.status).toBe(200);
    expect(found.body.verification).toMatchObject({ id: f.vendorId, status: 'active', customer_id: f.customer, amount: '19.99', currency: 'USD' });

    const missing = await app.as(admin).post(path(f, 'verify-vendor-ids')).send({ vendor_subscription_id: 'sub_unknown' });
    expect(missing.status).toBe(404);
    const foreign = await app.as(admin).post(path(f, 'verify-vendor-ids')).send({ vendor_subscription_id: f.vendorId, vendor_customer_id: 'cus_other' });
    expect(foreign.status).toBe(404);
  });
});
