/**
 * Email notifications as they are sent (issue 14): each event-driven notification is queued in the transaction of the
 * change that causes it and delivered by the job `store/email/send` to a real SMTP server on loopback, parsed as it
 * arrives. The sent-mail log (`store_email_log`) makes every message go once per event and recipient, through
 * retries, reruns and duplicate jobs.
 */
import type { ParsedMail } from 'mailparser';
import { transaction } from '../../src/core/context';
import { toTimestamp } from '../../src/core/time';
import { enqueueNotification, SEND_EMAIL_JOB } from '../../src/modules/email-notification/sending/enqueue';
import type { NotificationKey, SendEmailJob } from '../../src/modules/email-notification/types';
import { onOrderEvent, type OrderEvent } from '../../src/modules/order-records/order-events';
import { recordRenewal } from '../../src/modules/subscriptions/renewals';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm, NOW } from '../support/checkout';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';
import { actionGateway, subscriptionFamilies, useGateways } from '../support/subscription-actions';

const SHOP = { name: 'Test Shop', address: 'shop@store.test' };
const HELP = { name: 'Help Desk', address: 'help@store.test' };
const ADMINS = ['owner@store.test', 'ops@store.test'];

interface JobRow {
  id: number | string;
  payload: string;
  status: string;
  attempts: number | string;
  run_at: string;
  unique_key: string | null;
  last_error: string | null;
}

