import type { ActionMap, ActionName } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

/** change-customer, create-and-change-customer, update-address-id and generate-missing-licenses. */
describe('order customer and address routes', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const post = (path: string, body: Record<string, unknown>, user: TestUser = admin) => app.as(user).post(`${BASE}${path}`).send(body);

  async function newCustomer(): Promise<number> {
    const res = await post('/customers', { email: `person${++n}@example.com`, first_name: `Person${n}` });
    expect(res.status).toBe(200);
    return res.body.data.id;
  }
  const insertOrder = (customerId: number | null, over: Record<string, unknown> = {}) => insertOrderRow(db(), customerId as number, NOW, over);
  const customerOf = async (orderId: number) => (await db()('store_orders').where({ id: orderId }).first('customer_id')).customer_id;
  const stats = async (id: number) => db()('store_customers').where({ id }).first('ltv', 'purchase_count');
  const activities = async (id: number) =>
    (await db()('store_activities').where({ object_type: 'order', object_id: id }).orderBy('id')).map((a: { title: string; content: string }) => [
      a.title,
      a.content,
    ]);

  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  describe('POST /orders/{order_id}/change-customer', () => {
    it('answers 401 to anonymous callers and 403 without orders/manage', async () => {
      const [from, to] = [await newCustomer(), await newCustomer()];
      const id = await insertOrder(from);
      expect((await app.http.post(`${BASE}/orders/${id}/change-customer`).send({ customer_id: to })).status).toBe(401);
      expect((await post(`/orders/${id}/change-customer`, { customer_id: to }, clerk)).status).toBe(403);
      expect(await customerOf(id)).toBe(from);
    });

    it('answers 423 without a customer id, 422 for a malformed one and 404 for a missing order or customer', async () => {
      const from = await newCustomer();
      const id = await insertOrder(from);
      for (const body of [{}, { customer_id: '' }, { customer_id: null }]) {
        const res = await post(`/orders/${id}/change-customer`, body);
        expect([res.status, res.body]).toEqual([423, { message: 'Customer id is required' }]);
      }
      const malformed = await post(`/orders/${id}/change-customer`, { customer_id: 'abc' });
      expect([malformed.status, malformed.body]).toEqual([
        422,
        { message: 'The customer id must be a positive integer.', errors: { customer_id: { integer: 'The customer id must be a positive integer.' } } },
      ]);
      const noOrder = await post('/orders/999999/change-customer', { customer_id: from });
      expect([noOrder.status, noOrder.body]).toEqual([404, { message: 'Order not found' }]);
      const noCustomer = await post(`/orders/${id}/change-customer`, { customer_id: 999999 });
      expect([noCustomer.status, noCustomer.body]).toEqual([404, { message: 'Customer not found' }]);
      expect(await customerOf(id)).toBe(from);
    });

    it('moves the order, its parent, children and renewals with their coupons, and recomputes both customers', async () => {
      const [from, to] = [await newCustomer(), await newCustomer()];
      const parent = await insertOrder(from, { type: 'subscription', total_amount: 1000, total_paid: 1000 });
      const renewal = await insertOrder(from, { type: 'renewal', parent_id: parent, total_amount: 1000, total_paid: 1000 });
      const sibling = await insertOrder(from, { type: 'renewal', parent_id: parent, total_amount: 1000, total_paid: 1000 });
      const child = await insertOrder(from, { parent_id: renewal, total_amount: 500, total_paid: 500 });
      const unrelated = await insertOrder(from, { total_amount: 700, total_paid: 700 });
      await db()('store_applied_coupons').insert({ order_id: parent, customer_id: from, code: 'SAVE', created_at: NOW, updated_at: NOW });
      await post(`/customers/${from}/recalculate-ltv`, {});
      expect(await stats(from)).toEqual({ ltv: 4200, purchase_count: 5 });

      const changed = record('store/order/customer_changed');
      const res = await post(`/orders/${renewal}/change-customer`, { customer_id: String(to) });
      changed.off();
      expect([res.status, res.body]).toEqual([200, { message: 'Customer changed successfully' }]);
      const moved = [parent, renewal, sibling, child];
      for (const id of moved) expect(await customerOf(id)).toBe(to);
      expect(await customerOf(unrelated)).toBe(from);
      expect((await db()('store_applied_coupons').where({ order_id: parent }).first('customer_id')).customer_id).toBe(to);
      expect(await stats(from)).toEqual({ ltv: 700, purchase_count: 1 });
      expect(await stats(to)).toEqual({ ltv: 3500, purchase_count: 4 });
      expect(changed.calls.map(([order, previous]) => [order.id, order.customer_id, previous])).toEqual(moved.map((id) => [id, to, from]));
      expect(await activities(sibling)).toEqual([['Customer changed', `From customer #${from} to customer #${to}.`]]);
    });

    it('changes nothing (and fires nothing) when the orders already belong to the customer', async () => {
      const owner = await newCustomer();
      const id = await insertOrder(owner);
      const changed = record('store/order/customer_changed');
      const res = await post(`/orders/${id}/change-customer`, { customer_id: owner });
      changed.off();
      expect([res.status, res.body]).toEqual([200, { message: 'Customer changed successfully' }]);
      expect(changed.calls).toEqual([]);
      expect(await activities(id)).toEqual([]);
    });

    it('gives an order without a customer its first customer', async () => {
      const to = await newCustomer();
      const id = await insertOrder(null, { payment_status: 'pending', total_paid: 0 });
      const changed = record('store/order/customer_changed');
      await post(`/orders/${id}/change-customer`, { customer_id: to }).expect(200);
      changed.off();
      expect(await customerOf(id)).toBe(to);
      expect(changed.calls.map(([order, previous]) => [order.id, previous])).toEqual([[id, null]]);
      expect(await activities(id)).toEqual([['Customer changed', `From no customer to customer #${to}.`]]);
    });
  });

  describe('POST /orders/{order_id}/create-and-change-customer', () => {
    it('creates the customer like POST /customers and moves the order to it', async () => {
      const from = await newCustomer();
      const id = await insertOrder(from);
      const created = record('store/customer/created');
      const changed = record('store/order/customer_changed');
      const res = await post(`/orders/${id}/create-and-change-customer`, { email: ' New.Buyer@Example.com ', first_name: 'New', last_name: 'Buyer' });
      created.off();
      changed.off();
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        message: 'Customer changed successfully',
        customer: { email: 'new.buyer@example.com', first_name: 'New', last_name: 'Buyer' },
      });
      const customerId = res.body.customer.id;
      expect(await customerOf(id)).toBe(customerId);
      expect(created.calls.map(([c]) => c.id)).toEqual([customerId]);
      expect(changed.calls.map(([order, previous]) => [order.id, previous])).toEqual([[id, from]]);
      expect(await stats(customerId)).toEqual({ ltv: 1000, purchase_count: 1 });
    });

    it('answers the customer-creation messages and creates nothing for a missing order', async () => {
      const from = await newCustomer();
      const id = await insertOrder(from);
      const missing = await post(`/orders/${id}/create-and-change-customer`, { first_name: 'X' });
      expect([missing.status, missing.body]).toEqual([
        422,
        { message: 'The email field is required.', errors: { email: { required: 'The email field is required.' } } },
      ]);
      const invalid = await post(`/orders/${id}/create-and-change-customer`, { email: 'not-an-email', first_name: 'X' });
      expect([invalid.status, invalid.body.message]).toEqual([422, 'The email field must be a valid email address.']);
      const noName = await post(`/orders/${id}/create-and-change-customer`, { email: 'noname@example.com' });
      expect([noName.status, noName.body.message]).toEqual([422, 'The first name field is required.']);
      const taken = await post(`/orders/${id}/create-and-change-customer`, { email: `person${n}@example.com`, first_name: 'X' });
      expect([taken.status, taken.body.message]).toEqual([400, 'Customer already exists.']);
      const noOrder = await post('/orders/999999/create-and-change-customer', { email: 'orphan@example.com', first_name: 'X' });
      expect([noOrder.status, noOrder.body]).toEqual([404, { message: 'Order not found' }]);
      expect(await db()('store_customers').whereIn('email', ['orphan@example.com', 'noname@example.com', 'not-an-email']).first()).toBeUndefined();
      expect(await customerOf(id)).toBe(from);
      expect((await post(`/orders/${id}/create-and-change-customer`, { email: 'x@example.com', first_name: 'X' }, clerk)).status).toBe(403);
    });
  });

  describe('POST /orders/{order_id}/update-address-id', () => {
    let owner: number;
    let billing: number;
    let shipping: number;
    beforeAll(async () => {
      owner = await newCustomer();
      const address = (type: string, name: string) => ({
        customer_id: owner,
        type,
        name,
        company_name: 'Acme',
        address_1: '1 Main St',
        address_2: 'Suite 2',
        city: 'Springfield',
        state: 'IL',
        postcode: '62701',
        country: 'US',
        phone: '555-0100',
        email: 'owner@example.com',
        created_at: NOW,
        updated_at: NOW,
      });
      [billing] = await db()('store_customer_addresses').insert(address('billing', 'Bill Owner'));
      [shipping] = await db()('store_customer_addresses').insert(address('shipping', 'Ship Owner'));
      billing = Number(billing);
      shipping = Number(shipping);
    });
    const orderAddress = (orderId: number, type: string) =>
      db()('store_order_addresses')
        .where({ order_id: orderId, type })
        .first('name', 'company_name', 'address_1', 'address_2', 'city', 'state', 'postcode', 'country', 'phone', 'email');

    it('copies the address onto the order’s billing address by default, creating the row', async () => {
      const id = await insertOrder(owner);
      const updated = record('store/order/address_updated');
      const res = await post(`/orders/${id}/update-address-id`, { address_id: billing });
      updated.off();
      expect([res.status, res.body]).toEqual([200, { message: 'Address updated successfully' }]);
      const expected = {
        name: 'Bill Owner',
        company_name: 'Acme',
        address_1: '1 Main St',
        address_2: 'Suite 2',
        city: 'Springfield',
        state: 'IL',
        postcode: '62701',
        country: 'US',
        phone: '555-0100',
        email: 'owner@example.com',
      };
      expect(await orderAddress(id, 'billing')).toEqual(expected);
      expect(await orderAddress(id, 'shipping')).toBeUndefined();
      expect(updated.calls.map(([order, address]) => [order.id, address.type, address.name])).toEqual([[id, 'billing', 'Bill Owner']]);
      expect(await activities(id)).toEqual([
        ['Billing address updated', expect.stringMatching(new RegExp(`^Copied from customer address #${billing}: Bill Owner, .*springfield`, 'i'))],
      ]);
    });

    it('replaces the order’s shipping address with address_type shipping, whatever the address’s own type', async () => {
      const id = await insertOrder(owner);
      await db()('store_order_addresses').insert({ order_id: id, type: 'shipping', name: 'Old', city: 'Oldtown', created_at: NOW, updated_at: NOW });
      await post(`/orders/${id}/update-address-id`, { address_id: String(shipping), address_type: 'shipping' }).expect(200);
      expect(await orderAddress(id, 'shipping')).toMatchObject({ name: 'Ship Owner', city: 'Springfield' });
      expect(await db()('store_order_addresses').where({ order_id: id }).count({ n: '*' })).toEqual([{ n: 1 }]);
      await post(`/orders/${id}/update-address-id`, { address_id: billing, address_type: 'shipping' }).expect(200);
      expect(await orderAddress(id, 'shipping')).toMatchObject({ name: 'Bill Owner' });
    });

    it('answers 404 for a missing order, a missing address or another customer’s address; 422 for bad input', async () => {
      const stranger = await newCustomer();
      const id = await insertOrder(stranger);
      const noOrder = await post('/orders/999999/update-address-id', { address_id: billing });
      expect([noOrder.status, noOrder.body]).toEqual([404, { message: 'Order not found' }]);
      const foreign = await post(`/orders/${id}/update-address-id`, { address_id: billing });
      expect([foreign.status, foreign.body]).toEqual([404, { message: 'Address not found' }]);
      const gone = await post(`/orders/${id}/update-address-id`, { address_id: 999999 });
      expect([gone.status, gone.body]).toEqual([404, { message: 'Address not found' }]);
      const required = await post(`/orders/${id}/update-address-id`, {});
      expect([required.status, required.body]).toEqual([
        422,
        { message: 'The address id field is required.', errors: { address_id: { required: 'The address id field is required.' } } },
      ]);
      const badType = await post(`/orders/${id}/update-address-id`, { address_id: billing, address_type: 'home' });
      expect([badType.status, badType.body.message]).toEqual([422, 'The selected address type is invalid.']);
      expect(await db()('store_order_addresses').where({ order_id: id }).first()).toBeUndefined();
      expect((await post(`/orders/${id}/update-address-id`, { address_id: billing }, clerk)).status).toBe(403);
    });
  });

  describe('POST /orders/{order}/generate-missing-licenses', () => {
    it('answers 404 for a missing order and 400 otherwise (the licensing module is off, so nothing can be missing)', async () => {
      const id = await insertOrder(await newCustomer());
      const missing = await post('/orders/999999/generate-missing-licenses', {});
      expect([missing.status, missing.body]).toEqual([404, { message: 'Order not found' }]);
      const none = await post(`/orders/${id}/generate-missing-licenses`, {});
      expect([none.status, none.body]).toEqual([400, { message: 'No missing licenses found!' }]);
      expect((await post(`/orders/${id}/generate-missing-licenses`, {}, clerk)).status).toBe(403);
      expect((await app.http.post(`${BASE}/orders/${id}/generate-missing-licenses`).send({})).status).toBe(401);
    });
  });
});
