/**
 * The subscription lifecycle (src/modules/subscriptions/lifecycle.ts, service.ts, renewals.ts): the transition table
 * through `transitionSubscription` (allowed and refused, activity, hooks after commit), `addInterval`, and renewals
 * recorded exactly once per gateway charge (one, a duplicate, ten at once, an installment plan completing, a failing
 * subscription paid again, a subscription that cannot be renewed).
 */
import { transaction } from '../../src/core/context';
import { dialect } from '../../src/core/db';
import { AppError } from '../../src/core/errors';
import { addInterval, type SubscriptionEvent } from '../../src/modules/subscriptions/lifecycle';
import { recordRenewal, type RenewalInput } from '../../src/modules/subscriptions/renewals';
import { subscriptionForVendor, transitionSubscription, type SubscriptionPatch } from '../../src/modules/subscriptions/service';
import type { SubscriptionStatus } from '../../src/modules/subscriptions/types';
import { startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures } from '../support/checkout';
import { settleFirstPayment, subscriptionForm, subscriptionGateway } from '../support/subscription-checkout';
import { insertSubscription } from '../support/subscription-rows';

describe('addInterval', () => {
  it.each([
    ['2026-01-31 08:00:00', 'monthly', 1, '2026-02-28 08:00:00'],
    ['2028-01-31 08:00:00', 'monthly', 1, '2028-02-29 08:00:00'],
    ['2026-01-31 08:00:00', 'monthly', 3, '2026-04-30 08:00:00'],
    ['2026-03-31 00:00:00', 'monthly', 1, '2026-04-30 00:00:00'],
    ['2026-11-30 23:59:59', 'quarterly', 1, '2027-02-28 23:59:59'],
    ['2026-08-31 12:00:00', 'half_yearly', 1, '2027-02-28 12:00:00'],
    ['2028-02-29 12:00:00', 'yearly', 1, '2029-02-28 12:00:00'],
    ['2026-12-28 10:00:00', 'weekly', 1, '2027-01-04 10:00:00'],
    ['2026-12-31 23:00:00', 'daily', 1, '2027-01-01 23:00:00'],
    ['2026-11-21 10:00:00', 'daily', 14, '2026-12-05 10:00:00'],
  ] as const)('%s + %s × %i → %s (UTC, month-end safe)', (from, interval, count, to) => {
    expect(addInterval(from, interval, count)).toBe(to);
  });
});

