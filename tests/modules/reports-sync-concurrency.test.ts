/**
 * The report sync inside the order's transaction: parallel payments and refunds of orders in the same summary slots
 * (on MariaDB truly concurrent, on SQLite queued) leave exact summaries, and a listener that fails after the report
 * sync rolls the summaries back with the order.
 */
import { centsToDecimal } from '../../src/core/money';
import { onOrderEvent } from '../../src/modules/order-records/order-events';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';
import { insertOrder } from '../support/orders';
import { expectRebuildAgrees, reportTables } from './reports-sync-fixtures';

const NOW = '2026-11-21 10:00:00';

describe('report sync under concurrency and rollback', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;
  let variation: { id: number; product_id: number };
  const customers: number[] = [];
  let failing = false;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = orderFixtures(app, NOW);
    variation = await fx.variation(4000, { title: 'Chair' });
    for (let i = 0; i < 6; i++) customers.push(await fx.customer({ address: true }));
    // Registered after the report sync (the plugin is loaded): a later listener whose failure must undo it.
    onOrderEvent(app.host, async (_ctx, _trx, event) => {
      if (failing && event.type === 'changed') throw new Error('a later listener failed');
    });
  }, 120_000);
  afterAll(() => app.close());

  const db = () => app.host.db;
  const api = () => app.as(admin);

  async function createOrder(customerId: number, quantity = 1): Promise<number> {
    const res = await api()
      .post(`${BASE}/orders`)
      .send({ customer_id: customerId, order_items: [{ variation_id: variation.id, quantity }] });
    expect(res.status).toBe(200);
    return Number(res.body.order_id);
  }
  const markPaid = (orderId: number) => api().post(`${BASE}/orders/${orderId}/mark-as-paid`).send({ payment_method: 'offline' });
  const chargeOf = async (orderId: number) =>
    Number(((await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge' }).first('id')) as { id: number }).id);
  const refund = async (orderId: number, cents: number) =>
    api()
      .post(`${BASE}/orders/${orderId}/refund`)
      .send({ refund_info: { transaction_id: await chargeOf(orderId), amount: centsToDecimal(cents) } });

  it('parallel payments and refunds of orders in the same hour, some of one customer, leave exact summaries', async () => {
    // Two orders per customer: the payments race for the customers' first orders too.
    const unpaid: number[] = [];
    const paid: number[] = [];
    for (const customerId of customers) {
      unpaid.push(await createOrder(customerId, 2));
      paid.push(await createOrder(customerId, 1));
    }
    for (const orderId of paid) expect((await markPaid(orderId)).status).toBe(200);
    const before = await reportTables(db());

    const responses = await Promise.all([
      ...unpaid.map((orderId) => markPaid(orderId)),
      ...paid.map((orderId) => refund(orderId, 1500)),
      ...paid.map((orderId) => refund(orderId, 500)),
    ]);
    expect(responses.map((res) => res.status)).toEqual(responses.map(() => 200));

    const after = await reportTables(db());
    expect(after.facts).toHaveLength(before.facts.length + unpaid.length);
    const hour = after.sales.filter((row) => row.grain === 'h');
    const sum = (column: string) => hour.reduce((total, row) => total + Number(row[column]), 0);
    expect({ orders: sum('orders'), gross: sum('gross'), refund: sum('refund'), refunded: sum('refunded_orders') }).toEqual({
      orders: 12,
      gross: 6 * 8000 + 6 * 4000,
      refund: 6 * 2000,
      refunded: 6,
    });
    expect(after.sales.filter((row) => Number(row.first_order) === 1 && row.grain === 'm').reduce((n, row) => n + Number(row.orders), 0)).toBe(6);
    await expectRebuildAgrees(app);
  });

  it('parallel refunds of one order queue on its lock and sum exactly', async () => {
    const orderId = await createOrder(customers[0], 5);
    expect((await markPaid(orderId)).status).toBe(200);
    const responses = await Promise.all([refund(orderId, 1000), refund(orderId, 2000), refund(orderId, 3000), refund(orderId, 4000)]);
    expect(responses.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    const fact = (await db()('store_report_orders').where({ order_id: orderId }).first()) as Record<string, unknown>;
    expect({ gross: Number(fact.gross), refund: Number(fact.refund), payment_status: fact.payment_status }).toEqual({
      gross: 20_000,
      refund: 10_000,
      payment_status: 'partially-refunded',
    });
    await expectRebuildAgrees(app);
  });

  it('parallel customer changes of orders that had no facts yet (imported) give each order one fact, exact summaries', async () => {
    const imported = [];
    for (let i = 0; i < 3; i++)
      imported.push(await insertOrder(db(), customers[2], NOW, { total_amount: 1500 + i, total_paid: 1500 + i, payment_method: 'offline' }));
    for (const orderId of imported) {
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api()
            .post(`${BASE}/orders/${orderId}/change-customer`)
            .send({ customer_id: customers[3 + (i % 2)] }),
        ),
      );
      expect(responses.map((res) => res.status)).toEqual(responses.map(() => 200));
    }
    expect(await db()('store_report_orders').whereIn('order_id', imported).pluck('gross')).toEqual([1500, 1501, 1502]);
    await expectRebuildAgrees(app);
  });

  it('a listener failing after the report sync rolls the summaries back with the payment', async () => {
    const orderId = await createOrder(customers[1], 3);
    const before = await reportTables(db());
    failing = true;
    try {
      const res = await markPaid(orderId);
      expect(res.status).toBe(500);
    } finally {
      failing = false;
    }
    expect(((await db()('store_orders').where({ id: orderId }).first('payment_status')) as { payment_status: string }).payment_status).toBe('pending');
    expect(await reportTables(db())).toEqual(before);

    expect((await markPaid(orderId)).status).toBe(200);
    expect((await reportTables(db())).facts).toHaveLength(before.facts.length + 1);
    await expectRebuildAgrees(app);
  });
});
