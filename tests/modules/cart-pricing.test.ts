/**
 * `priceCart` (src/modules/cart/pricing.ts): the one pricing of a cart that the checkout summary and place-order use.
 * The carts are built through the cart API; the function is called the way checkout calls it.
 */
import type { Response } from 'supertest';
import { transaction } from '../../src/core/context';
import { AppError } from '../../src/core/errors';
import { findCartByHash } from '../../src/modules/cart/repo';
import { priceCart, type CartPricingOptions } from '../../src/modules/cart/pricing';
import type { Cart } from '../../src/modules/cart/types';
import { BASE, startTestApp, type TestApp } from '../support/app';
import { insertOrder } from '../support/orders';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';

describe('priceCart', () => {
  let app: TestApp;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    fx = orderFixtures(app, NOW);
    await app.host.options.set('cart_write_rate_limit', 100_000);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const hashOf = (res: Response) => /fct_cart_hash=([0-9a-f]{32})/.exec(String(res.headers['set-cookie']))?.[1] as string;

  /** A cart with these lines and coupon codes, made through the API. */
  async function cart(lines: Array<[number, number]>, codes: string[] = []): Promise<Cart> {
    let hash = '';
    for (const [variationId, quantity] of lines) {
      const res = await app.http.post(`${BASE}/cart/items`).set('Cookie', `fct_cart_hash=${hash}`).send({ variation_id: variationId, quantity });
      expect(res.status).toBe(200);
      hash = hashOf(res);
    }
    for (const code of codes) expect((await app.http.post(`${BASE}/cart/coupons`).set('Cookie', `fct_cart_hash=${hash}`).send({ code })).status).toBe(200);
    return (await findCartByHash(db(), hash)) as Cart;
  }

  const price = (c: Cart, options: CartPricingOptions = {}) => priceCart(app.ctx(), db(), c, options);

  async function refusal(c: Cart, options: CartPricingOptions = {}): Promise<AppError> {
    const error = await price(c, options).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  it('prices lines, coupons and the chosen shipping method for the destination, as place-order stores them', async () => {
    const tee = await fx.variation(2000, { title: 'Tee', variation: { title: 'Large', tax_class: 'standard' } });
    const ebook = await fx.variation(1000, { title: 'Book', fulfillment_type: 'digital', variation: { title: 'PDF' } });
    const coupon = await fx.coupon({ code: 'TENPC', type: 'percentage', amount: 10 });
    const methodId = await fx.shippingMethod({ title: 'Courier', charge_amount: 700 });
    const c = await cart(
      [
        [tee.id, 2],
        [ebook.id, 1],
      ],
      ['TENPC'],
    );

    const priced = await price(c, { shipping_method_id: methodId, country: 'US', state: 'CA' });
    expect(priced.lines.map((line) => [line.variation_id, line.title, line.post_title, line.quantity, line.unit_price, line.tax_class])).toEqual([
      [tee.id, 'Large', 'Tee', 2, 2000, 'standard'],
      [ebook.id, 'PDF', 'Book', 1, 1000, null],
    ]);
    expect(priced.totals).toMatchObject({ subtotal: 5000, coupon_discount_total: 500, shipping_total: 700, tax_total: 0, total_amount: 5200 });
    expect(priced.entries).toEqual([{ coupon_id: coupon.id, code: 'TENPC', discounted_amount: 500, stackable: 1 }]);
    expect(priced.coupons.coupons.map((co) => co.id)).toEqual([coupon.id]);
    expect(priced.coupons.kept.size).toBe(0);
    expect(priced).toMatchObject({
      fulfillment: 'physical',
      has_subscriptions: false,
      currency: 'USD',
      shipping: { method_id: methodId, charge: 700, title: 'Courier' },
    });

    // inside place-order's transaction every read goes through it (on SQLite it holds the only connection)
    const inside = await transaction(app.ctx(), (trx) => priceCart(app.ctx(), trx, c, { shipping_method_id: methodId, country: 'US', state: 'CA' }));
    expect(inside.totals).toEqual(priced.totals);

    expect((await price(c)).shipping).toEqual({ method_id: null, charge: 0, title: '' });
    expect((await price(c)).totals.total_amount).toBe(4500);
  });

  it('hands the tax module the addresses and the customer it is given', async () => {
    const v = await fx.variation(1000);
    const c = await cart([[v.id, 1]]);
    const seen: unknown[] = [];
    const off = app.host.hooks.addFilter('store/order/tax', async (_tax, context) => {
      seen.push({ customer: context.customer, billing: context.billing_address, order_id: context.order_id });
      return { tax_total: 80, shipping_tax: 0, inclusive: false };
    });
    const priced = await price(c, { addresses: [{ type: 'billing', country: 'DE', state: '', city: 'Berlin', postcode: '10115' }] });
    off();
    expect(priced.totals).toMatchObject({ tax_total: 80, total_amount: 1080 });
    expect(seen).toEqual([{ customer: null, billing: { country: 'DE', state: '', city: 'Berlin', postcode: '10115' }, order_id: null }]);
  });

  it('needs no shipping method for a digital cart and ignores one given', async () => {
    const v = await fx.variation(1000, { fulfillment_type: 'digital' });
    const methodId = await fx.shippingMethod();
    const priced = await price(await cart([[v.id, 1]]), { shipping_method_id: methodId, country: 'US' });
    expect(priced).toMatchObject({ fulfillment: 'digital', shipping: { method_id: null, charge: 0, title: '' } });
    expect(priced.totals.total_amount).toBe(1000);
  });

  it('refuses a shipping method that is not available for the destination', async () => {
    const v = await fx.variation(1000);
    const methodId = await fx.shippingMethod({}, ['CA']);
    const error = await refusal(await cart([[v.id, 1]]), { shipping_method_id: methodId, country: 'US' });
    expect(error).toMatchObject({
      code: 'validation_error',
      status: 422,
      details: { errors: { shipping_method: { invalid: 'The selected shipping method is not available for this address.' } } },
    });
  });

  it('says when the cart holds a subscription', async () => {
    const plan = await fx.variation(900, { variation: { payment_type: 'subscription', billing_interval: 'monthly' } });
    expect((await price(await cart([[plan.id, 1]]))).has_subscriptions).toBe(true);
  });

  it('refuses, with the first line that cannot be bought, a cart whose products went away, off sale or out of stock', async () => {
    const gone = await fx.variation(1000, { title: 'Bag', variation: { title: 'Blue' } });
    const hidden = await fx.variation(1000, { title: 'Cap', variation: { title: 'Red' } });
    const short = await fx.variation(1000, { title: 'Tee', variation: { title: 'Small', manage_stock: 1, stock_quantity: 3 } });
    const c = await cart([
      [gone.id, 1],
      [hidden.id, 1],
      [short.id, 3],
    ]);
    await db()('store_product_variations').where({ id: short.id }).update({ stock_on_hold: 1 });
    await db()('store_product_variations').where({ id: hidden.id }).update({ status: 'inactive' });
    await db()('store_products').where({ id: gone.product_id }).delete();

    expect(await refusal(c)).toMatchObject({ code: 'invalid_state', status: 422, message: 'A product in your cart is no longer available.' });
    const withoutGone = { ...c, data: { ...c.data, items: c.data.items.slice(1) } };
    expect(await refusal(withoutGone)).toMatchObject({ code: 'invalid_state', status: 422, message: 'Cap - Red is not available for purchase.' });
    const onlyShort = { ...c, data: { ...c.data, items: c.data.items.slice(2) } };
    expect(await refusal(onlyShort)).toMatchObject({ code: 'invalid_state', status: 422, message: 'Insufficient stock for Tee - Small.' });
  });

  it('refuses coupons that stopped applying, each on its coupons.<index> entry', async () => {
    const v = await fx.variation(1000);
    await fx.coupon({ code: 'KEEP', type: 'fixed', amount: 100 });
    await fx.coupon({ code: 'MIN15', type: 'fixed', amount: 100, min_purchase_amount: 1500 });
    const doomed = await fx.coupon({ code: 'DOOMED', type: 'fixed', amount: 100 });
    const c = await cart([[v.id, 2]], ['KEEP', 'MIN15', 'DOOMED']);
    await db()('store_coupons').where({ id: doomed.id }).delete();
    const shrunk = { ...c, data: { ...c.data, items: [{ variation_id: v.id, quantity: 1 }] } };

    const error = await refusal(shrunk);
    expect(error).toMatchObject({
      code: 'validation_error',
      status: 422,
      message: 'The minimum spend for this coupon is 15.00.',
      details: {
        errors: {
          'coupons.1': { min_purchase: 'The minimum spend for this coupon is 15.00.' },
          'coupons.2': { exists: 'Coupon "DOOMED" does not exist.' },
        },
      },
    });
  });

  it('counts the per-customer uses of the customer it is given', async () => {
    const v = await fx.variation(1000);
    const once = await fx.coupon({ code: 'ONCE', type: 'fixed', amount: 100, max_per_customer: 1 });
    const c = await cart([[v.id, 1]], ['ONCE']);
    const customerId = await fx.customer();
    const orderId = await insertOrder(db(), customerId, NOW);
    await db()('store_applied_coupons').insert({
      order_id: orderId,
      coupon_id: once.id,
      customer_id: customerId,
      code: 'ONCE',
      created_at: NOW,
      updated_at: NOW,
    });
    const customer = { id: customerId } as CartPricingOptions['customer'];

    expect((await price(c)).totals.coupon_discount_total).toBe(100);
    expect(await refusal(c, { customer })).toMatchObject({
      details: { errors: { 'coupons.0': { customer_usage_limit: 'You have already used this coupon the maximum number of times.' } } },
    });
  });

  it('lets a cart placed again count its own unpaid order’s held stock and coupon use as its own', async () => {
    const lamp = await fx.variation(3000, { title: 'Lamp', variation: { title: 'Brass', manage_stock: 1, stock_quantity: 1 } });
    const last = await fx.coupon({ code: 'LASTONE', type: 'fixed', amount: 500, max_uses: 1 });
    const c = await cart([[lamp.id, 1]], ['LASTONE']);
    const customerId = await fx.customer();
    const orderId = await insertOrder(db(), customerId, NOW, { status: 'on-hold', payment_status: 'pending', total_paid: 0, stock_state: 'held' }, [
      { post_id: lamp.product_id, variation_id: lamp.id, quantity: 1, stock_units: 1 },
    ]);
    await db()('store_applied_coupons').insert({
      order_id: orderId,
      coupon_id: last.id,
      customer_id: customerId,
      code: 'LASTONE',
      created_at: NOW,
      updated_at: NOW,
    });
    await db()('store_coupons').where({ id: last.id }).update({ use_count: 1 });
    await db()('store_product_variations').where({ id: lamp.id }).update({ stock_on_hold: 1 });
    await db()('store_carts').where({ id: c.id }).update({ stage: 'intended', order_id: orderId });
    const placed = (await findCartByHash(db(), c.cart_hash)) as Cart;

    const again = await price(placed);
    expect(again.totals).toMatchObject({ subtotal: 3000, coupon_discount_total: 500, total_amount: 2500 });
    expect([...again.coupons.kept]).toEqual([last.id]);

    const stranger = { ...placed, id: 0, order_id: null };
    expect(await refusal(stranger)).toMatchObject({ code: 'invalid_state', message: 'Insufficient stock for Lamp - Brass.' });
    await db()('store_product_variations').where({ id: lamp.id }).update({ stock_on_hold: 0 });
    expect(await refusal(stranger)).toMatchObject({ details: { errors: { 'coupons.0': { usage_limit: 'This coupon has reached its usage limit.' } } } });
  });
});
