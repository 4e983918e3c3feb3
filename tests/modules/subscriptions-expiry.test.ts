/**
 * The subscription expiry sweep (src/modules/subscriptions/expiry.ts, job `store/subscriptions/expire` every hour):
 * `active`, `trialing`, `failing` and `expiring` subscriptions whose `next_billing_date` is past its grace period
 * (daily 1, weekly 3, monthly 7, longer 15 days; filter `store/subscription/grace_period_days`) become `expired`, as
 * do `expiring` ones whose paid period ended; everything else is left alone, and a second run changes nothing.
 */
import { toTimestamp } from '../../src/core/time';
import { expireSubscriptions } from '../../src/modules/subscriptions/expiry';
import { startTestApp, type TestApp } from '../support/app';
import { orderFixtures } from '../support/order-writes';
import { insertSubscription } from '../support/subscription-rows';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the subscription expiry sweep', () => {
  let app: TestApp;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    fx = orderFixtures(app, '2026-11-21 10:00:00');
  });
  afterAll(() => app.close());
  /** Whatever earlier tests left due is expired first, so that each test sees only its own rows. */
  beforeEach(async () => {
    app.clock.advance(DAY);
    await expireSubscriptions(app.ctx());
  });

  const db = () => app.host.db;
  /** `days` before the clock's now (negative: after). */
  const ago = (days: number) => toTimestamp(new Date(app.clock.now().getTime() - days * DAY));
  const statusOf = async (id: number) => String((await db()('store_subscriptions').where({ id }).first('status')).status);
  const runJobs = async () => {
    while ((await app.host.jobs.runDue(50)) > 0);
  };

  it('the hourly job expires exactly the subscriptions past their grace period, with an activity entry and hooks, once', async () => {
    const rows = {
      monthlyPast: await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: ago(7.1) }),
      monthlyInGrace: await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: ago(6.9) }),
      dailyTrialPast: await insertSubscription(db(), { status: 'trialing', billing_interval: 'daily', next_billing_date: ago(1.1) }),
      weeklyFailingInGrace: await insertSubscription(db(), { status: 'failing', billing_interval: 'weekly', next_billing_date: ago(2.9) }),
      weeklyFailingPast: await insertSubscription(db(), { status: 'failing', billing_interval: 'weekly', next_billing_date: ago(3.1) }),
      yearlyInGrace: await insertSubscription(db(), { status: 'active', billing_interval: 'yearly', next_billing_date: ago(14.9) }),
      quarterlyPast: await insertSubscription(db(), { status: 'active', billing_interval: 'quarterly', next_billing_date: ago(15.1) }),
      periodEnded: await insertSubscription(db(), { status: 'expiring', billing_interval: 'yearly', next_billing_date: ago(0.01), expire_at: ago(0.01) }),
      periodRunning: await insertSubscription(db(), { status: 'expiring', billing_interval: 'yearly', next_billing_date: ago(-30), expire_at: ago(-30) }),
      canceled: await insertSubscription(db(), { status: 'canceled', next_billing_date: ago(100) }),
      completed: await insertSubscription(db(), { status: 'completed', next_billing_date: null }),
      pending: await insertSubscription(db(), { status: 'pending', next_billing_date: null }),
      paused: await insertSubscription(db(), { status: 'paused', next_billing_date: ago(100) }),
    };
    const expired = fx.record('store/subscription/expired');
    const changed = fx.record('store/subscription/status_changed');

    app.clock.advance(HOUR);
    await runJobs();
    app.clock.advance(HOUR);
    await runJobs();
    expired.off();
    changed.off();

    const statuses = Object.fromEntries(await Promise.all(Object.entries(rows).map(async ([name, id]) => [name, await statusOf(id)] as const)));
    expect(statuses).toEqual({
      monthlyPast: 'expired',
      monthlyInGrace: 'active',
      dailyTrialPast: 'expired',
      weeklyFailingInGrace: 'failing',
      weeklyFailingPast: 'expired',
      yearlyInGrace: 'active',
      quarterlyPast: 'expired',
      periodEnded: 'expired',
      periodRunning: 'expiring',
      canceled: 'canceled',
      completed: 'completed',
      pending: 'pending',
      paused: 'paused',
    });
    const expiredIds = [rows.monthlyPast, rows.dailyTrialPast, rows.weeklyFailingPast, rows.quarterlyPast, rows.periodEnded];
    expect(expired.calls.map(([sub]) => sub.id).sort((a, b) => a - b)).toEqual(expiredIds);
    expect(changed.calls.map(([sub, previous]) => [sub.id, previous])).toEqual(
      expect.arrayContaining([
        [rows.monthlyPast, 'active'],
        [rows.periodEnded, 'expiring'],
      ]),
    );
    expect(changed.calls).toHaveLength(5);
    const activity = await db()('store_activities').where({ object_type: 'subscription', object_id: rows.monthlyPast }).select('title', 'content');
    expect(activity).toEqual([
      {
        title: 'Subscription expired',
        content: expect.stringMatching(
          /^Status changed from active to expired\. No payment since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(grace period 7 days\): expired automatically\.$/,
        ),
      },
    ]);
    expect((await db()('store_subscriptions').where({ id: rows.periodEnded }).first('expire_at')).expire_at).toBe(ago(0.01 + 2 / 24));
  });

  it('running the sweep again (a repeated or overlapping run) changes nothing', async () => {
    const id = await insertSubscription(db(), { status: 'active', next_billing_date: ago(30) });
    const expired = fx.record('store/subscription/expired');
    expect(await expireSubscriptions(app.ctx())).toBe(1);
    const [again, concurrent] = await Promise.all([expireSubscriptions(app.ctx()), expireSubscriptions(app.ctx())]);
    expired.off();
    expect([again, concurrent]).toEqual([0, 0]);
    expect(expired.calls).toHaveLength(1);
    expect(await statusOf(id)).toBe('expired');
    expect(await fx.count('store_activities', { object_type: 'subscription', object_id: id })).toBe(1);
  });

  it('goes through every due subscription batch after batch', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => insertSubscription(db(), { status: 'active', next_billing_date: ago(10) })));
    expect(await expireSubscriptions(app.ctx(), { batch: 2 })).toBe(5);
    expect(await Promise.all(ids.map(statusOf))).toEqual(Array(5).fill('expired'));
  });

  it('the grace period is a filter: 30 days for monthly subscriptions keeps one 10 days late', async () => {
    const id = await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: ago(10) });
    const off = app.host.hooks.addFilter('store/subscription/grace_period_days', (days, { interval }) => (interval === 'monthly' ? 30 : days));
    try {
      expect(await expireSubscriptions(app.ctx())).toBe(0);
    } finally {
      off();
    }
    expect(await statusOf(id)).toBe('active');
    expect(await expireSubscriptions(app.ctx())).toBe(1);
  });
});
