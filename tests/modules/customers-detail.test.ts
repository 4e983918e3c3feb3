import crypto from 'node:crypto';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

/**
 * `GET /customers/{customerId}` reads the customer and every relation asked for in one SQL statement, admin and
 * portal variants alike (the shapes themselves are tested in customers.test.ts and customers-portal.test.ts).
 */
describe('GET /customers/{customerId} in one statement', () => {
  let app: TestApp;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let aliceId: number;

  const db = () => app.host.db;

  async function customerRow(email: string, userId: number | null): Promise<number> {
    const [id] = await db()('store_customers').insert({
      email,
      user_id: userId,
      first_name: email.split('@')[0],
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      notes: '',
      created_at: NOW,
      updated_at: NOW,
    });
    return Number(id);
  }

  /** The statements on the store's tables that one request sends (the host's own reads, e.g. of users, aside). */
  async function storeStatements(send: () => Promise<{ status: number }>, status: number): Promise<string[]> {
    const sql: string[] = [];
    const listener = (query: { sql: string }) => {
      if (/store_(?!rate_limits)/.test(query.sql)) sql.push(query.sql);
    };
    db().on('query', listener);
    try {
      expect((await send()).status).toBe(status);
    } finally {
      db().off('query', listener);
    }
    return sql;
  }

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.options.set('hourly_request_limits', { list: 100_000 });
    admin = await app.createUser('admin', ['administrator']);
    alice = await app.createUser('alice');
    bob = await app.createUser('bob');
    aliceId = await customerRow('alice@example.com', alice.user.id);
    const label = await app.as(admin).post(`${BASE}/labels`).send({ title: 'VIP' });
    await app
      .as(admin)
      .put(`${BASE}/customers/${aliceId}/additional-info`)
      .send({ labels: [label.body.label.id] })
      .expect(200);
    for (let i = 0; i < 52; i++) await insertOrder(db(), aliceId, NOW, { invoice_no: `INV-${i}` });
    // warms the per-process cache of the tables' columns
    await app.as(admin).get(`${BASE}/customers/${aliceId}?with[]=orders&with[]=billing_address&with[]=shipping_address`).expect(200);
  });
  afterAll(() => app.close());

  it('admin: the customer, its labels and every relation asked for come from one statement; a missing one too', async () => {
    const url = `${BASE}/customers/${aliceId}?with[]=orders&with[]=labels&with[]=billing_address&with[]=shipping_address`;
    const sql = await storeStatements(() => app.as(admin).get(url), 200);
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/ union all /);
    expect(await storeStatements(() => app.as(admin).get(`${BASE}/customers/999999?with[]=billing_address`), 404)).toHaveLength(1);
  });

  it('portal: one statement, which carries the ownership check; the newest 50 orders, newest first', async () => {
    let body: { customer: { id: number; orders: Array<{ invoice_no: string }> } } | undefined;
    const sql = await storeStatements(async () => {
      const res = await app.as(alice).get(`${BASE}/customers/${aliceId}?with[]=orders&with[]=billing_address`);
      body = res.body;
      return res;
    }, 200);
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatch(/c\.id = \? and c\.user_id = \?/);
    expect(body!.customer.id).toBe(aliceId);
    expect(body!.customer.orders.map((o) => o.invoice_no)).toEqual(Array.from({ length: 50 }, (_, i) => `INV-${51 - i}`));
  });

  it("portal: a record with the caller's email and no user yet is answered without writing the link", async () => {
    const bobId = await customerRow('bob@example.com', null);
    const res = await app.as(bob).get(`${BASE}/customers/${bobId}`);
    expect(res.status).toBe(200);
    expect(res.body.customer).toMatchObject({ id: bobId, user_id: null, email: 'bob@example.com' });
    expect((await db()('store_customers').where({ id: bobId }).first()).user_id).toBeNull();
    await db()('store_customers').where({ id: bobId }).update({ user_id: bob.user.id });
    expect(await storeStatements(() => app.as(bob).get(`${BASE}/customers/${bobId}`), 200)).toHaveLength(1);
    const foreign = await app.as(bob).get(`${BASE}/customers/${aliceId}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ message: 'You are not authorized to view this customer' });
  });
});
