import { createCtx, transaction, type Ctx } from '../../src/core/context';
import { AppError } from '../../src/core/errors';
import { RateLimits } from '../../src/core/ratelimit';
import { adjustStock, holdStock, releaseStock } from '../../src/modules/products/stock';
import type { Variation } from '../../src/modules/products/types';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('stock (src/modules/products/stock.ts)', () => {
  let app: TestApp;
  let admin: TestUser;
  let ctx: Ctx;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    ctx = createCtx(
      app.host,
      { user: null, ip: '', query: {}, auth: { method: null, sessionToken: null, sessionUserId: null, nonce: null, nonceValid: false }, session: {} as never },
      new RateLimits(app.host.db),
    );
  });
  afterAll(() => app.close());

  /** A product with one variation; returns the variation id. */
  async function variation(over: Record<string, unknown> = {}): Promise<number> {
    const res = await app
      .as(admin)
      .post(`${BASE}/products`)
      .send({ title: 'Stocked', variations: [{ title: 'Blue mug', price: 1200, manage_stock: 1, stock_quantity: 5, ...over }] });
    expect(res.status).toBe(200);
    return res.body.product.variations[0].id;
  }
  const stored = async (id: number) =>
    (await app.host.db('store_product_variations').where({ id }).first('stock_quantity', 'stock_on_hold')) as { stock_quantity: number; stock_on_hold: number };
  const adjust = (id: number, delta: number) => transaction(ctx, (trx, afterCommit) => adjustStock(trx, ctx, id, delta, afterCommit));
  function recordStockChanges() {
    const calls: Array<[Variation, number]> = [];
    const off = app.host.hooks.addAction('store/variation/stock_changed', (v, previous) => {
      calls.push([v, previous]);
    });
    return { calls, off };
  }

  describe('adjustStock', () => {
    it('20 parallel decrements of a stock of 5: exactly 5 succeed, the rest get 422 "Insufficient stock"', async () => {
      const id = await variation();
      const changes = recordStockChanges();
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => adjust(id, -1)));
      changes.off();
      const succeeded = results.filter((r) => r.status === 'fulfilled');
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(succeeded).toHaveLength(5);
      expect(failed).toHaveLength(15);
      for (const { reason } of failed) {
        expect(reason).toBeInstanceOf(AppError);
        expect(reason).toMatchObject({ code: 'invalid_state', status: 422, message: 'Insufficient stock for Blue mug.' });
      }
      expect(await stored(id)).toEqual({ stock_quantity: 0, stock_on_hold: 0 });
      // one hook per committed change, each with the quantity before it
      expect(changes.calls).toHaveLength(5);
      expect(changes.calls.map(([, previous]) => previous).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(changes.calls.map(([v]) => v.stock_quantity).sort()).toEqual([0, 1, 2, 3, 4]);
    });

    it('returns the presented variation; restocking (positive delta) works; the API shows out_of_stock at zero', async () => {
      const id = await variation({ stock_quantity: 1 });
      const sold = await adjust(id, -1);
      expect(sold).toMatchObject({ id, stock_quantity: 0, stock_available: 0, stock_status: 'out_of_stock' });
      const product = await app.as(admin).get(`${BASE}/products/${sold.product_id}`);
      expect(product.body.product.variations[0]).toMatchObject({ stock_quantity: 0, stock_status: 'out_of_stock' });
      expect(await adjust(id, 10)).toMatchObject({ stock_quantity: 10, stock_available: 10, stock_status: 'in_stock' });
    });

    it('asking for more than is available changes nothing and fires nothing', async () => {
      const id = await variation({ stock_quantity: 2 });
      const changes = recordStockChanges();
      await expect(adjust(id, -3)).rejects.toMatchObject({ status: 422, message: 'Insufficient stock for Blue mug.' });
      changes.off();
      expect(await stored(id)).toEqual({ stock_quantity: 2, stock_on_hold: 0 });
      expect(changes.calls).toEqual([]);
    });

    it('is a no-op for a variation whose stock is not managed', async () => {
      const id = await variation({ manage_stock: false, stock_quantity: 0 });
      const changes = recordStockChanges();
      expect(await adjust(id, -100)).toMatchObject({ id, manage_stock: 0, stock_quantity: 0, stock_available: null, stock_status: 'in_stock' });
      changes.off();
      expect(await stored(id)).toEqual({ stock_quantity: 0, stock_on_hold: 0 });
      expect(changes.calls).toEqual([]);
    });

    it('fires only after the commit: a rolled-back transaction leaves the stock and fires nothing', async () => {
      const id = await variation();
      const changes = recordStockChanges();
      await expect(
        transaction(ctx, async (trx, afterCommit) => {
          await adjustStock(trx, ctx, id, -2, afterCommit);
          expect(changes.calls).toEqual([]);
          throw new Error('payment failed');
        }),
      ).rejects.toThrow('payment failed');
      changes.off();
      expect(await stored(id)).toEqual({ stock_quantity: 5, stock_on_hold: 0 });
      expect(changes.calls).toEqual([]);
    });

    it('counts stock on hold as unavailable', async () => {
      const id = await variation();
      await transaction(ctx, (trx) => holdStock(trx, ctx, id, 3));
      await expect(adjust(id, -3)).rejects.toMatchObject({ status: 422 });
      expect(await adjust(id, -2)).toMatchObject({ stock_quantity: 3, stock_on_hold: 3, stock_available: 0 });
    });

    it('a missing variation is a 404', async () => {
      await expect(adjust(999999, -1)).rejects.toMatchObject({ status: 404, message: 'Variation not found' });
    });
  });

  describe('holdStock and releaseStock', () => {
    it('20 parallel holds of one unit on a stock of 5: exactly 5 succeed', async () => {
      const id = await variation();
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => transaction(ctx, (trx) => holdStock(trx, ctx, id, 1))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      expect(await stored(id)).toEqual({ stock_quantity: 5, stock_on_hold: 5 });
    });

    it('release gives held units back; releasing more than is held is a 422 and changes nothing', async () => {
      const id = await variation();
      expect(await transaction(ctx, (trx) => holdStock(trx, ctx, id, 4))).toMatchObject({ stock_on_hold: 4, stock_available: 1 });
      await expect(transaction(ctx, (trx) => holdStock(trx, ctx, id, 2))).rejects.toMatchObject({ status: 422, message: 'Insufficient stock for Blue mug.' });
      expect(await transaction(ctx, (trx) => releaseStock(trx, ctx, id, 3))).toMatchObject({ stock_on_hold: 1, stock_available: 4 });
      await expect(transaction(ctx, (trx) => releaseStock(trx, ctx, id, 2))).rejects.toMatchObject({
        status: 422,
        message: 'Cannot release more stock than is on hold for Blue mug.',
      });
      expect(await stored(id)).toEqual({ stock_quantity: 5, stock_on_hold: 1 });
    });

    it('a sale from a hold: release and adjust in one transaction', async () => {
      const id = await variation();
      await transaction(ctx, (trx) => holdStock(trx, ctx, id, 2));
      const sold = await transaction(ctx, async (trx, afterCommit) => {
        await releaseStock(trx, ctx, id, 2);
        return adjustStock(trx, ctx, id, -2, afterCommit);
      });
      expect(sold).toMatchObject({ stock_quantity: 3, stock_on_hold: 0, stock_available: 3 });
    });

    it('are no-ops for unmanaged stock', async () => {
      const id = await variation({ manage_stock: 0 });
      expect(await transaction(ctx, (trx) => holdStock(trx, ctx, id, 50))).toMatchObject({ stock_on_hold: 0 });
      expect(await transaction(ctx, (trx) => releaseStock(trx, ctx, id, 50))).toMatchObject({ stock_on_hold: 0 });
    });

    it('refuses quantities that are not positive integers (a programming error, not a 422)', async () => {
      const id = await variation();
      await expect(transaction(ctx, (trx) => holdStock(trx, ctx, id, -1))).rejects.toThrow(RangeError);
      await expect(transaction(ctx, (trx) => holdStock(trx, ctx, id, 1.5))).rejects.toThrow(TypeError);
      await expect(adjust(id, 0.5)).rejects.toThrow(TypeError);
    });
  });
});
