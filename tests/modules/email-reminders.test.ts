/**
 * Reminder emails (src/modules/email-notification/reminders/, job `store/email/reminders` every hour). A sweep finds
 * what is due now and has no marker in `store_reminder_marks`, writes the marker and enqueues the two emails (customer
 * and admin: jobs `store/email/send`, event key `reminder:<occasion>`) in one transaction:
 * - renewal (active subscriptions, N days before `next_billing_date`, N by interval; occasion the billing date);
 * - trial end (trialing subscriptions, `trial_end_reminder_days` before `trial_ends_at`; occasion the end date);
 * - invoice overdue (orders awaiting payment, d days past `invoice_reminder_due_days` after creation, for each d of
 *   `invoice_reminder_overdue_days`; occasion `overdue:<d>`).
 * Nothing is sent unless `reminders_enabled` and the kind's toggle are `yes` (saved through
 * `PUT /email-notification/reminders`).
 */
import { toTimestamp } from '../../src/core/time';
import { REMINDER_KINDS, sweepReminders } from '../../src/modules/email-notification/reminders/sweep';
import type { SendEmailJob } from '../../src/modules/email-notification/types';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';
import { insertOrder } from '../support/orders';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';
import { insertSubscription } from '../support/subscription-rows';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Every toggle off: each test switches on what it needs. */
const ALL_OFF = {
  reminders_enabled: 'no',
  invoice_reminders_enabled: 'no',
  yearly_renewal_reminders_enabled: 'no',
  trial_end_reminders_enabled: 'no',
  monthly_renewal_reminders_enabled: 'no',
  quarterly_renewal_reminders_enabled: 'no',
  half_yearly_renewal_reminders_enabled: 'no',
};

