import crypto from 'node:crypto';
import { insertCart, updateCart } from '../../src/modules/cart/repo';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';
const CREATED = 'Customer address created successfully!';

/** `POST /customers/add-address`: the checkout's address form (customer portal, logged-in user). */
describe('POST /customers/add-address', () => {
  let app: TestApp;
  let alice: TestUser;
  let stranger: TestUser;
  let aliceId: number;

  const db = () => app.host.db;
  const add = (body: Record<string, unknown>, user: TestUser = alice, query = '') => app.as(user).post(`${BASE}/customers/add-address${query}`).send(body);
  const rows = (type?: string) => {
    const query = db()('store_customer_addresses').where({ customer_id: aliceId }).orderBy('id');
    return type ? query.where({ type }) : query;
  };

  const california = {
    type: 'billing',
    label: 'Office',
    billing_name: 'Alice Doe',
    billing_address_1: '1 Market Street',
    billing_address_2: 'Suite 5',
    billing_city: 'San Francisco',
    billing_state: 'california',
    billing_postcode: '94105',
    billing_country: 'us',
    billing_phone: '+1 415 555 0100',
    billing_email: 'office@example.com',
  };

  beforeAll(async () => {
    app = await startTestApp();
    alice = await app.createUser('alice', ['customer']);
    stranger = await app.createUser('stranger', ['customer']);
    const [id] = await db()('store_customers').insert({
      user_id: alice.user.id,
      email: 'alice@example.com',
      first_name: 'Alice',
      last_name: 'Doe',
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      notes: '',
      created_at: NOW,
      updated_at: NOW,
    });
    aliceId = Number(id);
  });
  afterAll(() => app.close());
  beforeEach(() => db()('store_customer_addresses').delete());

  it('stores the address without the prefix, the state as its code; the first of its type is primary; answers the address list to replace', async () => {
    const res = await add(california);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: CREATED,
      fragment: [{ selector: '[data-fct-address-selector="billing"]', content: expect.any(String), type: 'replace' }],
    });
    const [row] = await rows();
    expect(row).toMatchObject({
      customer_id: aliceId,
      type: 'billing',
      is_primary: 1,
      status: 'active',
      label: 'Office',
      name: 'Alice Doe',
      address_1: '1 Market Street',
      address_2: 'Suite 5',
      city: 'San Francisco',
      state: 'CA',
      postcode: '94105',
      country: 'US',
      phone: '+1 415 555 0100',
      email: 'office@example.com',
    });
    const { content } = res.body.fragment[0];
    expect(content).toContain(`<input type="radio" name="billing_address_id" value="${row.id}" checked>`);
    expect(content).toContain('1 Market Street, Suite 5, SAN FRANCISCO, CA 94105, United States of America');
  });

  it("the name and email default to the customer's; the other type's fields are ignored", async () => {
    const res = await add({
      type: 'shipping',
      shipping_address_1: 'Unter den Linden 1',
      shipping_city: 'Berlin',
      shipping_postcode: '10115',
      shipping_country: 'DE',
      billing_country: 'XX',
      billing_city: 'Ignored',
    });
    expect(res.status).toBe(200);
    const [row] = await rows('shipping');
    expect(row).toMatchObject({ type: 'shipping', name: 'Alice Doe', email: 'alice@example.com', city: 'Berlin', country: 'DE', state: '', label: '' });
    expect(await rows('billing')).toEqual([]);
  });

  it('a second address is not primary; the list shows both, the checkout cart’s chosen one checked (else the primary)', async () => {
    await add(california);
    const second = await add({ ...california, billing_address_1: '2 Mission Street', label: 'Home' });
    const [first, next] = await rows();
    expect([first.is_primary, next.is_primary]).toEqual([1, 0]);
    const radios = (content: string) => [...content.matchAll(/value="(\d+)"( checked)?/g)].map((m) => [Number(m[1]), !!m[2]]);
    expect(radios(second.body.fragment[0].content)).toEqual([
      [first.id, true],
      [next.id, false],
    ]);

    const cart = await insertCart(db(), { user_id: alice.user.id, customer_id: aliceId, now: NOW, expires_at: '2026-11-22 10:00:00' });
    await updateCart(db(), cart.id, { checkout: { billing_address_id: Number(next.id) }, now: NOW });
    const third = await add({ ...california, billing_address_1: '3 Howard Street' }, alice, `?fct_cart_hash=${cart.cart_hash}`);
    const [, , last] = await rows();
    expect(radios(third.body.fragment[0].content)).toEqual([
      [first.id, false],
      [next.id, true],
      [last.id, false],
    ]);
  });

  describe('validation: 422 {status: failed, errors}, nothing stored', () => {
    it.each([
      [
        'address 1, city and country are required',
        { type: 'billing', billing_name: 'A' },
        {
          billing_address_1: { required: 'The billing address 1 field is required.' },
          billing_city: { required: 'The billing city field is required.' },
          billing_country: { required: 'The billing country field is required.' },
        },
      ],
      [
        'the state when the country has states, and the postcode',
        { ...california, billing_state: '', billing_postcode: '' },
        {
          billing_state: { required: 'The billing state field is required.' },
          billing_postcode: { required: 'The billing postcode field is required.' },
        },
      ],
      ['a state the country does not list', { ...california, billing_state: 'ZZ' }, { billing_state: { in: 'The selected billing state is invalid.' } }],
      [
        'a postcode that does not fit the country',
        { type: 'shipping', shipping_address_1: 'Unter den Linden 1', shipping_city: 'Berlin', shipping_postcode: '1011', shipping_country: 'DE' },
        { shipping_postcode: { postcode: 'The shipping postcode is not valid for Germany.' } },
      ],
      [
        'a postcode of another state',
        { ...california, billing_postcode: '10001' },
        { billing_postcode: { postcode: 'The billing postcode is not valid for California, United States of America.' } },
      ],
      ['an unknown country', { ...california, billing_country: 'XX' }, { billing_country: { in: 'The selected billing country is invalid.' } }],
      ['a label over 15 characters', { ...california, label: 'A'.repeat(16) }, { label: { max: 'The label field must not be greater than 15 characters.' } }],
      [
        'an invalid email',
        { ...california, billing_email: 'not-an-email' },
        { billing_email: { email: 'The billing email field must be a valid email address.' } },
      ],
      ['a type other than billing or shipping', { ...california, type: 'home' }, { type: { in: 'The selected type is invalid.' } }],
      ['an unknown product type', { ...california, product_type: 'service' }, { product_type: { in: 'The selected product type is invalid.' } }],
    ])('%s', async (_name, body, errors) => {
      const res = await add(body);
      expect([res.status, res.body]).toEqual([422, { status: 'failed', errors }]);
      expect(await rows()).toEqual([]);
    });
  });

  describe('product_type: digital', () => {
    it('needs only the country, and the state and postcode where the country asks for them', async () => {
      const res = await add({ type: 'billing', product_type: 'digital', billing_country: 'US', billing_state: 'NY', billing_postcode: '10001' });
      expect(res.status).toBe(200);
      const [row] = await rows();
      expect(row).toMatchObject({ country: 'US', state: 'NY', postcode: '10001', address_1: '', city: '', name: 'Alice Doe' });
    });

    it('still refuses what the country requires, and a postcode that does not fit', async () => {
      const res = await add({ type: 'billing', product_type: 'digital', billing_country: 'US', billing_postcode: '1' });
      expect([res.status, res.body]).toEqual([
        422,
        {
          status: 'failed',
          errors: {
            billing_state: { required: 'The billing state field is required.' },
            billing_postcode: { postcode: 'The billing postcode is not valid for United States of America.' },
          },
        },
      ]);
      const none = await add({ type: 'billing', product_type: 'digital' });
      expect(none.body.errors).toEqual({ billing_country: { required: 'The billing country field is required.' } });
      expect(await rows()).toEqual([]);
    });
  });

  it('text is escaped in the answer', async () => {
    const res = await add({ ...california, billing_name: '<img src=x onerror=alert(1)>' });
    expect(res.status).toBe(200);
    expect(res.body.fragment[0].content).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(res.body.fragment[0].content).not.toContain('<img');
  });

  it("a user without a customer record: 404 {message: You don't have any associated account}; anonymous: 401", async () => {
    const res = await add(california, stranger);
    expect([res.status, res.body]).toEqual([404, { message: "You don't have any associated account" }]);
    const anonymous = await app.http.post(`${BASE}/customers/add-address`).send(california);
    expect(anonymous.status).toBe(401);
    expect(await db()('store_customer_addresses').count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});
