/**
 * `POST /checkout/place-order` racing for the last unit: 10 shoppers with 10 carts check out at once and exactly one
 * order gets the unit; the other nine are told it is out of stock (422 `{message}`) and leave nothing behind. Run in
 * one app process, and across two real server processes sharing one database (SQLite: one data file; MariaDB when
 * TEST_DATABASE_URL is set).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { openDatabase } from '../../src/host/database';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const SHOPPERS = 10;
const OUT_OF_STOCK = { message: 'Insufficient stock for Last One - Only.' };

const shopper = (i: number) => guestForm({ billing_email: `shopper${i}@example.com` });

/** The outcome of the race: how many orders hold the unit, answers by status, what is on hold. */
function expectOneWinner(answers: Array<{ status: number; body: unknown }>): void {
  const winners = answers.filter((res) => res.status === 200);
  expect(winners).toHaveLength(1);
  expect(winners[0].body).toMatchObject({ status: 'success', message: 'Order placed successfully.' });
  const losers = answers.filter((res) => res.status !== 200);
  expect(losers.map((res) => [res.status, res.body])).toEqual(Array.from({ length: SHOPPERS - 1 }, () => [422, OUT_OF_STOCK]));
}

describe('POST /checkout/place-order: the last unit, 10 shoppers at once', () => {
  describe('one app process', () => {
    let app: TestApp;
    let admin: TestUser;
    let fx: ReturnType<typeof checkoutFixtures>;

    beforeAll(async () => {
      app = await startTestApp();
      admin = await app.createUser('admin', ['administrator']);
      fx = checkoutFixtures(app, () => admin);
      await app.host.options.set('cart_write_rate_limit', 100_000);
      await app.host.options.set('checkout_rate_limit', 100_000);
      await fx.paymentSettings({ cod: { enabled: true } });
    });
    afterAll(() => app.close());

    it('exactly one order holds the unit; nine get 422 and write nothing', async () => {
      const last = await fx.variation(1000, {
        title: 'Last One',
        fulfillment_type: 'digital',
        variation: { title: 'Only', manage_stock: 1, stock_quantity: 1 },
      });
      const carts: string[] = [];
      for (let i = 0; i < SHOPPERS; i++) carts.push(await fx.cartWith([[last.id, 1]]));

      const answers = await Promise.all(carts.map((hash, i) => fx.place(hash, shopper(i))));

      expectOneWinner(answers);
      expect(await fx.stockOf(last.id)).toEqual({ quantity: 1, on_hold: 1 });
      expect(await fx.count('store_orders')).toBe(1);
      expect(await fx.count('store_order_items')).toBe(1);
      expect(await fx.count('store_order_transactions')).toBe(1);
      const stages = await app.host.db('store_carts').whereIn('cart_hash', carts).pluck('stage');
      expect(stages.sort()).toEqual(['completed', ...Array.from({ length: SHOPPERS - 1 }, () => 'draft')]);
    });
  });

  describe('two server processes sharing one database', () => {
    jest.setTimeout(180_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-two-processes-'));
    let database: TestDatabase | null = null;
    let databaseUrl = `sqlite://${path.join(dir, 'store.sqlite')}`;
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      if (process.env.TEST_DATABASE_URL) {
        database = await createTestDatabase();
        databaseUrl = database.url;
      }
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const env = () => ({
      DATA_DIR: dir,
      DATABASE_URL: databaseUrl,
      STORE_SECRET: 'two-processes-secret',
      STORE_ADMIN_PASSWORD: 'Admin-Pass-123',
      SITE_URL: 'http://store.test',
      // every shopper comes from an address of its own, as through a proxy
      TRUST_PROXY: 'loopback',
    });

    it('exactly one order holds the unit, whichever process placed it', async () => {
      servers.push(await startServerProcess(env()));
      const appPassword = /Application password for API calls \(shown once\): (.+)/.exec(servers[0].output)?.[1]?.trim() as string;
      const api = (method: 'post' | 'put', url: string) => request(servers[0].url)[method](`${BASE}${url}`).auth('admin', appPassword);
      await api('put', '/settings/payment-methods')
        .send({ gateways: { cod: { enabled: true } } })
        .expect(200);
      const product = await api('post', '/products')
        .send({
          title: 'Last One',
          status: 'publish',
          fulfillment_type: 'digital',
          variations: [{ title: 'Only', price: 1000, manage_stock: 1, stock_quantity: 1 }],
        })
        .expect(200);
      const variationId = product.body.product.variations[0].id as number;
      servers.push(await startServerProcess(env()));

      const via = (i: number) => request(servers[i % 2].url);
      const carts: string[] = [];
      for (let i = 0; i < SHOPPERS; i++) {
        const res = await via(i)
          .post(`${BASE}/cart/items`)
          .set('X-Forwarded-For', `10.0.0.${i + 1}`)
          .send({ variation_id: variationId, quantity: 1 });
        expect(res.status).toBe(200);
        carts.push(/fct_cart_hash=([0-9a-f]{32})/.exec(String(res.headers['set-cookie']))?.[1] as string);
      }

      const answers = await Promise.all(
        carts.map((hash, i) =>
          via(i)
            .post(`${BASE}/checkout/place-order`)
            .set('X-Forwarded-For', `10.0.0.${i + 1}`)
            .set('Cookie', `fct_cart_hash=${hash}`)
            .send(shopper(i)),
        ),
      );

      expectOneWinner(answers);
      const db = await openDatabase(databaseUrl);
      try {
        expect(await db('store_product_variations').where({ id: variationId }).first('stock_quantity', 'stock_on_hold')).toEqual({
          stock_quantity: 1,
          stock_on_hold: 1,
        });
        expect(await db('store_orders').count({ n: '*' })).toEqual([{ n: 1 }]);
        expect(await db('store_order_items').count({ n: '*' })).toEqual([{ n: 1 }]);
      } finally {
        await db.destroy();
      }
    });
  });
});