describe('email reminders: the hourly sweep', () => {
  let app: TestApp;
  let admin: TestUser;
  let customerId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    customerId = await orderFixtures(app, '2026-11-21 10:00:00').customer();
  });
  afterAll(() => app.close());
  /** Each test starts from no subscription, no order, no marker and no email job, every reminder switched off. */
  beforeEach(async () => {
    await db()('store_subscriptions').delete();
    await db()('store_orders').delete();
    await db()('store_reminder_marks').delete();
    await db()('jobs').where({ name: 'store/email/send' }).delete();
    await saveReminders(ALL_OFF);
  });

  const db = () => app.host.db;
  /** `days` after the clock's now (negative: before). */
  const inDays = (days: number) => toTimestamp(new Date(app.clock.now().getTime() + days * DAY));
  const sweep = (options: { batch?: number } = {}) => sweepReminders(app.ctx(), options);
  const runJobs = async () => {
    while ((await app.host.jobs.runDue(50)) > 0);
  };

  async function saveReminders(body: Record<string, unknown>): Promise<void> {
    const res = await app.as(admin).put(`${BASE}/email-notification/reminders`).send(body);
    expect({ status: res.status, message: res.body.message }).toEqual({ status: 200, message: 'Reminder settings saved successfully' });
  }

  /** Every marker, in the order written. */
  const marks = async () =>
    (await db()('store_reminder_marks').orderBy('id').select('kind', 'object_type', 'object_id', 'occasion')).map((row) => ({
      ...row,
      object_id: Number(row.object_id),
    }));

  /** Every email job: its payload and unique key, in the order enqueued. */
  const emailJobs = async () =>
    (await db()('jobs').where({ name: 'store/email/send' }).orderBy('id').select('payload', 'unique_key')).map((row) => ({
      ...(JSON.parse(row.payload as string) as SendEmailJob),
      unique_key: row.unique_key as string,
    }));

  /** The two jobs a reminder enqueues. */
  const jobsOf = (object_type: SendEmailJob['object_type'], object_id: number, occasion: string, notifications: [string, string]) =>
    notifications.map((notification) => ({
      notification,
      object_type,
      object_id,
      event_key: `reminder:${occasion}`,
      unique_key: `email:${notification}:${object_type}:${object_id}:reminder:${occasion}`,
    }));
  const RENEWAL: [string, string] = ['subscription_renewal_reminder_customer', 'subscription_renewal_reminder_admin'];
  const TRIAL: [string, string] = ['subscription_trial_end_reminder_customer', 'subscription_trial_end_reminder_admin'];
  const OVERDUE: [string, string] = ['invoice_reminder_overdue_customer', 'invoice_reminder_overdue_admin'];

  /** An order awaiting payment (bank transfer, on hold), created `daysAgo` days before now. */
  const unpaidOrder = (daysAgo: number, over: Record<string, unknown> = {}) =>
    insertOrder(db(), customerId, inDays(-daysAgo), {
      status: 'on-hold',
      payment_status: 'pending',
      payment_method: 'bank_transfer',
      total_amount: 2500,
      total_paid: 0,
      ...over,
    });

  describe('renewal reminders', () => {
    it('remind an active monthly subscription once, from `monthly_renewal_reminder_days` before its billing date, and again next cycle', async () => {
      await saveReminders({ reminders_enabled: 'yes', monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 7 });
      const billing = inDays(7 + 2 / 24);
      const id = await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: billing });

      expect(await sweep()).toBe(0);
      app.clock.advance(HOUR);
      expect(await sweep()).toBe(0);
      expect(await marks()).toEqual([]);

      app.clock.advance(2 * HOUR);
      expect(await sweep()).toBe(1);
      expect(await sweep()).toBe(0);
      app.clock.advance(6 * DAY);
      expect(await sweep()).toBe(0);
      expect(await marks()).toEqual([{ kind: 'renewal', object_type: 'subscription', object_id: id, occasion: billing }]);
      expect(await emailJobs()).toEqual(jobsOf('subscription', id, billing, RENEWAL));

      const nextBilling = inDays(30);
      await db()('store_subscriptions').where({ id }).update({ next_billing_date: nextBilling });
      expect(await sweep()).toBe(0);
      app.clock.advance(23 * DAY + HOUR);
      expect(await sweep()).toBe(1);
      expect((await marks()).map((m) => m.occasion)).toEqual([billing, nextBilling]);
      expect(await emailJobs()).toEqual([...jobsOf('subscription', id, billing, RENEWAL), ...jobsOf('subscription', id, nextBilling, RENEWAL)]);
    });

    it("use each interval's own day setting; weekly and daily subscriptions get none", async () => {
      await saveReminders({
        reminders_enabled: 'yes',
        monthly_renewal_reminders_enabled: 'yes',
        monthly_renewal_reminder_days: 5,
        quarterly_renewal_reminders_enabled: 'yes',
        quarterly_renewal_reminder_days: 14,
        half_yearly_renewal_reminders_enabled: 'yes',
        half_yearly_renewal_reminder_days: 20,
        yearly_renewal_reminders_enabled: 'yes',
        yearly_renewal_reminder_days: 30,
      });
      const sub = (billing_interval: string, days: number) => insertSubscription(db(), { status: 'active', billing_interval, next_billing_date: inDays(days) });
      const due = [await sub('monthly', 4.9), await sub('quarterly', 13.9), await sub('half_yearly', 19.9), await sub('yearly', 29.9)];
      for (const [interval, days] of [
        ['monthly', 5.1],
        ['quarterly', 14.1],
        ['half_yearly', 20.1],
        ['yearly', 30.1],
        ['weekly', 1],
        ['daily', 0.5],
      ] as const) {
        await sub(interval, days);
      }

      expect(await sweep()).toBe(4);
      expect((await marks()).map((m) => m.object_id)).toEqual(due);
    });

    it('skip what will not be billed on that date: canceled, expiring, paused or failing subscriptions, a completed installment plan, an end before the date, a date already past', async () => {
      await saveReminders({ reminders_enabled: 'yes', monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 7 });
      const soon = inDays(3);
      const sub = (over: Record<string, unknown>) =>
        insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: soon, ...over });
      for (const status of ['canceled', 'expiring', 'paused', 'failing', 'trialing', 'expired', 'completed']) await sub({ status });
      await sub({ bill_times: 3, bill_count: 3 });
      await sub({ expire_at: inDays(2) });
      await sub({ next_billing_date: inDays(-1 / 24) });
      const lastInstallment = await sub({ bill_times: 3, bill_count: 2 });
      const endsAfter = await sub({ expire_at: inDays(40) });

      expect(await sweep()).toBe(2);
      expect(await marks()).toEqual([
        { kind: 'renewal', object_type: 'subscription', object_id: lastInstallment, occasion: soon },
        { kind: 'renewal', object_type: 'subscription', object_id: endsAfter, occasion: soon },
      ]);
    });
  });

  describe('trial-end reminders', () => {
    it('remind a trialing subscription once, from `trial_end_reminder_days` before its trial ends', async () => {
      await saveReminders({ reminders_enabled: 'yes', trial_end_reminders_enabled: 'yes', trial_end_reminder_days: 3 });
      const ends = inDays(3 + 1 / 24);
      const id = await insertSubscription(db(), { status: 'trialing', trial_ends_at: ends, next_billing_date: ends });
      await insertSubscription(db(), { status: 'active', trial_ends_at: inDays(1), next_billing_date: inDays(20) });
      await insertSubscription(db(), { status: 'canceled', trial_ends_at: inDays(1), next_billing_date: inDays(1) });

      expect(await sweep()).toBe(0);
      app.clock.advance(2 * HOUR);
      expect(await sweep()).toBe(1);
      app.clock.advance(DAY);
      expect(await sweep()).toBe(0);

      expect(await marks()).toEqual([{ kind: 'trial_end', object_type: 'subscription', object_id: id, occasion: ends }]);
      expect(await emailJobs()).toEqual(jobsOf('subscription', id, ends, TRIAL));
    });
  });

  describe('overdue invoice reminders', () => {
    it('remind an unpaid order once per overdue day, d days after its due date', async () => {
      await saveReminders({ reminders_enabled: 'yes', invoice_reminders_enabled: 'yes', invoice_reminder_due_days: 2, invoice_reminder_overdue_days: '3, 1' });
      const id = await unpaidOrder(0);

      app.clock.advance(3 * DAY - HOUR);
      expect(await sweep()).toBe(0);
      app.clock.advance(2 * HOUR);
      expect(await sweep()).toBe(1);
      app.clock.advance(2 * DAY - 2 * HOUR);
      expect(await sweep()).toBe(0);
      app.clock.advance(2 * HOUR);
      expect(await sweep()).toBe(1);
      for (const days of [1, 2, 10]) {
        app.clock.advance(days * DAY);
        expect(await sweep()).toBe(0);
      }

      expect(await marks()).toEqual([
        { kind: 'invoice_overdue', object_type: 'order', object_id: id, occasion: 'overdue:1' },
        { kind: 'invoice_overdue', object_type: 'order', object_id: id, occasion: 'overdue:3' },
      ]);
      expect(await emailJobs()).toEqual([...jobsOf('order', id, 'overdue:1', OVERDUE), ...jobsOf('order', id, 'overdue:3', OVERDUE)]);
    });

    it('go to orders awaiting payment only (pending or on hold, nothing paid, something to pay), and stop once the order is paid or canceled', async () => {
      await saveReminders({ reminders_enabled: 'yes', invoice_reminders_enabled: 'yes', invoice_reminder_due_days: 0, invoice_reminder_overdue_days: '1,3' });
      const awaiting = [
        await unpaidOrder(1.5),
        await unpaidOrder(1.5, { status: 'pending', payment_method: 'cod' }),
        await unpaidOrder(1.5, { type: 'renewal', payment_method: 'stripe' }),
      ];
      await unpaidOrder(1.5, { status: 'draft' });
      await unpaidOrder(1.5, { status: 'canceled' });
      await unpaidOrder(1.5, { status: 'failed', payment_status: 'failed' });
      await unpaidOrder(1.5, { status: 'processing', payment_status: 'paid', total_paid: 2500 });
      await unpaidOrder(1.5, { payment_status: 'partially-paid', total_paid: 1000 });
      await unpaidOrder(1.5, { total_amount: 0 });

      expect(await sweep()).toBe(3);
      expect(await marks()).toEqual(awaiting.map((object_id) => ({ kind: 'invoice_overdue', object_type: 'order', object_id, occasion: 'overdue:1' })));

      await db()('store_orders').where({ id: awaiting[0] }).update({ status: 'processing', payment_status: 'paid', total_paid: 2500 });
      await db()('store_orders').where({ id: awaiting[1] }).update({ status: 'canceled' });
      app.clock.advance(2 * DAY);
      expect(await sweep()).toBe(1);
      expect((await marks()).slice(3)).toEqual([{ kind: 'invoice_overdue', object_type: 'order', object_id: awaiting[2], occasion: 'overdue:3' }]);
    });

    it('catch up a missed day within 3 days; a later day reached meanwhile replaces it; older orders are left alone', async () => {
      await saveReminders({ reminders_enabled: 'yes', invoice_reminders_enabled: 'yes', invoice_reminder_due_days: 0, invoice_reminder_overdue_days: '1,7' });
      const dayOneTwoDaysAgo = await unpaidOrder(3);
      await unpaidOrder(5); // day 1 came 4 days ago: too late, and day 7 is still ahead
      const daySevenOneDayAgo = await unpaidOrder(8);
      await unpaidOrder(10.5); // day 7 came 3.5 days ago: too late

      expect(await sweep()).toBe(2);
      expect(await marks()).toEqual([
        { kind: 'invoice_overdue', object_type: 'order', object_id: dayOneTwoDaysAgo, occasion: 'overdue:1' },
        { kind: 'invoice_overdue', object_type: 'order', object_id: daySevenOneDayAgo, occasion: 'overdue:7' },
      ]);
    });
  });

  describe('settings', () => {
    it('send nothing while `reminders_enabled` is off, nor for a kind whose own toggle is off', async () => {
      await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: inDays(2) });
      await insertSubscription(db(), { status: 'trialing', trial_ends_at: inDays(1), next_billing_date: inDays(1) });
      await unpaidOrder(1.5);
      const everything = {
        invoice_reminders_enabled: 'yes',
        invoice_reminder_due_days: 0,
        invoice_reminder_overdue_days: '1',
        monthly_renewal_reminders_enabled: 'yes',
        monthly_renewal_reminder_days: 7,
        trial_end_reminders_enabled: 'yes',
        trial_end_reminder_days: 3,
      };

      await saveReminders({ ...everything, reminders_enabled: 'no' });
      expect(await sweep()).toBe(0);
      await saveReminders({ ...ALL_OFF, reminders_enabled: 'yes' });
      expect(await sweep()).toBe(0);
      expect(await marks()).toEqual([]);
      expect(await emailJobs()).toEqual([]);

      await saveReminders({ trial_end_reminders_enabled: 'yes', trial_end_reminder_days: 3 });
      expect(await sweep()).toBe(1);
      expect((await marks()).map((m) => m.kind)).toEqual(['trial_end']);
      await saveReminders(everything);
      expect(await sweep()).toBe(2);
      expect((await marks()).map((m) => m.kind)).toEqual(['trial_end', 'renewal', 'invoice_overdue']);
    });

    it('apply changed day settings at the next sweep', async () => {
      await saveReminders({ reminders_enabled: 'yes', monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 7 });
      const id = await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: inDays(10) });
      expect(await sweep()).toBe(0);

      await saveReminders({ monthly_renewal_reminder_days: 14 });
      expect(await sweep()).toBe(1);
      expect(await marks()).toEqual([{ kind: 'renewal', object_type: 'subscription', object_id: id, occasion: inDays(10) }]);
    });

    it('send no email for a notification switched off, but still mark the occasion', async () => {
      await saveReminders({ reminders_enabled: 'yes', trial_end_reminders_enabled: 'yes', trial_end_reminder_days: 3 });
      const res = await app.as(admin).post(`${BASE}/email-notification/enable-notification/subscription_trial_end_reminder_admin`).send({ active: 'no' });
      expect(res.status).toBe(200);
      const ends = inDays(2);
      const id = await insertSubscription(db(), { status: 'trialing', trial_ends_at: ends, next_billing_date: ends });
      try {
        expect(await sweep()).toBe(1);
        expect(await emailJobs()).toEqual(jobsOf('subscription', id, ends, TRIAL).slice(0, 1));
      } finally {
        await app.as(admin).post(`${BASE}/email-notification/enable-notification/subscription_trial_end_reminder_admin`).send({ active: 'yes' }).expect(200);
      }
    });
  });

  describe('runs', () => {
    it('the hourly job catches up hours it missed, and runs again without reminding twice', async () => {
      await saveReminders({ reminders_enabled: 'yes', monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 7 });
      await runJobs();
      const billing = inDays(7 + 1 / 24);
      const id = await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: billing });

      app.clock.advance(5 * HOUR);
      await runJobs();
      app.clock.advance(HOUR);
      await runJobs();

      expect(await marks()).toEqual([{ kind: 'renewal', object_type: 'subscription', object_id: id, occasion: billing }]);
      expect((await emailJobs()).map(({ notification, event_key }) => [notification, event_key])).toEqual(
        RENEWAL.map((notification) => [notification, `reminder:${billing}`]),
      );
      const sweeps = await db()('jobs').where({ name: 'store/email/reminders' }).whereNot('status', 'done').count({ n: '*' });
      expect(Number(sweeps[0].n)).toBe(0);
    });

    it('two sweeps at once remind each object once', async () => {
      await saveReminders({ reminders_enabled: 'yes', monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 7 });
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: inDays(1 + i) }));

      const [first, second] = await Promise.all([sweep({ batch: 2 }), sweep({ batch: 2 })]);

      expect(first + second).toBe(5);
      expect((await marks()).map((m) => m.object_id).sort((a, b) => a - b)).toEqual(ids);
      expect(await emailJobs()).toHaveLength(10);
    });

    it('goes through every kind batch after batch', async () => {
      await saveReminders({
        reminders_enabled: 'yes',
        monthly_renewal_reminders_enabled: 'yes',
        monthly_renewal_reminder_days: 7,
        trial_end_reminders_enabled: 'yes',
        trial_end_reminder_days: 3,
        invoice_reminders_enabled: 'yes',
        invoice_reminder_due_days: 0,
        invoice_reminder_overdue_days: '1',
      });
      for (let i = 0; i < 5; i++) {
        await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: inDays(2) });
        await insertSubscription(db(), { status: 'trialing', trial_ends_at: inDays(2), next_billing_date: inDays(2) });
        await unpaidOrder(1.5);
      }

      expect(await sweep({ batch: 2 })).toBe(15);
      const counts = (await marks()).reduce<Record<string, number>>((all, m) => ({ ...all, [m.kind]: (all[m.kind] ?? 0) + 1 }), {});
      expect(counts).toEqual(Object.fromEntries(REMINDER_KINDS.map((kind) => [kind.kind, 5])));
      expect(await emailJobs()).toHaveLength(30);
    });

    it('a sweep that fails mid-batch leaves neither a marker nor an email of that batch; the next sweep reminds what it missed, once', async () => {
      await saveReminders({ reminders_enabled: 'yes', monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 7 });
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push(await insertSubscription(db(), { status: 'active', billing_interval: 'monthly', next_billing_date: inDays(2) }));
      const jobs = app.host.jobs;
      const enqueue = jobs.enqueue.bind(jobs);
      const failing = jest.spyOn(jobs, 'enqueue').mockImplementation((name, payload, options) => {
        const job = payload as SendEmailJob;
        if (job.object_id === ids[2] && job.notification === 'subscription_renewal_reminder_admin') return Promise.reject(new Error('database went away'));
        return enqueue(name, payload, options);
      });
      try {
        await expect(sweep({ batch: 2 })).rejects.toThrow('database went away');
      } finally {
        failing.mockRestore();
      }
      expect((await marks()).map((m) => m.object_id)).toEqual(ids.slice(0, 2));
      expect((await emailJobs()).map((job) => job.object_id)).toEqual([ids[0], ids[0], ids[1], ids[1]]);

      expect(await sweep({ batch: 2 })).toBe(2);
      expect((await marks()).map((m) => m.object_id)).toEqual(ids);
      expect((await emailJobs()).map((job) => job.object_id)).toEqual(ids.flatMap((id) => [id, id]));
    });
  });
});

