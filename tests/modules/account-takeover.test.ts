import crypto from 'node:crypto';
import { createAddress } from '../../src/modules/customers/addresses';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';

const NOW = '2026-11-21 10:00:00';

/** A guest's customer record, with a billing address and two orders, as guest checkouts leave it. */
interface Guest {
  email: string;
  customerId: number;
  addressId: number;
  orderIds: number[];
}

/**
 * Linking guests to accounts: a customer record becomes a user's because an administrator linked it, the user created
 * it while logged in, or the user verified the email it was recorded with. An email that is only typed in (at sign-up
 * or checkout) opens nothing.
 */
describe('account takeover by email (issue 10)', () => {
  let app: TestApp;
  let sink: SmtpSink;
  let admin: TestUser;

  beforeAll(async () => {
    sink = await startSmtpSink();
    app = await startTestApp({ config: { smtpUrl: sink.url } });
    admin = await app.createUser('takeover-admin', ['administrator']);
  });
  afterAll(async () => {
    await app.close();
    await sink.close();
  });

  const db = () => app.host.db;
  const customerRow = (id: number) => db()('store_customers').where({ id }).first();
  const linkedUser = async (id: number) => {
    const row = await customerRow(id);
    return row.user_id === null ? null : Number(row.user_id);
  };

  async function guest(email: string): Promise<Guest> {
    const [id] = await db()('store_customers').insert({
      email,
      first_name: 'Victor',
      last_name: 'Im',
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      notes: '',
      created_at: NOW,
      updated_at: NOW,
    });
    const customerId = Number(id);
    const address = await createAddress(app.ctx(), customerId, {
      type: 'billing',
      name: 'Victor Im',
      email: '',
      address_1: '1 Secret Lane',
      city: 'Berlin',
      postcode: '10115',
      country: 'DE',
    });
    const addressId = address.id;
    const orderIds = [
      await insertOrder(db(), customerId, NOW, { invoice_no: `INV-${customerId}-1`, total_amount: 4200 }),
      await insertOrder(db(), customerId, NOW, { invoice_no: `INV-${customerId}-2`, total_amount: 1300 }),
    ];
    return { email, customerId, addressId, orderIds };
  }

  /** A host user as sign-up (or checkout with `allow_create_account`) makes it: the email typed in, not verified. */
  async function signUp(login: string, email: string, verified = false): Promise<TestUser> {
    const password = `${login}-Pass-123`;
    const user = await app.host.users.create({ login, email, password, roles: ['customer'], email_verified: verified });
    const { password: appPassword } = await app.host.users.appPasswords.create(user.id, 'tests');
    return { user, password, appPassword };
  }

  /** Follows the newest verification link mailed to the user, and confirms it. */
  async function verifyThroughMail(who: TestUser): Promise<void> {
    await app.as(who).post(`${BASE}/user/verify-email`).expect(200);
    const mails = sink.to(who.user.email);
    const link = /http:\/\/store\.test(\/verify-email\/\?token=\S+)/.exec(mails[mails.length - 1].text ?? '')![1];
    const page = await app.http.get(link).expect(200);
    const token = /name="token" value="([^"]+)"/.exec(page.text)![1];
    await app.http.post('/verify-email/').type('form').send({ token }).expect(200);
  }

  const portalForm = (addressId: number) => ({
    address: { id: addressId, type: 'billing' },
    type: 'billing',
    billing_label: 'Mine',
    billing_address_1: '666 Attacker Road',
    billing_city: 'Paris',
    billing_country: 'FR',
    billing_postcode: '75001',
  });

  /** Every portal route, as `who` (application password): none shows or changes anything of the guest's. */
  async function seesNothingOf(who: TestUser, victim: Guest): Promise<void> {
    const as = app.as(who);
    const before = {
      customer: await customerRow(victim.customerId),
      addresses: await db()('store_customer_addresses').where({ customer_id: victim.customerId }),
    };

    const dashboard = await as.get(`${BASE}/customer-profile`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body.dashboard_data.orders).toEqual([]);
    const profile = await as.get(`${BASE}/customer-profile/profile`);
    expect(profile.status).toBe(200);
    expect(profile.body.data).toMatchObject({ not_a_customer: true, billing_address: [], shipping_address: [] });

    const detail = await as.get(`${BASE}/customers/${victim.customerId}?with[]=billing_address&with[]=shipping_address&with[]=orders`);
    expect(detail.status).toBe(403);
    expect(detail.body).toEqual({ message: 'You are not authorized to view this customer' });
    expect((await as.get(`${BASE}/customers/${victim.customerId}/orders`)).body).toEqual({ orders: [] });
    const update = await as.put(`${BASE}/customers/${victim.customerId}`).send({ email: who.user.email, first_name: 'Mal' });
    expect(update.status).toBe(403);
    expect((await as.put(`${BASE}/customers/${victim.customerId}/address`).send(portalForm(victim.addressId))).status).toBe(403);
    expect((await as.delete(`${BASE}/customers/${victim.customerId}/address`).send({ address: { id: victim.addressId } })).status).toBe(403);
    expect(
      (await as.post(`${BASE}/customers/${victim.customerId}/address/make-primary`).send({ address: { id: victim.addressId, type: 'billing' } })).status,
    ).toBe(403);
    const edit = await as
      .post(`${BASE}/customer-profile/edit-address`)
      .send({ id: victim.addressId, type: 'billing', name: 'Mal', postcode: '75001', country: 'FR' });
    expect(edit.status).toBe(403);
    expect((await as.post(`${BASE}/customer-profile/update`).send({ email: who.user.email, first_name: 'Mal' })).status).toBe(404);

    expect(await customerRow(victim.customerId)).toEqual(before.customer);
    expect(await db()('store_customer_addresses').where({ customer_id: victim.customerId })).toEqual(before.addresses);
  }

  describe('an attacker who signs up with the victim’s email', () => {
    let victim: Guest;
    let mallory: TestUser;
    beforeAll(async () => {
      victim = await guest('victim@example.com');
      mallory = await signUp('mallory', 'victim@example.com');
    });

    it('sees none of the victim’s orders or addresses through any portal route', async () => {
      await seesNothingOf(mallory, victim);
    });

    it('logging in links nothing, and the cookie session sees nothing either', async () => {
      const browser = app.browser();
      expect((await browser.login('mallory', mallory.password)).status).toBe(200);
      expect(await linkedUser(victim.customerId)).toBeNull();
      expect((await browser.call('get', `${BASE}/customer-profile`)).body.dashboard_data.orders).toEqual([]);
      expect((await browser.call('get', `${BASE}/customers/${victim.customerId}`)).status).toBe(403);
    });

    it('cannot make a customer record of their own with that email: 409, nothing written', async () => {
      const customers = await db()('store_customers').count({ n: '*' });
      const res = await app
        .as(mallory)
        .post(`${BASE}/customer-profile/create-address`)
        .send({ type: 'billing', name: 'Mal', address_1: '1 Rue', city: 'Paris', postcode: '75001', country: 'FR', email: 'victim@example.com' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        message:
          'A customer record with your email address exists but is not linked to your account. Confirm your email address with the link we mailed you (you can ask for a new one), then try again.',
      });
      expect(await db()('store_customers').count({ n: '*' })).toEqual(customers);
      expect(await db()('store_customer_addresses').where({ customer_id: victim.customerId })).toHaveLength(1);
    });

    it('an administrator creating or editing a record for that email does not link the unverified account', async () => {
      const holder = await signUp('holder', 'holder@example.com');
      const refused = await app.as(admin).post(`${BASE}/customers`).send({ email: 'holder@example.com', first_name: 'X', wp_user: 'yes' });
      expect(refused.status).toBe(422);
      expect(await db()('store_customers').where({ email: 'holder@example.com' }).first()).toBeUndefined();
      await app.as(admin).post(`${BASE}/customers`).send({ email: 'holder@example.com', first_name: 'X' }).expect(200);
      const holderRecord = await db()('store_customers').where({ email: 'holder@example.com' }).first('user_id');
      expect(holderRecord.user_id).toBeNull();
      expect(holder.user.email_verified_at).toBeNull();
      const edited = await app
        .as(admin)
        .put(`${BASE}/customers/${victim.customerId}`)
        .send({ email: 'victim@example.com', first_name: 'Victor', wp_user: 'yes' });
      expect(edited.status).toBe(422);
      expect(edited.body.data).toEqual({
        wp_user: { unique: 'The user account with this email has not verified it or was detached from this customer: attach it by user_id.' },
      });
      await app.as(admin).put(`${BASE}/customers/${victim.customerId}`).send({ email: 'victim@example.com', first_name: 'Victor' }).expect(200);
      expect(await linkedUser(victim.customerId)).toBeNull();
      await seesNothingOf(mallory, victim);
    });
  });

  describe('an attacker who checks out as a guest with the victim’s email, without an account for it', () => {
    it('their own account sees nothing of the victim, not even the order they placed with that email', async () => {
      const victim = await guest('victim2@example.com');
      const eve = await signUp('eve', 'eve@evil.example', true);
      // The guest checkout's order goes to the record with that email (what place-order does for a guest).
      victim.orderIds.push(await insertOrder(db(), victim.customerId, NOW, { invoice_no: 'INV-EVE', total_amount: 100 }));
      await seesNothingOf(eve, victim);
      expect(await linkedUser(victim.customerId)).toBeNull();
    });
  });

  describe('the owner of the email', () => {
    let owner: Guest;
    let victor: TestUser;
    beforeAll(async () => {
      owner = await guest('owner@example.com');
      victor = await signUp('victor', 'owner@example.com');
    });

    it('sees nothing before verifying, and their guest orders and addresses once verified (the record is linked)', async () => {
      await seesNothingOf(victor, owner);
      const updated: number[] = [];
      const off = app.host.hooks.addAction('store/customer/updated', (customer) => {
        updated.push(customer.id);
      });
      await verifyThroughMail(victor);
      off();
      expect(await linkedUser(owner.customerId)).toBe(victor.user.id);
      expect(updated).toEqual([owner.customerId]);
      const activity = await db()('store_activities').where({ object_type: 'customer', object_id: owner.customerId, title: 'User attached' }).first();
      expect(activity.content).toBe(`Linked to the user victor (#${victor.user.id}), who verified this email address.`);

      const detail = await app.as(victor).get(`${BASE}/customers/${owner.customerId}?with[]=billing_address&with[]=orders`).expect(200);
      expect(detail.body.customer.orders.map((o: { id: number }) => o.id).sort()).toEqual([...owner.orderIds].sort());
      expect(detail.body.customer.billing_address.map((a: { id: number }) => a.id)).toEqual([owner.addressId]);
      const dashboard = await app.as(victor).get(`${BASE}/customer-profile`).expect(200);
      expect(dashboard.body.dashboard_data.orders.map((o: { id: number }) => o.id).sort()).toEqual([...owner.orderIds].sort());
    });

    it('an administrator’s detach sticks: not relinked by login, by an admin edit, or by verifying again; an attach wins', async () => {
      await app.as(admin).post(`${BASE}/customers/${owner.customerId}/detach-user`).expect(200);
      expect(await linkedUser(owner.customerId)).toBeNull();
      await seesNothingOf(victor, owner);

      expect((await app.browser().login('victor', victor.password)).status).toBe(200);
      await app.as(admin).put(`${BASE}/customers/${owner.customerId}`).send({ email: 'owner@example.com', first_name: 'Victor' }).expect(200);
      await db()('users').where({ id: victor.user.id }).update({ email_verified_at: null });
      await verifyThroughMail(victor);
      expect((await db()('users').where({ id: victor.user.id }).first('email_verified_at')).email_verified_at).not.toBeNull();
      expect(await linkedUser(owner.customerId)).toBeNull();
      await seesNothingOf(victor, owner);

      await app.as(admin).post(`${BASE}/customers/${owner.customerId}/attachable-user`).send({ user_id: victor.user.id }).expect(200);
      expect(await linkedUser(owner.customerId)).toBe(victor.user.id);
      expect((await app.as(victor).get(`${BASE}/customers/${owner.customerId}`)).status).toBe(200);
      expect(await db()('store_customer_link_blocks').where({ customer_id: owner.customerId })).toEqual([]);

      await app.as(admin).post(`${BASE}/customers/${owner.customerId}/detach-user`).expect(200);
      expect((await app.as(victor).get(`${BASE}/customers/${owner.customerId}`)).status).toBe(403);
    });
  });

  describe('a verified user whose guest record appears later', () => {
    it('finds it by the verified email at once (read only), and logging in links it', async () => {
      const wendy = await signUp('wendy', 'wendy@example.com', true);
      const record = await guest('wendy@example.com');
      const detail = await app.as(wendy).get(`${BASE}/customers/${record.customerId}?with[]=orders`).expect(200);
      expect(detail.body.customer.orders).toHaveLength(2);
      expect(await linkedUser(record.customerId)).toBeNull();
      expect((await app.browser().login('wendy', wendy.password)).status).toBe(200);
      expect(await linkedUser(record.customerId)).toBe(wendy.user.id);
    });
  });

  describe('an administrator creating an account for a customer', () => {
    it('vouches for its email: the new user is verified and linked', async () => {
      const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'phone-order@example.com', first_name: 'Pat', wp_user: 'yes' }).expect(200);
      const user = await app.host.users.findByEmail('phone-order@example.com');
      expect(user?.email_verified_at).not.toBeNull();
      const id = Number((await db()('store_customers').where({ email: 'phone-order@example.com' }).first('id')).id);
      expect(await linkedUser(id)).toBe(user!.id);
      expect(res.status).toBe(200);
    });
  });
});
