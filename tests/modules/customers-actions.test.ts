import type { ActionMap, ActionName } from '../../src/host/contract';
import { transaction } from '../../src/core/context';
import { recalculateCustomerStats } from '../../src/modules/customers/ltv';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

/** Bulk actions, statistics, a customer's orders, lifetime value and the host-user link. */
describe('customers (actions)', () => {
  let app: TestApp;
  let productManager: TestUser;
  let shopper: TestUser;
  let clerk: TestUser;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    productManager = await app.createUser('pm', ['product_manager']);
    shopper = await app.createUser('shopper', ['customer']);
    clerk = await app.createUser('clerk', ['customer_service']);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const newAdmin = () => app.createUser(`admin${++n}`, ['administrator']);

  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  async function customer(admin: TestUser, email: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await app
      .as(admin)
      .post(`${BASE}/customers`)
      .send({ email, first_name: email.split('@')[0], ...extra });
    expect(res.status).toBe(200);
    return res.body.data.id;
  }

  const insertOrder = (customerId: number, over: Record<string, unknown> = {}, items: Array<Record<string, unknown>> = []) =>
    insertOrderRow(db(), customerId, NOW, over, items);

  describe('POST /customers/do-bulk-action', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await newAdmin();
    });
    const bulk = (body: Record<string, unknown>, user?: TestUser) =>
      app
        .as(user ?? admin)
        .post(`${BASE}/customers/do-bulk-action`)
        .send(body);

    it('change_customer_status sets an editable status and fires status_changed for each change', async () => {
      const a = await customer(admin, 'bulk-a@example.com');
      const b = await customer(admin, 'bulk-b@example.com', { status: 'inactive' });
      const fired = record('store/customer/status_changed');
      const res = await bulk({ action: 'change_customer_status', customer_ids: [a, b, 999999], new_status: 'inactive' });
      fired.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Status changed to inactive for 1 customer.', data: { updated: [a], not_found: [999999] } });
      expect(fired.calls.map(([c, before]) => [c.id, c.status, before])).toEqual([[a, 'inactive', 'active']]);
      expect((await db()('store_customers').where({ id: a }).first()).status).toBe('inactive');
    });

    it('change_customer_status needs a valid new_status', async () => {
      const a = await customer(admin, 'bulk-c@example.com');
      const missing = await bulk({ action: 'change_customer_status', customer_ids: [a] });
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({
        code: 422,
        message: 'The new status field is required.',
        data: { new_status: { required: 'The new status field is required.' } },
      });
      const bad = await bulk({ action: 'change_customer_status', customer_ids: [a], new_status: 'deleted' });
      expect(bad.body).toEqual({
        code: 422,
        message: 'The selected new status is invalid.',
        data: { new_status: { in: 'The selected new status is invalid.' } },
      });
      expect((await db()('store_customers').where({ id: a }).first()).status).toBe('active');
    });

    it('a missing or empty selection is 403 {code: 403, message, data}; an unknown action is a 422', async () => {
      for (const body of [{ action: 'delete_customers' }, { action: 'delete_customers', customer_ids: [] }]) {
        const res = await bulk(body);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 403, message: 'Please select at least one customer.', data: {} });
      }
      const unknown = await bulk({ action: 'explode', customer_ids: [1] });
      expect(unknown.status).toBe(422);
      expect(unknown.body.data).toEqual({ action: { in: 'The selected action is invalid.' } });
    });

    it('delete_customers deletes customers without orders (addresses and labels too) and archives those with orders', async () => {
      const plain = await customer(admin, 'bulk-del@example.com');
      const buyer = await customer(admin, 'bulk-buyer@example.com');
      await insertOrder(buyer);
      const labelId = (await app.as(admin).post(`${BASE}/labels`).send({ title: 'Bulk label' })).body.label.id;
      await app
        .as(admin)
        .put(`${BASE}/customers/${plain}/additional-info`)
        .send({ labels: [labelId] })
        .expect(200);
      await db()('store_customer_addresses').insert({
        customer_id: plain,
        type: 'billing',
        is_primary: 1,
        primary_slot: 'billing',
        meta: '{}',
        created_at: NOW,
        updated_at: NOW,
      });
      const deleted = record('store/customer/deleted');
      const status = record('store/customer/status_changed');
      const res = await bulk({ action: 'delete_customers', customer_ids: [plain, buyer] });
      deleted.off();
      status.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: '1 customer deleted. 1 customer has orders and was archived instead of deleted.',
        data: { deleted: [plain], archived: [buyer], not_found: [] },
      });
      expect(await db()('store_customers').where({ id: plain }).first()).toBeUndefined();
      expect(await db()('store_customer_addresses').where({ customer_id: plain }).first()).toBeUndefined();
      expect(await db()('store_label_relations').where({ object_type: 'customer', object_id: plain }).first()).toBeUndefined();
      expect((await db()('store_customers').where({ id: buyer }).first()).status).toBe('archived');
      expect(await db()('store_orders').where({ customer_id: buyer }).count({ n: '*' }).first()).toEqual({ n: 1 });
      expect(deleted.calls.map(([c]) => c.email)).toEqual(['bulk-del@example.com']);
      expect(status.calls.map(([c, before]) => [c.id, c.status, before])).toEqual([[buyer, 'archived', 'active']]);
    });

    it('needs customers/manage', async () => {
      expect((await app.http.post(`${BASE}/customers/do-bulk-action`).send({ action: 'delete_customers', customer_ids: [1] })).status).toBe(401);
      expect((await bulk({ action: 'delete_customers', customer_ids: [1] }, productManager)).status).toBe(403);
      expect((await bulk({ action: 'delete_customers', customer_ids: [1] }, shopper)).status).toBe(403);
    });

    it('delete_customers needs customers/delete too: customer service (customers/manage) gets 403 {code, message, data}, nothing deleted', async () => {
      const id = await customer(admin, 'bulk-kept@example.com');
      const deleted = record('store/customer/deleted');
      const res = await bulk({ action: 'delete_customers', customer_ids: [id] }, clerk);
      deleted.off();
      expect([res.status, res.body]).toEqual([403, { code: 403, message: 'Sorry, you are not allowed to do that.', data: {} }]);
      expect(deleted.calls).toEqual([]);
      expect((await db()('store_customers').where({ id }).first()).status).toBe('active');
      const status = await bulk({ action: 'change_customer_status', customer_ids: [id], new_status: 'inactive' }, clerk);
      expect([status.status, status.body.data]).toEqual([200, { updated: [id], not_found: [] }]);
    });
  });

  describe('GET /customers/get-stats/{customer}', () => {
    it('answers {widgets} filled by extensions through store/widgets/single_customer', async () => {
      const admin = await newAdmin();
      const id = await customer(admin, 'stats@example.com');
      expect((await app.as(admin).get(`${BASE}/customers/get-stats/${id}`)).body).toEqual({ widgets: [] });
      // a second plugin adds a widget
      const off = app.host.hooks.addFilter(
        'store/widgets/single_customer',
        (widgets, { customer }) => [...widgets, { title: 'Support tickets', value: 3, customer_email: customer.email }],
        { namespace: 'helpdesk-plugin' },
      );
      const res = await app.as(clerk).get(`${BASE}/customers/get-stats/${id}`);
      off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ widgets: [{ title: 'Support tickets', value: 3, customer_email: 'stats@example.com' }] });
      const missing = await app.as(admin).get(`${BASE}/customers/get-stats/999999`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 404, message: 'Customer not found', data: {} });
      expect((await app.as(productManager).get(`${BASE}/customers/get-stats/${id}`)).status).toBe(403);
      expect((await app.http.get(`${BASE}/customers/get-stats/${id}`)).status).toBe(401);
    });
  });

  describe('GET /customers/{customerId}/orders', () => {
    let admin: TestUser;
    let id: number;
    const orders: Record<string, number> = {};
    beforeAll(async () => {
      admin = await newAdmin();
      id = await customer(admin, 'orders@example.com');
      const other = await customer(admin, 'orders-other@example.com');
      orders.paid = await insertOrder(id, { invoice_no: 'INV-100', total_amount: 5000, created_at: '2026-11-01 10:00:00' }, [
        { variation_id: 5, title: 'Blue Shirt' },
      ]);
      orders.hold = await insertOrder(id, {
        invoice_no: 'INV-101',
        status: 'on-hold',
        payment_status: 'pending',
        total_amount: 700,
        created_at: '2026-11-02 10:00:00',
      });
      orders.renewal = await insertOrder(id, { invoice_no: 'INV-102', type: 'renewal', total_amount: 1200, created_at: '2026-11-03 10:00:00' }, [
        { variation_id: 9, title: 'Monthly plan' },
      ]);
      orders.refunded = await insertOrder(id, { invoice_no: 'INV-103', payment_status: 'refunded', total_refund: 1000, created_at: '2026-11-04 10:00:00' });
      await insertOrder(other, { invoice_no: 'INV-900' });
    });
    const get = (query = '') => app.as(admin).get(`${BASE}/customers/${id}/orders${query}`);
    const invoices = (res: { body: { orders: { data: Array<{ invoice_no: string }> } } }) => res.body.orders.data.map((o) => o.invoice_no);

    it("answers {orders: page} of that customer's orders only, newest first, 10 per page", async () => {
      const res = await get();
      expect(res.status).toBe(200);
      expect(res.body.orders).toMatchObject({ current_page: 1, per_page: 10, total: 4, last_page: 1 });
      expect(invoices(res)).toEqual(['INV-103', 'INV-102', 'INV-101', 'INV-100']);
      expect(res.body.orders.data[3]).toMatchObject({
        id: orders.paid,
        customer_id: id,
        status: 'completed',
        payment_status: 'paid',
        total_amount: 5000,
        total_paid: 1000,
        total_refund: 0,
        rate: 1,
        currency: 'USD',
      });
      expect((await get('?per_page=0')).body.orders.per_page).toBe(1);
      expect((await get('?per_page=1000')).body.orders.per_page).toBe(199);
    });

    it('search (invoice, item title, operators), sort_by, active_view and advanced filters', async () => {
      expect(invoices(await get('?search=INV-101'))).toEqual(['INV-101']);
      expect(invoices(await get('?search=shirt'))).toEqual(['INV-100']);
      expect(invoices(await get(`?search=${encodeURIComponent('total_amount>1000')}`))).toEqual(['INV-102', 'INV-100']);
      expect(invoices(await get('?sort_by=total_amount&sort_type=asc'))).toEqual(['INV-101', 'INV-103', 'INV-102', 'INV-100']);
      expect(invoices(await get('?active_view=on-hold'))).toEqual(['INV-101']);
      expect(invoices(await get('?active_view=renewal'))).toEqual(['INV-102']);
      expect(invoices(await get('?active_view=refunded'))).toEqual(['INV-103']);
      expect(invoices(await get('?active_view=paid'))).toEqual(['INV-102', 'INV-100']);
      const adv = (groups: unknown) => get(`?filter_type=advanced&advanced_filters=${encodeURIComponent(JSON.stringify(groups))}`);
      expect(invoices(await adv([[{ property: 'order_items', operator: 'in', value: [9] }]]))).toEqual(['INV-102']);
      expect(invoices(await adv([[{ property: 'created_at', operator: '<=', value: '2026-11-02' }]]))).toEqual(['INV-101', 'INV-100']);
      expect(invoices(await adv([[{ property: 'payment_status', operator: 'not_in', value: ['paid'] }]]))).toEqual(['INV-103', 'INV-101']);
    });

    it('refuses unknown views and bad advanced filters with a 422; 404 for a missing customer', async () => {
      const view = await get('?active_view=everything');
      expect(view.status).toBe(422);
      expect(view.body.data).toEqual({ active_view: { in: 'The selected active view is invalid.' } });
      const adv = await get(`?filter_type=advanced&advanced_filters=${encodeURIComponent('[[{"property":"secret","operator":"in","value":[1]}]]')}`);
      expect(adv.status).toBe(422);
      expect(Object.keys(adv.body.data)).toEqual(['advanced_filters']);
      const missing = await app.as(admin).get(`${BASE}/customers/999999/orders`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 404, message: 'Customer not found', data: {} });
    });
  });

  describe('GET /customers/{customerId}/order', () => {
    it('answers {data: {data: [order with filtered_order_items]}} (signup-fee lines left out)', async () => {
      const admin = await newAdmin();
      const id = await customer(admin, 'order@example.com');
      const first = await insertOrder(id, { invoice_no: 'INV-1' }, [
        {
          variation_id: 3,
          title: 'Plan',
          payment_type: 'subscription',
          unit_price: 900,
          quantity: 1,
          line_total: 900,
          line_meta: '{"bundle_parent_item_id":null}',
        },
        { variation_id: 3, title: 'Signup fee', payment_type: 'signup_fee', unit_price: 500 },
      ]);
      const second = await insertOrder(id, { invoice_no: 'INV-2' });
      const res = await app.as(clerk).get(`${BASE}/customers/${id}/order`);
      expect(res.status).toBe(200);
      expect(res.body.data.data.map((o: { id: number }) => o.id)).toEqual([second, first]);
      expect(res.body.data.data[1].filtered_order_items).toEqual([
        expect.objectContaining({
          order_id: first,
          variation_id: 3,
          title: 'Plan',
          payment_type: 'subscription',
          quantity: 1,
          unit_price: 900,
          line_total: 900,
          line_meta: { bundle_parent_item_id: null },
        }),
      ]);
      expect(res.body.data.data[0].filtered_order_items).toEqual([]);
      expect((await app.as(admin).get(`${BASE}/customers/999999/order`)).status).toBe(404);
      expect((await app.as(productManager).get(`${BASE}/customers/${id}/order`)).status).toBe(403);
    });
  });

  describe('POST /customers/{customerId}/recalculate-ltv', () => {
    it('recomputes ltv, purchase_count, purchase_value, aov and purchase dates from paid orders minus refunds', async () => {
      const admin = await newAdmin();
      const id = await customer(admin, 'ltv@example.com');
      await insertOrder(id, { total_paid: 1000, created_at: '2026-01-05 08:00:00' });
      await insertOrder(id, { payment_status: 'partially_refunded', total_paid: 2001, total_refund: 500, created_at: '2026-03-01 09:00:00' });
      await insertOrder(id, { payment_status: 'refunded', total_paid: 700, total_refund: 700, created_at: '2026-02-01 09:00:00' });
      await insertOrder(id, { payment_status: 'partially_paid', currency: 'EUR', total_paid: 300, created_at: '2026-04-01 09:00:00' });
      await insertOrder(id, { payment_status: 'pending', total_paid: 0, total_amount: 99999, created_at: '2026-05-01 09:00:00' });
      await insertOrder(id, { payment_status: 'failed', total_paid: 0, created_at: '2026-06-01 09:00:00' });
      const res = await app.as(admin).post(`${BASE}/customers/${id}/recalculate-ltv`);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Customer lifetime value recalculated successfully');
      // (1000 + 1501 + 0) USD + 300 EUR = 2801 over 4 purchases: 700.25 → 700
      expect(res.body.customer).toMatchObject({
        id,
        ltv: 2801,
        purchase_count: 4,
        purchase_value: { USD: 2501, EUR: 300 },
        aov: 700,
        first_purchase_date: '2026-01-05 08:00:00',
        last_purchase_date: '2026-04-01 09:00:00',
      });
      const stored = await db()('store_customers').where({ id }).first();
      expect(Number(stored.ltv)).toBe(2801);
      expect(Number(stored.aov)).toBe(700);
    });

    it('rounds the average half up; no purchases gives zeros', async () => {
      const admin = await newAdmin();
      const id = await customer(admin, 'ltv-round@example.com');
      const ctx = app.ctx();
      expect(await transaction(ctx, (trx) => recalculateCustomerStats(trx, id))).toMatchObject({
        ltv: 0,
        purchase_count: 0,
        purchase_value: {},
        aov: 0,
        first_purchase_date: null,
        last_purchase_date: null,
      });
      await insertOrder(id, { total_paid: 1 });
      await insertOrder(id, { total_paid: 2 });
      expect(await transaction(ctx, (trx) => recalculateCustomerStats(trx, id))).toMatchObject({ ltv: 3, purchase_count: 2, aov: 2 });
      expect(await transaction(ctx, (trx) => recalculateCustomerStats(trx, 999999))).toBeNull();
    });

    it('404 {message} for a missing customer; needs customers/manage', async () => {
      const admin = await newAdmin();
      const res = await app.as(admin).post(`${BASE}/customers/999999/recalculate-ltv`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Customer not found' });
      expect((await app.as(productManager).post(`${BASE}/customers/1/recalculate-ltv`)).status).toBe(403);
      expect((await app.http.post(`${BASE}/customers/1/recalculate-ltv`)).status).toBe(401);
    });
  });

  describe('GET /customers/attachable-user, POST /customers/{customerId}/attachable-user, POST /customers/{customerId}/detach-user', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await newAdmin();
    });

    it('lists host users not linked to any customer, with search and limit', async () => {
      const free = await app.createUser('free-user');
      await app.createUser('taken-user');
      await customer(admin, 'taken-user@example.com'); // links by email
      const res = await app.as(admin).get(`${BASE}/customers/attachable-user?search=user`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { users: [{ id: free.user.id, display_name: 'free-user', user_email: 'free-user@example.com', user_login: 'free-user' }] },
      });
      const limited = await app.as(admin).get(`${BASE}/customers/attachable-user?limit=1`);
      expect(limited.body.data.users).toHaveLength(1);
      expect((await app.as(admin).get(`${BASE}/customers/attachable-user?limit=0`)).status).toBe(422);
    });

    it('attaches a free user, refuses a linked one, detaches; fires store/customer/updated', async () => {
      const user = await app.createUser('attach-me');
      const id = await customer(admin, 'attach-target@example.com');
      const other = await customer(admin, 'attach-other@example.com');
      const updated = record('store/customer/updated');
      app.clock.advance(60_000);
      const res = await app.as(admin).post(`${BASE}/customers/${id}/attachable-user`).send({ user_id: user.user.id });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { customer: { id, user_id: user.user.id, updated_at: expect.any(String) } } });
      const taken = await app.as(admin).post(`${BASE}/customers/${other}/attachable-user`).send({ user_id: user.user.id });
      expect(taken.status).toBe(422);
      expect(taken.body).toEqual({
        code: 422,
        message: 'This user is already linked to another customer.',
        data: { user_id: { unique: 'This user is already linked to another customer.' } },
      });
      const detached = await app.as(admin).post(`${BASE}/customers/${id}/detach-user`);
      updated.off();
      expect(detached.status).toBe(200);
      expect(detached.body).toEqual({ success: true, data: { customer: { id, user_id: null, updated_at: expect.any(String) } } });
      expect(updated.calls.map(([after, before]) => [after.user_id, before.user_id])).toEqual([
        [user.user.id, null],
        [null, user.user.id],
      ]);
      const log = await db()('store_activities').where({ object_type: 'customer', object_id: id }).orderBy('id').pluck('title');
      expect(log).toEqual(['Customer created', 'User attached', 'User detached']);
    });

    it('validates user_id; 404 for a missing customer; all three need customers/manage', async () => {
      const id = await customer(admin, 'attach-val@example.com');
      const missingField = await app.as(admin).post(`${BASE}/customers/${id}/attachable-user`).send({});
      expect(missingField.status).toBe(422);
      expect(missingField.body.data).toEqual({ user_id: { required: 'The user id field is required.' } });
      const notInt = await app.as(admin).post(`${BASE}/customers/${id}/attachable-user`).send({ user_id: 'x' });
      expect(notInt.body.data).toEqual({ user_id: { integer: 'The user id field must be an integer.' } });
      const noUser = await app.as(admin).post(`${BASE}/customers/${id}/attachable-user`).send({ user_id: 999999 });
      expect(noUser.body.data).toEqual({ user_id: { exists: 'The selected user id is invalid.' } });
      const user = await app.createUser('attach-404');
      const missing = await app.as(admin).post(`${BASE}/customers/999999/attachable-user`).send({ user_id: user.user.id });
      expect(missing.status).toBe(404);
      expect((await app.as(admin).post(`${BASE}/customers/999999/detach-user`)).status).toBe(404);
      for (const user2 of [productManager, shopper]) {
        expect((await app.as(user2).get(`${BASE}/customers/attachable-user`)).status).toBe(403);
        expect((await app.as(user2).post(`${BASE}/customers/${id}/attachable-user`).send({ user_id: 1 })).status).toBe(403);
        expect((await app.as(user2).post(`${BASE}/customers/${id}/detach-user`)).status).toBe(403);
      }
      expect((await app.http.get(`${BASE}/customers/attachable-user`)).status).toBe(401);
    });
  });
});
