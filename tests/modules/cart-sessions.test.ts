/**
 * The cart's life: stages (only a draft is edited; an unpaid checkout is reopened; a paid or completed cart is never
 * touched again), a logged-in user's cart across devices (adopted, merged, followed), expiry, parallel edits and the
 * write rate limit.
 */
import request, { type Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { orderFixtures } from '../support/order-writes';

const NOW = '2026-11-21 10:00:00';
const START = '2026-11-21T10:00:00Z';

const hashOf = (res: Response) => /fct_cart_hash=([0-9a-f]{32})/.exec(String(res.headers['set-cookie']))?.[1] as string;

describe('cart sessions', () => {
  let app: TestApp;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    fx = orderFixtures(app, NOW);
    await app.host.options.set('cart_write_rate_limit', 100_000);
  });
  afterAll(() => app.close());
  beforeEach(() => app.clock.set(START));

  const db = () => app.host.db;
  const rowOf = (hash: string) => db()('store_carts').where({ cart_hash: hash }).first();
  const dataOf = async (hash: string) => JSON.parse(String((await rowOf(hash)).cart_data));
  const add = (hash: string, variationId: number, quantity = 1) =>
    app.http.post(`${BASE}/cart/items`).set('Cookie', `fct_cart_hash=${hash}`).send({ variation_id: variationId, quantity });
  const getCart = (hash: string) => app.http.get(`${BASE}/cart`).set('Cookie', `fct_cart_hash=${hash}`);

  async function cartWith(variationId: number, quantity: number): Promise<string> {
    const res = await app.http.post(`${BASE}/cart/items`).send({ variation_id: variationId, quantity });
    expect(res.status).toBe(200);
    return hashOf(res);
  }

  /** Checkout placed the cart: an order with its lines, the cart `intended` and tied to it. */
  async function placed(hash: string, order: Record<string, unknown>, items: Array<Record<string, unknown>> = []): Promise<number> {
    const orderId = await insertOrder(db(), await fx.customer(), NOW, { total_paid: 0, ...order }, items);
    await db()('store_carts').where({ cart_hash: hash }).update({ stage: 'intended', order_id: orderId });
    return orderId;
  }

  describe('stages', () => {
    it('an intended cart whose order is unpaid goes back to draft when edited, still tied to that order (placing it again rewrites it)', async () => {
      const v = await fx.variation(1000);
      const hash = await cartWith(v.id, 1);
      const orderId = await placed(hash, { status: 'on-hold', payment_status: 'pending' });
      expect((await getCart(hash)).body.cart).toMatchObject({ cart_hash: hash, stage: 'intended', item_count: 1 });

      const res = await add(hash, v.id);
      expect(res.status).toBe(200);
      expect(hashOf(res)).toBe(hash);
      expect(res.body.cart).toMatchObject({ cart_hash: hash, stage: 'draft', item_count: 2 });
      expect(await rowOf(hash)).toMatchObject({ stage: 'draft', order_id: orderId });
      expect(await db()('store_orders').where({ id: orderId }).first()).toMatchObject({ status: 'on-hold', payment_status: 'pending' });
    });

    it('a refused edit leaves an intended cart as it was', async () => {
      const v = await fx.variation(1000, { variation: { manage_stock: 1, stock_quantity: 1 } });
      const hash = await cartWith(v.id, 1);
      const orderId = await placed(hash, { status: 'on-hold', payment_status: 'pending' });
      expect((await add(hash, v.id)).status).toBe(422);
      expect(await rowOf(hash)).toMatchObject({ stage: 'intended', order_id: orderId });
    });

    it('a cart whose order was paid meanwhile, or a completed cart, is never edited: a write starts a new cart', async () => {
      const v = await fx.variation(1000);
      const other = await fx.variation(700);
      const paid = await cartWith(v.id, 1);
      const orderId = await placed(paid, { status: 'processing', payment_status: 'paid' });
      const completed = await cartWith(v.id, 2);
      await db()('store_carts').where({ cart_hash: completed }).update({ stage: 'completed' });

      for (const [hash, stage, order] of [
        [paid, 'intended', orderId],
        [completed, 'completed', null],
      ] as const) {
        const before = await rowOf(hash);
        const res = await add(hash, other.id);
        expect(res.status).toBe(200);
        const fresh = hashOf(res);
        expect(fresh).not.toBe(hash);
        expect(res.body.cart).toMatchObject({ cart_hash: fresh, stage: 'draft', item_count: 1 });
        expect(await dataOf(fresh)).toEqual({ items: [{ variation_id: other.id, quantity: 1 }], coupons: [] });
        expect(await rowOf(hash)).toEqual({ ...before, stage, order_id: order });
      }
    });

    it('an intended cart counts the stock its own unpaid order holds as its own, until that order is canceled', async () => {
      const v = await fx.variation(1000, { title: 'Lamp', variation: { title: 'Brass', manage_stock: 1, stock_quantity: 2 } });
      const hash = await cartWith(v.id, 2);
      const orderId = await placed(hash, { status: 'on-hold', payment_status: 'pending', stock_state: 'held' }, [
        { post_id: v.product_id, variation_id: v.id, quantity: 2, stock_units: 2 },
      ]);
      await db()('store_product_variations').where({ id: v.id }).update({ stock_on_hold: 2 });

      expect((await getCart(hash)).body.cart.items[0]).toMatchObject({ quantity: 2, available_quantity: 2, message: null });
      const stranger = await cartWith((await fx.variation(100)).id, 1);
      const refused = await add(stranger, v.id);
      expect(refused.body).toEqual({ status: 'failed', message: 'Insufficient stock for Lamp - Brass.' });

      await db()('store_orders').where({ id: orderId }).update({ status: 'canceled' });
      expect((await getCart(hash)).body.cart.items[0]).toMatchObject({ available_quantity: 0, message: 'Insufficient stock for Lamp - Brass.' });
    });
  });

  describe('a logged-in shopper', () => {
    let serial = 0;
    let shopper: TestUser;
    beforeEach(async () => {
      shopper = await app.createUser(`shopper${++serial}`);
    });

    const device = () => request.agent(app.runtime.app);
    const as = (test: request.Test, user: TestUser) => test.auth(user.user.login, user.appPassword);

    it('has the guest cart adopted at the first write after logging in; it then lives a month', async () => {
      const v = await fx.variation(1000);
      const phone: TestAgent = device();
      const guest = await phone.post(`${BASE}/cart/items`).send({ variation_id: v.id });
      const hash = hashOf(guest);
      expect(await rowOf(hash)).toMatchObject({ user_id: null, expires_at: '2026-11-28 10:00:00' });

      const res = await as(phone.post(`${BASE}/cart/items`), shopper).send({ variation_id: v.id });
      expect(res.status).toBe(200);
      expect(res.body.cart).toMatchObject({ cart_hash: hash, item_count: 2, expires_at: '2026-12-21 10:00:00' });
      expect(res.headers['set-cookie']).toEqual([`fct_cart_hash=${hash}; Max-Age=2592000; Path=/; SameSite=Lax`]);
      expect(await rowOf(hash)).toMatchObject({ user_id: shopper.user.id, expires_at: '2026-12-21 10:00:00' });
    });

    it('finds their cart on another device, without a cookie', async () => {
      const v = await fx.variation(1000);
      const laptop = device();
      const hash = hashOf(await as(laptop.post(`${BASE}/cart/items`), shopper).send({ variation_id: v.id, quantity: 2 }));

      const phone = device();
      const read = await as(phone.get(`${BASE}/cart`), shopper);
      expect(read.body.cart).toMatchObject({ cart_hash: hash, item_count: 2 });
      const write = await as(phone.post(`${BASE}/cart/items`), shopper).send({ variation_id: v.id });
      expect(hashOf(write)).toBe(hash);
      expect(await dataOf(hash)).toEqual({ items: [{ variation_id: v.id, quantity: 3 }], coupons: [] });
      expect((await as(laptop.get(`${BASE}/cart`), shopper)).body.cart).toMatchObject({ cart_hash: hash, item_count: 3 });
      // a user's cart is theirs: logged out, the same browser sees none
      expect((await laptop.get(`${BASE}/cart`)).body.cart).toMatchObject({ cart_hash: null, item_count: 0 });
    });

    it('has a guest cart merged into their own cart at the first write: quantities add up, coupons join, the guest cart goes', async () => {
      const shirt = await fx.variation(1000);
      const hat = await fx.variation(500);
      const scarf = await fx.variation(800);
      const ten = await fx.coupon({ code: `TEN${serial}`, type: 'fixed', amount: 100 });
      const five = await fx.coupon({ code: `FIVE${serial}`, type: 'fixed', amount: 50 });

      const laptop = device();
      const mine = hashOf(await as(laptop.post(`${BASE}/cart/items`), shopper).send({ variation_id: shirt.id }));
      expect((await as(laptop.post(`${BASE}/cart/coupons`), shopper).send({ code: ten.code })).status).toBe(200);

      const phone = device();
      const guest = hashOf(await phone.post(`${BASE}/cart/items`).send({ variation_id: shirt.id, quantity: 2 }));
      await phone.post(`${BASE}/cart/items`).send({ variation_id: hat.id });
      await phone.post(`${BASE}/cart/coupons`).send({ code: ten.code.toLowerCase() });
      await phone.post(`${BASE}/cart/coupons`).send({ code: five.code });

      // a read merges nothing
      const read = await as(phone.get(`${BASE}/cart`), shopper);
      expect(read.body.cart).toMatchObject({ cart_hash: guest, item_count: 3 });
      expect(await rowOf(guest)).toMatchObject({ user_id: null });

      const res = await as(phone.post(`${BASE}/cart/items`), shopper).send({ variation_id: scarf.id });
      expect(res.status).toBe(200);
      expect(hashOf(res)).toBe(mine);
      expect(res.body.cart).toMatchObject({ cart_hash: mine, item_count: 5 });
      expect(await dataOf(mine)).toEqual({
        items: [
          { variation_id: shirt.id, quantity: 3 },
          { variation_id: hat.id, quantity: 1 },
          { variation_id: scarf.id, quantity: 1 },
        ],
        coupons: [ten.code, five.code],
      });
      expect(await rowOf(guest)).toBeUndefined();
      expect((await as(phone.get(`${BASE}/cart`), shopper)).body.cart).toMatchObject({ cart_hash: mine });
    });

    it('never uses another user’s cart: a read shows none, a write starts the caller’s own', async () => {
      const v = await fx.variation(1000);
      const owner = await app.createUser(`owner${serial}`);
      const theirs = hashOf(await as(app.http.post(`${BASE}/cart/items`), owner).send({ variation_id: v.id, quantity: 4 }));
      const before = await rowOf(theirs);

      expect((await as(getCart(theirs), shopper)).body.cart).toMatchObject({ cart_hash: null, item_count: 0 });
      expect((await getCart(theirs)).body.cart).toMatchObject({ cart_hash: null });

      const write = await as(add(theirs, v.id), shopper);
      expect(write.status).toBe(200);
      expect(hashOf(write)).not.toBe(theirs);
      expect(await rowOf(hashOf(write))).toMatchObject({ user_id: shopper.user.id });
      const guestWrite = await add(theirs, v.id);
      expect(hashOf(guestWrite)).not.toBe(theirs);
      expect(await rowOf(theirs)).toEqual(before);
    });
  });

  describe('expiry', () => {
    it('the hourly job deletes carts that expired without an order, in batches, and keeps the others', async () => {
      const expired = (n: number) => ({
        cart_hash: `expired-${n}`,
        stage: 'draft',
        cart_data: '{"items":[],"coupons":[]}',
        checkout_data: '{}',
        expires_at: '2026-11-21 09:00:00',
        created_at: '2026-11-14 09:00:00',
        updated_at: '2026-11-14 09:00:00',
      });
      const rows = Array.from({ length: 1201 }, (_, n) => expired(n));
      for (let i = 0; i < rows.length; i += 200) await db()('store_carts').insert(rows.slice(i, i + 200));
      const v = await fx.variation(1000);
      const withOrder = await cartWith(v.id, 1);
      await placed(withOrder, { status: 'on-hold', payment_status: 'pending' });
      await db()('store_carts').where({ cart_hash: withOrder }).update({ expires_at: '2026-11-21 09:00:00' });
      const live = await cartWith(v.id, 1);

      app.clock.set('2026-11-21T10:30:00Z');
      while ((await app.host.jobs.runDue()) > 0);
      expect(await fx.count('store_carts', { cart_hash: expired(0).cart_hash })).toBe(0);
      expect(Number((await db()('store_carts').where('cart_hash', 'like', 'expired-%').count({ n: '*' }))[0].n)).toBe(0);
      expect(await rowOf(withOrder)).toBeDefined();
      expect(await rowOf(live)).toBeDefined();
      expect(await db()('jobs').where({ name: 'store/cart/prune', status: 'done' }).first('id')).toBeDefined();
    });
  });

  describe('parallel writes', () => {
    it('to one cart are all kept (the cart row is locked for each edit)', async () => {
      const first = await fx.variation(100);
      const others = await Promise.all(Array.from({ length: 8 }, (_, i) => fx.variation(200 + i)));
      const hash = await cartWith(first.id, 1);
      const answers = await Promise.all([...others.map((v) => add(hash, v.id)), ...Array.from({ length: 8 }, () => add(hash, first.id))]);
      expect(answers.map((res) => res.status)).toEqual(Array(16).fill(200));
      const data = await dataOf(hash);
      expect(data.items).toHaveLength(9);
      expect(data.items.find((item: { variation_id: number }) => item.variation_id === first.id)).toEqual({ variation_id: first.id, quantity: 9 });
      expect(new Set(data.items.map((item: { variation_id: number }) => item.variation_id))).toEqual(new Set([first.id, ...others.map((v) => v.id)]));
    });
  });
});

describe('cart write rate limit', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('allows 120 writes a minute per caller (option cart_write_rate_limit), then answers 429; reads are not counted', async () => {
    for (let i = 0; i < 120; i++) expect((await app.http.delete(`${BASE}/cart`)).status).toBe(200);
    const refused = await app.http.delete(`${BASE}/cart`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too many requests. Please try again later.' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await app.http.get(`${BASE}/cart`)).status).toBe(200);

    const user = await app.createUser('busy');
    expect((await app.http.delete(`${BASE}/cart`).auth(user.user.login, user.appPassword)).status).toBe(200);

    await app.host.options.set('cart_write_rate_limit', 200);
    expect((await app.http.delete(`${BASE}/cart`)).status).toBe(200);
  });
});
