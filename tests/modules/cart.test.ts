/**
 * The cart API: `GET /cart`, items and coupons, `DELETE /cart` (PublicPolicy, checkout envelope). The cart is named by
 * the `fct_cart_hash` cookie or query parameter; every write answers the cart and sets the cookie.
 */
import type { Response } from 'supertest';
import { BASE, startTestApp, type TestApp } from '../support/app';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';
const START = '2026-11-21T10:00:00Z';

describe('cart API', () => {
  let app: TestApp;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    fx = orderFixtures(app, NOW);
    // every request of this file comes from one address; the limit itself is tested in cart-sessions.test.ts
    await app.host.options.set('cart_write_rate_limit', 100_000);
  });
  afterAll(() => app.close());
  beforeEach(() => app.clock.set(START));

  const db = () => app.host.db;
  const hashOf = (res: Response) => /fct_cart_hash=([0-9a-f]{32})/.exec(String(res.headers['set-cookie']))?.[1] as string;
  const rowOf = (hash: string) => db()('store_carts').where({ cart_hash: hash }).first();
  const dataOf = async (hash: string) => JSON.parse(String((await rowOf(hash)).cart_data));
  const carts = () => fx.count('store_carts');
  const withCart = (hash: string) => ({
    get: () => app.http.get(`${BASE}/cart`).set('Cookie', `fct_cart_hash=${hash}`),
    add: (body: Record<string, unknown>) => app.http.post(`${BASE}/cart/items`).set('Cookie', `fct_cart_hash=${hash}`).send(body),
    put: (variationId: number, body: Record<string, unknown>) =>
      app.http.put(`${BASE}/cart/items/${variationId}`).set('Cookie', `fct_cart_hash=${hash}`).send(body),
    remove: (variationId: number) => app.http.delete(`${BASE}/cart/items/${variationId}`).set('Cookie', `fct_cart_hash=${hash}`),
    coupon: (code: string) => app.http.post(`${BASE}/cart/coupons`).set('Cookie', `fct_cart_hash=${hash}`).send({ code }),
    dropCoupon: (code: string) => app.http.delete(`${BASE}/cart/coupons/${encodeURIComponent(code)}`).set('Cookie', `fct_cart_hash=${hash}`),
    empty: () => app.http.delete(`${BASE}/cart`).set('Cookie', `fct_cart_hash=${hash}`),
  });

  /** A managed variation "<product> - <variation>" with `stock` units. */
  const stocked = (price: number, stock: number, names = { product: 'Tee', variation: 'Large' }) =>
    fx.variation(price, { title: names.product, variation: { title: names.variation, manage_stock: 1, stock_quantity: stock } });

  /** A new guest cart holding `quantity` of the variation; returns its hash. */
  async function cartWith(variationId: number, quantity: number): Promise<string> {
    const res = await app.http.post(`${BASE}/cart/items`).send({ variation_id: variationId, quantity });
    expect(res.status).toBe(200);
    return hashOf(res);
  }

  const EMPTY = {
    cart_hash: null,
    stage: 'draft',
    items: [],
    coupons: [],
    subtotal: 0,
    coupon_discount_total: 0,
    shipping_total: 0,
    tax_total: 0,
    total_amount: 0,
    formatted: { subtotal: '$0.00', total: '$0.00' },
    currency: 'USD',
    item_count: 0,
    expires_at: null,
  };

  describe('GET /cart', () => {
    it('answers an empty cart without creating one or setting a cookie when the caller has none', async () => {
      const before = await carts();
      const res = await app.http.get(`${BASE}/cart`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ cart: EMPTY });
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await carts()).toBe(before);
    });

    it('shows the cart the cookie names: lines, totals in cents and formatted, item count, expiry', async () => {
      const tee = await stocked(1500, 5);
      const mug = await fx.variation(999, { title: 'Mug', fulfillment_type: 'digital', variation: { title: 'Mug' } });
      const hash = await cartWith(tee.id, 2);
      await withCart(hash).add({ variation_id: mug.id, quantity: 1 });

      const res = await withCart(hash).get();
      expect(res.status).toBe(200);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.body).toEqual({
        cart: {
          cart_hash: hash,
          stage: 'draft',
          items: [
            {
              variation_id: tee.id,
              product_id: tee.product_id,
              title: 'Large',
              post_title: 'Tee',
              quantity: 2,
              unit_price: 1500,
              subtotal: 3000,
              line_total: 3000,
              fulfillment_type: 'physical',
              payment_type: 'onetime',
              available_quantity: 5,
              message: null,
            },
            {
              variation_id: mug.id,
              product_id: mug.product_id,
              title: 'Mug',
              post_title: 'Mug',
              quantity: 1,
              unit_price: 999,
              subtotal: 999,
              line_total: 999,
              fulfillment_type: 'digital',
              payment_type: 'onetime',
              available_quantity: null,
              message: null,
            },
          ],
          coupons: [],
          subtotal: 3999,
          coupon_discount_total: 0,
          shipping_total: 0,
          tax_total: 0,
          total_amount: 3999,
          formatted: { subtotal: '$39.99', total: '$39.99' },
          currency: 'USD',
          item_count: 3,
          expires_at: '2026-11-28 10:00:00',
        },
      });
    });

    it('takes the hash from the fct_cart_hash query parameter too, before the cookie', async () => {
      const v = await stocked(1000, 10);
      const first = await cartWith(v.id, 1);
      const second = await cartWith(v.id, 4);
      const byQuery = await app.http.get(`${BASE}/cart?fct_cart_hash=${second}`).set('Cookie', `fct_cart_hash=${first}`);
      expect(byQuery.body.cart).toMatchObject({ cart_hash: second, item_count: 4 });
      const byCookie = await withCart(first).get();
      expect(byCookie.body.cart).toMatchObject({ cart_hash: first, item_count: 1 });
    });

    it('shows an empty cart for an unknown or malformed hash, an expired cart and a completed cart', async () => {
      const v = await stocked(1000, 10);
      expect((await withCart('0'.repeat(32)).get()).body).toEqual({ cart: EMPTY });
      expect((await withCart('not-a-hash').get()).body).toEqual({ cart: EMPTY });

      const completed = await cartWith(v.id, 1);
      await db()('store_carts').where({ cart_hash: completed }).update({ stage: 'completed' });
      expect((await withCart(completed).get()).body).toEqual({ cart: EMPTY });

      const expiring = await cartWith(v.id, 1);
      app.clock.set('2026-11-28T10:00:00Z');
      expect((await withCart(expiring).get()).body).toEqual({ cart: EMPTY });
    });

    it('flags lines that can no longer be bought as they are, and leaves out variations deleted since', async () => {
      const short = await stocked(1000, 5, { product: 'Tee', variation: 'Small' });
      const hidden = await stocked(2000, 5, { product: 'Cap', variation: 'Red' });
      const gone = await stocked(3000, 5, { product: 'Bag', variation: 'Blue' });
      const hash = await cartWith(short.id, 3);
      await withCart(hash).add({ variation_id: hidden.id, quantity: 1 });
      await withCart(hash).add({ variation_id: gone.id, quantity: 1 });

      await db()('store_product_variations').where({ id: short.id }).update({ stock_on_hold: 3 });
      await db()('store_products').where({ id: hidden.product_id }).update({ status: 'draft' });
      await db()('store_products').where({ id: gone.product_id }).delete();

      const { cart } = (await withCart(hash).get()).body;
      expect(cart.items).toEqual([
        expect.objectContaining({ variation_id: short.id, quantity: 3, available_quantity: 2, message: 'Insufficient stock for Tee - Small.' }),
        expect.objectContaining({ variation_id: hidden.id, quantity: 1, available_quantity: 0, message: 'Cap - Red is not available for purchase.' }),
      ]);
      expect(cart).toMatchObject({ subtotal: 5000, total_amount: 5000, item_count: 4 });
      expect((await dataOf(hash)).items).toHaveLength(3);
    });

    it('shows a coupon that stopped applying with no discount and the reason', async () => {
      const v = await stocked(1500, 10);
      const coupon = await fx.coupon({ code: 'BIGSPEND', type: 'fixed', amount: 500, min_purchase_amount: 3000 });
      const hash = await cartWith(v.id, 2);
      expect((await withCart(hash).coupon(coupon.code)).status).toBe(200);

      const res = await withCart(hash).put(v.id, { quantity: 1 });
      expect(res.status).toBe(200);
      expect(res.body.cart).toMatchObject({
        coupons: [{ code: 'BIGSPEND', discount: 0, message: 'The minimum spend for this coupon is 30.00.' }],
        coupon_discount_total: 0,
        total_amount: 1500,
      });
      expect((await dataOf(hash)).coupons).toEqual(['BIGSPEND']);
    });
  });

  describe('POST /cart/items', () => {
    it('creates a cart for a caller without one and hands it over in the fct_cart_hash cookie', async () => {
      const v = await stocked(1250, 10);
      const res = await app.http.post(`${BASE}/cart/items`).send({ variation_id: v.id, quantity: 2 });
      expect(res.status).toBe(200);
      const hash = hashOf(res);
      expect(hash).toMatch(/^[0-9a-f]{32}$/);
      expect(res.headers['set-cookie']).toEqual([`fct_cart_hash=${hash}; Max-Age=604800; Path=/; SameSite=Lax`]);
      expect(res.body.cart).toMatchObject({ cart_hash: hash, stage: 'draft', item_count: 2, total_amount: 2500, expires_at: '2026-11-28 10:00:00' });
      expect(await rowOf(hash)).toMatchObject({ user_id: null, order_id: null, stage: 'draft', expires_at: '2026-11-28 10:00:00' });
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 2 }], coupons: [] });
    });

    it('adds one unit by default and merges quantities of the same variation; each change restarts the cart’s week', async () => {
      const v = await stocked(1000, 10);
      const hash = await cartWith(v.id, 2);
      app.clock.set('2026-11-23T08:00:00Z');
      const res = await withCart(hash).add({ variation_id: v.id });
      expect(res.status).toBe(200);
      expect(hashOf(res)).toBe(hash);
      expect(res.headers['set-cookie']).toEqual([`fct_cart_hash=${hash}; Max-Age=604800; Path=/; SameSite=Lax`]);
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 3 }], coupons: [] });
      expect(await rowOf(hash)).toMatchObject({ expires_at: '2026-11-30 08:00:00' });
    });

    it('refuses invalid input with field errors and creates no cart', async () => {
      const v = await stocked(1000, 10);
      const before = await carts();
      const cases: Array<[Record<string, unknown>, Record<string, Record<string, string>>]> = [
        [{ variation_id: v.id, quantity: 0 }, { quantity: { min: 'The quantity field must be at least 1.' } }],
        [{ variation_id: v.id, quantity: 10_001 }, { quantity: { max: 'The quantity field must not be greater than 10000.' } }],
        [{ variation_id: v.id, quantity: 1.5 }, { quantity: { integer: 'The quantity field must be an integer.' } }],
        [{ quantity: 1 }, { variation_id: { required: 'The variation id field is required.' } }],
      ];
      for (const [body, errors] of cases) {
        const res = await app.http.post(`${BASE}/cart/items`).send(body);
        expect({ body, status: res.status, answer: res.body }).toEqual({ body, status: 422, answer: { status: 'failed', errors } });
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      expect(await carts()).toBe(before);
    });

    it('refuses a variation that does not exist or is not on sale as unknown, and changes nothing', async () => {
      const draft = await stocked(1000, 10, { product: 'Secret', variation: 'Draft' });
      await db()('store_products').where({ id: draft.product_id }).update({ status: 'draft' });
      const inactive = await stocked(1000, 10, { product: 'Old', variation: 'Gone' });
      await db()('store_product_variations').where({ id: inactive.id }).update({ status: 'inactive' });
      const ok = await stocked(1000, 10);
      const hash = await cartWith(ok.id, 1);

      for (const variationId of [999_999, draft.id, inactive.id]) {
        const res = await withCart(hash).add({ variation_id: variationId, quantity: 1 });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ status: 'failed', errors: { variation_id: { exists: 'The selected variation id is invalid.' } } });
      }
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: ok.id, quantity: 1 }], coupons: [] });
    });

    it('refuses more units than are available (stock minus what checkouts hold), counting those already in the cart', async () => {
      const v = await stocked(1000, 5);
      await db()('store_product_variations').where({ id: v.id }).update({ stock_on_hold: 1 });
      const tooMany = await app.http.post(`${BASE}/cart/items`).send({ variation_id: v.id, quantity: 5 });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body).toEqual({ status: 'failed', message: 'Insufficient stock for Tee - Large.' });

      const hash = await cartWith(v.id, 3);
      const more = await withCart(hash).add({ variation_id: v.id, quantity: 2 });
      expect(more.status).toBe(422);
      expect(more.body).toEqual({ status: 'failed', message: 'Insufficient stock for Tee - Large.' });
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 3 }], coupons: [] });
      expect((await withCart(hash).add({ variation_id: v.id, quantity: 1 })).status).toBe(200);
    });

    it('refuses a line above 10000 units when merging', async () => {
      const v = await fx.variation(1, { title: 'Screw', variation: { title: 'M3' } });
      const hash = await cartWith(v.id, 10_000);
      const res = await withCart(hash).add({ variation_id: v.id, quantity: 1 });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'failed', errors: { quantity: { max: 'The quantity field must not be greater than 10000.' } } });
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 10_000 }], coupons: [] });
    });
  });

  describe('PUT /cart/items/{variation_id}', () => {
    it('sets the quantity of a line, within the stock; 0 removes the line', async () => {
      const v = await stocked(1000, 5);
      const other = await stocked(500, 5, { product: 'Sock', variation: 'Pair' });
      const hash = await cartWith(v.id, 1);
      await withCart(hash).add({ variation_id: other.id, quantity: 1 });

      const set = await withCart(hash).put(v.id, { quantity: 5 });
      expect(set.status).toBe(200);
      expect(set.body.cart).toMatchObject({ item_count: 6, subtotal: 5500 });
      expect(hashOf(set)).toBe(hash);

      const over = await withCart(hash).put(v.id, { quantity: 6 });
      expect(over.status).toBe(422);
      expect(over.body).toEqual({ status: 'failed', message: 'Insufficient stock for Tee - Large.' });
      expect((await dataOf(hash)).items).toEqual([
        { variation_id: v.id, quantity: 5 },
        { variation_id: other.id, quantity: 1 },
      ]);

      const removed = await withCart(hash).put(v.id, { quantity: 0 });
      expect(removed.status).toBe(200);
      expect(removed.body.cart.items.map((item: { variation_id: number }) => item.variation_id)).toEqual([other.id]);
      expect((await dataOf(hash)).items).toEqual([{ variation_id: other.id, quantity: 1 }]);
    });

    it('answers 404 for a variation not in the cart and 422 for a negative quantity, changing nothing', async () => {
      const v = await stocked(1000, 5);
      const other = await stocked(1000, 5);
      const hash = await cartWith(v.id, 1);
      const missing = await withCart(hash).put(other.id, { quantity: 1 });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ status: 'failed', message: 'This product is not in the cart.' });
      const negative = await withCart(hash).put(v.id, { quantity: -1 });
      expect(negative.status).toBe(422);
      expect(negative.body).toEqual({ status: 'failed', errors: { quantity: { min: 'The quantity field must be at least 0.' } } });
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 1 }], coupons: [] });
    });

    it('creates no cart when there is none to change', async () => {
      const v = await stocked(1000, 5);
      const before = await carts();
      const res = await app.http.put(`${BASE}/cart/items/${v.id}`).send({ quantity: 1 });
      expect(res.status).toBe(404);
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await carts()).toBe(before);
    });

    it('refuses to change a line whose product went off sale (it can still be removed)', async () => {
      const v = await stocked(1000, 5);
      const hash = await cartWith(v.id, 1);
      await db()('store_products').where({ id: v.product_id }).update({ status: 'draft' });
      const res = await withCart(hash).put(v.id, { quantity: 2 });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'failed', message: 'Tee - Large is not available for purchase.' });
      expect((await dataOf(hash)).items).toEqual([{ variation_id: v.id, quantity: 1 }]);
      expect((await withCart(hash).put(v.id, { quantity: 0 })).status).toBe(200);
      expect((await dataOf(hash)).items).toEqual([]);
    });
  });

  describe('DELETE /cart/items/{variation_id}', () => {
    it('removes the line; a variation not in the cart is a 404', async () => {
      const v = await stocked(1000, 5);
      const hash = await cartWith(v.id, 2);
      const res = await withCart(hash).remove(v.id);
      expect(res.status).toBe(200);
      expect(res.body.cart).toMatchObject({ cart_hash: hash, items: [], item_count: 0, total_amount: 0 });
      expect((await dataOf(hash)).items).toEqual([]);
      const again = await withCart(hash).remove(v.id);
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ status: 'failed', message: 'This product is not in the cart.' });
    });
  });

  describe('POST /cart/coupons', () => {
    it('applies a coupon by its code in any letter case, stored as the coupon spells it', async () => {
      const v = await stocked(2000, 5);
      const coupon = await fx.coupon({ code: 'Tenner', type: 'fixed', amount: 1000 });
      const hash = await cartWith(v.id, 2);
      const res = await withCart(hash).coupon(' tENNER ');
      expect(res.status).toBe(200);
      expect(res.body.cart).toMatchObject({
        coupons: [{ code: coupon.code, discount: 1000, message: null }],
        subtotal: 4000,
        coupon_discount_total: 1000,
        total_amount: 3000,
        formatted: { subtotal: '$40.00', total: '$30.00' },
      });
      expect(res.body.cart.items[0]).toMatchObject({ subtotal: 4000, line_total: 3000 });
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 2 }], coupons: ['Tenner'] });
    });

    it('refuses an unknown code, a repeated one and the ones the coupon rules refuse, with their messages, changing nothing', async () => {
      const v = await stocked(2000, 5);
      const ok = await fx.coupon({ code: 'FIRST', type: 'percentage', amount: 10, stackable: 0 });
      await fx.coupon({ code: 'SECOND', type: 'percentage', amount: 5 });
      await fx.coupon({ code: 'OLD', ends_at: '2026-11-01 00:00:00' });
      await fx.coupon({ code: 'LATER', starts_at: '2026-12-01 00:00:00' });
      await fx.coupon({ code: 'OFF', status: 'inactive' });
      await fx.coupon({ code: 'RICH', type: 'fixed', amount: 100, min_purchase_amount: 5000 });
      const used = await fx.coupon({ code: 'USEDUP', max_uses: 1 });
      await db()('store_coupons').where({ id: used.id }).update({ use_count: 1 });
      const hash = await cartWith(v.id, 2);
      expect((await withCart(hash).coupon(ok.code)).status).toBe(200);

      const cases: Array<[string, Record<string, string>]> = [
        ['NOPE', { exists: 'Coupon "NOPE" does not exist.' }],
        ['first', { duplicate: 'This coupon has already been applied.' }],
        ['OLD', { expired: 'This coupon has expired.' }],
        ['LATER', { not_started: 'This coupon is not active yet.' }],
        ['OFF', { inactive: 'This coupon is not active.' }],
        ['RICH', { min_purchase: 'The minimum spend for this coupon is 50.00.' }],
        ['USEDUP', { usage_limit: 'This coupon has reached its usage limit.' }],
        ['SECOND', { not_stackable: 'This coupon cannot be combined with other coupons.' }],
      ];
      for (const [code, errors] of cases) {
        const res = await withCart(hash).coupon(code);
        expect({ code, status: res.status, body: res.body }).toEqual({ code, status: 422, body: { status: 'failed', errors: { code: errors } } });
      }
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 2 }], coupons: ['FIRST'] });
    });

    it('refuses a coupon for an empty cart (it applies to no product)', async () => {
      const coupon = await fx.coupon({ code: 'EMPTYCART' });
      const before = await carts();
      const res = await app.http.post(`${BASE}/cart/coupons`).send({ code: coupon.code });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'failed', errors: { code: { no_eligible_products: 'This coupon does not apply to any product in the cart.' } } });
      expect(await carts()).toBe(before);
    });

    it('lets a coupon in while an earlier one does not apply, but not one that knocks out an applying coupon', async () => {
      const v = await stocked(1000, 5);
      const hash = await cartWith(v.id, 3);
      await fx.coupon({ code: 'MIN30', type: 'fixed', amount: 100, min_purchase_amount: 3000 });
      await fx.coupon({ code: 'SOLO', type: 'fixed', amount: 200, stackable: 0, priority: 1 });
      await fx.coupon({ code: 'PLUS', type: 'fixed', amount: 50 });
      expect((await withCart(hash).coupon('MIN30')).status).toBe(200);
      await withCart(hash).put(v.id, { quantity: 2 });

      // SOLO comes first by priority and would push MIN30 out, but MIN30 already does not apply
      const solo = await withCart(hash).coupon('SOLO');
      expect(solo.status).toBe(200);
      expect(solo.body.cart.coupons).toEqual([
        { code: 'MIN30', discount: 0, message: 'The minimum spend for this coupon is 30.00.' },
        { code: 'SOLO', discount: 200, message: null },
      ]);
      const plus = await withCart(hash).coupon('PLUS');
      expect(plus.status).toBe(422);
      expect(plus.body).toEqual({ status: 'failed', errors: { code: { not_stackable: 'This coupon cannot be combined with other coupons.' } } });
      expect((await dataOf(hash)).coupons).toEqual(['MIN30', 'SOLO']);
    });

    it('refuses a code that is missing or too long', async () => {
      const res = await app.http.post(`${BASE}/cart/coupons`).send({ code: '' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'failed', errors: { code: { required: 'The code field is required.' } } });
      const long = await app.http.post(`${BASE}/cart/coupons`).send({ code: 'X'.repeat(101) });
      expect(long.body).toEqual({ status: 'failed', errors: { code: { max: 'The code field must not be greater than 100 characters.' } } });
    });
  });

  describe('DELETE /cart/coupons/{code}', () => {
    it('removes the coupon whatever the letter case; one not applied is a 404', async () => {
      const v = await stocked(2000, 5);
      await fx.coupon({ code: 'Gone10', type: 'fixed', amount: 1000 });
      const hash = await cartWith(v.id, 1);
      await withCart(hash).coupon('GONE10');
      const res = await withCart(hash).dropCoupon('gone10');
      expect(res.status).toBe(200);
      expect(res.body.cart).toMatchObject({ coupons: [], coupon_discount_total: 0, total_amount: 2000 });
      expect((await dataOf(hash)).coupons).toEqual([]);
      const again = await withCart(hash).dropCoupon('GONE10');
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ status: 'failed', message: 'This coupon is not applied to the cart.' });
    });
  });

  describe('DELETE /cart', () => {
    it('empties the cart (items and coupons) and keeps it', async () => {
      const v = await stocked(2000, 5);
      await fx.coupon({ code: 'EMPTYME', type: 'fixed', amount: 100 });
      const hash = await cartWith(v.id, 2);
      await withCart(hash).coupon('EMPTYME');
      const res = await withCart(hash).empty();
      expect(res.status).toBe(200);
      expect(hashOf(res)).toBe(hash);
      expect(res.body.cart).toMatchObject({ cart_hash: hash, items: [], coupons: [], total_amount: 0 });
      expect(await dataOf(hash)).toEqual({ items: [], coupons: [] });
    });

    it('creates no cart when the caller has none', async () => {
      const before = await carts();
      const res = await app.http.delete(`${BASE}/cart`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ cart: EMPTY });
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(await carts()).toBe(before);
    });
  });
});

describe('cart cookie on an https site', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ config: { siteUrl: 'https://shop.example' } });
  });
  afterAll(() => app.close());

  it('is Secure', async () => {
    const v = await orderFixtures(app, NOW).variation(1000);
    const res = await app.http.post(`${BASE}/cart/items`).send({ variation_id: v.id });
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual([`fct_cart_hash=${res.body.cart.cart_hash}; Max-Age=604800; Path=/; Secure; SameSite=Lax`]);
  });
});
