import { sanitizeEmailHtml } from '../../src/core/html';
import { NOTIFICATIONS } from '../../src/modules/email-notification/catalog';
import {
  buildEmailData,
  EMAIL_BUTTONS,
  renderNotification,
  resolveAdminEmails,
  SMARTCODE_GROUPS,
  type EmailData,
} from '../../src/modules/email-notification/render';
import { NOTIFICATION_KEYS, type NotificationKey, type SendEmailJob } from '../../src/modules/email-notification/types';
import { createAddress } from '../../src/modules/customers/addresses';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';
const STORE = {
  store_name: 'Corner Shop & Co',
  store_logo: 'https://cdn.example.com/logo.png',
  store_address_1: '1 Harbour Rd',
  store_address_2: 'Unit 4',
  store_city: 'Seattle',
  store_state: 'WA',
  store_postcode: '98101',
  store_country: 'US',
};

/** Every code outside the license loop, as `code=[{{code}}]` lines: what a body lists to show each value. */
const CODES = Object.values(SMARTCODE_GROUPS)
  .filter((group) => group.key !== 'license')
  .flatMap((group) => Object.keys(group.shortcodes).map((written) => written.slice(2, -2)));
const listing = CODES.map((code) => `<p>${code}=[{{${code}}}]</p>`).join('');
/** The `code=[value]` lines of a rendered text part. */
const valuesIn = (text: string) => Object.fromEntries([...text.matchAll(/^([\w.]+)=\[(.*)\]$/gm)].map(([, code, value]) => [code, value]));