describe('email notifications: sending (job store/email/send)', () => {
  let sink: SmtpSink;
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let families: ReturnType<typeof subscriptionFamilies>;
  let shirt: { id: number };
  let usMethod: number;
  /** An order event that a later listener refuses, rolling back the change that caused it. */
  let failOn: { type: OrderEvent['type']; orderId: number } | null = null;
  let serial = 0;

  beforeAll(async () => {
    sink = await startSmtpSink();
    app = await startTestApp({ config: { smtpUrl: sink.url } });
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    families = subscriptionFamilies(app, NOW);
    useGateways(app, actionGateway());
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true } });
    shirt = await fx.stocked(2500, 1000, { title: 'Shirt' });
    usMethod = await fx.shippingMethod({ title: 'US Standard', charge_amount: 500 }, ['US']);
    await app.host.options.set('email_settings', {
      from_name: SHOP.name,
      from_email: SHOP.address,
      reply_to_name: HELP.name,
      reply_to_email: HELP.address,
      admin_email: ADMINS.join(', '),
    });
    // Runs after the email listener, in the same transaction: a change that fails here is rolled back whole.
    onOrderEvent(app.host, async (_ctx, _trx, event) => {
      if (event.type !== 'changed' && event.type === failOn?.type && Number(event.order.id) === failOn.orderId) throw new Error('a later listener failed');
    });
  });
  afterAll(async () => {
    await app?.close();
    await sink?.close();
  });
  beforeEach(async () => {
    sink.messages.length = 0;
    await app.host.options.set('email_notifications', {});
  });

  const db = () => app.host.db;

  /** Runs every due job until none is left (the app's own worker, as `npm start` runs it). */
  async function deliver(): Promise<void> {
    while ((await app.runtime.jobs.runDue(50)) > 0);
  }

  async function emailJobs(objectType: 'order' | 'subscription', objectId: number): Promise<Array<JobRow & { job: SendEmailJob }>> {
    const rows = (await db()('jobs').where({ name: SEND_EMAIL_JOB }).orderBy('id')) as JobRow[];
    return rows
      .map((row) => ({ ...row, job: JSON.parse(row.payload) as SendEmailJob }))
      .filter(({ job }) => job.object_type === objectType && job.object_id === objectId);
  }

  const logOf = (objectType: string, objectId: number) =>
    db()('store_email_log')
      .where({ object_type: objectType, object_id: objectId })
      .orderBy(['notification', 'event_key', 'recipient'])
      .select('notification', 'event_key', 'recipient', 'message_id') as Promise<
      Array<{ notification: NotificationKey; event_key: string; recipient: string; message_id: string }>
    >;

  /** A cash-on-delivery order of one shirt placed through checkout by a shopper with this email. */
  async function placeOfflineOrder(email = `shopper${++serial}@example.com`): Promise<{ id: number; email: string }> {
    const hash = await fx.cartWith([[shirt.id, 1]]);
    const res = await fx.place(hash, guestForm({ billing_email: email, billing_first_name: 'Jane', fc_selected_shipping_method: usMethod }));
    expect(res.status).toBe(200);
    return { id: Number((await fx.orderOfCart(hash)).id), email };
  }

  /** A placed offline order whose own emails went out already; the sink starts empty. */
  async function quietOrder(): Promise<{ id: number; email: string }> {
    const order = await placeOfflineOrder();
    await deliver();
    sink.messages.length = 0;
    return order;
  }

  const now = () => toTimestamp(app.clock.now());
  const markPaid = (orderId: number) => app.as(admin).post(`${BASE}/orders/${orderId}/mark-as-paid`).send({});
  const shippingStatus = (orderId: number, status: string) =>
    app
      .as(admin)
      .post(`${BASE}/orders/do-bulk-action`)
      .send({ action: 'change_shipping_status', order_ids: [orderId], new_status: status });
  const invoiceOf = async (orderId: number) =>
    String(((await db()('store_orders').where({ id: orderId }).first('invoice_no')) as { invoice_no: string }).invoice_no);

  /** The one message sent to `address`, checked for what every notification carries: sender, reply-to, HTML and text. */
  function onlyMailTo(address: string): ParsedMail {
    const received = sink.to(address);
    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail.from?.value).toEqual([SHOP]);
    expect(mail.replyTo?.value).toEqual([HELP]);
    expect(mail.messageId).toBeTruthy();
    expect(typeof mail.html).toBe('string');
    expect(mail.text?.trim()).toBeTruthy();
    expect(mail.html).not.toMatch(/\{\{\s*(order|transaction|settings|site|user)\./);
    expect(mail.text).not.toMatch(/\{\{/);
    return mail;
  }

  function expectAdminCopies(subject: string): void {
    for (const address of ADMINS) expect(onlyMailTo(address).subject).toBe(subject);
  }

  describe('order placed with an offline method (POST /checkout/place-order, cod)', () => {
    it('queues order_placed_customer and order_placed_admin in the checkout transaction; the shopper and each admin address get one', async () => {
      const order = await placeOfflineOrder('placed@example.com');
      const jobs = await emailJobs('order', order.id);
      expect(jobs.map((j) => [j.unique_key, j.status])).toEqual([
        [`email:order_placed_customer:order:${order.id}:placed`, 'pending'],
        [`email:order_placed_admin:order:${order.id}:placed`, 'pending'],
      ]);

      await deliver();
      const mail = onlyMailTo('placed@example.com');
      expect(mail.subject).toBe(`We received your order #${order.id}`);
      expect(mail.to).toMatchObject({ value: [{ address: 'placed@example.com' }] });
      expect(mail.html).toContain('Shirt');
      expect(mail.text).toContain('Shirt');
      expectAdminCopies(`New order #${order.id} awaiting payment`);
      expect(sink.messages).toHaveLength(3);
      expect((await emailJobs('order', order.id)).map((j) => j.status)).toEqual(['done', 'done']);
      expect(await logOf('order', order.id)).toEqual([
        { notification: 'order_placed_admin', event_key: 'placed', recipient: 'ops@store.test', message_id: sink.to('ops@store.test')[0].messageId },
        { notification: 'order_placed_admin', event_key: 'placed', recipient: 'owner@store.test', message_id: sink.to('owner@store.test')[0].messageId },
        { notification: 'order_placed_customer', event_key: 'placed', recipient: 'placed@example.com', message_id: mail.messageId },
      ]);
    });
  });

  describe('order paid (POST /orders/{id}/mark-as-paid)', () => {
    it('sends order_paid_customer and, as the asynchronous job queued after it, order_paid_admin (the spec order_paid_done), smartcodes filled', async () => {
      await app.host.options.set('email_notifications', {
        order_paid_customer: { subject: '{{order.billing.first_name}}, order #{{order.invoice_no}} is paid: {{transaction.total_formatted}}' },
      });
      const order = await quietOrder();
      const paidAt = now();
      expect((await markPaid(order.id)).status).toBe(200);
      const invoice = await invoiceOf(order.id);
      expect(invoice).toMatch(/^INV-\d+$/);

      const jobs = (await emailJobs('order', order.id)).filter((j) => j.job.event_key === 'paid');
      expect(jobs.map((j) => [j.job.notification, j.job.transaction_id, j.run_at, j.status])).toEqual([
        ['order_paid_customer', expect.any(Number), paidAt, 'pending'],
        ['order_paid_admin', expect.any(Number), paidAt, 'pending'],
      ]);
      await deliver();
      expect(onlyMailTo(order.email).subject).toBe(`Jane, order #${invoice} is paid: $30.00`);
      expectAdminCopies(`New order #${invoice} on ${app.host.site.title}`);
      expect(onlyMailTo(ADMINS[0]).html).toContain(invoice);
    });

    it('a payment rolled back (a later listener failed) queues nothing and sends nothing', async () => {
      const order = await quietOrder();
      const before = await emailJobs('order', order.id);
      failOn = { type: 'paid', orderId: order.id };
      try {
        expect((await markPaid(order.id)).status).toBe(500);
      } finally {
        failOn = null;
      }
      expect(await emailJobs('order', order.id)).toEqual(before);
      await deliver();
      expect(sink.messages).toHaveLength(0);
      expect((await db()('store_orders').where({ id: order.id }).first('payment_status')).payment_status).toBe('pending');
    });
  });

  describe('order refunded (POST /orders/{id}/refund)', () => {
    it('each refund sends order_refunded_customer and order_refunded_admin once, keyed by its refund transaction', async () => {
      const order = await quietOrder();
      expect((await markPaid(order.id)).status).toBe(200);
      await deliver();
      sink.messages.length = 0;
      const invoice = await invoiceOf(order.id);
      const charge = (await db()('store_order_transactions').where({ order_id: order.id, transaction_type: 'charge' }).first('id')) as { id: number };
      const refund = (amount: string) =>
        app
          .as(admin)
          .post(`${BASE}/orders/${order.id}/refund`)
          .send({ refund_info: { transaction_id: charge.id, amount } });

      expect((await refund('10')).status).toBe(200);
      expect((await refund('5.50')).status).toBe(200);
      const refunds = (await db()('store_order_transactions').where({ order_id: order.id, transaction_type: 'refund' }).orderBy('id').pluck('id')).map(Number);
      expect(refunds).toHaveLength(2);
      const refundJobs = (await emailJobs('order', order.id)).filter((j) => j.job.event_key.startsWith('refunded:'));
      expect(refundJobs.map((j) => [j.job.notification, j.job.event_key, j.job.transaction_id])).toEqual([
        ['order_refunded_customer', `refunded:${refunds[0]}`, refunds[0]],
        ['order_refunded_admin', `refunded:${refunds[0]}`, refunds[0]],
        ['order_refunded_customer', `refunded:${refunds[1]}`, refunds[1]],
        ['order_refunded_admin', `refunded:${refunds[1]}`, refunds[1]],
      ]);

      await deliver();
      // Sent side by side (the worker runs several email jobs at once): in any order.
      expect(sink.to(order.email).map((m) => m.subject)).toEqual([`Your refund for order #${invoice}`, `Your refund for order #${invoice}`]);
      expect(
        sink
          .to(ADMINS[1])
          .map((m) => m.subject)
          .sort(),
      ).toEqual([`Order #${invoice} refunded $10.00`, `Order #${invoice} refunded $5.50`]);
      expect(sink.messages).toHaveLength(6);
    });
  });

  describe('changes rolled back', () => {
    it('a refund rolled back (a later listener failed) queues no order_refunded_* and sends nothing', async () => {
      const order = await quietOrder();
      expect((await markPaid(order.id)).status).toBe(200);
      await deliver();
      sink.messages.length = 0;
      const before = await emailJobs('order', order.id);
      const charge = (await db()('store_order_transactions').where({ order_id: order.id, transaction_type: 'charge' }).first('id')) as { id: number };

      failOn = { type: 'refunded', orderId: order.id };
      try {
        const res = await app
          .as(admin)
          .post(`${BASE}/orders/${order.id}/refund`)
          .send({ refund_info: { transaction_id: charge.id, amount: '10' } });
        expect(res.status).toBe(500);
      } finally {
        failOn = null;
      }
      expect(await emailJobs('order', order.id)).toEqual(before);
      // The refund's reservation (a pending row) stays for the refund module to settle or release; nothing was settled.
      expect(await db()('store_order_transactions').where({ order_id: order.id, transaction_type: 'refund' }).pluck('status')).toEqual(['pending']);
      expect(await db()('store_orders').where({ id: order.id }).first('payment_status', 'total_refund')).toEqual({ payment_status: 'paid', total_refund: 0 });
      await deliver();
      expect(sink.messages).toHaveLength(0);
    });

    it('a bulk shipping change that fails on its second order queues no email for the first either', async () => {
      const first = await quietOrder();
      const second = await quietOrder();
      const before = [await emailJobs('order', first.id), await emailJobs('order', second.id)];

      failOn = { type: 'shipping_status_changed', orderId: second.id };
      try {
        const res = await app
          .as(admin)
          .post(`${BASE}/orders/do-bulk-action`)
          .send({ action: 'change_shipping_status', order_ids: [first.id, second.id], new_status: 'shipped' });
        expect(res.status).toBe(500);
      } finally {
        failOn = null;
      }
      expect([await emailJobs('order', first.id), await emailJobs('order', second.id)]).toEqual(before);
      expect(await db()('store_orders').whereIn('id', [first.id, second.id]).orderBy('id').pluck('shipping_status')).toEqual(['unshipped', 'unshipped']);
      await deliver();
      expect(sink.messages).toHaveLength(0);
    });
  });

  describe('shipping status changed (POST /orders/do-bulk-action, change_shipping_status)', () => {
    it('shipped sends order_shipped_customer, delivered sends order_delivered_customer; back and forth again sends nothing more', async () => {
      const order = await quietOrder();
      // Cash on delivery: not paid yet, so no invoice number; the order's number is its id.
      const invoice = String(order.id);

      expect((await shippingStatus(order.id, 'shipped')).status).toBe(200);
      await deliver();
      expect(onlyMailTo(order.email).subject).toBe(`Your order #${invoice} is on its way`);

      expect((await shippingStatus(order.id, 'delivered')).status).toBe(200);
      await deliver();
      expect(sink.to(order.email).map((m) => m.subject)).toEqual([`Your order #${invoice} is on its way`, `Your order #${invoice} has been delivered`]);

      expect((await shippingStatus(order.id, 'unshipped')).status).toBe(200);
      expect((await shippingStatus(order.id, 'shipped')).status).toBe(200);
      await deliver();
      expect(sink.messages).toHaveLength(2);
      expect((await emailJobs('order', order.id)).map((j) => j.job.notification)).toEqual([
        'order_placed_customer',
        'order_placed_admin',
        'order_shipped_customer',
        'order_delivered_customer',
      ]);
    });
  });

  describe('subscriptions', () => {
    it('a renewal (recordRenewal) sends subscription_renewal_customer and _admin, keyed by the renewal order; the renewal order gets no order_paid_*', async () => {
      const family = await families.family();
      const customer = (await db()('store_customers').where({ id: family.customerId }).first('email')) as { email: string };
      const outcome = await transaction(app.ctx(), (trx, afterCommit) =>
        recordRenewal(app.ctx(), trx, afterCommit, {
          subscription_id: family.subscriptionId,
          payment_method: 'subpay',
          vendor_charge_id: 'in_mail_1',
          amount: 1000,
          currency: 'USD',
        }),
      );
      expect(outcome.outcome).toBe('renewed');
      const renewalOrder = Number(outcome.order_id);
      expect(await emailJobs('order', renewalOrder)).toEqual([]);
      expect((await emailJobs('subscription', family.subscriptionId)).map((j) => [j.job.notification, j.job.event_key])).toEqual([
        ['subscription_renewal_customer', `renewed:${renewalOrder}`],
        ['subscription_renewal_admin', `renewed:${renewalOrder}`],
      ]);

      await deliver();
      expect(onlyMailTo(customer.email).subject).toBe('Your subscription has been renewed');
      expectAdminCopies(`Subscription renewal: order #${await invoiceOf(renewalOrder)}`);
      expect(sink.messages).toHaveLength(3);
    });

    it('a cancel (PUT /orders/{order}/subscriptions/{id}/cancel) sends subscription_canceled_customer and _admin', async () => {
      const family = await families.family();
      const customer = (await db()('store_customers').where({ id: family.customerId }).first('email')) as { email: string };
      const canceledAt = now();
      const res = await app.as(admin).put(`${BASE}/orders/${family.orderId}/subscriptions/${family.subscriptionId}/cancel`).send({ cancel_reason: 'other' });
      expect(res.status).toBe(200);
      expect((await emailJobs('subscription', family.subscriptionId)).map((j) => [j.job.notification, j.job.event_key])).toEqual([
        ['subscription_canceled_customer', `canceled:${canceledAt}`],
        ['subscription_canceled_admin', `canceled:${canceledAt}`],
      ]);

      await deliver();
      expect(onlyMailTo(customer.email).subject).toBe('Your subscription has been canceled');
      expectAdminCopies(`Subscription canceled: order #${await invoiceOf(family.orderId)}`);
    });
  });

  describe('never twice, never lost', () => {
    it('a job that runs again (its row back to pending, as after a crash before `done`) sends nothing more; queueing the same event again is a no-op', async () => {
      const order = await placeOfflineOrder();
      await deliver();
      expect(sink.messages).toHaveLength(3);
      const [first] = await emailJobs('order', order.id);
      await db()('jobs').where({ id: first.id }).update({ status: 'pending', finished_at: null });
      await transaction(app.ctx(), (trx) => enqueueNotification(app.ctx(), trx, { ...first.job }));
      expect(await emailJobs('order', order.id)).toHaveLength(2);

      await deliver();
      expect(sink.messages).toHaveLength(3);
      expect((await db()('jobs').where({ id: first.id }).first('status', 'attempts')) as JobRow).toMatchObject({ status: 'done', attempts: 2 });
      expect(await logOf('order', order.id)).toHaveLength(3);
    });

    it('an SMTP server that refuses (451) gets the message again after the backoff, and it arrives once', async () => {
      const order = await quietOrder();
      sink.refuseNext(2);
      expect((await shippingStatus(order.id, 'shipped')).status).toBe(200);
      const job = () => emailJobs('order', order.id).then((jobs) => jobs.find((j) => j.job.notification === 'order_shipped_customer') as JobRow);

      await deliver();
      expect(await job()).toMatchObject({ status: 'pending', attempts: 1, last_error: expect.stringContaining('451') });
      expect(await logOf('order', order.id)).toHaveLength(3);
      app.clock.advance(30_000);
      await deliver();
      expect(await job()).toMatchObject({ status: 'pending', attempts: 2 });
      app.clock.advance(60_000);
      await deliver();

      const mail = onlyMailTo(order.email);
      expect(await job()).toMatchObject({ status: 'done', attempts: 3 });
      expect((await logOf('order', order.id)).filter((row) => row.notification === 'order_shipped_customer')).toEqual([
        { notification: 'order_shipped_customer', event_key: 'shipped', recipient: order.email, message_id: mail.messageId },
      ]);
    });

    it('duplicate jobs of one email running at the same time send it once', async () => {
      const order = await quietOrder();
      const job: SendEmailJob = { notification: 'order_delivered_customer', object_type: 'order', object_id: order.id, event_key: 'delivered' };
      const ids = await Promise.all([1, 2, 3, 4].map(() => app.host.jobs.enqueue(SEND_EMAIL_JOB, job)));
      await Promise.all(ids.map(() => app.runtime.jobs.runDue(1)));
      app.clock.advance(10 * 60_000);
      await deliver();

      expect(onlyMailTo(order.email).subject).toMatch(/has been delivered$/);
      expect(
        await db()('jobs')
          .whereIn('id', ids as number[])
          .pluck('status'),
      ).toEqual(['done', 'done', 'done', 'done']);
      expect((await logOf('order', order.id)).filter((row) => row.event_key === 'delivered')).toHaveLength(1);
    });
  });

  describe('settings', () => {
    it('an inactive notification is not queued; one switched off after it was queued is not sent either', async () => {
      const order = await quietOrder();
      await app.host.options.set('email_notifications', { order_shipped_customer: { active: 'no' } });
      expect((await shippingStatus(order.id, 'shipped')).status).toBe(200);
      expect((await emailJobs('order', order.id)).map((j) => j.job.notification)).not.toContain('order_shipped_customer');

      await app.host.options.set('email_notifications', {});
      expect((await shippingStatus(order.id, 'delivered')).status).toBe(200);
      await app.host.options.set('email_notifications', { order_delivered_customer: { active: 'no' } });
      await deliver();
      expect(sink.messages).toHaveLength(0);
      expect((await emailJobs('order', order.id)).find((j) => j.job.notification === 'order_delivered_customer')?.status).toBe('done');
    });

    it('follows the admin API: a notification switched off (enable-notification) queues nothing; a subject saved (PUT) is the one sent', async () => {
      const order = await quietOrder();
      const api = app.as(admin);
      await api.post(`${BASE}/email-notification/enable-notification/order_shipped_customer`).send({ active: 'no' }).expect(200);
      await api
        .put(`${BASE}/email-notification/order_delivered_customer`)
        .send({ settings: { subject: 'Delivered to {{order.billing.first_name}}: #{{order.id}}' } })
        .expect(200);

      expect((await shippingStatus(order.id, 'shipped')).status).toBe(200);
      expect((await shippingStatus(order.id, 'delivered')).status).toBe(200);
      expect((await emailJobs('order', order.id)).map((j) => j.job.notification)).toEqual([
        'order_placed_customer',
        'order_placed_admin',
        'order_delivered_customer',
      ]);
      await deliver();
      expect(onlyMailTo(order.email).subject).toBe(`Delivered to Jane: #${order.id}`);
      expect(sink.messages).toHaveLength(1);
    });

    it('sends from, with the reply-to and to the admin addresses of the settings saved through POST /email-notification/save-settings', async () => {
      const settings = await app.host.options.get('email_settings', {});
      try {
        const res = await app.as(admin).post(`${BASE}/email-notification/save-settings`).send({
          from_name: 'Acme Orders',
          from_email: 'orders@acme.test',
          reply_to_name: 'Acme Care',
          reply_to_email: 'care@acme.test',
          admin_email: 'boss@acme.test, {{site.admin_email}}',
        });
        expect(res.status).toBe(200);
        const order = await placeOfflineOrder();
        await deliver();
        expect(sink.messages).toHaveLength(3);
        for (const mail of sink.messages) {
          expect(mail.from?.value).toEqual([{ name: 'Acme Orders', address: 'orders@acme.test' }]);
          expect(mail.replyTo?.value).toEqual([{ name: 'Acme Care', address: 'care@acme.test' }]);
        }
        expect(sink.to(order.email).map((m) => m.subject)).toEqual([`We received your order #${order.id}`]);
        for (const address of ['boss@acme.test', app.host.site.admin_email]) {
          expect(sink.to(address).map((m) => m.subject)).toEqual([`New order #${order.id} awaiting payment`]);
        }
      } finally {
        await app.host.options.set('email_settings', settings);
      }
    });

    it('no admin address (admin_email empty): the admin email is logged and given up, not retried; the customer one goes', async () => {
      const settings = await app.host.options.get('email_settings', {});
      await app.host.options.set('email_settings', { ...settings, admin_email: '' });
      try {
        const order = await placeOfflineOrder();
        await deliver();
        expect(sink.messages.map((m) => m.subject)).toEqual([`We received your order #${order.id}`]);
        const adminJob = (await emailJobs('order', order.id)).find((j) => j.job.notification === 'order_placed_admin') as JobRow;
        expect(adminJob).toMatchObject({ status: 'done', attempts: 1 });
        expect(app.logger.entries.some((e) => e.level === 'warn' && e.msg === 'email job without a recipient address: not sent')).toBe(true);
      } finally {
        await app.host.options.set('email_settings', settings);
      }
    });
  });
});