describe('subscription lifecycle', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  const gateway = subscriptionGateway();

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('life-admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, gateway]);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const rowOf = async (id: number) => (await db()('store_subscriptions').where({ id }).first()) as Record<string, unknown>;
  const activityOf = async (id: number) =>
    (await db()('store_activities').where({ object_type: 'subscription', object_id: id }).orderBy('id').select('title', 'content')) as Array<{
      title: string;
      content: string;
    }>;
  const transition = (id: number, event: SubscriptionEvent, patch?: SubscriptionPatch) =>
    transaction(app.ctx(), (trx, afterCommit) => transitionSubscription(app.ctx(), trx, afterCommit, id, event, patch));

  describe('transitionSubscription: the table', () => {
    const allowed: Array<[SubscriptionStatus, SubscriptionEvent, SubscriptionStatus]> = [
      ['pending', 'activate', 'active'],
      ['intended', 'activate', 'active'],
      ['pending', 'start_trial', 'trialing'],
      ['active', 'fail', 'failing'],
      ['trialing', 'fail', 'failing'],
      ['failing', 'fail', 'failing'],
      ['failing', 'renew', 'active'],
      ['trialing', 'renew', 'active'],
      ['expired', 'renew', 'active'],
      ['canceled', 'renew', 'canceled'],
      ['expiring', 'renew', 'expiring'],
      ['active', 'cancel', 'canceled'],
      ['pending', 'cancel', 'canceled'],
      ['expired', 'cancel', 'canceled'],
      ['active', 'cancel_at_period_end', 'expiring'],
      ['failing', 'cancel_at_period_end', 'expiring'],
      ['expiring', 'expire', 'expired'],
      ['active', 'expire', 'expired'],
      ['active', 'complete', 'completed'],
      ['canceled', 'reactivate', 'active'],
    ];
    it.each(allowed)('%s --%s--> %s', async (from, event, to) => {
      const id = await insertSubscription(db(), { status: from });
      const subscription = await transition(id, event);
      expect(subscription.status).toBe(to);
      expect((await rowOf(id)).status).toBe(to);
      expect(await activityOf(id)).toHaveLength(1);
    });

    const refused: Array<[SubscriptionStatus, SubscriptionEvent]> = [
      ['active', 'activate'],
      ['canceled', 'activate'],
      ['active', 'start_trial'],
      ['pending', 'renew'],
      ['intended', 'renew'],
      ['pending', 'fail'],
      ['canceled', 'fail'],
      ['canceled', 'cancel'],
      ['pending', 'cancel_at_period_end'],
      ['expired', 'cancel_at_period_end'],
      ['canceled', 'expire'],
      ['pending', 'expire'],
      ['completed', 'expire'],
      ['canceled', 'complete'],
      ['active', 'reactivate'],
    ];
    it.each(refused)('%s --%s--> refused: 400 invalid_state, nothing written', async (from, event) => {
      const id = await insertSubscription(db(), { status: from });
      const before = await rowOf(id);
      const error = await transition(id, event).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: 'invalid_state',
        status: 400,
        message: expect.stringMatching(new RegExp(`^The subscription is ${from} and cannot be `)),
      });
      expect(await rowOf(id)).toEqual(before);
      expect(await activityOf(id)).toEqual([]);
    });

    it('an unknown subscription is a 404', async () => {
      await expect(transition(999_999, 'cancel')).rejects.toMatchObject({ status: 404, message: 'Subscription not found' });
    });
  });

  describe('transitionSubscription: dates, activity, hooks', () => {
    it('cancel: canceled_at set, an activity entry, status_changed and canceled after the commit only', async () => {
      const id = await insertSubscription(db(), { status: 'active' });
      const changed = fx.record('store/subscription/status_changed');
      const canceled = fx.record('store/subscription/canceled');
      let firedInside = -1;
      await transaction(app.ctx(), async (trx, afterCommit) => {
        await transitionSubscription(app.ctx(), trx, afterCommit, id, 'cancel', {}, { note: 'Reason: too expensive.' });
        firedInside = canceled.calls.length;
      });
      changed.off();
      canceled.off();
      expect(firedInside).toBe(0);
      expect(changed.calls.map(([sub, previous]) => [sub.id, sub.status, previous])).toEqual([[id, 'canceled', 'active']]);
      expect(canceled.calls.map(([sub, previous]) => [sub.id, previous])).toEqual([[id, 'active']]);
      expect((await rowOf(id)).canceled_at).toBe('2026-11-21 10:00:00');
      expect(await activityOf(id)).toEqual([{ title: 'Subscription canceled', content: 'Status changed from active to canceled. Reason: too expensive.' }]);
    });

    it('a transaction that rolls back fires nothing and keeps nothing', async () => {
      const id = await insertSubscription(db(), { status: 'active' });
      const changed = fx.record('store/subscription/status_changed');
      await expect(
        transaction(app.ctx(), async (trx, afterCommit) => {
          await transitionSubscription(app.ctx(), trx, afterCommit, id, 'fail');
          throw new Error('later step failed');
        }),
      ).rejects.toThrow('later step failed');
      changed.off();
      expect(changed.calls).toEqual([]);
      expect((await rowOf(id)).status).toBe('active');
      expect(await activityOf(id)).toEqual([]);
    });

    it('cancel at period end: expiring until next_billing_date (expire_at), hook expiring', async () => {
      const id = await insertSubscription(db(), { status: 'active', next_billing_date: '2026-12-01 00:00:00' });
      const expiring = fx.record('store/subscription/expiring');
      await transition(id, 'cancel_at_period_end');
      expiring.off();
      expect(await rowOf(id)).toMatchObject({ status: 'expiring', expire_at: '2026-12-01 00:00:00', canceled_at: '2026-11-21 10:00:00' });
      expect(expiring.calls).toHaveLength(1);
    });

    it('sync takes the status the gateway reports (its hook fires); the same status with new dates fires updated; an unknown status is refused', async () => {
      const id = await insertSubscription(db(), { status: 'active', next_billing_date: '2026-12-01 00:00:00' });
      const failing = fx.record('store/subscription/failing');
      const updated = fx.record('store/subscription/updated');
      await transition(id, 'sync', { status: 'failing' });
      await transition(id, 'sync', { status: 'failing', next_billing_date: '2026-12-03 00:00:00' });
      failing.off();
      updated.off();
      expect(failing.calls.map(([sub, previous]) => [sub.status, previous])).toEqual([['failing', 'active']]);
      expect(updated.calls.map(([sub, previous]) => [sub.next_billing_date, previous.next_billing_date])).toEqual([
        ['2026-12-03 00:00:00', '2026-12-01 00:00:00'],
      ]);
      await expect(transition(id, 'sync', { status: 'past_due' as SubscriptionStatus })).rejects.toMatchObject({
        status: 400,
        message: 'The gateway reported an unknown subscription status: past_due.',
      });
      expect((await rowOf(id)).status).toBe('failing');
    });
  });

  describe('recordRenewal', () => {
    /** An active subscription bought through checkout: the order placed with the subscription gateway, its first payment settled. */
    async function activeSubscription(terms: Record<string, unknown> = {}, quantity = 2) {
      const plan = await fx.variation(1500, {
        title: 'Box',
        fulfillment_type: 'digital',
        variation: { title: 'Monthly', payment_type: 'subscription', billing_interval: 'monthly', ...terms },
      });
      const hash = await fx.cartWith([[plan.id, quantity]]);
      const res = await fx.place(hash, subscriptionForm('subpay'));
      if (res.status !== 200) throw new Error(`place-order: ${res.status} ${JSON.stringify(res.body)}`);
      const order = await fx.orderOfCart(hash);
      const charge = (await db()('store_order_transactions').where({ order_id: order.id }).first()) as Record<string, unknown>;
      expect(await settleFirstPayment(app, 'subpay', String(charge.vendor_charge_id), Number(order.total_amount))).toBe('paid');
      const subscription = (await db()('store_subscriptions').where({ parent_order_id: order.id }).first()) as Record<string, unknown>;
      return { order, id: Number(subscription.id), vendorId: String(subscription.vendor_subscription_id) };
    }
    let charges = 0;
    const input = (subscriptionId: number, over: Partial<RenewalInput> = {}): RenewalInput => ({
      subscription_id: subscriptionId,
      payment_method: 'subpay',
      vendor_charge_id: `in_renewal_${++charges}`,
      amount: 3000,
      currency: 'USD',
      ...over,
    });
    const renew = (renewal: RenewalInput) => transaction(app.ctx(), (trx, afterCommit) => recordRenewal(app.ctx(), trx, afterCommit, renewal));
    /** Resolves for everyone once `count` callers are waiting (then at once for later ones). */
    const barrier = (count: number) => {
      let waiting = 0;
      let open: () => void = () => undefined;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return () => {
        waiting += 1;
        if (waiting >= count) open();
        return opened;
      };
    };
    const renewalOrders = (parentId: unknown) => db()('store_orders').where({ parent_id: parentId, type: 'renewal' }).orderBy('id');

    it('one renewal: a paid renewal order (parent, item, addresses, charge with subscription_id, invoice number), bill_count + 1, the next date one month on', async () => {
      const { order, id } = await activeSubscription();
      const renewed = fx.record('store/subscription/renewed');
      const paid = fx.record('store/order/paid');
      const renewal = input(id);

      const result = await renew(renewal);
      renewed.off();
      paid.off();

      const [child] = await renewalOrders(order.id);
      expect(result).toMatchObject({ outcome: 'renewed', order_id: child.id, subscription: { id, status: 'active', bill_count: 2 } });
      expect(child).toMatchObject({
        type: 'renewal',
        parent_id: order.id,
        customer_id: order.customer_id,
        status: 'completed',
        payment_status: 'paid',
        payment_method: 'subpay',
        currency: 'USD',
        total_amount: 3000,
        total_paid: 3000,
      });
      expect(child.invoice_no).not.toBe('');
      expect(child.invoice_no).not.toBe(order.invoice_no);
      expect(
        await db()('store_order_items').where({ order_id: child.id }).select('variation_id', 'payment_type', 'title', 'quantity', 'unit_price', 'line_total'),
      ).toEqual([{ variation_id: expect.any(Number), payment_type: 'subscription', title: 'Monthly', quantity: 2, unit_price: 1500, line_total: 3000 }]);
      const addresses = (rows: Array<Record<string, unknown>>) =>
        rows.map(({ type, name, address_1, city, country }) => ({ type, name, address_1, city, country }));
      expect(addresses(await db()('store_order_addresses').where({ order_id: child.id }).orderBy('type'))).toEqual(
        addresses(await db()('store_order_addresses').where({ order_id: order.id }).orderBy('type')),
      );
      expect(
        await db()('store_order_transactions').where({ order_id: child.id }).select('order_type', 'status', 'total', 'vendor_charge_id', 'subscription_id'),
      ).toEqual([{ order_type: 'renewal', status: 'succeeded', total: 3000, vendor_charge_id: renewal.vendor_charge_id, subscription_id: id }]);
      expect(await rowOf(id)).toMatchObject({ status: 'active', bill_count: 2, next_billing_date: '2027-01-21 10:00:00' });
      expect(renewed.calls.map(([sub, renewalOrder]) => [sub.id, sub.bill_count, renewalOrder.id, renewalOrder.payment_status])).toEqual([
        [id, 2, child.id, 'paid'],
      ]);
      expect(paid.calls.map(([paidOrder]) => paidOrder.id)).toEqual([child.id]);
      expect((await activityOf(id)).at(-1)).toEqual({
        title: 'Subscription renewed',
        content: `Renewal order #${child.id} paid: 30.00 USD (charge ${renewal.vendor_charge_id}), payment 2.`,
      });
    });

    it('the same charge again (another delivery, another event id): duplicate, nothing written, no hook', async () => {
      const { order, id } = await activeSubscription();
      const renewal = input(id);
      const first = await renew(renewal);
      const renewed = fx.record('store/subscription/renewed');
      const again = await renew(renewal);
      renewed.off();
      expect(again).toMatchObject({ outcome: 'duplicate', order_id: first.order_id, subscription: { bill_count: 2 } });
      expect(await renewalOrders(order.id)).toHaveLength(1);
      expect((await rowOf(id)).bill_count).toBe(2);
      expect(renewed.calls).toEqual([]);
    });

    it('ten deliveries of one charge at once, each in its own transaction: one renewal order, nine duplicates', async () => {
      const { order, id, vendorId } = await activeSubscription();
      const renewal = input(id);
      const renewed = fx.record('store/subscription/renewed');
      // On MariaDB all ten have read (their snapshot taken, as a webhook's lookup takes it) before any records: the
      // losers' snapshots cannot show the winner's charge, so the unique key has the last word. SQLite runs one
      // transaction at a time on its one connection: nobody waits there.
      const arrived = barrier(dialect(db()) === 'mysql' ? 10 : 1);
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () =>
          transaction(app.ctx(), async (trx, afterCommit) => {
            const found = await subscriptionForVendor(trx, 'subpay', vendorId);
            await arrived();
            return (await recordRenewal(app.ctx(), trx, afterCommit, { ...renewal, subscription_id: Number(found?.id) })).outcome;
          }),
        ),
      );
      renewed.off();
      expect(outcomes.filter((outcome) => outcome === 'renewed')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(9);
      expect(await renewalOrders(order.id)).toHaveLength(1);
      expect(await fx.count('store_order_transactions', { vendor_charge_id: renewal.vendor_charge_id })).toBe(1);
      expect((await rowOf(id)).bill_count).toBe(2);
      expect(renewed.calls).toHaveLength(1);
    });

    it('an installment plan completes when bill_count reaches bill_times: completed, no next date, hook completed', async () => {
      const { order, id } = await activeSubscription({ bill_times: 3 });
      const completed = fx.record('store/subscription/completed');
      expect((await renew(input(id))).subscription).toMatchObject({ status: 'active', bill_count: 2 });
      const last = await renew(input(id));
      completed.off();
      expect(last).toMatchObject({ outcome: 'renewed', subscription: { status: 'completed', bill_count: 3, next_billing_date: null } });
      expect(completed.calls.map(([sub, previous]) => [sub.id, previous])).toEqual([[id, 'active']]);
      expect(await renewalOrders(order.id)).toHaveLength(2);
    });

    it('a failing subscription paid again is active again, its next date one month after the missed one', async () => {
      const { id } = await activeSubscription();
      await transition(id, 'fail');
      const changed = fx.record('store/subscription/status_changed');
      const result = await renew(input(id));
      changed.off();
      expect(result.subscription).toMatchObject({ status: 'active', bill_count: 2, next_billing_date: '2027-01-21 10:00:00' });
      expect(changed.calls.map(([sub, previous]) => [sub.status, previous])).toEqual([['active', 'failing']]);
    });

    it('a subscription not started yet cannot be renewed: 400, nothing written', async () => {
      const id = await insertSubscription(db(), { status: 'pending' });
      const orders = await fx.count('store_orders');
      await expect(renew(input(id))).rejects.toMatchObject({
        code: 'invalid_state',
        status: 400,
        message: 'The subscription is pending and cannot be renewed.',
      });
      expect(await fx.count('store_orders')).toBe(orders);
    });
  });
});