describe('email rendering', () => {
  let app: TestApp;
  let admin: TestUser;
  let orderManager: TestUser;
  let fx: ReturnType<typeof orderFixtures>;
  let orderId: number;
  let invoiceNo: string;
  let receiptUrl: string;
  let paidData: EmailData;
  let subscriptionId: number;

  const db = () => app.host.db;
  const orderJob = (notification: NotificationKey, over: Partial<SendEmailJob> = {}): SendEmailJob => ({
    notification,
    object_type: 'order',
    object_id: orderId,
    event_key: 'paid',
    ...over,
  });
  const build = async (job: SendEmailJob) => {
    const data = await buildEmailData(app.ctx(), db(), job);
    if (!data) throw new Error(`no data for ${job.object_type} ${job.object_id}`);
    return data;
  };
  const render = (key: NotificationKey, data: EmailData, draft?: { subject?: string; email_body?: string }) =>
    renderNotification(app.ctx(), db(), key, data, draft);

  /** A customer with a site account and a billing address, and a paid order of theirs with two lines. */
  async function paidOrder(billingName: string): Promise<number> {
    const customerId = await fx.customer();
    await createAddress(app.ctx(), customerId, {
      type: 'billing',
      name: billingName,
      email: 'billing@example.com',
      address_1: '1 Main St',
      city: 'Los Angeles',
      state: 'CA',
      postcode: '90001',
      country: 'US',
    });
    const mug = await fx.variation(3333, { title: 'Mug' });
    const teapot = await fx.variation(2500, { title: 'Teapot' });
    const created = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({
        customer_id: customerId,
        order_items: [
          { id: mug.id, quantity: 3 },
          { id: teapot.id, quantity: 1 },
        ],
      })
      .expect(200);
    const id = created.body.order_id as number;
    await app.as(admin).post(`${BASE}/orders/${id}/mark-as-paid`).send({ payment_method: 'offline' }).expect(200);
    await db()('store_order_transactions').where({ order_id: id, transaction_type: 'charge' }).update({ card_last_4: '4242', card_brand: 'visa' });
    return id;
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('render-admin', ['administrator']);
    orderManager = await app.createUser('render-om', ['order_manager']);
    fx = orderFixtures(app, NOW);
    await app.as(admin).put(`${BASE}/settings/store`).send(STORE).expect(200);

    orderId = await paidOrder('Jane Q. Doe');
    const jane = await app.createUser('jane');
    await db()('users').where({ id: jane.user.id }).update({ display_name: 'Jane D.' });
    const order = await db()('store_orders').where({ id: orderId }).first('customer_id', 'invoice_no');
    await db()('store_customers').where({ id: order.customer_id }).update({ user_id: jane.user.id, first_name: 'Jane', last_name: 'Doe' });
    invoiceNo = order.invoice_no as string;
    receiptUrl = (await app.as(admin).get(`${BASE}/orders/${orderId}`).expect(200)).body.order.receipt_url as string;
    paidData = await build(orderJob('order_paid_customer'));

    const [id] = await db()('store_subscriptions').insert({
      uuid: 'sub-render-1',
      customer_id: order.customer_id,
      parent_order_id: orderId,
      item_name: 'Tea Club',
      status: 'active',
      billing_interval: 'monthly',
      currency: 'USD',
      recurring_amount: 1999,
      next_billing_date: '2026-12-21 10:00:00',
      trial_ends_at: '2026-11-28 10:00:00',
      config: '{}',
      created_at: NOW,
      updated_at: NOW,
    });
    subscriptionId = Number(id);
  });
  afterAll(() => app.close());

  describe('smartcodes', () => {
    it('fills every code of every group from a real order, HTML-escaped in the body and as typed in the subject', async () => {
      expect(invoiceNo).toMatch(/^INV-\d+$/);
      const expected = {
        'order.id': String(orderId),
        'order.invoice_no': invoiceNo,
        'order.status': 'Processing',
        'order.total_amount_formatted': '$124.99',
        'order.customer_dashboard_link': receiptUrl,
        'order.created_at': 'November 21, 2026',
        'site.admin_email': 'admin@example.com',
        'site.site_url': 'http://store.test',
        'site.site_title': app.host.site.title,
        'user.display_name': 'Jane D.',
        'user.user_email': 'jane@example.com',
        'order.billing.first_name': 'Jane',
        'order.billing.last_name': 'Q. Doe',
        'order.billing.email': 'billing@example.com',
        'order.billing.city': 'Los Angeles',
        'order.billing.state': 'CA',
        'order.billing.country': 'US',
        'transaction.total': '124.99',
        'transaction.total_formatted': '$124.99',
        'transaction.refund_amount': '0.00',
        'transaction.refund_amount_formatted': '$0.00',
        'transaction.payment_method': 'Offline payment',
        'transaction.card_last_4': '4242',
        'transaction.card_brand': 'Visa',
        'transaction.status': 'Succeeded',
        'transaction.currency': 'USD',
        'settings.store_name': 'Corner Shop & Co',
        'settings.store_logo': 'https://cdn.example.com/logo.png',
        'settings.store_address': '1 Harbour Rd',
        'settings.store_address2': 'Unit 4',
        'settings.store_country': 'US',
        'settings.store_state': 'WA',
        'settings.store_city': 'Seattle',
        'settings.store_postcode': '98101',
        // an order email has no subscription
        'subscription.id': '',
        'subscription.item_name': '',
        'subscription.status': '',
        'subscription.billing_interval': '',
        'subscription.recurring_amount_formatted': '',
        'subscription.next_billing_date': '',
        'subscription.trial_end_date': '',
      };
      expect(Object.keys(expected).sort()).toEqual([...CODES].sort());

      const email = await render('order_paid_customer', paidData, { subject: 'Order {{order.invoice_no}} from {{settings.store_name}}', email_body: listing });
      expect(valuesIn(email.text)).toEqual(expected);
      expect(email.subject).toBe(`Order ${invoiceNo} from Corner Shop & Co`);
      expect(email.html).toContain('settings.store_name=[Corner Shop &amp; Co]');
      expect(email.html).not.toContain('{{');
    });

    it('describes a refund by its refund transaction when the job names it', async () => {
      const charge = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge' }).first('id');
      await app
        .as(admin)
        .post(`${BASE}/orders/${orderId}/refund`)
        .send({ refund_info: { transaction_id: Number(charge.id), amount: '5' } })
        .expect(200);
      const refund = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'refund' }).first('id');
      const data = await build(orderJob('order_refunded_customer', { event_key: `refunded:${refund.id}`, transaction_id: Number(refund.id) }));
      const email = await render('order_refunded_customer', data, { email_body: listing });
      expect(valuesIn(email.text)).toMatchObject({
        'transaction.total': '5.00',
        'transaction.refund_amount': '5.00',
        'transaction.refund_amount_formatted': '$5.00',
        'transaction.status': 'Refunded',
      });
      const byDefault = await render('order_refunded_customer', data);
      expect(byDefault.subject).toBe(`Your refund for order #${invoiceNo}`);
      expect(byDefault.text).toContain(`We have refunded $5.00 for order #${invoiceNo}. It goes back the way you paid;`);
    });

    it('fills the subscription codes of a subscription email, with the renewal order its event names', async () => {
      const renewalId = await insertOrder(db(), paidData.records.order?.customer_id as number, NOW, {
        parent_id: orderId,
        type: 'renewal',
        total_amount: 1999,
        total_paid: 1999,
      });
      const job: SendEmailJob = {
        notification: 'subscription_renewal_customer',
        object_type: 'subscription',
        object_id: subscriptionId,
        event_key: `renewed:${renewalId}`,
      };
      const renewed = await build(job);
      expect(renewed.order?.id).toBe(renewalId);
      expect(renewed.codes).toMatchObject({
        'subscription.id': String(subscriptionId),
        'subscription.item_name': 'Tea Club',
        'subscription.status': 'Active',
        'subscription.billing_interval': 'Monthly',
        'subscription.recurring_amount_formatted': '$19.99',
        'subscription.next_billing_date': 'December 21, 2026',
        'subscription.trial_end_date': 'November 28, 2026',
        'order.id': String(renewalId),
        'order.billing.email': paidData.customer_email,
      });
      const reminder = await build({ ...job, notification: 'subscription_renewal_reminder_customer', event_key: 'reminder:2026-12-14' });
      expect(reminder.order?.id).toBe(orderId);
    });

    it('escapes what a customer typed: a customer named <b>x</b> stays text in the HTML and is as typed in the subject and text', async () => {
      const id = await paidOrder('<b>x</b>');
      const customer = await db()('store_orders').where({ id }).first('customer_id');
      await db()('store_customers').where({ id: customer.customer_id }).update({ first_name: '<b>x</b>', last_name: '' });
      const data = await build(orderJob('order_paid_customer', { object_id: id }));
      const email = await render('order_paid_customer', data, { subject: 'Hi {{order.billing.first_name}}' });
      expect(email.subject).toBe('Hi <b>x</b>');
      expect(email.html).not.toContain('<b>x</b>');
      expect(email.html).toContain('Hi &lt;b&gt;x&lt;/b&gt;,');
      expect(email.text).toContain('Hi <b>x</b>,');

      const custom = await render('order_paid_customer', data, { email_body: '<p>Dear {{order.billing.first_name}}</p>' });
      expect(custom.html).toContain('Dear &lt;b&gt;x&lt;/b&gt;');
      expect(custom.html).not.toContain('<b>x</b>');
    });

    it('never lets a value bring a javascript: link into the body', async () => {
      const id = await paidOrder('javascript:alert(1)');
      const data = await build(orderJob('order_paid_customer', { object_id: id }));
      expect(data.codes['order.billing.first_name']).toBe('javascript:alert(1)');
      const email = await render('order_paid_customer', data, { email_body: '<p><a href="{{order.billing.first_name}}">Open</a></p>' });
      expect(email.html).toContain('<a>Open</a>');
      expect(email.html).not.toContain('href="javascript');
    });

    it('passes unknown codes through store/email/smartcode; a null answer leaves the code as written', async () => {
      const seen: string[] = [];
      const off = app.host.hooks.addFilter('store/email/smartcode', (value, { code, data }) => {
        seen.push(code);
        return code === 'shop.motto' ? `Fresh & <new> for order ${data.order?.id}` : value;
      });
      try {
        const email = await render('order_paid_customer', paidData, {
          subject: '{{shop.motto}}',
          email_body: '<p>{{ shop.motto }} / {{nobody.knows}} / {{order.id}}</p>',
        });
        expect(email.subject).toBe(`Fresh & <new> for order ${orderId}`);
        expect(email.html).toContain(`Fresh &amp; &lt;new&gt; for order ${orderId} / {{nobody.knows}} / ${orderId}`);
        // asked once per code and text: the subject, then the body
        expect(seen).toEqual(['shop.motto', 'shop.motto', 'nobody.knows']);
      } finally {
        off();
      }
      const without = await render('order_paid_customer', paidData, { email_body: '<p>{{shop.motto}}</p>' });
      expect(without.html).toContain('{{shop.motto}}');
    });

    it('repeats a {{#licenses}} block once per license of the order: an order without licenses shows nothing of it', async () => {
      const body = '<table><tr><th>Key</th></tr>{{#licenses}}<tr><td>{{license.sl}}. {{license.key}}</td></tr>{{/licenses}}</table><p>[{{license.key}}]</p>';
      const email = await render('order_paid_customer', paidData, { email_body: body });
      expect(email.html).toMatch(/<th>Key<\/th><\/tr><\/table><p>\[\]<\/p>/);
      expect(email.html).not.toMatch(/licenses|license\./);
    });
  });

  describe('default bodies', () => {
    /** The job a notification is sent with: a subscription's for the subscription notifications, the order's otherwise. */
    const jobOf = (key: NotificationKey): SendEmailJob =>
      key.startsWith('subscription_') ? { notification: key, object_type: 'subscription', object_id: subscriptionId, event_key: 'canceled' } : orderJob(key);

    it.each(NOTIFICATION_KEYS.map((key) => [key]))('%s renders: subject, responsive HTML with its data, a plain-text part', async (key) => {
      const data = await build(jobOf(key));
      const email = await render(key, data);
      expect(email.subject).not.toBe('');
      expect(email.subject).not.toMatch(/\{\{|undefined/);
      expect(email.html).toMatch(/^<!doctype html>/i);
      expect(email.html).toContain('@media only screen and (min-width:480px)');
      expect(email.html).toContain('src="https://cdn.example.com/logo.png"');
      expect(email.html).not.toMatch(/<%|%>|undefined|\bnull\b|\[object/);
      if (NOTIFICATIONS[key].pre_header) expect(email.html).toContain(`${NOTIFICATIONS[key].pre_header}</div>`);
      const subscription = jobOf(key).object_type === 'subscription';
      expect(email.text).toContain(subscription ? 'Tea Club' : `#${invoiceNo}`);
      if (!subscription) expect(email.text).toMatch(/Mug – Variation \d+ \| 3 \| \$99\.99/);
      expect(email.text).toContain('Corner Shop & Co (http://store.test)');
      expect(email.text).not.toMatch(/<[a-z/]/i);
    });

    it('order_paid_customer: the confirmation with the order summary, its button to the order page and the pre-header', async () => {
      const email = await render('order_paid_customer', paidData);
      expect(email.subject).toBe(`Your order #${invoiceNo} is confirmed`);
      expect(email.html).toContain('Thank you for your order.</div>');
      expect(email.html).toContain(`href="${receiptUrl.replace(/&/g, '&amp;')}"`);
      const lines = (await db()('store_order_items').where({ order_id: orderId }).orderBy('cart_index')) as Array<{ post_title: string; title: string }>;
      expect(email.text).toBe(
        [
          'Corner Shop & Co',
          '',
          'Thank you for your order',
          '',
          'Hi Jane Doe,',
          '',
          `We have received your payment of $124.99 for order #${invoiceNo}. We will let you know as soon as it is on its way.`,
          '',
          `View order (${receiptUrl})`,
          '',
          `Order #${invoiceNo} · November 21, 2026`,
          '',
          'Item | Qty | Total',
          `Mug – ${lines[0].title} | 3 | $99.99`,
          `Teapot – ${lines[1].title} | 1 | $25.00`,
          'Subtotal | $124.99',
          'Total | $124.99',
          '',
          'Payment method: Offline payment (Visa •••• 4242)',
          '',
          'Billing address',
          'Jane Q. Doe, 1 Main St, LOS ANGELES, CA 90001, United States of America',
          '',
          'Corner Shop & Co (http://store.test)',
        ].join('\n'),
      );
    });
  });

  describe('settings', () => {
    afterEach(async () => {
      await app.host.options.delete('email_notifications');
      await app.host.options.delete('email_settings');
    });

    it("sends the saved custom body in the store's layout while is_default_body is no; yes restores the default body", async () => {
      await app.host.options.set('email_notifications', {
        order_paid_customer: {
          subject: 'Paid: {{order.invoice_no}}',
          is_default_body: 'no',
          email_body: '<h2 style="color:#0a7">Custom {{order.invoice_no}}</h2>',
        },
      });
      const custom = await render('order_paid_customer', paidData);
      expect(custom.subject).toBe(`Paid: ${invoiceNo}`);
      expect(custom.html).toContain(`<h2 style="color:#0a7">Custom ${invoiceNo}</h2>`);
      expect(custom.html).not.toContain('We have received your payment');
      expect(custom.html).toContain('src="https://cdn.example.com/logo.png"');
      expect(custom.text).toBe(['Corner Shop & Co', '', `Custom ${invoiceNo}`, '', 'Corner Shop & Co (http://store.test)'].join('\n'));

      await app.host.options.set('email_notifications', {
        order_paid_customer: { is_default_body: 'yes', email_body: '<h2>Custom {{order.invoice_no}}</h2>' },
      });
      const restored = await render('order_paid_customer', paidData);
      expect(restored.subject).toBe(`Your order #${invoiceNo} is confirmed`);
      expect(restored.html).toContain('We have received your payment');
      expect(restored.html).not.toContain('Custom');
    });

    it('adds the global footer, its smartcodes filled, only while show_email_footer is yes', async () => {
      const footer = '<p>Questions? Write to <a href="mailto:{{site.admin_email}}">{{site.admin_email}}</a> · {{settings.store_name}}</p>';
      await app.host.options.set('email_settings', { email_footer: footer, show_email_footer: 'yes' });
      for (const key of ['order_paid_customer', 'order_paid_admin'] as const) {
        const email = await render(key, paidData);
        expect(email.html).toContain('Questions? Write to <a href="mailto:admin@example.com">admin@example.com</a> · Corner Shop &amp; Co');
        expect(email.text).toContain('Questions? Write to admin@example.com · Corner Shop & Co\n\nCorner Shop & Co (http://store.test)');
      }
      await app.host.options.set('email_settings', { email_footer: footer, show_email_footer: 'no' });
      expect((await render('order_paid_customer', paidData)).html).not.toContain('Questions?');
    });

    it('resolves the admin addresses: smartcodes filled, split on commas, invalid and repeated ones left out', async () => {
      expect(await resolveAdminEmails(app.ctx(), db(), paidData)).toEqual(['admin@example.com']);
      await app.host.options.set('email_settings', {
        admin_email: '{{site.admin_email}}, ops@example.com ,, not-an-email, ops@example.com, {{order.billing.email}}',
      });
      expect(await resolveAdminEmails(app.ctx(), db(), paidData)).toEqual(['admin@example.com', 'ops@example.com', 'billing@example.com']);
      expect(app.logger.entries).toContainEqual(expect.objectContaining({ level: 'warn', obj: { invalid: ['not-an-email'] } }));
    });

    it("reads the settings inside the caller's transaction", async () => {
      const email = await db().transaction(async (trx) => {
        await app.host.options.set('email_notifications', { order_paid_customer: { subject: 'In the transaction' } }, trx);
        const data = await buildEmailData(app.ctx(), trx, orderJob('order_paid_customer'));
        return renderNotification(app.ctx(), trx, 'order_paid_customer', data as EmailData);
      });
      expect(email.subject).toBe('In the transaction');
    });

    it('has no data for an order or subscription that no longer exists', async () => {
      expect(await buildEmailData(app.ctx(), db(), orderJob('order_paid_customer', { object_id: 987654 }))).toBeNull();
      const job: SendEmailJob = { notification: 'subscription_canceled_customer', object_type: 'subscription', object_id: 987654, event_key: 'canceled' };
      expect(await buildEmailData(app.ctx(), db(), job)).toBeNull();
    });
  });

  describe('sanitizeEmailHtml', () => {
    it('keeps the tables, attributes and inline styles emails are laid out with, and {{smartcode}} links and images', () => {
      const html =
        '<table width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;border:1px solid #e5e7eb"><tr>' +
        '<td width="60%" valign="top" style="padding:8px 12px;margin:0 auto;background-color:#f9fafb;font-family:Georgia, \'Times New Roman\', serif;font-size:14px;font-weight:bold;line-height:1.5;text-align:right;border-bottom:1px solid rgba(0,0,0,0.1);color:#333">' +
        '<img src="{{settings.store_logo}}" width="120" height="40" alt="Logo" style="width:120px;height:40px;display:block" /></td></tr></table>' +
        '<p><a href="{{order.customer_dashboard_link}}" target="_blank" style="color:#2563eb;text-decoration:underline">View</a> <a href="mailto:{{site.admin_email}}">Mail</a></p>';
      expect(sanitizeEmailHtml(html)).toBe(html);
    });

    it('drops scripts, event handlers, javascript: links, url() and styles emails do not need', () => {
      const html =
        '<p onclick="steal()" style="background:url(https://evil.example/x.png);color:red;position:fixed;width:expression(alert(1))">Hi</p>' +
        '<a href="javascript:alert(1)">bad</a><img src="javascript:alert(2)" onerror="x()" alt="i" /><script>alert(3)</script><iframe src="https://x.example"></iframe><style>p{}</style>';
      expect(sanitizeEmailHtml(html)).toBe('<p style="color:red">Hi</p><a>bad</a><img alt="i" />');
    });

    it('lets the ready-made buttons through as they are', () => {
      expect(Object.keys(EMAIL_BUTTONS)).toEqual(['View order', 'Visit store', 'Contact us']);
      for (const button of Object.values(EMAIL_BUTTONS)) expect(sanitizeEmailHtml(button)).toBe(button);
      expect(EMAIL_BUTTONS['View order']).toContain('href="{{order.customer_dashboard_link}}"');
    });
  });

  describe('POST /email-notification/{notification}/preview', () => {
    const preview = (key: string) => app.as(admin).post(`${BASE}/email-notification/${key}/preview`);

    it('renders the saved notification with sample data', async () => {
      const res = await preview('order_paid_customer').send({}).expect(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(Object.keys(res.body.data)).toEqual(['subject', 'html', 'text']);
      expect(res.body.data.subject).toBe('Your order #INV-1001 is confirmed');
      expect(res.body.data.html).toContain('src="https://cdn.example.com/logo.png"');
      expect(res.body.data.text).toContain('Hi Jane Doe,');
      expect(res.body.data.text).toContain('Coffee Beans – 1 kg | 2 | $49.98');
      expect(res.body.data.text).toContain('Total | $85.97');
    });

    it('renders unsaved edits, the body sanitised, and stores nothing', async () => {
      const res = await preview('subscription_renewal_customer')
        .send({
          subject: 'Hello {{order.billing.first_name}}, {{subscription.item_name}} renews {{subscription.next_billing_date}}',
          email_body:
            '<p onclick="x()">Order {{order.id}}</p><script>alert(1)</script>' +
            '<table>{{#licenses}}<tr><td>{{license.sl}}</td><td>{{license.key}}</td><td>{{license.status}}</td></tr>{{/licenses}}</table>',
        })
        .expect(200);
      expect(res.body.data.subject).toBe('Hello Jane, Coffee Club – Monthly renews December 21, 2026');
      expect(res.body.data.html).toContain('<p>Order 1001</p>');
      expect(res.body.data.html).toContain('<table><tr><td>1</td><td>SAMPLE-1234-5678-9ABC</td><td>Active</td></tr></table>');
      expect(res.body.data.html).not.toMatch(/<script|onclick/);
      expect(await app.host.options.get('email_notifications')).toBeUndefined();
    });

    it('answers 404 for an unknown notification', async () => {
      const res = await preview('order_lost_customer').send({}).expect(404);
      expect(res.body).toEqual({ message: 'Notification Details not found' });
    });

    it('answers 422 for a subject longer than 255 characters', async () => {
      const res = await preview('order_paid_customer')
        .send({ subject: 'x'.repeat(256) })
        .expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['subject']);
    });

    it('needs store/sensitive: 403 for an order manager, 401 for a guest', async () => {
      const res = await app.as(orderManager).post(`${BASE}/email-notification/order_paid_customer/preview`).send({}).expect(403);
      expect(res.body.code).toBe('rest_forbidden');
      await app.http.post(`${BASE}/email-notification/order_paid_customer/preview`).send({}).expect(401);
    });
  });
});
