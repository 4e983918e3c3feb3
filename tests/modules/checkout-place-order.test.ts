/**
 * `POST /checkout/place-order`: the form's field rules (store settings, country rules, the cart), who buys (logged-in
 * user, guest matched by email or new), saved addresses and account creation. Field errors are 422
 * `{status: 'failed', errors: {field: {rule: message}}}` and change nothing. Payments, reuse and stock are in
 * checkout-place-order-payments.test.ts; concurrency in checkout-place-order-concurrency.test.ts.
 */
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';

describe('POST /checkout/place-order: form, customer, account', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let shirt: { id: number; product_id: number };
  let ebook: { id: number; product_id: number };
  let usMethod: number;
  let deMethod: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    // every request of this file comes from one address; the limit itself is tested in the payments file
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true } });
    shirt = await fx.stocked(2500, 100, { title: 'Shirt' });
    ebook = await fx.variation(900, { title: 'Ebook', fulfillment_type: 'digital' });
    usMethod = await fx.shippingMethod({ title: 'US Standard', charge_amount: 500 }, ['US']);
    deMethod = await fx.shippingMethod({ title: 'DE Standard', charge_amount: 700 }, ['DE']);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const physicalCart = () => fx.cartWith([[shirt.id, 1]]);
  const withShipping = (over: Record<string, unknown> = {}) => guestForm({ fc_selected_shipping_method: usMethod, ...over });

  /** Places the cart and expects a 422 with exactly these field errors and nothing written. */
  async function refused(body: Record<string, unknown>, errors: Record<string, Record<string, string>>, hash?: string): Promise<void> {
    const cart = hash ?? (await physicalCart());
    const before = await fx.snapshot();
    const res = await fx.place(cart, body);
    expect({ status: res.status, body: res.body }).toEqual({ status: 422, body: { status: 'failed', errors } });
    expect(await fx.snapshot()).toEqual(before);
    expect((await fx.cartRow(cart)).stage).toBe('draft');
  }

  describe('field rules (default store settings)', () => {
    it('a guest must give an email, a first name, street, city and postcode: every missing field at once', async () => {
      await refused(
        { payment_method: 'cod', fc_selected_shipping_method: usMethod, billing_country: 'US', billing_state: 'CA' },
        {
          billing_email: { required: 'The billing email field is required.' },
          billing_first_name: { required: 'The billing first name field is required.' },
          billing_address_1: { required: 'The billing address 1 field is required.' },
          billing_city: { required: 'The billing city field is required.' },
          billing_postcode: { required: 'The billing postcode field is required.' },
        },
      );
    });

    it('billing_email must be an email address; payment_method is required', async () => {
      const { payment_method: _omitted, ...withoutMethod } = withShipping({ billing_email: 'not-an-email' });
      await refused(withoutMethod, {
        billing_email: { email: 'The billing email field must be a valid email address.' },
        payment_method: { required: 'The payment method field is required.' },
      });
      await refused(withShipping({ billing_email: '' }), { billing_email: { required: 'The billing email field is required.' } });
    });

    it('billing_state is required when the country has states, and must be one of them', async () => {
      await refused(withShipping({ billing_state: '' }), { billing_state: { required: 'The billing state field is required.' } });
      await refused(withShipping({ billing_state: 'XX' }), { billing_state: { in: 'The selected billing state is invalid.' } });
    });

    it("the postcode must match the country's format (and the state's prefix)", async () => {
      await refused(withShipping({ billing_country: 'DE', billing_state: '', billing_postcode: '1234', fc_selected_shipping_method: deMethod }), {
        billing_postcode: { postcode: 'The billing postcode is not valid for Germany.' },
      });
      await refused(withShipping({ billing_postcode: '10001' }), {
        billing_postcode: { postcode: 'The billing postcode is not valid for California, United States of America.' },
      });
    });

    it('an unknown country is refused; no country means the store country', async () => {
      await refused(withShipping({ billing_country: 'ZZ' }), { billing_country: { in: 'The selected billing country is invalid.' } });
      const hash = await physicalCart();
      const { billing_country: _country, ...body } = withShipping();
      expect((await fx.place(hash, body)).status).toBe(200);
      const order = await fx.orderOfCart(hash);
      expect(await db()('store_order_addresses').where({ order_id: order.id, type: 'billing' }).first('country')).toEqual({ country: 'US' });
    });

    it('order notes: at most 200 characters; user_tz must be an IANA time zone', async () => {
      await refused(withShipping({ order_notes: 'x'.repeat(201) }), {
        order_notes: { max: 'The order notes field must not be greater than 200 characters.' },
      });
      await refused(withShipping({ user_tz: 'Mars/Olympus' }), { user_tz: { timezone: 'The user tz field must be a valid timezone.' } });
      const hash = await physicalCart();
      expect((await fx.place(hash, withShipping({ order_notes: 'x'.repeat(200), user_tz: 'Europe/Berlin' }))).status).toBe(200);
      const order = await fx.orderOfCart(hash);
      expect(order.note).toBe('x'.repeat(200));
      expect(JSON.parse(String(order.config)).user_tz).toBe('Europe/Berlin');
    });

    it('a method no gateway answers for, or one not enabled, is refused', async () => {
      await refused(withShipping({ payment_method: 'bitcoin' }), { payment_method: { in: 'The selected payment method is not available.' } });
      await refused(withShipping({ payment_method: 'bank_transfer' }), { payment_method: { in: 'The selected payment method is not available.' } });
      await refused(withShipping({ payment_method: 'manual' }), { payment_method: { in: 'The selected payment method is not available.' } });
    });

    it('physical goods need a shipping method, one available for the destination', async () => {
      await refused(guestForm(), { shipping_method: { required: 'The shipping method field is required.' } });
      await refused(withShipping({ fc_selected_shipping_method: deMethod }), {
        shipping_method: { invalid: 'The selected shipping method is not available for this address.' },
      });
    });

    it('digital goods need neither a shipping method nor a shipping address', async () => {
      const hash = await fx.cartWith([[ebook.id, 1]]);
      const res = await fx.place(hash, guestForm({ ship_to_different: 'yes' }));
      expect(res.status).toBe(200);
      const order = await fx.orderOfCart(hash);
      expect(order).toMatchObject({ fulfillment_type: 'digital', shipping_status: '', shipping_total: 0 });
      expect(await db()('store_order_addresses').where({ order_id: order.id }).pluck('type')).toEqual(['billing']);
    });

    it('ship_to_different=yes needs the shipping name, country, street and city, checked for their country', async () => {
      await refused(withShipping({ ship_to_different: 'yes' }), {
        shipping_full_name: { required: 'The shipping full name field is required.' },
        shipping_country: { required: 'The shipping country field is required.' },
        shipping_address_1: { required: 'The shipping address 1 field is required.' },
        shipping_city: { required: 'The shipping city field is required.' },
      });
      await refused(
        withShipping({
          ship_to_different: 'yes',
          shipping_full_name: 'Max Muster',
          shipping_country: 'DE',
          shipping_address_1: 'Hauptstr. 1',
          shipping_city: 'Berlin',
          shipping_postcode: 'ABC',
          fc_selected_shipping_method: deMethod,
        }),
        { shipping_postcode: { postcode: 'The shipping postcode is not valid for Germany.' } },
      );
    });

    it('ships to the different address, priced for its country', async () => {
      const hash = await physicalCart();
      const res = await fx.place(
        hash,
        withShipping({
          ship_to_different: 'yes',
          shipping_full_name: 'Max Muster',
          shipping_country: 'de',
          shipping_address_1: 'Hauptstr. 1',
          shipping_city: 'Berlin',
          shipping_postcode: '10115',
          fc_selected_shipping_method: deMethod,
        }),
      );
      expect(res.status).toBe(200);
      const order = await fx.orderOfCart(hash);
      expect(order).toMatchObject({ shipping_total: 700, total_amount: 3200 });
      const addresses = await db()('store_order_addresses').where({ order_id: order.id }).orderBy('type').select('type', 'name', 'country', 'postcode', 'city');
      expect(addresses).toEqual([
        { type: 'billing', name: 'Jane Doe', country: 'US', postcode: '94105', city: 'San Francisco' },
        { type: 'shipping', name: 'Max Muster', country: 'DE', postcode: '10115', city: 'Berlin' },
      ]);
    });
  });

  describe('store settings', () => {
    afterEach(() =>
      fx.storeSettings({
        name_mode: 'separate',
        terms_enabled: false,
        checkout_fields: {
          billing_last_name: { enabled: true, required: false },
          billing_postcode: { enabled: true, required: true },
          billing_phone: { enabled: true, required: false },
          order_notes: { enabled: true, required: false },
        },
      }),
    );

    it('full-name mode: billing_full_name is required; the customer gets it split at the first space', async () => {
      await fx.storeSettings({ name_mode: 'full' });
      const form = withShipping({ billing_first_name: undefined, billing_last_name: undefined });
      await refused(form, { billing_full_name: { required: 'The billing full name field is required.' } });
      const hash = await physicalCart();
      expect((await fx.place(hash, { ...form, billing_email: 'full@example.com', billing_full_name: 'Anna Maria Schmidt' })).status).toBe(200);
      expect(await db()('store_customers').where({ email: 'full@example.com' }).first('first_name', 'last_name')).toEqual({
        first_name: 'Anna',
        last_name: 'Maria Schmidt',
      });
      const order = await fx.orderOfCart(hash);
      expect(await db()('store_order_addresses').where({ order_id: order.id, type: 'billing' }).first('name')).toEqual({ name: 'Anna Maria Schmidt' });
    });

    it('a required last name, phone or order note must be given', async () => {
      await fx.storeSettings({
        checkout_fields: {
          billing_last_name: { enabled: true, required: true },
          billing_phone: { enabled: true, required: true },
          order_notes: { enabled: true, required: true },
        },
      });
      await refused(withShipping({ billing_last_name: '' }), {
        billing_last_name: { required: 'The billing last name field is required.' },
        billing_phone: { required: 'The billing phone field is required.' },
        order_notes: { required: 'The order notes field is required.' },
      });
    });

    it('a field the store switched off is neither required (even where the country wants it) nor stored', async () => {
      await fx.storeSettings({ checkout_fields: { billing_postcode: { enabled: false, required: false } } });
      const hash = await physicalCart();
      const res = await fx.place(hash, withShipping({ billing_postcode: '99999', billing_email: 'nopostcode@example.com' }));
      expect(res.status).toBe(200);
      const order = await fx.orderOfCart(hash);
      expect(await db()('store_order_addresses').where({ order_id: order.id, type: 'billing' }).first('postcode')).toEqual({ postcode: '' });
    });

    it('terms: agree_terms must be accepted when the store asks for it', async () => {
      await fx.storeSettings({ terms_enabled: true, terms_url: 'https://shop.example/terms' });
      await refused(withShipping(), { agree_terms: { accepted: 'The agree terms field must be accepted.' } });
      await refused(withShipping({ agree_terms: 'no' }), { agree_terms: { accepted: 'The agree terms field must be accepted.' } });
      expect((await fx.place(await physicalCart(), withShipping({ agree_terms: 'yes' }))).status).toBe(200);
    });
  });

  describe('who buys', () => {
    it('a new guest becomes a customer (email lower-cased, no user) whose primary addresses are the ones typed in', async () => {
      const hash = await physicalCart();
      const res = await fx.place(hash, withShipping({ billing_email: 'New.Guest@Example.COM', billing_phone: '+1 415 555 0100', billing_tax_id: 'US-123' }));
      expect(res.status).toBe(200);
      const customer = await db()('store_customers').where({ email: 'new.guest@example.com' }).first();
      expect(customer).toMatchObject({
        first_name: 'Jane',
        last_name: 'Doe',
        user_id: null,
        country: 'US',
        state: 'CA',
        city: 'San Francisco',
        postcode: '94105',
      });
      expect((await fx.orderOfCart(hash)).customer_id).toBe(customer.id);
      const saved = await db()('store_customer_addresses')
        .where({ customer_id: customer.id })
        .orderBy('type')
        .select('type', 'is_primary', 'address_1', 'phone');
      expect(saved).toEqual([
        { type: 'billing', is_primary: 1, address_1: '1 Market Street', phone: '+1 415 555 0100' },
        { type: 'shipping', is_primary: 1, address_1: '1 Market Street', phone: '+1 415 555 0100' },
      ]);
      const order = await fx.orderOfCart(hash);
      const billing = await db()('store_order_addresses').where({ order_id: order.id, type: 'billing' }).first();
      expect(JSON.parse(billing.meta)).toEqual({ tax_id: 'US-123' });
      expect(billing.email).toBe('new.guest@example.com');
    });

    it('a guest with a known email (any case) buys as that customer, who is left unchanged', async () => {
      const customerId = await fx.customer({ address: true });
      const before = await db()('store_customers').where({ id: customerId }).first();
      const addresses = await db()('store_customer_addresses').where({ customer_id: customerId }).orderBy('id');
      const hash = await physicalCart();
      const res = await fx.place(hash, withShipping({ billing_email: before.email.toUpperCase(), billing_first_name: 'Mallory', billing_last_name: 'Evil' }));
      expect(res.status).toBe(200);
      expect((await fx.orderOfCart(hash)).customer_id).toBe(customerId);
      expect(await db()('store_customers').where({ id: customerId }).first()).toEqual(before);
      expect(await db()('store_customer_addresses').where({ customer_id: customerId }).orderBy('id')).toEqual(addresses);
    });

    it("a logged-in user buys as their own customer (made from the user when missing): the user's email replaces the form's", async () => {
      const shopper = await app.createUser('shopper');
      await app.host.users.update(shopper.user.id, { first_name: 'Sam', last_name: 'Shopper' });
      const browser = app.browser();
      expect((await browser.login('shopper', shopper.password)).status).toBe(200);
      await fx.cartWith([[shirt.id, 1]], browser);
      const res = await fx.place(null, withShipping({ billing_email: 'someone.else@example.com', billing_first_name: '', billing_last_name: '' }), browser);
      expect(res.status).toBe(200);
      const customer = await db()('store_customers').where({ user_id: shopper.user.id }).first();
      expect(customer).toMatchObject({ email: 'shopper@example.com', first_name: 'Sam', last_name: 'Shopper' });
      expect(await db()('store_customers').where({ email: 'someone.else@example.com' }).first()).toBeUndefined();
      const order = await db()('store_orders').where({ customer_id: customer.id }).first();
      expect(await db()('store_order_addresses').where({ order_id: order.id, type: 'billing' }).first('name', 'email')).toEqual({
        name: 'Sam Shopper',
        email: 'shopper@example.com',
      });

      // the second order reuses the record and adds no address (the customer has primary ones now); the form's email
      // field may be left empty
      await fx.cartWith([[shirt.id, 2]], browser);
      expect((await fx.place(null, withShipping({ billing_email: '' }), browser)).status).toBe(200);
      expect(await db()('store_customers').where({ user_id: shopper.user.id }).count({ n: '*' })).toEqual([{ n: 1 }]);
      expect(await db()('store_orders').where({ customer_id: customer.id }).count({ n: '*' })).toEqual([{ n: 2 }]);
      expect(await db()('store_customer_addresses').where({ customer_id: customer.id }).count({ n: '*' })).toEqual([{ n: 2 }]);
    });

    it("a saved address must be the caller's own", async () => {
      const owner = await app.createUser('owner');
      const browser = app.browser();
      await browser.login('owner', owner.password);
      await fx.cartWith([[shirt.id, 1]], browser);
      const created = await browser.call('post', `${BASE}/customer-profile/create-address`).send({
        type: 'billing',
        name: 'Olive Owner',
        address_1: '9 Elm St',
        city: 'Austin',
        state: 'TX',
        postcode: '73301',
        country: 'US',
        email: 'owner@example.com',
      });
      expect(created.status).toBe(200);
      const own = created.body.data.is_created.id as number;
      const strangerCustomer = await fx.customer({ address: true });
      const foreign = (await db()('store_customer_addresses').where({ customer_id: strangerCustomer }).first('id')).id as number;

      const before = await fx.snapshot();
      const res = await fx.place(null, withShipping({ billing_address_id: foreign, shipping_address_id: foreign }), browser);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        status: 'failed',
        errors: {
          billing_address_id: { exists: 'The selected billing address id is invalid.' },
          shipping_address_id: { exists: 'The selected shipping address id is invalid.' },
        },
      });
      expect(await fx.snapshot()).toEqual(before);

      const usMethodForTexas = withShipping({ billing_address_id: own, billing_address_1: 'ignored', billing_city: 'ignored' });
      expect((await fx.place(null, usMethodForTexas, browser)).status).toBe(200);
      const order = await db()('store_orders').orderBy('id', 'desc').first();
      expect(await db()('store_order_addresses').where({ order_id: order.id }).orderBy('type').select('type', 'name', 'address_1', 'state')).toEqual([
        { type: 'billing', name: 'Olive Owner', address_1: '9 Elm St', state: 'TX' },
        { type: 'shipping', name: 'Olive Owner', address_1: '9 Elm St', state: 'TX' },
      ]);
    });

    it('a guest has no saved addresses', async () => {
      const someone = await fx.customer({ address: true });
      const id = (await db()('store_customer_addresses').where({ customer_id: someone }).first('id')).id as number;
      await refused(withShipping({ billing_address_id: id }), { billing_address_id: { exists: 'The selected billing address id is invalid.' } });
    });
  });

  describe('account creation', () => {
    afterEach(() => fx.storeSettings({ account_creation: 'user_choice' }));

    const userByEmail = (email: string) => db()('users').where({ email }).first();

    it('user choice: allow_create_account=yes makes an unverified user linked to the new customer and mails the link', async () => {
      const verify = jest.spyOn(app.host.users, 'requestEmailVerification');
      const hash = await physicalCart();
      const res = await fx.place(hash, withShipping({ billing_email: 'Joiner@Example.com', allow_create_account: 'yes' }));
      expect(res.status).toBe(200);
      const user = await userByEmail('joiner@example.com');
      expect(user).toMatchObject({ login: 'joiner', email_verified_at: null });
      expect((await db()('store_customers').where({ email: 'joiner@example.com' }).first()).user_id).toBe(user.id);
      expect(verify).toHaveBeenCalledWith(user.id);
      verify.mockRestore();
    });

    it('user choice without yes, and never: no user', async () => {
      expect((await fx.place(await physicalCart(), withShipping({ billing_email: 'quiet@example.com' }))).status).toBe(200);
      await fx.storeSettings({ account_creation: 'never' });
      expect((await fx.place(await physicalCart(), withShipping({ billing_email: 'never@example.com', allow_create_account: 'yes' }))).status).toBe(200);
      expect(await userByEmail('quiet@example.com')).toBeUndefined();
      expect(await userByEmail('never@example.com')).toBeUndefined();
    });

    it('always: every guest gets a user', async () => {
      await fx.storeSettings({ account_creation: 'always' });
      expect((await fx.place(await physicalCart(), withShipping({ billing_email: 'always@example.com' }))).status).toBe(200);
      expect(await userByEmail('always@example.com')).toMatchObject({ email_verified_at: null });
    });

    it('an email that already has an account: asked to log in, nothing made or linked', async () => {
      await app.createUser('taken');
      await refused(withShipping({ billing_email: 'taken@example.com', allow_create_account: 'yes' }), {
        billing_email: { unique: 'An account is already registered with your email address. Please log in.' },
      });
    });

    it("a guest's new account is never linked to an existing customer found by the email", async () => {
      const victim = await fx.customer({ address: true });
      const email = (await db()('store_customers').where({ id: victim }).first('email')).email as string;
      const hash = await physicalCart();
      expect((await fx.place(hash, withShipping({ billing_email: email, allow_create_account: 'yes' }))).status).toBe(200);
      const user = await userByEmail(email);
      expect(user).toMatchObject({ email_verified_at: null });
      expect((await db()('store_customers').where({ id: victim }).first('user_id')).user_id).toBeNull();
      expect((await fx.orderOfCart(hash)).customer_id).toBe(victim);
    });
  });
});