describe('email reminders: end to end through SMTP', () => {
  let sink: SmtpSink;
  let app: TestApp;

  beforeAll(async () => {
    sink = await startSmtpSink();
    app = await startTestApp({ config: { smtpUrl: sink.url } });
  });
  afterAll(async () => {
    await app.close();
    await sink.close();
  });

  const runJobs = async () => {
    while ((await app.host.jobs.runDue(50)) > 0);
  };

  it('the hourly job sends each reminder (renewal, trial end, overdue invoice) to the customer and the admin once, with its smartcodes filled', async () => {
    const admin = await app.createUser('admin', ['administrator']);
    const res = await app.as(admin).put(`${BASE}/email-notification/reminders`).send({
      reminders_enabled: 'yes',
      monthly_renewal_reminders_enabled: 'yes',
      monthly_renewal_reminder_days: 7,
      invoice_reminders_enabled: 'yes',
      invoice_reminder_due_days: 0,
      invoice_reminder_overdue_days: '1',
      trial_end_reminders_enabled: 'yes',
      trial_end_reminder_days: 3,
    });
    expect(res.status).toBe(200);
    const db = app.host.db;
    const now = (days: number) => toTimestamp(new Date(app.clock.now().getTime() + days * DAY));
    const customerId = await orderFixtures(app, now(-30)).customer();
    const { email } = await db('store_customers').where({ id: customerId }).first('email');
    const parent = await insertOrder(db, customerId, now(-25), { invoice_no: 'INV-PARENT' });
    await insertSubscription(db, { customer_id: customerId, parent_order_id: parent, billing_interval: 'monthly', next_billing_date: now(5) });
    const trialParent = await insertOrder(db, customerId, now(-10), { invoice_no: 'INV-TRIAL' });
    await insertSubscription(db, {
      customer_id: customerId,
      parent_order_id: trialParent,
      status: 'trialing',
      trial_ends_at: now(2),
      next_billing_date: now(2),
    });
    await insertOrder(db, customerId, now(-1.5), {
      invoice_no: 'INV-UNPAID',
      status: 'on-hold',
      payment_status: 'pending',
      total_paid: 0,
      payment_method: 'bank_transfer',
    });

    app.clock.advance(HOUR);
    await runJobs();
    app.clock.advance(HOUR);
    await runJobs();

    const subjects = (to: string) =>
      sink
        .to(to)
        .map((mail) => mail.subject)
        .sort();
    expect(subjects(email)).toEqual(['Reminder: invoice #INV-UNPAID is overdue', 'Your subscription renews soon', 'Your trial ends soon']);
    expect(subjects(app.host.site.admin_email)).toEqual([
      'A subscription renews soon (order #INV-PARENT)',
      'A trial ends soon (order #INV-TRIAL)',
      'Invoice #INV-UNPAID is overdue',
    ]);
    for (const mail of sink.messages) {
      expect(mail.html).toEqual(expect.any(String));
      expect(mail.text).toEqual(expect.any(String));
      expect(`${mail.subject} ${mail.html} ${mail.text}`).not.toContain('{{');
    }
    const [renewal, invoice] = ['Your subscription renews soon', 'Reminder: invoice #INV-UNPAID is overdue'].map((subject) =>
      sink.to(email).find((mail) => mail.subject === subject),
    );
    expect(renewal?.text).toEqual(expect.stringContaining('Your subscription to Plan renews on November 26, 2026 for $10.00.'));
    expect(invoice?.text).toEqual(expect.stringContaining('Invoice #INV-UNPAID of $10.00'));
    expect(sink.messages).toHaveLength(6);
  });
});
