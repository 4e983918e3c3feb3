import type { Permission } from '../../src/core/permissions';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';

describe('POST /orders/calculate-shipping', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;
  let mug: { id: number };
  let lamp: { id: number };
  let ebook: { id: number };

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('shipping-admin', ['administrator']);
    fx = orderFixtures(app, NOW);
    mug = await fx.variation(1200);
    lamp = await fx.variation(4500);
    ebook = await fx.variation(999, { fulfillment_type: 'digital', variation: { payment_type: 'subscription', billing_interval: 'monthly' } });
  });
  afterAll(() => app.close());

  const calculate = (body: Record<string, unknown>, user: TestUser = admin) => app.as(user).post(`${BASE}/orders/calculate-shipping`).send(body);

  it('splits a flat rate over the physical lines by quantity and answers every line', async () => {
    const flat = await fx.shippingMethod({ charge_type: 'flat_rate', charge_amount: 1000 });
    const res = await calculate({
      shipping_id: flat,
      order_items: [
        { id: mug.id, quantity: 2 },
        { id: lamp.id, quantity: 1 },
        { id: ebook.id, quantity: 1 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Shipping updated',
      shipping_charge: 1000,
      order_items: {
        [mug.id]: {
          id: mug.id,
          quantity: 2,
          shipping_charge: 667,
          unit_price: 1200,
          other_info: { sku: expect.any(String), payment_type: 'onetime' },
          discount_total: 0,
          fulfillment_type: 'physical',
        },
        [lamp.id]: {
          id: lamp.id,
          quantity: 1,
          shipping_charge: 333,
          unit_price: 4500,
          other_info: { sku: expect.any(String), payment_type: 'onetime' },
          discount_total: 0,
          fulfillment_type: 'physical',
        },
        [ebook.id]: {
          id: ebook.id,
          quantity: 1,
          shipping_charge: 0,
          unit_price: 999,
          other_info: { sku: expect.any(String), payment_type: 'subscription', billing_interval: 'monthly', trial_days: 0, bill_times: 0, signup_fee: 0 },
          discount_total: 0,
          fulfillment_type: 'digital',
        },
      },
    });
  });

  it('charges a per-item rate per physical unit, and nothing when no line is physical', async () => {
    const perItem = await fx.shippingMethod({ charge_type: 'per_item', charge_amount: 250 });
    const res = await calculate({
      shipping_id: perItem,
      order_items: [
        { id: mug.id, quantity: 3 },
        { id: ebook.id, quantity: 2 },
        { id: lamp.id, quantity: 1 },
      ],
    });
    expect(res.body.shipping_charge).toBe(1000);
    expect([
      res.body.order_items[mug.id].shipping_charge,
      res.body.order_items[ebook.id].shipping_charge,
      res.body.order_items[lamp.id].shipping_charge,
    ]).toEqual([750, 0, 250]);
    const digital = await calculate({ shipping_id: perItem, order_items: [{ id: ebook.id, quantity: 4 }] });
    expect(digital.status).toBe(200);
    expect(digital.body.shipping_charge).toBe(0);
  });

  it('offers a free method only from its threshold, and refuses an inactive or unknown method', async () => {
    const free = await fx.shippingMethod({ charge_type: 'free', charge_amount: undefined, free_above: 5000 });
    const below = await calculate({ shipping_id: free, order_items: [{ id: lamp.id, quantity: 1 }] });
    expect(below.status).toBe(422);
    expect(below.body).toEqual({
      message: 'The selected shipping method is not available for these items.',
      errors: { shipping_id: { available: 'The selected shipping method is not available for these items.' } },
    });
    const at = await calculate({
      shipping_id: free,
      order_items: [
        { id: lamp.id, quantity: 1 },
        { id: ebook.id, quantity: 1 },
        { id: mug.id, quantity: 1 },
      ],
    });
    expect(at.status).toBe(200);
    expect(at.body.shipping_charge).toBe(0);
    const inactive = await fx.shippingMethod({ status: 'inactive' });
    expect((await calculate({ shipping_id: inactive, order_items: [{ id: mug.id, quantity: 1 }] })).body.errors).toEqual({
      shipping_id: { available: 'The selected shipping method is not available for these items.' },
    });
    const unknown = await calculate({ shipping_id: 999999, order_items: [{ id: mug.id, quantity: 1 }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({
      message: 'The selected shipping id is invalid.',
      errors: { shipping_id: { exists: 'The selected shipping id is invalid.' } },
    });
  });

  it('validates the body: both fields required, known distinct variations, quantities of at least 1', async () => {
    const flat = await fx.shippingMethod();
    const empty = await calculate({});
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({
      message: 'The order items field is required.',
      errors: { order_items: { required: 'The order items field is required.' }, shipping_id: { required: 'The shipping id field is required.' } },
    });
    const cases: Array<[Record<string, unknown>, Record<string, Record<string, string>>]> = [
      [{ shipping_id: flat, order_items: [] }, { order_items: { min: 'The order items field must have at least one item.' } }],
      [{ shipping_id: 'one', order_items: [{ id: mug.id, quantity: 1 }] }, { shipping_id: { integer: 'The shipping id field must be an integer.' } }],
      [{ shipping_id: flat, order_items: [{ quantity: 1 }] }, { 'order_items.0.id': { required: 'The id field is required.' } }],
      [{ shipping_id: flat, order_items: [{ id: mug.id, quantity: 0 }] }, { 'order_items.0.quantity': { min: 'The quantity field must be at least 1.' } }],
      [{ shipping_id: flat, order_items: [{ id: 999999, quantity: 1 }] }, { 'order_items.0.id': { exists: 'The selected id is invalid.' } }],
      [
        {
          shipping_id: flat,
          order_items: [
            { id: mug.id, quantity: 1 },
            { id: mug.id, quantity: 2 },
          ],
        },
        { 'order_items.1.id': { distinct: 'The id field has a duplicate value.' } },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await calculate(body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(errors);
    }
  });

  it('needs orders/create or orders/manage: 401 without credentials, 403 with neither', async () => {
    const flat = await fx.shippingMethod();
    const body = { shipping_id: flat, order_items: [{ id: mug.id, quantity: 1 }] };
    expect((await app.http.post(`${BASE}/orders/calculate-shipping`).send(body)).status).toBe(401);
    const clerk = await app.createUser('shipping-clerk', ['customer_service']);
    expect((await calculate(body, clerk)).status).toBe(403);

    const manager = await app.createUser('shipping-manager', ['order_manager']);
    const withOnly = async (kept: Permission) => {
      const off = app.host.hooks.addFilter('store/user/can', (allowed, { user, permission }) =>
        user.id === manager.user.id && (permission === 'orders/create' || permission === 'orders/manage') ? permission === kept : allowed,
      );
      try {
        return (await calculate(body, manager)).status;
      } finally {
        off();
      }
    };
    expect(await withOnly('orders/create')).toBe(200);
    expect(await withOnly('orders/manage')).toBe(200);
    const off = app.host.hooks.addFilter('store/user/can', (allowed, { user, permission }) =>
      user.id === manager.user.id && permission.startsWith('orders/') ? false : allowed,
    );
    expect((await calculate(body, manager)).status).toBe(403);
    off();
  });
});
