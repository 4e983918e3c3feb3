/**
 * Stripe end to end: a cart placed with `POST /checkout/place-order`, paid at the fake Stripe, settled by its signed
 * `payment_intent.succeeded` / `checkout.session.completed` webhook.
 */
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';
import { signedEvent, type FakeStripe } from '../support/fakes/stripe-server';
import { WEBHOOK_SECRET, configureStripe, stripeStore } from '../support/stripe-orders';

describe('checkout with Stripe', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakeStripe;
  let stop: () => Promise<void>;
  let fx: ReturnType<typeof checkoutFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    ({ fake, stop } = await stripeStore(app, admin));
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(() => fake.reset());

  const deliver = (type: string, object: Record<string, unknown>) => {
    const { body, signature } = signedEvent(
      { id: `evt_${type}_${String(object.id)}`, type, object },
      WEBHOOK_SECRET,
      Math.floor(app.clock.now().getTime() / 1000),
    );
    return app.http.post(`${BASE}/webhooks/stripe`).set('Content-Type', 'application/json').set('Stripe-Signature', signature).send(body);
  };

  it('on-site: place-order answers the intent’s client secret; the webhook pays the order, takes the stock and completes the cart', async () => {
    await configureStripe(app, admin);
    const ebook = await fx.stocked(1999, 5, { fulfillment_type: 'digital', title: 'E-book' });
    const hash = await fx.cartWith([[ebook.id, 2]]);
    const paid = fx.record('store/order/paid');

    const res = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: 'stripe-buyer@example.com' }));

    const order = await fx.orderOfCart(hash);
    const [intent] = [...fake.paymentIntents.values()];
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      payment_args: { client_secret: intent.client_secret, checkout_mode: 'onsite' },
      order_id: order.id,
      message: expect.any(String),
    });
    expect(intent).toMatchObject({ amount: 3998, currency: 'usd', metadata: { order_uuid: order.uuid }, receipt_email: 'stripe-buyer@example.com' });
    expect(await app.host.db('store_order_transactions').where({ order_id: order.id }).first()).toMatchObject({
      status: 'pending',
      payment_method: 'stripe',
      vendor_charge_id: intent.id,
    });

    fake.pay(String(intent.id));
    const webhook = await deliver('payment_intent.succeeded', intent);
    paid.off();

    expect(webhook.body).toEqual({ received: true, duplicate: false });
    expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 3998, stock_state: 'taken' });
    expect(await fx.stockOf(ebook.id)).toEqual({ quantity: 3, on_hold: 0 });
    expect((await fx.cartRow(hash)).stage).toBe('completed');
    expect(paid.calls).toHaveLength(1);
  });

  it('hosted: place-order redirects to the Checkout Session; its completion pays the order', async () => {
    await configureStripe(app, admin, { checkout_mode: 'hosted' });
    const print = await fx.stocked(5000, 3, { fulfillment_type: 'digital', title: 'Print' });
    const hash = await fx.cartWith([[print.id, 1]]);

    const res = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: 'hosted-buyer@example.com' }));

    const [session] = [...fake.sessions.values()];
    const order = await fx.orderOfCart(hash);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', redirect_url: session.url, message: expect.any(String) });
    expect(session).toMatchObject({
      client_reference_id: order.uuid,
      amount_total: 5000,
      success_url: `http://store.test/receipt/?order_hash=${String(order.uuid)}`,
    });

    const completed = fake.completeSession(String(session.id));
    expect((await deliver('checkout.session.completed', completed)).status).toBe(200);
    expect(await fx.orderRow(Number(order.id))).toMatchObject({ payment_status: 'paid', total_paid: 5000 });
    expect(await app.host.db('store_order_transactions').where({ order_id: order.id }).first()).toMatchObject({
      status: 'succeeded',
      vendor_charge_id: completed.payment_intent,
    });
  });

  it('Stripe down: the order stays pending and placing the cart again reuses it with the same intent', async () => {
    await configureStripe(app, admin);
    const ebook = await fx.stocked(1500, 5, { fulfillment_type: 'digital', title: 'Album' });
    const hash = await fx.cartWith([[ebook.id, 1]]);
    fake.behaviour = 'reset';
    const failed = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: 'retry@example.com' }));
    expect(failed.status).toBe(502);
    expect(failed.body.status).toBe('failed');
    const order = await fx.orderOfCart(hash);
    expect(order).toMatchObject({ payment_status: 'pending' });

    fake.behaviour = 'normal';
    const retried = await fx.place(hash, guestForm({ payment_method: 'stripe', billing_email: 'retry@example.com' }));
    expect(retried.status).toBe(200);
    expect(retried.body.order_id).toBe(order.id);
    expect(fake.paymentIntents.size).toBe(1);
  });
});
