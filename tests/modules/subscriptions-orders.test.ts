import crypto from 'node:crypto';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { actionGateway, subscriptionFamilies, useGateways, type Family } from '../support/subscription-actions';

const NOW = '2026-11-21 10:00:00';

/** What orders and customers show of subscriptions, and how refunds, deletes and customer changes treat them. */
describe('orders and customers with subscriptions', () => {
  let app: TestApp;
  let admin: TestUser;
  const gateway = actionGateway();
  let fx: ReturnType<typeof subscriptionFamilies>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    useGateways(app, gateway);
    fx = subscriptionFamilies(app, NOW);
    await app.host.options.set('hourly_request_limits', { list: 100_000 });
  });
  afterAll(() => app.close());
  beforeEach(() => {
    gateway.cancelAnswer = { status: 'success', message: 'Canceled at Sub Pay.' };
    gateway.cancels.length = 0;
    gateway.refund = async () => ({ status: 'skipped', message: 'n/a' });
  });

  const db = () => app.host.db;

  describe('GET /orders/{order_id} and GET /orders?with[]=subscriptions', () => {
    it("a subscription order shows its subscriptions, a renewal its parent's, an order without any none", async () => {
      const f = await fx.family();
      const renewalId = await fx.renewal(f.orderId, f.customerId);
      const plainId = await fx.renewal(f.orderId, f.customerId, { type: 'payment', parent_id: null });
      const subscription = await fx.subscription(f.subscriptionId);

      const detail = await app.as(admin).get(`${BASE}/orders/${f.orderId}`);
      expect(detail.status).toBe(200);
      expect(detail.body.order.subscriptions).toEqual([subscription]);
      expect((await app.as(admin).get(`${BASE}/orders/${renewalId}`)).body.order.subscriptions).toEqual([subscription]);
      expect((await app.as(admin).get(`${BASE}/orders/${plainId}`)).body.order.subscriptions).toEqual([]);

      const list = await app
        .as(admin)
        .get(`${BASE}/orders?with[]=subscriptions&include_ids[]=${f.orderId}&include_ids[]=${renewalId}&include_ids[]=${plainId}`);
      expect(list.status).toBe(200);
      const byId = Object.fromEntries(list.body.orders.data.map((o: { id: number; subscriptions: unknown[] }) => [o.id, o.subscriptions]));
      expect(byId).toEqual({ [f.orderId]: [subscription], [renewalId]: [subscription], [plainId]: [] });
    });

    it('upgraded_to and upgraded_from stay empty: the store has no plan upgrades', async () => {
      await fx.family();
      for (const view of ['upgraded_to', 'upgraded_from']) {
        const res = await app.as(admin).get(`${BASE}/orders?active_view=${view}`);
        expect(res.status).toBe(200);
        expect(res.body.orders).toMatchObject({ data: [], total: 0 });
      }
    });
  });

  describe('GET /customers/{id}?with[]=subscriptions', () => {
    it("the customer's subscriptions, newest first", async () => {
      const first = await fx.family();
      const second = await fx.family({ customerId: first.customerId });
      await fx.family();
      const res = await app.as(admin).get(`${BASE}/customers/${first.customerId}?with[]=subscriptions`);
      expect(res.status).toBe(200);
      expect(res.body.customer.subscriptions).toEqual([await fx.subscription(second.subscriptionId), await fx.subscription(first.subscriptionId)]);
    });
  });

  describe("POST /orders/{order_id}/refund with cancelSubscription: 'true'", () => {
    async function charge(orderId: number): Promise<number> {
      const [id] = await db()('store_order_transactions').insert({
        uuid: crypto.randomUUID(),
        order_id: orderId,
        transaction_type: 'charge',
        payment_method: 'subpay',
        vendor_charge_id: `ch_${orderId}`,
        status: 'succeeded',
        total: 1000,
        created_at: NOW,
        updated_at: NOW,
      });
      return Number(id);
    }
    const refund = async (orderId: number, over: Record<string, unknown> = {}) =>
      app
        .as(admin)
        .post(`${BASE}/orders/${orderId}/refund`)
        .send({ refund_info: { transaction_id: await charge(orderId), amount: '10.00', cancelSubscription: 'true', ...over } });

    it('refunded: the subscription is canceled at the gateway and in the store', async () => {
      const f = await fx.family();
      const res = await refund(f.orderId);
      expect(res.status).toBe(200);
      expect(res.body.fluent_cart_refund.status).toBe('success');
      expect(res.body.subscription_cancel).toEqual({ status: 'success', message: `Subscription #${f.subscriptionId} has been cancelled.` });
      expect(gateway.cancels.map((s) => s.id)).toEqual([f.subscriptionId]);
      expect(await fx.subscription(f.subscriptionId)).toMatchObject({ status: 'canceled', config: { cancel_reason: 'Refunded' } });
    });

    it("a renewal's refund cancels the subscription it renewed", async () => {
      const f = await fx.family();
      const renewalId = await fx.renewal(f.orderId, f.customerId);
      expect((await refund(renewalId)).body.subscription_cancel.status).toBe('success');
      expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
    });

    it('the gateway refuses the cancel: failed, with its response; canceled in the store, the refund recorded', async () => {
      const f = await fx.family();
      gateway.cancelAnswer = { status: 'failed', message: 'Subscription already ended.' };
      const res = await refund(f.orderId);
      expect(res.status).toBe(200);
      expect(res.body.fluent_cart_refund.status).toBe('success');
      expect(res.body.subscription_cancel).toEqual({
        status: 'failed',
        message: `Subscription #${f.subscriptionId} cancelled locally. Vendor Response: Subscription already ended.`,
      });
      expect((await fx.subscription(f.subscriptionId)).status).toBe('canceled');
    });

    it('the refund did not go through: nothing is canceled', async () => {
      const f = await fx.family();
      gateway.refund = async () => ({ status: 'failed', message: 'Card issuer declined the refund.' });
      const res = await refund(f.orderId);
      expect(res.status).toBe(502);
      expect(res.body.subscription_cancel).toEqual({ status: 'skipped', message: 'The refund did not go through, so the subscription was not canceled.' });
      expect(gateway.cancels).toEqual([]);
      expect((await fx.subscription(f.subscriptionId)).status).toBe('active');
    });

    it('not requested, or already canceled: skipped', async () => {
      const f = await fx.family();
      const notAsked = await refund(f.orderId, { cancelSubscription: 'false' });
      expect(notAsked.body.subscription_cancel).toEqual({ status: 'skipped', message: 'Canceling the subscription was not requested.' });
      expect((await fx.subscription(f.subscriptionId)).status).toBe('active');

      const canceled = await fx.family({ subscription: { status: 'canceled' } });
      expect((await refund(canceled.orderId)).body.subscription_cancel).toEqual({
        status: 'skipped',
        message: 'The subscription of the order was already canceled.',
      });
      expect(gateway.cancels).toEqual([]);
    });
  });

  describe('POST /orders/do-bulk-action delete_orders', () => {
    const remove = (ids: number[]) => app.as(admin).post(`${BASE}/orders/do-bulk-action`).send({ action: 'delete_orders', order_ids: ids });

    it("an unpaid subscription order goes with its subscription, the subscription's labels and a log entry", async () => {
      const f = await fx.family({ order: { status: 'on-hold', payment_status: 'pending', mode: 'live' }, subscription: { status: 'pending' } });
      const [labelId] = await db()('store_labels').insert({ title: `vip-${f.subscriptionId}`, created_at: NOW, updated_at: NOW });
      await db()('store_label_relations').insert({ label_id: labelId, object_type: 'subscription', object_id: f.subscriptionId, created_at: NOW });
      const deleted = fx.record('store/subscription/deleted');
      const res = await remove([f.orderId]);
      deleted.off();

      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Selected orders have been deleted successfully.');
      expect(await fx.count('store_subscriptions', { id: f.subscriptionId })).toBe(0);
      expect(await fx.count('store_orders', { id: f.orderId })).toBe(0);
      expect(await fx.count('store_label_relations', { object_type: 'subscription', object_id: f.subscriptionId })).toBe(0);
      expect(deleted.calls.map(([s]) => s.id)).toEqual([f.subscriptionId]);
      expect(await fx.count('store_activities', { object_type: 'subscription', object_id: f.subscriptionId, title: 'Subscription deleted' })).toBe(1);
    });

    it('a test-mode order whose subscription has ended goes with its renewals and the subscription', async () => {
      const f = await fx.family({ subscription: { status: 'expired' } });
      const renewalId = await fx.renewal(f.orderId, f.customerId, { mode: 'test' });
      const res = await remove([f.orderId]);
      expect(res.body.message).toBe('Selected orders have been deleted successfully. 1 renewal order was deleted with their subscription orders.');
      expect(await fx.count('store_orders', { id: renewalId })).toBe(0);
      expect(await fx.count('store_subscriptions', { id: f.subscriptionId })).toBe(0);
    });

    it.each(['active', 'trialing', 'failing', 'paused', 'expiring'])('a subscription still %s keeps its order whole (cancel it first)', async (status) => {
      const f = await fx.family({ subscription: { status } });
      const renewalId = await fx.renewal(f.orderId, f.customerId, { mode: 'test' });
      const before = await fx.snapshot();
      const res = await remove([f.orderId]);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe(
        '0 of 1 selected orders deleted. 1 order was not deleted: only unpaid orders that are canceled, on-hold, draft, pending or failed can be deleted, and a subscription order only together with all its renewals and once its subscription has ended (cancel it first).',
      );
      expect(await fx.snapshot()).toEqual(before);
      expect(await fx.count('store_orders', { id: renewalId })).toBe(1);
    });
  });

  describe('POST /orders/{order_id}/change-customer', () => {
    const change = (orderId: number, customerId: number) => app.as(admin).post(`${BASE}/orders/${orderId}/change-customer`).send({ customer_id: customerId });

    async function familyState(f: Family, renewalId: number) {
      const orders = await db()('store_orders').whereIn('id', [f.orderId, renewalId]).orderBy('id').select('customer_id');
      return { orders: orders.map((o) => Number(o.customer_id)), subscription: (await fx.subscription(f.subscriptionId)).customer_id };
    }

    it('moves the subscriptions with the orders, logged, store/subscription/updated after commit', async () => {
      const f = await fx.family();
      const renewalId = await fx.renewal(f.orderId, f.customerId);
      const target = await fx.customer();
      const updated = fx.record('store/subscription/updated');
      const res = await change(renewalId, target);
      updated.off();

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Customer changed successfully' });
      expect(await familyState(f, renewalId)).toEqual({ orders: [target, target], subscription: target });
      expect(updated.calls.map(([after, before]) => [after.id, before.customer_id, after.customer_id])).toEqual([[f.subscriptionId, f.customerId, target]]);
      const [activity] = await db()('store_activities').where({ object_type: 'subscription', object_id: f.subscriptionId, title: 'Customer changed' });
      expect(activity.content).toBe(`From customer #${f.customerId} to customer #${target}, with order #${f.orderId}.`);
    });

    it('a missing customer: 404 and nothing moves', async () => {
      const f = await fx.family();
      const before = await fx.snapshot();
      const res = await change(f.orderId, 999_999);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Customer not found' });
      expect(await fx.snapshot()).toEqual(before);
    });

    it('many changes of one family at once, from the parent and from a renewal: every one succeeds, the family stays together', async () => {
      const f = await fx.family();
      const renewals = [await fx.renewal(f.orderId, f.customerId), await fx.renewal(f.orderId, f.customerId)];
      const targets = [await fx.customer(), await fx.customer()];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => change(i % 3 === 0 ? f.orderId : renewals[i % 2], targets[i % 2])));
      expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
      const state = await familyState(f, renewals[0]);
      const owners = new Set([...state.orders, state.subscription, Number((await db()('store_orders').where({ id: renewals[1] }).first()).customer_id)]);
      expect(owners.size).toBe(1);
      expect(targets).toContain([...owners][0]);
    });
  });
});
