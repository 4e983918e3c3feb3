import crypto from 'node:crypto';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';

/**
 * The customer-portal variants of `GET|PUT /customers/{customerId}` and `GET /customers/{customerId}/orders`
 * (a logged-in user without the admin permission; errors in `{message}`), and the hourly request classes.
 */
describe('customers (portal variants and request limits)', () => {
  let app: TestApp;
  let admin: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let stranger: TestUser; // logged in, no customer record
  let aliceId: number;
  let bobId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    alice = await app.createUser('alice', ['customer']);
    bob = await app.createUser('bob', ['customer']);
    stranger = await app.createUser('stranger', ['customer']);
    // the admin creates both customers; their emails link them to the host users
    aliceId = (
      await app.as(admin).post(`${BASE}/customers`).send({ email: 'alice@example.com', first_name: 'Alice', last_name: 'A', city: 'Oslo', notes: 'internal' })
    ).body.data.id;
    bobId = (await app.as(admin).post(`${BASE}/customers`).send({ email: 'bob@example.com', first_name: 'Bob', last_name: 'B' })).body.data.id;
  });
  afterAll(() => app.close());

  const db = () => app.host.db;

  async function insertOrder(customerId: number, over: Record<string, unknown> = {}): Promise<number> {
    const [id] = await db()('store_orders').insert({
      uuid: crypto.randomUUID(),
      customer_id: customerId,
      invoice_no: `INV-${crypto.randomInt(1e9)}`,
      status: 'completed',
      payment_status: 'paid',
      total_amount: 1000,
      total_paid: 1000,
      created_at: NOW,
      updated_at: NOW,
      ...over,
    });
    return Number(id);
  }

  describe('GET /customers/{customerId} (portal)', () => {
    it("answers the owner's record in the portal shape", async () => {
      const res = await app.as(alice).get(`${BASE}/customers/${aliceId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        customer: {
          id: aliceId,
          user_id: alice.user.id,
          email: 'alice@example.com',
          first_name: 'Alice',
          last_name: 'A',
          status: 'active',
          purchase_value: {},
          purchase_count: 0,
          ltv: 0,
          country: '',
          city: 'Oslo',
          state: '',
          postcode: '',
          created_at: NOW,
          updated_at: NOW,
        },
      });
    });

    it('with[]: billing_address, shipping_address, orders (summaries)', async () => {
      const orderId = await insertOrder(aliceId, { invoice_no: 'INV-A1', total_amount: 2500 });
      const res = await app.as(alice).get(`${BASE}/customers/${aliceId}?with[]=billing_address&with[]=shipping_address&with[]=orders`);
      expect(res.status).toBe(200);
      expect(res.body.customer.billing_address).toEqual([]);
      expect(res.body.customer.shipping_address).toEqual([]);
      expect(res.body.customer.orders).toEqual([
        { id: orderId, invoice_no: 'INV-A1', total_amount: 2500, uuid: expect.any(String), type: 'payment', status: 'completed', created_at: NOW },
      ]);
      const bad = await app.as(alice).get(`${BASE}/customers/${aliceId}?with[]=labels`);
      expect(bad.status).toBe(422);
      expect(bad.body).toEqual({
        message: 'The with field accepts billing_address, shipping_address, orders.',
        errors: { 'with.0': { in: 'The with field accepts billing_address, shipping_address, orders.' } },
      });
    });

    it('401 anonymous', async () => {
      expect((await app.http.get(`${BASE}/customers/${aliceId}`)).status).toBe(401);
    });
  });

  describe('PUT /customers/{customerId} (portal)', () => {
    it("updates the owner's record (status and notes stay the store's) and the linked user's name", async () => {
      app.clock.advance(60_000);
      const res = await app
        .as(alice)
        .put(`${BASE}/customers/${aliceId}`)
        .send({ email: 'Alice.New@example.com', first_name: 'Alicia', last_name: 'Anders', city: 'Bergen', status: 'archived', notes: 'hacked' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Customer updated successfully!',
        data: { id: aliceId, email: 'alice.new@example.com', first_name: 'Alicia', last_name: 'Anders' },
      });
      const row = await db()('store_customers').where({ id: aliceId }).first();
      expect(row).toMatchObject({ email: 'alice.new@example.com', city: 'Bergen', status: 'active', notes: 'internal' });
      expect(await app.host.users.findById(alice.user.id)).toMatchObject({ first_name: 'Alicia', last_name: 'Anders', email: 'alice@example.com' });
      // the record stays hers
      expect((await app.as(alice).get(`${BASE}/customers/${aliceId}`)).status).toBe(200);
    });

    it('validates in the {message, errors} envelope; a taken email is a 422', async () => {
      const missing = await app.as(alice).put(`${BASE}/customers/${aliceId}`).send({ first_name: 'A' });
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({ message: 'The email field is required.', errors: { email: { required: 'The email field is required.' } } });
      const noName = await app.as(alice).put(`${BASE}/customers/${aliceId}`).send({ email: 'alice.new@example.com' });
      expect(noName.body).toEqual({ message: 'The first name field is required.', errors: { first_name: { required: 'The first name field is required.' } } });
      const taken = await app.as(alice).put(`${BASE}/customers/${aliceId}`).send({ email: 'BOB@example.com', first_name: 'A' });
      expect(taken.status).toBe(422);
      expect(taken.body).toEqual({ message: 'The email has already been taken.', errors: { email: { unique: 'The email has already been taken.' } } });
    });

    it('full-name mode: full_name is required', async () => {
      await app.host.options.set('store_settings', { name_mode: 'full' });
      try {
        const res = await app.as(alice).put(`${BASE}/customers/${aliceId}`).send({ email: 'alice.new@example.com', first_name: 'A' });
        expect(res.body).toEqual({ message: 'The full name field is required.', errors: { full_name: { required: 'The full name field is required.' } } });
        const ok = await app.as(alice).put(`${BASE}/customers/${aliceId}`).send({ email: 'alice.new@example.com', full_name: 'Alicia Anders' });
        expect(ok.body.data).toMatchObject({ first_name: 'Alicia', last_name: 'Anders' });
      } finally {
        await app.host.options.set('store_settings', {});
      }
    });
  });

  describe('GET /customers/{customerId}/orders (portal)', () => {
    it('pages the owner’s order summaries, 15 per page by default', async () => {
      const id = (await app.as(admin).post(`${BASE}/customers`).send({ email: 'many@example.com', first_name: 'Many' })).body.data.id;
      const many = await app.createUser('many');
      for (let i = 0; i < 17; i++) await insertOrder(id, { invoice_no: `INV-M${i}` });
      const res = await app.as(many).get(`${BASE}/customers/${id}/orders`);
      expect(res.status).toBe(200);
      expect(res.body.orders).toMatchObject({ current_page: 1, per_page: 15, total: 17, last_page: 2, from: 1, to: 15 });
      expect(res.body.orders.data[0]).toEqual({
        id: expect.any(Number),
        invoice_no: 'INV-M16',
        total_amount: 1000,
        uuid: expect.any(String),
        type: 'payment',
        status: 'completed',
        created_at: NOW,
      });
      const page2 = await app.as(many).get(`${BASE}/customers/${id}/orders?page=2`);
      expect(page2.body.orders.data.map((o: { invoice_no: string }) => o.invoice_no)).toEqual(['INV-M1', 'INV-M0']);
    });
  });

  describe('ownership: customer A can neither read nor change anything of customer B', () => {
    const routes: Array<[string, (user: TestUser, id: number) => Promise<{ status: number; body: unknown }>, number, unknown]> = [
      ['GET /customers/{customerId}', (u, id) => app.as(u).get(`${BASE}/customers/${id}`), 403, { message: 'You are not authorized to view this customer' }],
      [
        'PUT /customers/{customerId}',
        (u, id) => app.as(u).put(`${BASE}/customers/${id}`).send({ email: 'stolen@example.com', first_name: 'Mallory' }),
        403,
        { message: 'You are not authorized to update this customer' },
      ],
      ['GET /customers/{customerId}/orders', (u, id) => app.as(u).get(`${BASE}/customers/${id}/orders`), 200, { orders: [] }],
    ];

    it.each(routes)('%s: a foreign, a missing, or any customer for a user without one gets the spec answer', async (_name, call, status, body) => {
      await insertOrder(bobId);
      const before = await db()('store_customers').where({ id: bobId }).first();
      for (const [user, id] of [
        [alice, bobId],
        [alice, 999999],
        [stranger, bobId],
        [stranger, aliceId],
      ] as Array<[TestUser, number]>) {
        const res = await call(user, id);
        expect(res.status).toBe(status);
        expect(res.body).toEqual(body);
      }
      expect(await db()('store_customers').where({ id: bobId }).first()).toEqual(before);
      // B still reaches its own record
      expect((await app.as(bob).get(`${BASE}/customers/${bobId}`)).status).toBe(200);
    });

    it('admin-only routes stay closed to portal users (403 rest_forbidden)', async () => {
      for (const [method, path] of [
        ['get', `/customers`],
        ['get', `/customers/${bobId}/order`],
        ['get', `/customers/get-stats/${bobId}`],
        ['put', `/customers/${bobId}/additional-info`],
        ['post', `/customers/${bobId}/recalculate-ltv`],
        ['post', `/customers/${aliceId}/detach-user`],
      ] as const) {
        const res = await app.as(alice)[method](`${BASE}${path}`).send({});
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ code: 'rest_forbidden' });
      }
    });
  });

  describe('hourly request classes', () => {
    it('the 101st list request in an hour by an application-password caller is 429', async () => {
      const api = await app.createUser('api-admin', ['administrator']);
      for (let i = 0; i < 100; i++) expect((await app.as(api).get(`${BASE}/customers?per_page=1`)).status).toBe(200);
      const res = await app.as(api).get(`${BASE}/customers`);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // reads of single customers are in the same class
      expect((await app.as(api).get(`${BASE}/customers/${aliceId}`)).status).toBe(429);
      // another class is counted separately
      expect((await app.as(api).post(`${BASE}/customers/${aliceId}/recalculate-ltv`)).status).toBe(200);
    });

    it('a logged-in dashboard session (cookie + nonce) is exempt', async () => {
      await app.createUser('dashboard', ['administrator']);
      const browser = app.browser();
      expect((await browser.login('dashboard', 'dashboard-Pass-123')).status).toBe(200);
      for (let i = 0; i < 105; i++) expect((await browser.call('get', `${BASE}/customers?per_page=1`)).status).toBe(200);
    });

    it('portal callers are limited too', async () => {
      const carol = await app.createUser('carol', ['customer']);
      const id = (await app.as(admin).post(`${BASE}/customers`).send({ email: 'carol@example.com', first_name: 'Carol' })).body.data.id;
      for (let i = 0; i < 100; i++) expect((await app.as(carol).get(`${BASE}/customers/${id}`)).status).toBe(200);
      const res = await app.as(carol).get(`${BASE}/customers/${id}/orders`);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ message: 'Too many requests. Please try again later.' });
    });

    it('the 21st delete in an hour is 429 (bulk delete spends the delete class)', async () => {
      const deleter = await app.createUser('deleter', ['administrator']);
      for (let i = 0; i < 20; i++) {
        const res = await app
          .as(deleter)
          .post(`${BASE}/customers/do-bulk-action`)
          .send({ action: 'delete_customers', customer_ids: [999000 + i] });
        expect(res.status).toBe(200);
      }
      const res = await app
        .as(deleter)
        .post(`${BASE}/customers/do-bulk-action`)
        .send({ action: 'delete_customers', customer_ids: [1] });
      expect(res.status).toBe(429);
      // status changes are updates, not deletes
      expect(
        (
          await app
            .as(deleter)
            .post(`${BASE}/customers/do-bulk-action`)
            .send({ action: 'change_customer_status', customer_ids: [bobId], new_status: 'active' })
        ).status,
      ).toBe(200);
    });
  });
});
