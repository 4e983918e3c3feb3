import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/host/cli';
import { readConfig } from '../../src/host/config';
import { reconcilePendingRefunds } from '../../src/modules/payments/reconcile';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import type { FakeStripe } from '../support/fakes/stripe-server';
import { orderFixtures } from '../support/order-writes';
import { configureStripe, paidStripeOrder, stripeStore } from '../support/stripe-orders';

const NOW = '2026-11-21 10:00:00';
const HOUR = 60 * 60_000;

describe('reconciling refunds stuck pending (job store/payments/reconcile, npm run cli -- payments:reconcile)', () => {
  let app: TestApp;
  let admin: TestUser;
  let fake: FakeStripe;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    ({ fake, stop } = await stripeStore(app, admin));
  });
  afterAll(async () => {
    await stop();
    await app.close();
  });
  beforeEach(async () => {
    fake.reset();
    app.clock.set('2026-11-21T10:00:00Z');
    await configureStripe(app, admin);
    // Refunds left pending by earlier tests are not this test's business.
    await app.host.db('store_order_transactions').where({ transaction_type: 'refund', status: 'pending' }).update({ status: 'failed' });
  });

  const db = () => app.host.db;
  const refundRows = (orderId: number) => db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' }).orderBy('id');
  const refund = (orderId: number, transaction_id: number, amount: string) =>
    app.as(admin).post(`${BASE}/orders/${orderId}/refund`).send({ refund_info: { transaction_id, amount } });

  /** A Stripe refund the store asked for while Stripe behaved as told: the row is left pending. */
  async function stuckRefund(behaviour: 'lose' | 'hang', amount = '10.00') {
    const order = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
    fake.behaviour = behaviour;
    expect((await refund(order.orderId, order.chargeId, amount)).status).toBe(502);
    fake.behaviour = 'normal';
    const [row] = await refundRows(order.orderId);
    expect(row).toMatchObject({ status: 'pending', vendor_charge_id: '' });
    return { ...order, row };
  }

  it('a refund Stripe made but whose answer was lost: found by the row uuid in its metadata, recorded as refunded', async () => {
    const { orderId, row } = await stuckRefund('lose');
    const [stripeRefund] = [...fake.refunds.values()];
    const refunded = orderFixtures(app, NOW).record('store/order/refunded');

    expect(await reconcilePendingRefunds(app.ctx())).toMatchObject({ checked: 0 });
    app.clock.advance(HOUR);
    const report = await reconcilePendingRefunds(app.ctx());
    refunded.off();

    expect(report).toEqual({ checked: 1, refunded: 1, failed: 0, pending: 0, skipped: 0, errors: 0 });
    expect(await refundRows(orderId)).toEqual([expect.objectContaining({ id: row.id, status: 'refunded', vendor_charge_id: stripeRefund.id })]);
    expect(await db()('store_orders').where({ id: orderId }).first()).toMatchObject({ payment_status: 'partially-refunded', total_refund: 1000 });
    expect(refunded.calls).toHaveLength(1);
    expect(fake.calls('GET', '/v1/refunds')).toHaveLength(1);
  });

  it('a refund that never reached Stripe: released as failed, so its amount can be refunded again', async () => {
    const { orderId, chargeId } = await stuckRefund('hang', '30.00');
    expect(fake.refunds.size).toBe(0);
    app.clock.advance(HOUR);

    expect(await reconcilePendingRefunds(app.ctx())).toEqual({ checked: 1, refunded: 0, failed: 1, pending: 0, skipped: 0, errors: 0 });
    expect(await refundRows(orderId)).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(await db()('store_orders').where({ id: orderId }).first()).toMatchObject({ payment_status: 'paid', total_refund: 0 });
    expect((await refund(orderId, chargeId, '30.00')).status).toBe(200);
  });

  it('a refund Stripe is still completing stays pending; once Stripe completes it, the next run records it', async () => {
    const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
    fake.refundStatus = 'pending';
    await refund(orderId, chargeId, '10.00');
    const [stripeRefund] = [...fake.refunds.values()];
    app.clock.advance(HOUR);

    expect(await reconcilePendingRefunds(app.ctx())).toMatchObject({ checked: 1, pending: 1 });
    expect((await refundRows(orderId))[0]).toMatchObject({ status: 'pending', vendor_charge_id: stripeRefund.id });
    expect(fake.calls('GET', `/v1/refunds/${String(stripeRefund.id)}`)).toHaveLength(1);

    stripeRefund.status = 'succeeded';
    expect(await reconcilePendingRefunds(app.ctx())).toMatchObject({ checked: 1, refunded: 1 });
    expect((await refundRows(orderId))[0]).toMatchObject({ status: 'refunded' });
  });

  it('Stripe unreachable: counted as an error, the refund stays pending for the next run', async () => {
    const { orderId } = await stuckRefund('lose');
    app.clock.advance(HOUR);
    fake.behaviour = 'hang';
    expect(await reconcilePendingRefunds(app.ctx())).toEqual({ checked: 1, refunded: 0, failed: 0, pending: 0, skipped: 0, errors: 1 });
    expect((await refundRows(orderId))[0]).toMatchObject({ status: 'pending' });
  });

  it('a pending refund of a gateway that cannot be asked is skipped', async () => {
    const { orderId, chargeId } = await paidStripeOrder(app, admin, fake, { price: 3000, now: NOW });
    await db()('store_order_transactions').insert({
      uuid: 'offline-refund-1',
      order_id: orderId,
      order_type: 'payment',
      transaction_type: 'refund',
      payment_method: 'bank_transfer',
      payment_mode: 'test',
      status: 'pending',
      currency: 'USD',
      total: 100,
      rate: 1,
      meta: JSON.stringify({ parent_transaction_id: chargeId }),
      created_at: NOW,
      updated_at: NOW,
    });
    app.clock.advance(HOUR);
    expect(await reconcilePendingRefunds(app.ctx())).toEqual({ checked: 1, refunded: 0, failed: 0, pending: 0, skipped: 1, errors: 0 });
  });

  it('the hourly job runs the same reconcile', async () => {
    const { orderId } = await stuckRefund('lose');
    app.clock.advance(HOUR);
    await app.host.jobs.enqueue('store/payments/reconcile', {});
    // Every due job runs (the payments' emails queued by earlier tests among them).
    let ran = 0;
    for (let batch = await app.host.jobs.runDue(50); batch > 0; batch = await app.host.jobs.runDue(50)) ran += batch;
    expect(ran).toBeGreaterThanOrEqual(1);
    expect((await refundRows(orderId))[0]).toMatchObject({ status: 'refunded' });
  });
});

describe('npm run cli -- payments:reconcile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-reconcile-'));
  const config = { ...readConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), logLevel: 'silent', secret: 'cli-secret' };
  let database: TestDatabase | null = null;
  beforeAll(async () => {
    if (process.env.TEST_DATABASE_URL) {
      database = await createTestDatabase();
      config.databaseUrl = database.url;
    }
    expect((await runCli(['migrate'], config)).code).toBe(0);
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports what it checked', async () => {
    expect(await runCli(['payments:reconcile'], config)).toEqual({ code: 0, output: ['No refund has been pending for 60 minutes or more.'] });
    expect(await runCli(['payments:reconcile', '--older-than-minutes', '15'], config)).toEqual({
      code: 0,
      output: ['No refund has been pending for 15 minutes or more.'],
    });
  });

  it.each(['abc', '0', '4', '1.5', '525601'])('--older-than-minutes %s: exit code 2 with the usage', async (value) => {
    const result = await runCli(['payments:reconcile', '--older-than-minutes', value], config);
    expect(result.code).toBe(2);
    expect(result.output.join('\n')).toContain('--older-than-minutes must be a whole number of minutes from 5 to 525600');
  });
});
