import crypto from 'node:crypto';
import type { ActionMap, ActionName } from '../../src/host/contract';
import { createAddress, listAddresses, makePrimary, type AddressInput } from '../../src/modules/customers/addresses';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';

/** A valid US billing address for the admin create body; override what a test is about. */
const US = {
  name: 'Jane Doe',
  email: 'jane@example.com',
  address_1: '1 Market Street',
  city: 'San Francisco',
  state: 'CA',
  postcode: '94105',
  country: 'US',
  type: 'billing',
};

const GB: AddressInput = {
  type: 'shipping',
  name: 'John Smith',
  email: 'john@example.com',
  address_1: '10 Downing Street',
  city: 'London',
  state: '',
  postcode: 'SW1A 2AA',
  country: 'GB',
};

describe('customer addresses', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let manager: TestUser;
  let alice: TestUser;
  let bob: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    // Budgets far above what this file sends; the rate-limit tests lower them on purpose.
    await app.host.options.set('hourly_request_limits', { list: 100_000, create: 100_000, update: 100_000, delete: 100_000 });
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    manager = await app.createUser('manager', ['product_manager']);
    alice = await app.createUser('alice');
    bob = await app.createUser('bob');
    stranger = await app.createUser('stranger');
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const resetClock = () => app.clock.set('2026-11-21T10:00:00Z');
  const url = (customerId: number, suffix = '') => `${BASE}/customers/${customerId}/address${suffix}`;

  let emails = 0;
  /** A customer row, linked to a host user when given. */
  async function customer(user: TestUser | null = null): Promise<number> {
    const [id] = await db()('store_customers').insert({
      email: user ? user.user.email : `customer${++emails}@example.com`,
      user_id: user?.user.id ?? null,
      first_name: 'Test',
      last_name: 'Customer',
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      notes: '',
      created_at: NOW,
      updated_at: NOW,
    });
    return Number(id);
  }

  /** An address made through the service (fixtures), not through the endpoint under test. */
  async function address(customerId: number, over: Partial<AddressInput> = {}): Promise<number> {
    const created = await createAddress(app.ctx(), customerId, { ...(US as AddressInput), ...over });
    return created.id;
  }

  /** Every stored column of a customer's addresses, by id: what "unchanged" is compared with. */
  const rows = (customerId: number) => db()('store_customer_addresses').where({ customer_id: customerId }).orderBy('id').select('*');
  const flags = async (customerId: number) =>
    (await rows(customerId)).map((r: Record<string, unknown>) => ({
      id: Number(r.id),
      type: r.type,
      is_primary: Number(r.is_primary),
      primary_slot: r.primary_slot,
    }));
  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number(((await db()(table).where(where).count({ n: '*' }).first()) as { n: number | string }).n);

  async function order(customerId: number): Promise<number> {
    await db()('store_orders').insert({ uuid: crypto.randomUUID(), customer_id: customerId, created_at: NOW, updated_at: NOW });
    return Number(((await db()('store_orders').where({ customer_id: customerId }).max({ id: 'id' }).first()) as { id: number }).id);
  }

  /** Records the arguments of every call of an action until `off()`. */
  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  describe('GET /customers/{customerId}/address', () => {
    let id: number;
    let first: number;
    let second: number;
    let chosen: number;
    beforeAll(async () => {
      id = await customer();
      first = await address(id);
      second = await address(id, { label: 'Office' });
      chosen = await address(id, { label: 'New home', is_primary: 1 });
      await address(id, GB);
    });

    it('lists the billing addresses by default, the primary first, then by id', async () => {
      const res = await app.as(clerk).get(url(id));
      expect(res.status).toBe(200);
      expect(res.body.addresses.map((a: { id: number }) => a.id)).toEqual([chosen, first, second]);
      expect(res.body.addresses.map((a: { is_primary: number }) => a.is_primary)).toEqual([1, 0, 0]);
    });

    it('answers the spec’s Address with formatted_address, honest types and no internal columns', async () => {
      const res = await app.as(clerk).get(url(id));
      expect(res.body.addresses[0]).toEqual({
        id: chosen,
        customer_id: id,
        type: 'billing',
        is_primary: 1,
        status: 'active',
        label: 'New home',
        name: 'Jane Doe',
        company_name: '',
        address_1: '1 Market Street',
        address_2: '',
        city: 'San Francisco',
        state: 'CA',
        postcode: '94105',
        country: 'US',
        phone: '',
        email: 'jane@example.com',
        meta: {},
        created_at: NOW,
        updated_at: NOW,
        formatted_address: {
          country: 'US',
          state: 'CA',
          city: 'San Francisco',
          postcode: '94105',
          address_1: '1 Market Street',
          address_2: '',
          type: 'billing',
          name: 'Jane Doe',
          company_name: '',
          label: 'New home',
          phone: '',
          full_address: 'Jane Doe, 1 Market Street, SAN FRANCISCO, CA 94105, United States of America',
        },
      });
    });

    it('type=shipping lists the shipping addresses', async () => {
      const res = await app.as(clerk).get(`${url(id)}?type=shipping`);
      expect(res.status).toBe(200);
      expect(res.body.addresses).toHaveLength(1);
      expect(res.body.addresses[0]).toMatchObject({ type: 'shipping', country: 'GB', is_primary: 1 });
      expect(res.body.addresses[0].formatted_address.full_address).toBe('John Smith, 10 Downing Street, LONDON, SW1A 2AA, United Kingdom');
    });

    it('an unknown type is a 422, not an empty list', async () => {
      const res = await app.as(clerk).get(`${url(id)}?type=home`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: 422, message: 'The selected type is invalid.', data: { type: { in: 'The selected type is invalid.' } } });
    });

    it('a customer without addresses has an empty list; a missing customer is 404', async () => {
      const empty = await customer();
      expect((await app.as(clerk).get(url(empty))).body).toEqual({ addresses: [] });
      const res = await app.as(clerk).get(url(999999));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Customer not found', data: {} });
    });

    it('needs customers/view: 401 anonymous, 403 without the permission, 403 for a customer (no portal variant)', async () => {
      const anonymous = await app.http.get(url(id));
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('rest_forbidden');
      expect((await app.as(manager).get(url(id))).status).toBe(403);
      expect((await app.as(alice).get(url(id))).status).toBe(403);
    });

    it('listAddresses(db, customerId, type?) reads both types without a type', async () => {
      const all = await listAddresses(db(), id);
      expect(all.map((a) => a.type).sort()).toEqual(['billing', 'billing', 'billing', 'shipping']);
      expect(all[0].is_primary).toBe(1);
    });
  });

  describe('POST /customers/{customerId}/address', () => {
    const post = (customerId: number, body: Record<string, unknown>, user = admin) => app.as(user).post(url(customerId)).send(body);

    it('creates the first address of a type as primary and fires address_created and primary_address_changed', async () => {
      const id = await customer();
      const created = record('store/customer/address_created');
      const primary = record('store/customer/primary_address_changed');
      const res = await post(id, { ...US, phone: '+1 415 555 0101', company_name: 'Acme', address_2: 'Suite 5', label: 'Home', meta: { gate: '42' } });
      created.off();
      primary.off();

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Address created successfully',
        data: expect.objectContaining({
          id: expect.any(Number),
          customer_id: id,
          type: 'billing',
          is_primary: 1,
          status: 'active',
          label: 'Home',
          company_name: 'Acme',
          address_2: 'Suite 5',
          phone: '+1 415 555 0101',
          meta: { gate: '42' },
          created_at: NOW,
          updated_at: NOW,
        }),
      });
      expect(res.body.data.formatted_address.full_address).toBe('Jane Doe, Acme, 1 Market Street, Suite 5, SAN FRANCISCO, CA 94105, United States of America');
      expect(res.body.data).not.toHaveProperty('primary_slot');
      expect(await flags(id)).toEqual([{ id: res.body.data.id, type: 'billing', is_primary: 1, primary_slot: 'billing' }]);
      expect(created.calls.map(([a]) => a.id)).toEqual([res.body.data.id]);
      expect(primary.calls.map(([a]) => a.id)).toEqual([res.body.data.id]);
      const log = await db()('store_activities').where({ object_type: 'customer', object_id: id }).select('title', 'created_by');
      expect(log).toEqual([{ title: 'Billing address added', created_by: expect.any(String) }]);
    });

    it('a second address of the type is not primary (no primary hook); the other type gets its own primary', async () => {
      const id = await customer();
      const first = (await post(id, US)).body.data.id;
      const primary = record('store/customer/primary_address_changed');
      const second = await post(id, { ...US, label: 'Office' });
      primary.off();
      expect(second.body.data.is_primary).toBe(0);
      expect(primary.calls).toEqual([]);
      const shipping = await post(id, { ...US, type: 'shipping' });
      expect(shipping.body.data.is_primary).toBe(1);
      expect(await flags(id)).toEqual([
        { id: first, type: 'billing', is_primary: 1, primary_slot: 'billing' },
        { id: second.body.data.id, type: 'billing', is_primary: 0, primary_slot: null },
        { id: shipping.body.data.id, type: 'shipping', is_primary: 1, primary_slot: 'shipping' },
      ]);
    });

    it('is_primary=1 demotes the other addresses of the same type only', async () => {
      const id = await customer();
      const first = (await post(id, US)).body.data.id;
      const ship = (await post(id, { ...US, type: 'shipping' })).body.data.id;
      const res = await post(id, { ...US, label: 'New', is_primary: 1 });
      expect(res.body.data.is_primary).toBe(1);
      expect(await flags(id)).toEqual([
        { id: first, type: 'billing', is_primary: 0, primary_slot: null },
        { id: ship, type: 'shipping', is_primary: 1, primary_slot: 'shipping' },
        { id: res.body.data.id, type: 'billing', is_primary: 1, primary_slot: 'billing' },
      ]);
    });

    it("accepts is_primary as '1' or true", async () => {
      const id = await customer();
      await post(id, US);
      expect((await post(id, { ...US, is_primary: '1' })).body.data.is_primary).toBe(1);
      expect((await post(id, { ...US, is_primary: true })).body.data.is_primary).toBe(1);
      expect((await post(id, { ...US, is_primary: 0 })).body.data.is_primary).toBe(0);
      expect((await flags(id)).filter((r) => r.is_primary)).toHaveLength(1);
    });

    it('stores the email lower-cased, the state as its code and the postcode upper-cased', async () => {
      const id = await customer();
      const res = await post(id, { ...US, email: 'Jane.Doe@Example.COM', state: 'california', country: 'us' });
      expect(res.body.data).toMatchObject({ email: 'jane.doe@example.com', state: 'CA', country: 'US' });
      const gb = await post(id, { ...US, type: 'shipping', state: null, country: 'GB', city: 'London', postcode: 'sw1a 2aa' });
      expect(gb.body.data).toMatchObject({ state: '', postcode: 'SW1A 2AA', country: 'GB' });
    });

    it('countries without states need none (GB, DE); Japan needs its prefecture', async () => {
      const id = await customer();
      expect((await post(id, { ...US, country: 'DE', state: undefined, postcode: '10117', city: 'Berlin' })).status).toBe(200);
      expect((await post(id, { ...US, country: 'DE', state: 'BE', postcode: '10117', city: 'Berlin' })).status).toBe(200);
      const jp = await post(id, { ...US, country: 'JP', state: 'Tokyo', postcode: '100-0001', city: 'Chiyoda-ku' });
      expect(jp.status).toBe(200);
      expect(jp.body.data.state).toBe('13');
    });

    const long = (n: number) => 'x'.repeat(n);
    it.each([
      ['name', { name: undefined }, 'required', 'The name field is required.'],
      ['name', { name: '' }, 'required', 'The name field is required.'],
      ['name', { name: '   ' }, 'regex', 'The name field must not be blank.'],
      ['name', { name: long(256) }, 'max', 'The name field must not be greater than 255 characters.'],
      ['email', { email: undefined }, 'required', 'The email field is required.'],
      ['email', { email: 'not-an-email' }, 'email', 'The email field must be a valid email address.'],
      ['email', { email: `${long(250)}@example.com` }, 'max', 'The email field must not be greater than 255 characters.'],
      ['address_1', { address_1: undefined }, 'required', 'The address 1 field is required.'],
      ['address_1', { address_1: long(256) }, 'max', 'The address 1 field must not be greater than 255 characters.'],
      ['address_2', { address_2: long(256) }, 'max', 'The address 2 field must not be greater than 255 characters.'],
      ['city', { city: undefined }, 'required', 'The city field is required.'],
      ['city', { city: long(256) }, 'max', 'The city field must not be greater than 255 characters.'],
      ['country', { country: undefined }, 'required', 'The country field is required.'],
      ['country', { country: 'XX' }, 'in', 'The selected country is invalid.'],
      ['country', { country: 'USA' }, 'in', 'The selected country is invalid.'],
      ['type', { type: undefined }, 'required', 'The type field is required.'],
      ['type', { type: 'home' }, 'in', 'The selected type is invalid.'],
      ['label', { label: long(16) }, 'max', 'The label field must not be greater than 15 characters.'],
      ['status', { status: 'deleted' }, 'in', 'The selected status is invalid.'],
      ['is_primary', { is_primary: 2 }, 'in', 'The is primary field must be 0 or 1.'],
      ['company_name', { company_name: long(256) }, 'max', 'The company name field must not be greater than 255 characters.'],
      ['phone', { phone: long(46) }, 'max', 'The phone field must not be greater than 45 characters.'],
      ['postcode', { postcode: long(46) }, 'max', 'The postcode field must not be greater than 45 characters.'],
      ['meta', { meta: 'x' }, 'array', 'The meta field must be an array.'],
      ['order_id', { order_id: 'abc' }, 'integer', 'The order id field must be an integer.'],
      ['state', { state: undefined }, 'required', 'The state field is required.'],
      ['state', { state: 'ZZ' }, 'in', 'The selected state is invalid.'],
      ['postcode', { postcode: undefined }, 'required', 'The postcode field is required.'],
      ['postcode', { postcode: 'ABCDE' }, 'postcode', 'The postcode is not valid for United States of America.'],
      ['postcode', { postcode: '10001' }, 'postcode', 'The postcode is not valid for California, United States of America.'],
      ['postcode', { country: 'GB', state: '', postcode: '12345', city: 'London' }, 'postcode', 'The postcode is not valid for United Kingdom.'],
    ])('422 on %s (%j): %s', async (field, over, rule, message) => {
      const id = await customer();
      const res = await post(id, { ...US, ...over });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe(422);
      expect(res.body.data[field]).toEqual({ [rule]: message });
      expect(res.body.message).toBe(Object.values(Object.values(res.body.data as Record<string, Record<string, string>>)[0])[0]);
      expect(await count('store_customer_addresses', { customer_id: id })).toBe(0);
    });

    it('a missing customer is 404 and stores nothing', async () => {
      const before = await count('store_customer_addresses');
      const res = await post(999999, US);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Customer not found', data: {} });
      expect(await count('store_customer_addresses')).toBe(before);
    });

    it('needs customers/manage: 401 anonymous, 403 without it (customers too), allowed for customer service', async () => {
      const id = await customer();
      expect((await app.http.post(url(id)).send(US)).status).toBe(401);
      expect((await post(id, US, manager)).status).toBe(403);
      expect((await post(id, US, alice)).status).toBe(403);
      expect((await post(id, US, clerk)).status).toBe(200);
      expect(await count('store_customer_addresses', { customer_id: id })).toBe(1);
    });

    describe('order_id', () => {
      const orderAddress = (orderId: number, type = 'billing') =>
        db()('store_order_addresses').where({ order_id: orderId, type }).first('name', 'address_1', 'city', 'state', 'postcode', 'country', 'email');

      it('with a primary address creates the order’s address of that type, then updates it', async () => {
        const id = await customer();
        const orderId = await order(id);
        expect((await post(id, { ...US, order_id: orderId })).status).toBe(200);
        expect(await orderAddress(orderId)).toEqual({
          name: 'Jane Doe',
          address_1: '1 Market Street',
          city: 'San Francisco',
          state: 'CA',
          postcode: '94105',
          country: 'US',
          email: 'jane@example.com',
        });
        await post(id, { ...US, name: 'Jane Roe', address_1: '2 Mission Street', is_primary: 1, order_id: orderId });
        expect(await count('store_order_addresses', { order_id: orderId })).toBe(1);
        expect(await orderAddress(orderId)).toMatchObject({ name: 'Jane Roe', address_1: '2 Mission Street' });
        await post(id, { ...US, type: 'shipping', order_id: orderId });
        expect(await count('store_order_addresses', { order_id: orderId })).toBe(2);
      });

      it('a non-primary address leaves the order alone', async () => {
        const id = await customer();
        const orderId = await order(id);
        await post(id, US);
        await post(id, { ...US, name: 'Someone Else', order_id: orderId });
        expect(await count('store_order_addresses', { order_id: orderId })).toBe(0);
      });

      it('an order of another customer (or none) is a 422 that stores nothing', async () => {
        const id = await customer();
        const other = await customer();
        const foreign = await order(other);
        for (const orderId of [foreign, 999999]) {
          const res = await post(id, { ...US, order_id: orderId });
          expect(res.status).toBe(422);
          expect(res.body).toEqual({
            code: 422,
            message: 'The selected order id is invalid.',
            data: { order_id: { exists: 'The selected order id is invalid.' } },
          });
        }
        expect(await count('store_customer_addresses', { customer_id: id })).toBe(0);
        expect(await count('store_order_addresses', { order_id: foreign })).toBe(0);
      });
    });
  });

  describe('PUT /customers/{customerId}/address (administrative)', () => {
    const put = (customerId: number, body: Record<string, unknown>, user = admin) => app.as(user).put(url(customerId)).send(body);

    it('changes the fields sent and fires address_updated with the previous address', async () => {
      const id = await customer();
      const addressId = await address(id, { label: 'Home' });
      app.clock.advance(60_000);
      const updated = record('store/customer/address_updated');
      const res = await put(id, { id: addressId, label: 'Office', address_1: '2 Mission Street', phone: null });
      updated.off();
      resetClock();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Address updated successfully',
        data: expect.objectContaining({
          id: addressId,
          label: 'Office',
          address_1: '2 Mission Street',
          city: 'San Francisco',
          updated_at: '2026-11-21 10:01:00',
        }),
      });
      expect(res.body.data.formatted_address.full_address).toContain('2 Mission Street');
      expect(updated.calls).toHaveLength(1);
      const [after, before] = updated.calls[0];
      expect([after.label, before.label]).toEqual(['Office', 'Home']);
      const log = await db()('store_activities').where({ object_type: 'customer', object_id: id }).orderBy('id').pluck('title');
      expect(log).toEqual(['Billing address added', 'Billing address updated']);
    });

    it('checks the country rules on the resulting address (422, unchanged)', async () => {
      const id = await customer();
      const addressId = await address(id, { ...GB, type: 'billing' });
      const before = await rows(id);
      const res = await put(id, { id: addressId, country: 'US' });
      expect(res.status).toBe(422);
      expect(res.body.data).toEqual({
        state: { required: 'The state field is required.' },
        postcode: { postcode: 'The postcode is not valid for United States of America.' },
      });
      const bad = await put(id, { id: addressId, postcode: '123' });
      expect(bad.body.data).toEqual({ postcode: { postcode: 'The postcode is not valid for United Kingdom.' } });
      expect(await rows(id)).toEqual(before);
      expect((await put(id, { id: addressId, country: 'US', state: 'NY', postcode: '10001', city: 'New York' })).status).toBe(200);
    });

    it('is_primary=1 demotes the others; unsetting the primary flag is refused', async () => {
      const id = await customer();
      const first = await address(id);
      const second = await address(id);
      const primary = record('store/customer/primary_address_changed');
      expect((await put(id, { id: second, is_primary: 1 })).body.data.is_primary).toBe(1);
      primary.off();
      expect(primary.calls.map(([a]) => a.id)).toEqual([second]);
      expect(await flags(id)).toEqual([
        { id: first, type: 'billing', is_primary: 0, primary_slot: null },
        { id: second, type: 'billing', is_primary: 1, primary_slot: 'billing' },
      ]);
      const res = await put(id, { id: second, is_primary: 0 });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('The primary address cannot be unset; make another address primary instead.');
      expect((await flags(id))[1].is_primary).toBe(1);
    });

    it('moving the primary to the other type promotes the newest remaining address of the old type', async () => {
      const id = await customer();
      const primary = await address(id);
      const older = await address(id);
      app.clock.advance(60_000);
      const newer = await address(id);
      resetClock();
      const res = await put(id, { id: primary, type: 'shipping' });
      expect(res.body.data).toMatchObject({ type: 'shipping', is_primary: 1 });
      expect(await flags(id)).toEqual([
        { id: primary, type: 'shipping', is_primary: 1, primary_slot: 'shipping' },
        { id: older, type: 'billing', is_primary: 0, primary_slot: null },
        { id: newer, type: 'billing', is_primary: 1, primary_slot: 'billing' },
      ]);
      // Moving a non-primary address to a type that has a primary keeps it non-primary.
      await put(id, { id: older, type: 'shipping' });
      expect((await flags(id)).find((r) => r.id === older)).toEqual({ id: older, type: 'shipping', is_primary: 0, primary_slot: null });
    });

    it('accepts a whole presented address as the body: the extra fields (customer_id, formatted_address…) are ignored', async () => {
      const id = await customer();
      const other = await customer();
      const addressId = await address(id);
      const { body } = await app.as(admin).get(url(id));
      const sent = { ...body.addresses[0], customer_id: other, primary_slot: 'shipping', label: 'Edited', meta: { floor: 3 } };
      const res = await put(id, sent);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: addressId, customer_id: id, label: 'Edited', meta: { floor: 3 }, is_primary: 1 });
      expect(await flags(id)).toEqual([{ id: addressId, type: 'billing', is_primary: 1, primary_slot: 'billing' }]);
      expect(await count('store_customer_addresses', { customer_id: other })).toBe(0);
    });

    it('an address of another customer is 404 and stays unchanged', async () => {
      const id = await customer();
      const other = await customer();
      const foreign = await address(other);
      const before = await rows(other);
      const res = await put(id, { id: foreign, label: 'Mine now' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Address not found', data: {} });
      expect(await rows(other)).toEqual(before);
    });

    it('syncs the order address when the result is primary and order_id is sent', async () => {
      const id = await customer();
      const addressId = await address(id);
      const orderId = await order(id);
      expect((await put(id, { id: addressId, city: 'Los Angeles', postcode: '90001', order_id: orderId })).status).toBe(200);
      expect(await db()('store_order_addresses').where({ order_id: orderId }).first('city', 'postcode', 'type')).toEqual({
        city: 'Los Angeles',
        postcode: '90001',
        type: 'billing',
      });
    });

    it.each([
      [{}, 'id', 'required', 'The id field is required.'],
      [{ id: 'x' }, 'id', 'integer', 'The id field must be an integer.'],
      [{ id: 1, label: 'x'.repeat(16) }, 'label', 'max', 'The label field must not be greater than 15 characters.'],
      [{ id: 1, type: 'home' }, 'type', 'in', 'The selected type is invalid.'],
      [{ id: 1, name: '' }, 'name', 'required', 'The name field is required.'],
      [{ id: 1, email: 'nope' }, 'email', 'email', 'The email field must be a valid email address.'],
    ])('422 on %j', async (body, field, rule, message) => {
      const id = await customer();
      const res = await put(id, body);
      expect(res.status).toBe(422);
      expect(res.body.data[field]).toEqual({ [rule]: message });
    });

    it('a missing customer is 404; 401 anonymous; without customers/manage the portal variant answers 403', async () => {
      const res = await put(999999, { id: 1, label: 'x' });
      expect(res).toMatchObject({ status: 404, body: { code: 404, message: 'Customer not found' } });
      const id = await customer();
      const addressId = await address(id);
      expect((await app.http.put(url(id)).send({ id: addressId })).status).toBe(401);
      // The portal variant reads the portal's body; the manager has no customer record, so the address is not theirs.
      const denied = await put(
        id,
        {
          address: { id: addressId },
          type: 'billing',
          billing_label: 'x',
          billing_address_1: 'a',
          billing_city: 'b',
          billing_state: 'CA',
          billing_postcode: '94105',
          billing_country: 'US',
        },
        manager,
      );
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ message: 'You are not authorized to update this address' });
    });
  });

  describe('DELETE /customers/{customerId}/address (administrative)', () => {
    const del = (customerId: number, body: Record<string, unknown>, user = admin) => app.as(user).delete(url(customerId)).send(body);

    it('deletes an address and fires address_deleted', async () => {
      const id = await customer();
      const keep = await address(id);
      const gone = await address(id);
      const deleted = record('store/customer/address_deleted');
      const res = await del(id, { address_id: gone });
      deleted.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: 'Address deleted successfully' });
      expect(deleted.calls.map(([a]) => a.id)).toEqual([gone]);
      expect(await flags(id)).toEqual([{ id: keep, type: 'billing', is_primary: 1, primary_slot: 'billing' }]);
    });

    it('deleting the primary promotes the newest remaining address of that type', async () => {
      const id = await customer();
      const primary = await address(id);
      app.clock.advance(120_000);
      const newest = await address(id);
      app.clock.advance(-60_000);
      const middle = await address(id);
      resetClock();
      const ship = await address(id, GB);
      const promoted = record('store/customer/primary_address_changed');
      await del(id, { address_id: primary }).expect(200);
      promoted.off();
      expect(promoted.calls.map(([a]) => a.id)).toEqual([newest]);
      expect(await flags(id)).toEqual([
        { id: newest, type: 'billing', is_primary: 1, primary_slot: 'billing' },
        { id: middle, type: 'billing', is_primary: 0, primary_slot: null },
        { id: ship, type: 'shipping', is_primary: 1, primary_slot: 'shipping' },
      ]);
      // The last address of a type goes without a successor.
      await del(id, { address_id: ship }).expect(200);
      expect((await flags(id)).filter((r) => r.type === 'shipping')).toEqual([]);
    });

    it('an address of another customer is 404 and is kept', async () => {
      const id = await customer();
      const other = await customer();
      const foreign = await address(other);
      const res = await del(id, { address_id: foreign });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Address not found', data: {} });
      expect(await count('store_customer_addresses', { id: foreign })).toBe(1);
    });

    it('422 without address_id; 404 for a missing customer; 401 anonymous', async () => {
      const id = await customer();
      const res = await del(id, {});
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        code: 422,
        message: 'The address id field is required.',
        data: { address_id: { required: 'The address id field is required.' } },
      });
      expect((await del(999999, { address_id: 1 })).body).toEqual({ code: 404, message: 'Customer not found', data: {} });
      expect((await app.http.delete(url(id)).send({ address_id: 1 })).status).toBe(401);
    });
  });

  describe('POST /customers/{customerId}/address/make-primary (administrative)', () => {
    const make = (customerId: number, body: Record<string, unknown>, user = admin) => app.as(user).post(url(customerId, '/make-primary')).send(body);

    it('makes the address primary, demotes the others of its type and fires primary_address_changed', async () => {
      const id = await customer();
      const first = await address(id);
      const second = await address(id);
      const ship = await address(id, GB);
      app.clock.advance(60_000);
      const primary = record('store/customer/primary_address_changed');
      const res = await make(id, { address_id: second });
      primary.off();
      resetClock();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { address: { id: second, is_primary: 1, updated_at: '2026-11-21 10:01:00' } } });
      expect(primary.calls.map(([a]) => a.id)).toEqual([second]);
      expect(await flags(id)).toEqual([
        { id: first, type: 'billing', is_primary: 0, primary_slot: null },
        { id: second, type: 'billing', is_primary: 1, primary_slot: 'billing' },
        { id: ship, type: 'shipping', is_primary: 1, primary_slot: 'shipping' },
      ]);
    });

    it('an address that already is primary: same answer, nothing fired', async () => {
      const id = await customer();
      const only = await address(id);
      const primary = record('store/customer/primary_address_changed');
      const res = await make(id, { address_id: only });
      primary.off();
      expect(res.body).toEqual({ success: true, data: { address: { id: only, is_primary: 1, updated_at: NOW } } });
      expect(primary.calls).toEqual([]);
    });

    it('an address of another customer is 404 and changes nothing', async () => {
      const id = await customer();
      await address(id);
      const other = await customer();
      await address(other);
      const foreign = await address(other);
      const before = [await rows(id), await rows(other)];
      const res = await make(id, { address_id: foreign });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 404, message: 'Address not found', data: {} });
      expect([await rows(id), await rows(other)]).toEqual(before);
    });

    it('422 without address_id; 404 for a missing customer', async () => {
      const id = await customer();
      expect((await make(id, {})).body).toEqual({
        code: 422,
        message: 'The address id field is required.',
        data: { address_id: { required: 'The address id field is required.' } },
      });
      expect((await make(999999, { address_id: 1 })).status).toBe(404);
    });

    it('20 parallel make-primary calls on 20 addresses of one customer leave exactly one primary of that type', async () => {
      const id = await customer();
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) ids.push(await address(id, { label: `Address ${i}` }));
      const ship = await address(id, GB);
      const answers = await Promise.all(ids.map((addressId) => make(id, { address_id: addressId })));
      expect(answers.map((r) => r.status)).toEqual(ids.map(() => 200));
      const state = await flags(id);
      const billing = state.filter((r) => r.type === 'billing' && r.is_primary === 1);
      expect(billing).toHaveLength(1);
      expect(ids).toContain(billing[0].id);
      expect(billing[0].primary_slot).toBe('billing');
      expect(state.filter((r) => r.type === 'billing' && r.primary_slot !== null)).toHaveLength(1);
      expect(state.find((r) => r.id === ship)).toEqual({ id: ship, type: 'shipping', is_primary: 1, primary_slot: 'shipping' });
    });

    it('the same race through the service, mixed with creates of new primaries, keeps one primary', async () => {
      const id = await customer();
      const ids: number[] = [];
      for (let i = 0; i < 10; i++) ids.push(await address(id));
      await Promise.all([
        ...ids.map((addressId) => makePrimary(app.ctx(), id, addressId)),
        ...[1, 2, 3, 4, 5].map(() => createAddress(app.ctx(), id, { ...(US as AddressInput), is_primary: 1 })),
      ]);
      const state = await flags(id);
      expect(state).toHaveLength(15);
      expect(state.filter((r) => r.is_primary === 1)).toHaveLength(1);
    });

    it('concurrent first addresses of a new customer: exactly one becomes primary', async () => {
      const id = await customer();
      await Promise.all([1, 2, 3, 4, 5, 6].map(() => createAddress(app.ctx(), id, US as AddressInput)));
      const state = await flags(id);
      expect(state).toHaveLength(6);
      expect(state.filter((r) => r.is_primary === 1)).toHaveLength(1);
    });
  });

  // ------------------------------------------------------------------ customer portal

  describe('customer portal', () => {
    let mine: number;
    let theirs: number;
    beforeAll(async () => {
      mine = await customer(alice);
      theirs = await customer(bob);
    });

    const portalBody = (addressId: number, type = 'billing', over: Record<string, unknown> = {}) => ({
      address: { id: addressId },
      type,
      [`${type}_label`]: 'Home',
      [`${type}_name`]: 'Alice Liddell',
      [`${type}_address_1`]: '2 Mission Street',
      [`${type}_address_2`]: 'Floor 3',
      [`${type}_city`]: 'San Francisco',
      [`${type}_state`]: 'CA',
      [`${type}_postcode`]: '94105',
      [`${type}_country`]: 'US',
      ...over,
    });

    describe('PUT /customers/{customerId}/address (portal)', () => {
      const put = (customerId: number, body: Record<string, unknown>, user = alice) => app.as(user).put(url(customerId)).send(body);

      it('updates the caller’s own address from the prefixed fields', async () => {
        const addressId = await address(mine);
        const res = await put(mine, portalBody(addressId));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Address updated successfully' });
        const row = await db()('store_customer_addresses').where({ id: addressId }).first();
        expect(row).toMatchObject({ label: 'Home', name: 'Alice Liddell', address_1: '2 Mission Street', address_2: 'Floor 3', state: 'CA', country: 'US' });
      });

      it('works with the shipping prefix and from a logged-in browser (cookie + nonce)', async () => {
        const addressId = await address(mine, GB);
        const browser = app.browser();
        expect((await browser.login('alice', alice.password)).status).toBe(200);
        const res = await browser
          .call('put', url(mine))
          .send(portalBody(addressId, 'shipping', { shipping_country: 'GB', shipping_state: '', shipping_postcode: 'EC1A 1BB', shipping_city: 'London' }));
        expect(res.status).toBe(200);
        expect(await db()('store_customer_addresses').where({ id: addressId }).first('city', 'postcode', 'type')).toEqual({
          city: 'London',
          postcode: 'EC1A 1BB',
          type: 'shipping',
        });
      });

      it.each([
        [{ address: undefined }, 'address', 'required', 'The address field is required.'],
        [{ address: {} }, 'address.id', 'required', 'The address id field is required.'],
        [{ type: undefined }, 'type', 'required', 'The type field is required.'],
        [{ type: 'home' }, 'type', 'in', 'The selected type is invalid.'],
        [{ billing_label: undefined }, 'billing_label', 'required', 'The billing label field is required.'],
        [{ billing_label: 'x'.repeat(16) }, 'billing_label', 'max', 'The billing label field must not be greater than 15 characters.'],
        [{ billing_address_1: '' }, 'billing_address_1', 'required', 'The billing address 1 field is required.'],
        [{ billing_city: undefined }, 'billing_city', 'required', 'The billing city field is required.'],
        [{ billing_country: undefined }, 'billing_country', 'required', 'The billing country field is required.'],
        [{ billing_country: 'XX' }, 'billing_country', 'in', 'The selected billing country is invalid.'],
        [{ billing_state: '' }, 'billing_state', 'required', 'The billing state field is required.'],
        [{ billing_state: 'ZZ' }, 'billing_state', 'in', 'The selected billing state is invalid.'],
        [{ billing_postcode: '' }, 'billing_postcode', 'required', 'The billing postcode field is required.'],
        [{ billing_postcode: 'nope' }, 'billing_postcode', 'postcode', 'The billing postcode is not valid for United States of America.'],
        [{ billing_name: 'x'.repeat(256) }, 'billing_name', 'max', 'The billing name field must not be greater than 255 characters.'],
      ])('422 {message, errors} on %j', async (over, field, rule, message) => {
        const addressId = await address(mine);
        const before = await rows(mine);
        const res = await put(mine, { ...portalBody(addressId), ...over });
        expect(res.status).toBe(422);
        expect(res.body.errors[field]).toEqual({ [rule]: message });
        expect(res.body.message).toBe(Object.values(Object.values(res.body.errors as Record<string, Record<string, string>>)[0])[0]);
        expect(res.body).not.toHaveProperty('code');
        expect(await rows(mine)).toEqual(before);
      });

      it('another customer’s id or address, or an unknown address: 403 with the spec’s message', async () => {
        const own = await address(mine);
        const foreign = await address(theirs);
        for (const [customerId, addressId] of [
          [theirs, foreign],
          [theirs, own],
          [mine, foreign],
          [mine, 999999],
        ]) {
          const res = await put(customerId, portalBody(addressId));
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ message: 'You are not authorized to update this address' });
        }
      });

      it('a logged-in user without a customer record: 403; anonymous: 401', async () => {
        const addressId = await address(mine);
        expect((await put(mine, portalBody(addressId), stranger)).body).toEqual({ message: 'You are not authorized to update this address' });
        expect((await app.http.put(url(mine)).send(portalBody(addressId))).status).toBe(401);
      });
    });

    describe('DELETE /customers/{customerId}/address (portal)', () => {
      const del = (customerId: number, body: Record<string, unknown>, user = alice) => app.as(user).delete(url(customerId)).send(body);

      it('deletes the caller’s own address; a deleted primary hands over to the newest of its type', async () => {
        const { id: own } = await createAddress(app.ctx(), mine, { ...GB, type: 'shipping', is_primary: 1 });
        const next = await address(mine, { ...GB, label: 'Next' });
        const res = await del(mine, { address: { id: own } });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Address deleted successfully' });
        const shipping = (await flags(mine)).filter((r) => r.type === 'shipping');
        expect(shipping.map((r) => r.id)).not.toContain(own);
        expect(shipping.filter((r) => r.is_primary)).toEqual([{ id: next, type: 'shipping', is_primary: 1, primary_slot: 'shipping' }]);
      });

      it('422 without address.id', async () => {
        const res = await del(mine, { address: {} });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message: 'The address id field is required.', errors: { 'address.id': { required: 'The address id field is required.' } } });
      });

      it('another customer’s address or id: 403 with the spec’s message, nothing deleted', async () => {
        const foreign = await address(theirs);
        for (const [customerId, addressId] of [
          [theirs, foreign],
          [mine, foreign],
        ]) {
          const res = await del(customerId, { address: { id: addressId } });
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ message: 'You are not authorized to delete this address' });
        }
        expect(await count('store_customer_addresses', { id: foreign })).toBe(1);
      });
    });

    describe('POST /customers/{customerId}/address/make-primary (portal)', () => {
      const make = (customerId: number, body: Record<string, unknown>, user = alice) => app.as(user).post(url(customerId, '/make-primary')).send(body);

      it('makes the caller’s own address primary', async () => {
        const id = await address(mine, { label: 'Candidate' });
        const res = await make(mine, { address: { id, type: 'billing' } });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Address successfully set as the primary' });
        const billing = (await flags(mine)).filter((r) => r.type === 'billing' && r.is_primary);
        expect(billing).toEqual([{ id, type: 'billing', is_primary: 1, primary_slot: 'billing' }]);
      });

      it.each([
        [{ address: { type: 'billing' } }, 'address.id', 'required', 'The address id field is required.'],
        [{ address: { id: 1 } }, 'address.type', 'required', 'The address type field is required.'],
        [{ address: { id: 1, type: 'home' } }, 'address.type', 'in', 'The selected address type is invalid.'],
        [{}, 'address', 'required', 'The address field is required.'],
      ])('422 on %j', async (body, field, rule, message) => {
        const res = await make(mine, body);
        expect(res.status).toBe(422);
        expect(res.body.errors[field]).toEqual({ [rule]: message });
      });

      it('a type that is not the address’s own: 422, unchanged', async () => {
        const id = await address(mine);
        const before = await rows(mine);
        const res = await make(mine, { address: { id, type: 'shipping' } });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          message: 'The address type does not match the address.',
          errors: { 'address.type': { in: 'The address type does not match the address.' } },
        });
        expect(await rows(mine)).toEqual(before);
      });

      it('another customer’s address or id: 403 with the spec’s message', async () => {
        const foreign = await address(theirs);
        const res = await make(mine, { address: { id: foreign, type: 'billing' } });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ message: 'You are not authorized to update this address' });
      });
    });

    describe('ownership: customer A cannot read or change any address of customer B through any route', () => {
      type Call = { name: string; send: (customerId: number, addressId: number) => Promise<{ status: number; body: unknown }>; status: number; body?: unknown };
      const calls: Call[] = [
        {
          name: 'GET address list',
          send: (c) => app.as(alice).get(url(c)),
          status: 403,
        },
        {
          name: 'POST address',
          send: (c) => app.as(alice).post(url(c)).send(US),
          status: 403,
        },
        {
          name: 'PUT address',
          send: (c, a) => app.as(alice).put(url(c)).send(portalBody(a)),
          status: 403,
          body: { message: 'You are not authorized to update this address' },
        },
        {
          name: 'PUT address (admin-shaped body)',
          send: (c, a) =>
            app
              .as(alice)
              .put(url(c))
              .send({ ...portalBody(a), id: a, label: 'Hijacked' }),
          status: 403,
          body: { message: 'You are not authorized to update this address' },
        },
        {
          name: 'DELETE address',
          send: (c, a) =>
            app
              .as(alice)
              .delete(url(c))
              .send({ address: { id: a } }),
          status: 403,
          body: { message: 'You are not authorized to delete this address' },
        },
        {
          name: 'make-primary',
          send: (c, a) =>
            app
              .as(alice)
              .post(url(c, '/make-primary'))
              .send({ address: { id: a, type: 'billing' } }),
          status: 403,
          body: { message: 'You are not authorized to update this address' },
        },
      ];
      const targets = [
        ['B’s path and B’s address', () => theirs],
        ['A’s own path with B’s address', () => mine],
      ] as const;

      it.each(calls.flatMap((call) => targets.map(([where, path]) => [call.name, where, call, path] as const)))(
        '%s via %s',
        async (_name, _where, call, path) => {
          await address(theirs, { label: 'B primary', is_primary: 1 });
          const target = await address(theirs, { label: 'B other' });
          const before = await rows(theirs);
          const res = await call.send(path(), target);
          expect(res.status).toBe(call.status);
          if (call.body) expect(res.body).toEqual(call.body);
          expect(await rows(theirs)).toEqual(before);
        },
      );
    });
  });

  describe('hourly request classes', () => {
    afterEach(() => app.host.options.set('hourly_request_limits', { list: 100_000, create: 100_000, update: 100_000, delete: 100_000 }));

    it('portal and API callers get 429 past the budget; a dashboard session with the permission is exempt', async () => {
      await app.host.options.set('hourly_request_limits', { delete: 2, list: 2 });
      const carol = await app.createUser('carol');
      const carolId = await customer(carol);
      const addressId = await address(carolId);
      const del = () =>
        app
          .as(carol)
          .delete(url(carolId))
          .send({ address: { id: 999999 } });
      expect((await del()).status).toBe(403);
      expect((await del()).status).toBe(403);
      const limited = await del();
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect(await count('store_customer_addresses', { id: addressId })).toBe(1);

      const api = await app.createUser('api', ['customer_service']);
      for (let i = 0; i < 2; i++) expect((await app.as(api).get(url(carolId))).status).toBe(200);
      expect((await app.as(api).get(url(carolId))).status).toBe(429);

      const browser = app.browser();
      expect((await browser.login('admin', admin.password)).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await browser.call('get', url(carolId))).status).toBe(200);
    });
  });
});
