import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { ActionMap, ActionName } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const NOW = '2026-11-21 10:00:00';
const NOT_LOGGED_IN = { message: 'You are not logged in' };
const P = `${BASE}/customer-profile`;

describe('customer profile', () => {
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let aliceId: number;
  let bobId: number;

  const db = (): Knex => app.host.db;
  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number(((await db()(table).where(where).count({ n: '*' }).first()) as { n: number | string }).n);

  /** Records the arguments of every call of an action until `off()`. */
  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  /** A customer record, linked to the user's account unless `link: false` (then matched by email). */
  async function customerOf(user: TestUser, fields: Record<string, unknown> = {}, link = true): Promise<number> {
    const [id] = await db()('store_customers').insert({
      user_id: link ? user.user.id : null,
      email: user.user.email,
      first_name: `${user.user.login[0].toUpperCase()}${user.user.login.slice(1)}`,
      last_name: 'Tester',
      status: 'active',
      purchase_value: '{}',
      uuid: crypto.randomUUID(),
      notes: '',
      created_at: NOW,
      updated_at: NOW,
      ...fields,
    });
    return Number(id);
  }

  let orderSeq = 0;
  interface ItemFields {
    post_title?: string;
    title?: string;
    quantity?: number;
    payment_type?: string;
    line_meta?: unknown;
  }
  /** An order inserted as the orders module will store it; items in cart order. */
  async function order(customerId: number, fields: Record<string, unknown> = {}, items: ItemFields[] = [{}]): Promise<number> {
    orderSeq += 1;
    const [id] = await db()('store_orders').insert({
      uuid: crypto.randomBytes(16).toString('hex'),
      customer_id: customerId,
      invoice_no: `INV-${orderSeq}`,
      status: 'completed',
      payment_status: 'paid',
      type: 'payment',
      total_amount: 1000 * orderSeq,
      created_at: NOW,
      updated_at: NOW,
      ...fields,
    });
    const orderId = Number(id);
    if (items.length) {
      await db()('store_order_items').insert(
        items.map((item, index) => ({
          order_id: orderId,
          post_title: item.post_title ?? 'T-shirt',
          title: item.title ?? 'Blue / M',
          quantity: item.quantity ?? 1,
          payment_type: item.payment_type ?? 'onetime',
          cart_index: index,
          line_meta: item.line_meta === undefined ? '{}' : JSON.stringify(item.line_meta),
          other_info: '{}',
          created_at: NOW,
          updated_at: NOW,
        })),
      );
    }
    return orderId;
  }

  /** An address row, stored as the address service stores it (primary_slot = type while primary). */
  async function addressOf(customerId: number, type: 'billing' | 'shipping', fields: Record<string, unknown> = {}): Promise<number> {
    const primary = fields.is_primary === 1 ? 1 : 0;
    const [id] = await db()('store_customer_addresses').insert({
      customer_id: customerId,
      type,
      is_primary: primary,
      primary_slot: primary ? type : null,
      status: 'active',
      label: 'Home',
      name: 'Someone',
      address_1: '1 Main Street',
      city: 'Berlin',
      postcode: '10115',
      country: 'DE',
      email: 'someone@example.com',
      meta: '{}',
      created_at: NOW,
      updated_at: NOW,
      ...fields,
    });
    return Number(id);
  }

  const addressRow = (id: number) => db()('store_customer_addresses').where({ id }).first();

  /** A valid create-address form; override what a test is about. */
  const addressForm = (over: Record<string, unknown> = {}) => ({
    type: 'billing',
    name: 'Alice Tester',
    label: 'Home',
    address_1: 'Unter den Linden 1',
    city: 'Berlin',
    postcode: '10117',
    country: 'DE',
    email: 'alice@example.com',
    phone: '+49 30 1234567',
    ...over,
  });

  beforeAll(async () => {
    app = await startTestApp();
    alice = await app.createUser('alice');
    bob = await app.createUser('bob');
    aliceId = await customerOf(alice);
    bobId = await customerOf(bob);
  });
  afterAll(() => app.close());

  describe('GET /customer-profile/', () => {
    it('lists the 5 most recent orders with items and renewal counts, newest first', async () => {
      const user = await app.createUser('dora');
      const customer = await customerOf(user);
      const old = await order(customer, { created_at: '2026-01-01 09:00:00' });
      const ids: number[] = [];
      for (let day = 1; day <= 5; day += 1) ids.push(await order(customer, { created_at: `2026-0${day + 1}-01 09:00:00` }));
      const subscription = await order(
        customer,
        { type: 'subscription', status: 'processing', total_amount: 1999, invoice_no: 'INV-SUB', created_at: '2026-11-01 08:00:00' },
        [
          {
            post_title: 'Coffee club',
            title: 'Monthly',
            quantity: 2,
            payment_type: 'subscription',
            line_meta: { bundle_parent_item_id: null, tax_config: { x: 1 } },
          },
          { post_title: 'Mug', title: 'Default', payment_type: 'onetime', line_meta: { bundle_parent_item_id: 77 } },
        ],
      );
      for (const month of ['09', '10']) {
        await order(customer, { type: 'renewal', parent_id: subscription, created_at: `2026-11-${month} 08:00:00` });
      }

      const res = await app.as(user).get(`${P}/`);
      expect(res.status).toBe(200);
      const orders = res.body.dashboard_data.orders as Array<Record<string, unknown>>;
      // Renewals are counted on their parent, not listed; the oldest order falls off the list of 5.
      expect(orders.map((o) => o.id)).toEqual([subscription, ids[4], ids[3], ids[2], ids[1]]);
      expect(orders.map((o) => o.id)).not.toContain(old);
      const row = (await db()('store_orders').where({ id: subscription }).first()) as { uuid: string };
      expect(orders[0]).toEqual({
        id: subscription,
        invoice_no: 'INV-SUB',
        total_amount: 1999,
        uuid: row.uuid,
        type: 'subscription',
        status: 'processing',
        created_at: '2026-11-01 08:00:00',
        renewals_count: 2,
        order_items: [
          {
            id: expect.any(Number),
            post_title: 'Coffee club',
            title: 'Monthly',
            quantity: 2,
            payment_type: 'subscription',
            line_meta: { bundle_parent_item_id: null },
          },
          { id: expect.any(Number), post_title: 'Mug', title: 'Default', quantity: 1, payment_type: 'onetime', line_meta: { bundle_parent_item_id: 77 } },
        ],
      });
      expect(orders[1]).toMatchObject({ renewals_count: 0, order_items: [{ post_title: 'T-shirt', quantity: 1, line_meta: { bundle_parent_item_id: null } }] });
      expect(res.body).toEqual({
        message: 'Success',
        dashboard_data: { orders: expect.any(Array) },
        sections_parts: { before_orders_table: '', after_orders_table: '' },
      });
    });

    it('reads items and renewal counts in one query each, however many orders', async () => {
      const user = await app.createUser('erin');
      const customer = await customerOf(user);
      for (let i = 0; i < 5; i += 1) await order(customer, { created_at: `2026-10-0${i + 1} 10:00:00` }, [{}, {}, {}]);
      const statements: string[] = [];
      const listen = (q: { sql: string }) => statements.push(q.sql);
      db().on('query', listen);
      const res = await app.as(user).get(`${P}/`);
      db().off('query', listen);
      expect(res.body.dashboard_data.orders).toHaveLength(5);
      expect(res.body.dashboard_data.orders.every((o: { order_items: unknown[] }) => o.order_items.length === 3)).toBe(true);
      expect(statements.filter((sql) => sql.includes('store_order_items'))).toHaveLength(1);
      expect(statements.filter((sql) => /from [`"]store_orders[`"]/.test(sql))).toHaveLength(2);
    });

    it('sections_parts are filled by extensions through store/customer_profile/sections_parts', async () => {
      const seen: Array<{ customer_id: number | null; user_id: number }> = [];
      app.host.hooks.addFilter(
        'store/customer_profile/sections_parts',
        async (parts, context) => {
          seen.push(context);
          return { ...parts, before_orders_table: '<p class="notice">Free shipping this week</p>' };
        },
        { namespace: 'test-extension' },
      );
      app.host.hooks.addFilter('store/customer_profile/sections_parts', (parts) => ({ ...parts, after_orders_table: '<a href="/help">Help</a>' }), {
        namespace: 'test-extension',
        priority: 20,
      });
      try {
        const res = await app.as(alice).get(`${P}/`);
        expect(res.status).toBe(200);
        expect(res.body.sections_parts).toEqual({
          before_orders_table: '<p class="notice">Free shipping this week</p>',
          after_orders_table: '<a href="/help">Help</a>',
        });
        expect(seen).toEqual([{ customer_id: aliceId, user_id: alice.user.id }]);
      } finally {
        app.host.hooks.removeNamespace('test-extension');
      }
    });

    it('a user without a customer record gets an empty list', async () => {
      const user = await app.createUser('nocustomer1');
      const res = await app.as(user).get(`${P}/`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Success',
        dashboard_data: { orders: [] },
        sections_parts: { before_orders_table: '', after_orders_table: '' },
      });
    });

    it('a customer recorded under the user’s email (not yet linked) is found without writing; logging in links it', async () => {
      const user = await app.createUser('frank');
      const customer = await customerOf(user, {}, false);
      const id = await order(customer);
      const res = await app.as(user).get(`${P}/`);
      expect(res.body.dashboard_data.orders.map((o: { id: number }) => o.id)).toEqual([id]);
      expect((await db()('store_customers').where({ id: customer }).first('user_id')).user_id).toBeNull();
      expect((await app.browser().login('frank', user.password)).status).toBe(200);
      expect(Number((await db()('store_customers').where({ id: customer }).first('user_id')).user_id)).toBe(user.user.id);
    });

    it('works for a browser session with its nonce; without the nonce the caller is a guest', async () => {
      const browser = app.browser();
      expect((await browser.login('alice', alice.password)).status).toBe(200);
      const res = await browser.call('get', `${P}/`);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Success');
      const guest = await browser.agent.get(`${P}/`);
      expect(guest.status).toBe(401);
      expect(guest.body).toEqual(NOT_LOGGED_IN);
    });

    it('anonymous: 401 You are not logged in', async () => {
      const res = await app.http.get(`${P}/`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });

    it('counts as a customers list request: the 101st within the hour is a 429', async () => {
      const user = await app.createUser('busy');
      for (let i = 0; i < 100; i += 1) expect((await app.as(user).get(`${P}/`)).status).toBe(200);
      const res = await app.as(user).get(`${P}/profile`);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('GET /customer-profile/profile', () => {
    it('answers the caller’s names, email and addresses split by type', async () => {
      const billing = await addressOf(aliceId, 'billing', { is_primary: 1, name: 'Alice Tester', label: 'Home' });
      const shipping = await addressOf(aliceId, 'shipping', { is_primary: 1, name: 'Alice at work', label: 'Work' });
      await addressOf(bobId, 'billing', { is_primary: 1, name: 'Bob Tester' });

      const res = await app.as(alice).get(`${P}/profile`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Success',
        data: {
          first_name: 'Alice',
          last_name: 'Tester',
          email: 'alice@example.com',
          billing_address: [
            expect.objectContaining({ id: billing, customer_id: aliceId, type: 'billing', is_primary: 1, name: 'Alice Tester', label: 'Home' }),
          ],
          shipping_address: [expect.objectContaining({ id: shipping, customer_id: aliceId, type: 'shipping', is_primary: 1, name: 'Alice at work' })],
        },
      });
      expect(res.body.data.billing_address[0].formatted_address).toEqual(
        expect.objectContaining({ city: 'Berlin', country: 'DE', full_address: expect.any(String) }),
      );
    });

    it('a user without a customer record: the account, empty address lists and not_a_customer', async () => {
      const user = await app.createUser('nocustomer2');
      await app.host.users.update(user.user.id, { first_name: 'Nora', last_name: 'Nobody', display_name: 'Nora N.' });
      const res = await app.as(user).get(`${P}/profile`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Success',
        data: {
          first_name: 'Nora',
          last_name: 'Nobody',
          user_login: 'nocustomer2',
          user_email: 'nocustomer2@example.com',
          email: 'nocustomer2@example.com',
          user_nicename: 'nocustomer2',
          display_name: 'Nora N.',
          billing_address: [],
          shipping_address: [],
          not_a_customer: true,
        },
      });
    });

    it('anonymous: 401 You are not logged in', async () => {
      const res = await app.http.get(`${P}/profile`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('POST /customer-profile/update', () => {
    let gina: TestUser;
    let ginaId: number;
    beforeAll(async () => {
      gina = await app.createUser('gina');
      ginaId = await customerOf(gina);
    });
    const update = (body: Record<string, unknown>, user = gina) => app.as(user).post(`${P}/update`).send(body);
    const customer = () => db()('store_customers').where({ id: ginaId }).first('first_name', 'last_name', 'email', 'updated_at');

    it('updates the customer and the linked host user; fires store/customer/updated; logs an activity', async () => {
      const updated = record('store/customer/updated');
      app.clock.advance(60_000);
      const res = await update({ first_name: 'Georgina', last_name: 'Smith', email: 'Georgina.Smith@Example.com' });
      updated.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Profile updated successfully' });
      expect(await customer()).toEqual({ first_name: 'Georgina', last_name: 'Smith', email: 'georgina.smith@example.com', updated_at: '2026-11-21 10:01:00' });
      const user = await app.host.users.findById(gina.user.id);
      expect(user).toMatchObject({ first_name: 'Georgina', last_name: 'Smith', display_name: 'Georgina Smith', email: 'georgina.smith@example.com' });
      expect(updated.calls).toHaveLength(1);
      const [now, before] = updated.calls[0];
      expect(now).toMatchObject({ id: ginaId, email: 'georgina.smith@example.com', first_name: 'Georgina', purchase_value: {}, ltv: 0 });
      expect(before).toMatchObject({ id: ginaId, email: 'gina@example.com', first_name: 'Gina' });
      const activity = await db()('store_activities').where({ object_type: 'customer', object_id: ginaId }).orderBy('id', 'desc').first();
      expect(activity).toMatchObject({ title: 'Profile updated by the customer', content: 'email, first_name, last_name', user_id: gina.user.id });
      // The app password keeps working after the email change (it belongs to the login).
      expect((await update({ first_name: 'Georgina', last_name: 'Smith', email: 'georgina.smith@example.com' })).status).toBe(200);
    });

    it('long names (255 characters each, emoji included): the display name is cut to the 250 characters its column holds', async () => {
      const first = 'G'.repeat(255);
      const last = '😀'.repeat(255);
      const res = await update({ first_name: first, last_name: last, email: 'georgina.smith@example.com' });
      expect(res.status).toBe(200);
      const user = await app.host.users.findById(gina.user.id);
      expect(user).toMatchObject({ first_name: first, last_name: last, display_name: first.slice(0, 250) });
      // The next change is logged under that long name: the activity keeps the 191 characters its column holds.
      expect((await update({ first_name: 'Georgina', last_name: 'Smith', email: 'georgina.smith@example.com' })).status).toBe(200);
      const activity = await db()('store_activities').where({ object_type: 'customer', object_id: ginaId }).orderBy('id', 'desc').first('created_by');
      expect(activity.created_by).toBe(first.slice(0, 191));
    });

    it.each([
      ['a missing email', {}, 'email', 'required', 'The email field is required.'],
      ['an empty email', { email: '' }, 'email', 'required', 'The email field is required.'],
      ['an invalid email', { email: 'not-an-email' }, 'email', 'email', 'The email field must be a valid email address.'],
      [
        'a too long first_name',
        { email: 'g@example.com', first_name: 'x'.repeat(256) },
        'first_name',
        'max',
        'The first name field must not be greater than 255 characters.',
      ],
      [
        'a too long last_name',
        { email: 'g@example.com', last_name: 'x'.repeat(256) },
        'last_name',
        'max',
        'The last name field must not be greater than 255 characters.',
      ],
    ])('refuses %s: 422, nothing changes', async (_case, body, field, rule, message) => {
      const before = await customer();
      const res = await update(body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(await customer()).toEqual(before);
    });

    it('the email must stay unique among customers and host users (case-insensitively)', async () => {
      const before = await customer();
      const outsider = await app.createUser('outsider');
      for (const email of ['BOB@example.com', outsider.user.email]) {
        const res = await update({ email });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message: 'The email has already been taken.', errors: { email: { unique: 'The email has already been taken.' } } });
      }
      expect(await customer()).toEqual(before);
      expect((await app.host.users.findById(gina.user.id))!.email).toBe(before.email);
    });

    describe('password change', () => {
      const current = () => gina.password;
      const email = () => 'georgina.smith@example.com';
      const verifies = async (password: string) => !!(await app.host.users.verifyPassword('gina', password));

      it.each([
        [
          'no current password',
          { new_password: 'brand-new-pass', confirm_new_password: 'brand-new-pass' },
          'current_password',
          'required',
          'The current password field is required.',
        ],
        [
          'a wrong current password',
          { current_password: 'wrong-password', new_password: 'brand-new-pass', confirm_new_password: 'brand-new-pass' },
          'current_password',
          'current_password',
          'The current password is incorrect.',
        ],
        [
          'a new password under 8 characters',
          { current_password: 'CURRENT', new_password: 'short', confirm_new_password: 'short' },
          'new_password',
          'min',
          'The new password field must be at least 8 characters.',
        ],
        [
          'a confirmation that does not match',
          { current_password: 'CURRENT', new_password: 'brand-new-pass', confirm_new_password: 'brand-new-pazz' },
          'confirm_new_password',
          'same',
          'The confirm new password field must match new password.',
        ],
        [
          'no confirmation',
          { current_password: 'CURRENT', new_password: 'brand-new-pass' },
          'confirm_new_password',
          'same',
          'The confirm new password field must match new password.',
        ],
      ])('refuses %s: 422, neither the profile nor the password changes', async (_case, fields, field, rule, message) => {
        const body = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === 'CURRENT' ? current() : v]));
        const before = await customer();
        const res = await update({ email: email(), first_name: 'Changed', ...body });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message, errors: { [field]: { [rule]: message } } });
        expect(await customer()).toEqual(before);
        expect(await verifies(current())).toBe(true);
      });

      it('empty password fields (as a form sends them) change no password', async () => {
        const res = await update({
          email: email(),
          first_name: 'Georgina',
          last_name: 'Smith',
          current_password: '',
          new_password: '',
          confirm_new_password: '',
        });
        expect(res.status).toBe(200);
        expect(await verifies(current())).toBe(true);
      });

      it('changes the password when the current one verifies; the asking session stays logged in, the others end', async () => {
        const browser = app.browser();
        expect((await browser.login('gina', current())).status).toBe(200);
        const other = app.browser();
        expect((await other.login('gina', current())).status).toBe(200);
        const res = await browser.call('post', `${P}/update`).send({
          email: email(),
          first_name: 'Georgina',
          last_name: 'Smith',
          current_password: current(),
          new_password: 'brand-new-pass',
          confirm_new_password: 'brand-new-pass',
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Profile updated successfully' });
        expect(await verifies('brand-new-pass')).toBe(true);
        expect(await verifies(current())).toBe(false);
        expect((await browser.call('get', `${P}/profile`)).status).toBe(200);
        // The user's other browser sessions end (as WordPress does); application passwords are kept.
        expect((await other.call('get', `${P}/profile`)).status).toBe(401);
        expect((await app.as(gina).get(`${P}/profile`)).status).toBe(200);
        const login = await app.browser().login('gina', 'brand-new-pass');
        expect(login.status).toBe(200);
        const activity = await db()('store_activities').where({ object_type: 'customer', object_id: ginaId }).orderBy('id', 'desc').first();
        expect(activity).toMatchObject({ title: 'Profile updated by the customer', content: 'password' });
        gina.password = 'brand-new-pass';
      });
    });

    it('when the host refuses the user change after the customer was saved, the customer is put back (422)', async () => {
      const before = await customer();
      const spy = jest
        .spyOn(app.host.users, 'update')
        .mockRejectedValueOnce(Object.assign(new Error('Sorry, that email address is already used!'), { code: 'existing_user_email' }));
      const updated = record('store/customer/updated');
      try {
        const res = await update({ email: 'raced@example.com', first_name: 'Raced' });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message: 'The email has already been taken.', errors: { email: { unique: 'The email has already been taken.' } } });
      } finally {
        spy.mockRestore();
        updated.off();
      }
      expect(await customer()).toEqual(before);
      expect(updated.calls).toHaveLength(0);
    });

    it('a user without a customer record: 404 Customer not found', async () => {
      const user = await app.createUser('nocustomer3');
      const res = await update({ email: 'nocustomer3@example.com', first_name: 'N' }, user);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Customer not found' });
      expect((await app.host.users.findById(user.user.id))!.first_name).toBe('');
    });

    it('anonymous: 401 You are not logged in (before any validation)', async () => {
      for (const body of [{ email: 'x@example.com' }, {}]) {
        const res = await app.http.post(`${P}/update`).send(body);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(NOT_LOGGED_IN);
      }
    });
  });

  describe('POST /customer-profile/create-address', () => {
    let hank: TestUser;
    let hankId: number;
    beforeAll(async () => {
      hank = await app.createUser('hank');
      hankId = await customerOf(hank);
    });
    const create = (body: Record<string, unknown>, user = hank) => app.as(user).post(`${P}/create-address`).send(body);

    it('creates the address: the first of its type becomes primary; answers it with the customer’s address count', async () => {
      const created = record('store/customer/address_created');
      const res = await create(addressForm({ is_primary: 0 }));
      created.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Customer address created successfully!',
        data: {
          is_created: expect.objectContaining({
            id: expect.any(Number),
            customer_id: hankId,
            type: 'billing',
            is_primary: 1,
            status: 'active',
            label: 'Home',
            name: 'Alice Tester',
            address_1: 'Unter den Linden 1',
            city: 'Berlin',
            postcode: '10117',
            country: 'DE',
            email: 'alice@example.com',
            phone: '+49 30 1234567',
            formatted_address: expect.objectContaining({ full_address: expect.any(String) }),
          }),
          total_address_count: 1,
        },
      });
      expect(created.calls).toHaveLength(1);
      const second = await create(addressForm({ label: 'Office', is_primary: 0 }));
      expect(second.body.data).toMatchObject({ is_created: { is_primary: 0, label: 'Office' }, total_address_count: 2 });
      const shipping = await create(addressForm({ type: 'shipping', label: 'Parcel' }));
      expect(shipping.body.data).toMatchObject({ is_created: { type: 'shipping', is_primary: 1 }, total_address_count: 3 });
    });

    it('is_primary 1 makes it the primary of its type and demotes the previous one', async () => {
      const primaries = () => db()('store_customer_addresses').where({ customer_id: hankId, type: 'billing', is_primary: 1 }).pluck('id');
      const [previous] = await primaries();
      const res = await create(addressForm({ label: 'New main', is_primary: 1 }));
      expect(res.status).toBe(200);
      expect(res.body.data.is_created.is_primary).toBe(1);
      expect((await primaries()).map(Number)).toEqual([res.body.data.is_created.id]);
      expect(Number((await addressRow(Number(previous))).is_primary)).toBe(0);
    });

    it.each([
      ['a missing name', { name: undefined }, 'name', 'required', 'Name field is required.'],
      ['an empty name', { name: '' }, 'name', 'required', 'Name field is required.'],
      ['a too long name', { name: 'x'.repeat(256) }, 'name', 'max', 'Name field must not be greater than 255 characters.'],
      ['a missing type', { type: undefined }, 'type', 'required', 'Type field is required.'],
      ['an invalid type (in)', { type: 'home' }, 'type', 'in', 'Type field must be billing or shipping.'],
      ['a too long label', { label: 'x'.repeat(16) }, 'label', 'max', 'Label field must not be greater than 15 characters.'],
      ['a missing postcode', { postcode: undefined }, 'postcode', 'required', 'Postcode field is required.'],
      ['an empty country', { country: '' }, 'country', 'required', 'Country field is required.'],
      ['a missing email', { email: undefined }, 'email', 'required', 'Email field is required.'],
      ['an invalid email (email)', { email: 'nope' }, 'email', 'email', 'Email field must be a valid email address.'],
      ['a too long city', { city: 'x'.repeat(256) }, 'city', 'max', 'City field must not be greater than 255 characters.'],
      ['a too long state', { state: 'x'.repeat(256) }, 'state', 'max', 'State field must not be greater than 255 characters.'],
      ['a too long company_name', { company_name: 'x'.repeat(256) }, 'company_name', 'max', 'Company name field must not be greater than 255 characters.'],
      ['an invalid is_primary (in)', { is_primary: 2 }, 'is_primary', 'in', 'Is primary field must be 0 or 1.'],
    ])('refuses %s: 422 with the first message as message, nothing stored', async (_case, over, field, rule, message) => {
      const before = await count('store_customer_addresses');
      const res = await create(addressForm(over));
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(await count('store_customer_addresses')).toBe(before);
    });

    it('the country’s rules apply (address service): 422, nothing stored', async () => {
      const before = await count('store_customer_addresses');
      const res = await create(addressForm({ country: 'US', state: 'ZZ', postcode: 'not a zip' }));
      expect(res.status).toBe(422);
      expect(typeof res.body.message).toBe('string');
      expect(Object.keys(res.body.errors).length).toBeGreaterThan(0);
      expect(await count('store_customer_addresses')).toBe(before);
    });

    it('a user without a customer record: the record is created from the account, then the address', async () => {
      const user = await app.createUser('ivy');
      await app.host.users.update(user.user.id, { first_name: 'Ivy', last_name: 'Green' });
      const customers = record('store/customer/created');
      const res = await create(addressForm({ name: 'Ivy Green', email: 'ivy@example.com' }), user);
      customers.off();
      expect(res.status).toBe(200);
      const row = await db()('store_customers').where({ user_id: user.user.id }).first();
      expect(row).toMatchObject({ email: 'ivy@example.com', first_name: 'Ivy', last_name: 'Green', status: 'active' });
      expect(res.body.data).toMatchObject({ is_created: { customer_id: Number(row.id), is_primary: 1 }, total_address_count: 1 });
      expect(customers.calls.map(([c]) => c.email)).toEqual(['ivy@example.com']);
      const profile = await app.as(user).get(`${P}/profile`);
      expect(profile.body.data).toMatchObject({ first_name: 'Ivy', email: 'ivy@example.com', billing_address: [{ name: 'Ivy Green' }] });
      expect(profile.body.data.not_a_customer).toBeUndefined();
    });

    it('two first addresses at once: one customer record, both addresses, one primary', async () => {
      const user = await app.createUser('twins');
      const results = await Promise.all([0, 1].map((i) => create(addressForm({ label: `Try ${i}` }), user)));
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const rows = await db()('store_customers').where({ user_id: user.user.id }).select('id');
      expect(rows).toHaveLength(1);
      const customerId = Number(rows[0].id);
      expect(await count('store_customer_addresses', { customer_id: customerId })).toBe(2);
      expect(await count('store_customer_addresses', { customer_id: customerId, is_primary: 1 })).toBe(1);
    });

    it('a refused address creates no customer record either', async () => {
      const user = await app.createUser('jack');
      const customers = record('store/customer/created');
      const res = await create(addressForm({ country: 'US', state: 'ZZ', postcode: 'not a zip' }), user);
      customers.off();
      expect(res.status).toBe(422);
      expect(await count('store_customers', { email: 'jack@example.com' })).toBe(0);
      expect(customers.calls).toHaveLength(0);
    });

    it('anonymous: 401 You are not logged in', async () => {
      const res = await app.http.post(`${P}/create-address`).send(addressForm());
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('POST /customer-profile/edit-address', () => {
    let kate: TestUser;
    let kateId: number;
    let kateAddress: number;
    beforeAll(async () => {
      kate = await app.createUser('kate');
      kateId = await customerOf(kate);
      kateAddress = await addressOf(kateId, 'billing', { is_primary: 1, name: 'Kate', label: 'Home' });
    });
    const edit = (body: Record<string, unknown>, user = kate) => app.as(user).post(`${P}/edit-address`).send(body);
    const form = (over: Record<string, unknown> = {}) => ({
      id: kateAddress,
      type: 'billing',
      name: 'Kate Tester',
      label: 'Flat',
      address_1: 'Kastanienallee 5',
      city: 'Berlin',
      postcode: '10435',
      country: 'DE',
      ...over,
    });

    it('updates the caller’s address and answers it; fires store/customer/address_updated', async () => {
      const updated = record('store/customer/address_updated');
      const res = await edit(form({ phone: '+49 30 999', company_name: 'Kate GmbH' }));
      updated.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Address updated successfully',
        data: expect.objectContaining({
          id: kateAddress,
          customer_id: kateId,
          type: 'billing',
          is_primary: 1,
          name: 'Kate Tester',
          label: 'Flat',
          address_1: 'Kastanienallee 5',
          postcode: '10435',
          phone: '+49 30 999',
          company_name: 'Kate GmbH',
        }),
      });
      expect(await addressRow(kateAddress)).toMatchObject({ name: 'Kate Tester', address_1: 'Kastanienallee 5', email: 'someone@example.com' });
      expect(updated.calls).toHaveLength(1);
    });

    it.each([
      ['a missing id', { id: undefined }, 'id', 'required', 'Id field is required.'],
      ['an invalid id (integer)', { id: 'abc' }, 'id', 'integer', 'Id field must be an integer.'],
      ['an empty name', { name: '' }, 'name', 'required', 'Name field is required.'],
      ['a missing type', { type: undefined }, 'type', 'required', 'Type field is required.'],
      ['a missing postcode', { postcode: undefined }, 'postcode', 'required', 'Postcode field is required.'],
      ['a missing country', { country: undefined }, 'country', 'required', 'Country field is required.'],
      ['a too long label', { label: 'x'.repeat(16) }, 'label', 'max', 'Label field must not be greater than 15 characters.'],
      ['an invalid email (email)', { email: 'nope' }, 'email', 'email', 'Email field must be a valid email address.'],
    ])('refuses %s: 422 with the first message as message, nothing changes', async (_case, over, field, rule, message) => {
      const before = await addressRow(kateAddress);
      const res = await edit(form(over));
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(await addressRow(kateAddress)).toEqual(before);
    });

    it('an address that is not the caller’s (or does not exist): 403, nothing changes', async () => {
      const bobAddress = await addressOf(bobId, 'shipping', { name: 'Bob' });
      const before = await addressRow(bobAddress);
      for (const id of [bobAddress, 999_999]) {
        const res = await edit(form({ id }));
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ message: 'You are not authorized to update this address' });
      }
      expect(await addressRow(bobAddress)).toEqual(before);
      const stranger = await app.createUser('stranger');
      const res = await edit(form(), stranger);
      expect(res.status).toBe(403);
      expect(await count('store_customers', { email: 'stranger@example.com' })).toBe(0);
    });

    it('anonymous: 401 You are not logged in', async () => {
      const res = await app.http.post(`${P}/edit-address`).send(form());
      expect(res.status).toBe(401);
      expect(res.body).toEqual(NOT_LOGGED_IN);
    });
  });

  describe('ownership: a customer never sees or changes another customer’s orders or addresses', () => {
    let bobOrder: number;
    let bobAddress: number;
    let lena: TestUser;
    beforeAll(async () => {
      lena = await app.createUser('lena');
      const lenaId = await customerOf(lena);
      await order(lenaId, { created_at: '2026-11-20 10:00:00' });
      await addressOf(lenaId, 'billing', { is_primary: 1, name: 'Lena' });
      bobOrder = await order(bobId, { created_at: '2026-11-21 09:00:00' });
      bobAddress = await addressOf(bobId, 'billing', { name: 'Bob private', label: 'Secret' });
    });

    const bobState = async () => ({
      customer: await db()('store_customers').where({ id: bobId }).first(),
      addresses: await db()('store_customer_addresses').where({ customer_id: bobId }).orderBy('id'),
      orders: await db()('store_orders').where({ customer_id: bobId }).orderBy('id'),
      user: await app.host.users.findById(bob.user.id),
    });

    it.each([
      ['GET /customer-profile/', () => app.as(lena).get(`${P}/`), 200],
      ['GET /customer-profile/profile', () => app.as(lena).get(`${P}/profile`), 200],
      ['POST /customer-profile/update', () => app.as(lena).post(`${P}/update`).send({ email: 'lena@example.com', first_name: 'Lena' }), 200],
      ['POST /customer-profile/update (Bob’s email)', () => app.as(lena).post(`${P}/update`).send({ email: 'bob@example.com' }), 422],
      [
        'POST /customer-profile/create-address',
        () =>
          app
            .as(lena)
            .post(`${P}/create-address`)
            .send(addressForm({ name: 'Lena' })),
        200,
      ],
      [
        'POST /customer-profile/edit-address (Bob’s address)',
        () =>
          app
            .as(lena)
            .post(`${P}/edit-address`)
            .send(addressForm({ id: bobAddress })),
        403,
      ],
    ])('%s', async (_name, call, status) => {
      const before = await bobState();
      const res = await call();
      expect(res.status).toBe(status);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain('Bob private');
      expect(text).not.toContain('bob@example.com');
      const bobUuid = before.orders.find((o: { id: number }) => Number(o.id) === bobOrder).uuid as string;
      expect(text).not.toContain(bobUuid);
      expect(await bobState()).toEqual(before);
    });
  });
});
