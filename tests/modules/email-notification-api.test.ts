import type request from 'supertest';
import type { ActionMap } from '../../src/host/contract';
import { NOTIFICATIONS } from '../../src/modules/email-notification/catalog';
import { EMAIL_BUTTONS } from '../../src/modules/email-notification/render/buttons';
import { SMARTCODE_GROUPS } from '../../src/modules/email-notification/render/smartcodes';
import { NOTIFICATION_KEYS, type NotificationKey } from '../../src/modules/email-notification/types';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

type Row = Record<string, unknown>;
type EmailAction = 'store/email_notification/updated' | 'store/email_settings/updated' | 'store/email_reminders/updated';
const ACTIONS: EmailAction[] = ['store/email_notification/updated', 'store/email_settings/updated', 'store/email_reminders/updated'];

const URL = `${BASE}/email-notification`;

describe('email notifications admin API', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let clerk: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['shop_manager']);
    clerk = await app.createUser('clerk', ['order_manager']);
    shopper = await app.createUser('shopper');
  });
  afterAll(() => app.close());

  const api = () => app.as(admin);
  const db = () => app.database.db;

  /** An option as stored (not through the options cache). */
  async function stored(name: string): Promise<Row | undefined> {
    const row = (await db()('options').where({ name }).first('value')) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as Row) : undefined;
  }

  const activities = async () => (await db()('store_activities').orderBy('id').select('object_type', 'object_id', 'title', 'content')) as Row[];

  /** What a refused request must leave as it was. */
  const snapshot = async () => ({
    notifications: await stored('email_notifications'),
    settings: await stored('email_settings'),
    reminders: await stored('email_reminders'),
    activities: await activities(),
  });

  async function recordHooks(work: () => Promise<unknown>): Promise<Array<[EmailAction, ...unknown[]]>> {
    const fired: Array<[EmailAction, ...unknown[]]> = [];
    const offs = ACTIONS.map((name) =>
      app.host.hooks.addAction(name, (...args: ActionMap[typeof name]) => {
        fired.push([name, ...args]);
      }),
    );
    try {
      await work();
    } finally {
      offs.forEach((off) => off());
    }
    return fired;
  }

  /** Every route of the prefix with a body it accepts. */
  const ROUTES: Array<[method: 'get' | 'post' | 'put', path: string, body: Row]> = [
    ['get', '/email-notification', {}],
    ['get', '/email-notification/order_paid_customer', {}],
    ['put', '/email-notification/order_paid_customer', { settings: { subject: 'Hi' } }],
    ['post', '/email-notification/enable-notification/order_paid_customer', { active: 'no' }],
    ['get', '/email-notification/get-short-codes', {}],
    ['get', '/email-notification/get-settings', {}],
    ['post', '/email-notification/save-settings', { from_name: 'Shop', from_email: 'shop@example.com', admin_email: 'ops@example.com' }],
    ['get', '/email-notification/reminders', {}],
    ['post', '/email-notification/reminders', { reminders_enabled: 'yes' }],
    ['put', '/email-notification/reminders', { reminders_enabled: 'yes' }],
  ];

  describe('permissions (StoreSensitivePolicy, store/sensitive)', () => {
    it.each(ROUTES)('%s %s: 401 anonymous, 403 without store/sensitive, nothing changes', async (method, path, body) => {
      const before = await snapshot();
      const send = (test: request.Test) => (method === 'get' ? test : test.send(body));
      const anonymous = await send(app.http[method](`${BASE}${path}`));
      expect([anonymous.status, anonymous.body.code]).toEqual([401, 'rest_forbidden']);
      for (const user of [clerk, shopper]) {
        const res = await send(app.as(user)[method](`${BASE}${path}`));
        expect([res.status, res.body.code]).toEqual([403, 'rest_forbidden']);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('lets a Shop Manager (who holds store/sensitive) in', async () => {
      const res = await app.as(manager).get(URL);
      expect(res.status).toBe(200);
    });
  });

  describe('GET /email-notification', () => {
    it('lists the eighteen notifications in the catalogue order, each with its default settings', async () => {
      const res = await api().get(URL);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data)).toEqual([...NOTIFICATION_KEYS]);
      expect(res.body.data.order_paid_customer).toEqual({
        name: 'order_paid_customer',
        event: 'order_paid',
        group: 'order',
        group_label: 'Order',
        title: NOTIFICATIONS.order_paid_customer.title,
        description: NOTIFICATIONS.order_paid_customer.description,
        recipient: 'customer',
        smartcode_groups: ['general', 'settings', 'order', 'customer', 'transaction', 'license'],
        template_path: 'order/paid-customer.mjml',
        is_async: false,
        pre_header: NOTIFICATIONS.order_paid_customer.pre_header,
        settings: { active: 'yes', subject: NOTIFICATIONS.order_paid_customer.default_subject, is_default_body: 'yes', email_body: '' },
      });
      for (const key of NOTIFICATION_KEYS) {
        const template = res.body.data[key];
        expect(template).not.toHaveProperty('default_subject');
        expect(template.settings).toEqual({ active: 'yes', subject: NOTIFICATIONS[key].default_subject, is_default_body: 'yes', email_body: '' });
        expect(['admin', 'customer']).toContain(template.recipient);
        expect(['order', 'subscription', 'scheduler']).toContain(template.group);
      }
      expect(res.body.data.order_paid_admin).toMatchObject({ event: 'order_paid_done', recipient: 'admin', is_async: true });
      expect(res.body.data.invoice_reminder_overdue_admin).toMatchObject({ event: 'invoice_reminder_overdue', group: 'scheduler', recipient: 'admin' });
    });
  });

  describe("the spec's Events table", () => {
    /** Group, template key, event and recipient, row by row as the spec lists them. */
    const EVENTS: Array<[group: string, key: string, event: string, recipient: string]> = [
      ['order', 'order_paid_admin', 'order_paid_done', 'admin'],
      ['order', 'order_paid_customer', 'order_paid', 'customer'],
      ['order', 'order_refunded_admin', 'order_refunded', 'admin'],
      ['order', 'order_refunded_customer', 'order_refunded', 'customer'],
      ['order', 'order_shipped_customer', 'shipping_status_changed_to_shipped', 'customer'],
      ['order', 'order_delivered_customer', 'shipping_status_changed_to_delivered', 'customer'],
      ['order', 'order_placed_admin', 'order_placed_offline', 'admin'],
      ['order', 'order_placed_customer', 'order_placed_offline', 'customer'],
      ['subscription', 'subscription_renewal_customer', 'subscription_renewed', 'customer'],
      ['subscription', 'subscription_renewal_admin', 'subscription_renewed', 'admin'],
      ['subscription', 'subscription_canceled_customer', 'subscription_canceled', 'customer'],
      ['subscription', 'subscription_canceled_admin', 'subscription_canceled', 'admin'],
      ['scheduler', 'invoice_reminder_overdue_customer', 'invoice_reminder_overdue', 'customer'],
      ['scheduler', 'invoice_reminder_overdue_admin', 'invoice_reminder_overdue', 'admin'],
      ['scheduler', 'subscription_renewal_reminder_customer', 'subscription_renewal_reminder', 'customer'],
      ['scheduler', 'subscription_renewal_reminder_admin', 'subscription_renewal_reminder', 'admin'],
      ['scheduler', 'subscription_trial_end_reminder_customer', 'subscription_trial_end_reminder', 'customer'],
      ['scheduler', 'subscription_trial_end_reminder_admin', 'subscription_trial_end_reminder', 'admin'],
    ];

    it('lists exactly the eighteen template keys of the table', async () => {
      const res = await api().get(URL);
      expect(Object.keys(res.body.data).sort()).toEqual(EVENTS.map(([, key]) => key).sort());
    });

    it.each(EVENTS)('%s: %s is bound to %s, sent to the %s', async (group, key, event, recipient) => {
      const listed = (await api().get(URL)).body.data[key];
      const detail = await api().get(`${URL}/${key}`);
      expect(detail.status).toBe(200);
      for (const template of [listed, detail.body.data]) {
        expect(template).toMatchObject({ name: key, group, event, recipient, is_async: expect.any(Boolean) });
        expect(template.group_label).toEqual(expect.any(String));
        expect(template.template_path).toMatch(/\.mjml$/);
        expect(template.settings).toEqual({ active: expect.stringMatching(/^(yes|no)$/), subject: expect.any(String), is_default_body: 'yes', email_body: '' });
        expect(template.settings.subject).not.toBe('');
      }
      expect(Object.keys(detail.body.shortcodes)).toEqual(listed.smartcode_groups);
    });
  });

  describe('GET /email-notification/{notification}', () => {
    it('answers the notification and the smartcode groups it may use', async () => {
      const res = await api().get(`${URL}/order_refunded_customer`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ name: 'order_refunded_customer', event: 'order_refunded', recipient: 'customer' });
      expect(Object.keys(res.body.shortcodes)).toEqual(['general', 'settings', 'order', 'customer', 'transaction', 'license']);
      expect(res.body.shortcodes.order).toEqual(SMARTCODE_GROUPS.order);
      expect(res.body.shortcodes.order).toMatchObject({ key: 'order', title: expect.any(String) });
      expect(Object.keys(res.body.shortcodes.transaction.shortcodes)).toContain('{{transaction.refund_amount_formatted}}');
    });

    it('gives a subscription notification its own groups (no license loop)', async () => {
      const res = await api().get(`${URL}/subscription_canceled_admin`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.shortcodes)).toEqual(NOTIFICATIONS.subscription_canceled_admin.smartcode_groups);
      expect(res.body.shortcodes).not.toHaveProperty('license');
    });

    it.each(['order_paid', 'nope', '__proto__', 'constructor', 'toString'])('answers 404 for %s', async (name) => {
      const res = await api().get(`${URL}/${name}`);
      expect([res.status, res.body]).toEqual([404, { message: 'Notification Details not found' }]);
    });
  });

  describe('PUT /email-notification/{notification}', () => {
    it('saves the subject, a sanitised custom body and active; logs an activity and fires store/email_notification/updated', async () => {
      const body = '<p style="color:#333">Hi {{order.billing.first_name}}</p><a href="{{order.customer_dashboard_link}}">View</a><script>alert(1)</script>';
      let res;
      const fired = await recordHooks(async () => {
        res = await api()
          .put(`${URL}/order_shipped_customer`)
          .send({ settings: { subject: 'Shipped: #{{order.invoice_no}}', email_body: body, active: 'no', is_default_body: 'no' } });
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Notification updated successfully' }]);

      const saved = (await stored('email_notifications'))!.order_shipped_customer as Row;
      expect(saved).toMatchObject({ subject: 'Shipped: #{{order.invoice_no}}', active: 'no', is_default_body: 'no' });
      expect(saved.email_body).toContain('href="{{order.customer_dashboard_link}}"');
      expect(saved.email_body).toContain('Hi {{order.billing.first_name}}');
      expect(saved.email_body).not.toContain('script');

      const shown = await api().get(`${URL}/order_shipped_customer`);
      expect(shown.body.data.settings).toEqual(saved);
      expect(fired).toEqual([
        [
          'store/email_notification/updated',
          'order_shipped_customer',
          saved,
          { active: 'yes', subject: NOTIFICATIONS.order_shipped_customer.default_subject, is_default_body: 'yes', email_body: '' },
        ],
      ]);
      expect((await activities()).pop()).toEqual({
        object_type: 'settings',
        object_id: 0,
        title: 'Email notification updated',
        content: 'order_shipped_customer: active, subject, is_default_body, email_body',
      });
    });

    it('takes back the settings GET /email-notification/{notification} answers, with a new subject', async () => {
      const shown = (await api().get(`${URL}/subscription_canceled_customer`)).body.data.settings;
      const res = await api()
        .put(`${URL}/subscription_canceled_customer`)
        .send({ settings: { ...shown, subject: 'Sorry to see you go' } });
      expect([res.status, res.body]).toEqual([200, { message: 'Notification updated successfully' }]);
      expect((await api().get(`${URL}/subscription_canceled_customer`)).body.data.settings).toEqual({ ...shown, subject: 'Sorry to see you go' });
    });

    it("restores the default body with is_default_body 'yes' (the custom body is stored empty)", async () => {
      await api()
        .put(`${URL}/order_delivered_customer`)
        .send({ settings: { subject: 'Delivered', email_body: '<p>Custom</p>', is_default_body: 'no' } })
        .expect(200);
      expect((await stored('email_notifications'))!.order_delivered_customer).toMatchObject({ is_default_body: 'no', email_body: '<p>Custom</p>' });

      const res = await api()
        .put(`${URL}/order_delivered_customer`)
        .send({ settings: { subject: 'Delivered', email_body: '<p>Ignored</p>', is_default_body: 'yes' } });
      expect([res.status, res.body.message]).toEqual([200, 'Notification updated successfully']);
      expect((await stored('email_notifications'))!.order_delivered_customer).toEqual({
        active: 'yes',
        subject: 'Delivered',
        is_default_body: 'yes',
        email_body: '',
      });
    });

    it('takes a sent email_body as a custom body when is_default_body is left out, and keeps what is not sent', async () => {
      await api()
        .put(`${URL}/order_placed_customer`)
        .send({ settings: { subject: 'One', email_body: '<p>Body</p>' } })
        .expect(200);
      await api()
        .put(`${URL}/order_placed_customer`)
        .send({ settings: { subject: 'Two' } })
        .expect(200);
      expect((await stored('email_notifications'))!.order_placed_customer).toEqual({
        active: 'yes',
        subject: 'Two',
        is_default_body: 'no',
        email_body: '<p>Body</p>',
      });
    });

    it('trims the subject', async () => {
      await api()
        .put(`${URL}/order_placed_admin`)
        .send({ settings: { subject: '  New order  ' } })
        .expect(200);
      expect((await stored('email_notifications'))!.order_placed_admin).toMatchObject({ subject: 'New order' });
    });

    it('accepts a form-encoded body', async () => {
      const res = await api().put(`${URL}/subscription_renewal_admin`).type('form').send('settings[subject]=Renewed&settings[active]=no');
      expect(res.status).toBe(200);
      expect((await stored('email_notifications'))!.subscription_renewal_admin).toMatchObject({ subject: 'Renewed', active: 'no' });
    });

    it('accepts a subject of 255 characters', async () => {
      await api()
        .put(`${URL}/order_paid_admin`)
        .send({ settings: { subject: 's'.repeat(255) } })
        .expect(200);
    });

    const bad: Array<[string, unknown, string, Record<string, string>]> = [
      ['no body', undefined, 'settings.subject', { required: 'The subject field is required.' }],
      ['no settings', {}, 'settings.subject', { required: 'The subject field is required.' }],
      ['no subject', { settings: { active: 'yes' } }, 'settings.subject', { required: 'The subject field is required.' }],
      ['an empty subject', { settings: { subject: '' } }, 'settings.subject', { required: 'The subject field is required.' }],
      ['a blank subject', { settings: { subject: '   ' } }, 'settings.subject', { required: 'The subject field is required.' }],
      [
        'a subject of 256 characters',
        { settings: { subject: 's'.repeat(256) } },
        'settings.subject',
        { max: 'The subject field must not be greater than 255 characters.' },
      ],
      [
        'a subject on two lines',
        { settings: { subject: 'a\r\nBcc: x@example.com' } },
        'settings.subject',
        { regex: 'The subject field must be a single line.' },
      ],
      ['a subject that is a number', { settings: { subject: 5 } }, 'settings.subject', { string: 'The subject field must be a string.' }],
      ['active maybe', { settings: { subject: 'S', active: 'maybe' } }, 'settings.active', { in: 'The selected active is invalid.' }],
      ['active true', { settings: { subject: 'S', active: true } }, 'settings.active', { string: 'The active field must be a string.' }],
      [
        'is_default_body 1',
        { settings: { subject: 'S', is_default_body: 1 } },
        'settings.is_default_body',
        { string: 'The is default body field must be a string.' },
      ],
      [
        'an email_body that is an array',
        { settings: { subject: 'S', email_body: ['<p>'] } },
        'settings.email_body',
        { string: 'The email body field must be a string.' },
      ],
      [
        'an email_body over 100,000 characters',
        { settings: { subject: 'S', email_body: 'x'.repeat(100_001) } },
        'settings.email_body',
        { max: 'The email body field must not be greater than 100000 characters.' },
      ],
      [
        'a custom body that sanitises to nothing',
        { settings: { subject: 'S', email_body: '<script>alert(1)</script>', is_default_body: 'no' } },
        'settings.email_body',
        { required: 'The email body field is required when the default body is not used.' },
      ],
      [
        "is_default_body 'no' without a body",
        { settings: { subject: 'S', is_default_body: 'no' } },
        'settings.email_body',
        { required: 'The email body field is required when the default body is not used.' },
      ],
      ['an unknown settings key', { settings: { subject: 'S', name: 'x' } }, 'settings.name', { unknown: 'The name field is not recognised.' }],
      ['an unknown top-level key', { settings: { subject: 'S' }, title: 'x' }, 'title', { unknown: 'The title field is not recognised.' }],
      ['settings that are a string', { settings: 'subject' }, 'settings', { array: 'The settings field must be an array.' }],
    ];

    it.each(bad)('refuses %s with 422 naming the field, changing nothing', async (_case, body, field, error) => {
      const before = await snapshot();
      const res = await api()
        .put(`${URL}/order_paid_customer`)
        .send(body as object);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual(error);
      expect(res.body.message).toBe(Object.values(error)[0]);
      expect(await snapshot()).toEqual(before);
    });

    it('answers 404 for an unknown notification, changing nothing', async () => {
      const before = await snapshot();
      const res = await api()
        .put(`${URL}/nope`)
        .send({ settings: { subject: 'S' } });
      expect([res.status, res.body]).toEqual([404, { message: 'Notification Details not found' }]);
      const proto = await api()
        .put(`${URL}/__proto__`)
        .send({ settings: { subject: 'S' } });
      expect(proto.status).toBe(404);
      expect(await snapshot()).toEqual(before);
    });

    it("answers 500 'Failed to update notification' when the store cannot be written, changing nothing", async () => {
      const before = await snapshot();
      const set = jest.spyOn(app.host.options, 'set').mockRejectedValueOnce(new Error('disk full'));
      try {
        const res = await api()
          .put(`${URL}/order_paid_customer`)
          .send({ settings: { subject: 'S' } });
        expect([res.status, res.body]).toEqual([500, { message: 'Failed to update notification' }]);
      } finally {
        set.mockRestore();
      }
      expect(await snapshot()).toEqual(before);
      expect(app.logger.entries.some((entry) => entry.level === 'error' && entry.msg === 'Failed to update notification')).toBe(true);
    });

    it('keeps every one of eighteen parallel saves of different notifications', async () => {
      const results = await Promise.all(
        NOTIFICATION_KEYS.map((key) =>
          api()
            .put(`${URL}/${key}`)
            .send({ settings: { subject: `Parallel ${key}` } }),
        ),
      );
      expect(results.map((res) => res.status)).toEqual(NOTIFICATION_KEYS.map(() => 200));
      const saved = (await stored('email_notifications')) as Record<NotificationKey, Row>;
      for (const key of NOTIFICATION_KEYS) expect(saved[key].subject).toBe(`Parallel ${key}`);
      const listed = await api().get(URL);
      for (const key of NOTIFICATION_KEYS) expect(listed.body.data[key].settings.subject).toBe(`Parallel ${key}`);
    });
  });

  describe('POST /email-notification/enable-notification/{name}', () => {
    it('changes active only', async () => {
      await api()
        .put(`${URL}/subscription_renewal_customer`)
        .send({ settings: { subject: 'Renewed', email_body: '<p>Thanks</p>' } })
        .expect(200);
      const before = (await stored('email_notifications'))!.subscription_renewal_customer as Row;

      let res;
      const fired = await recordHooks(async () => {
        res = await api().post(`${URL}/enable-notification/subscription_renewal_customer`).send({ active: 'no' });
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Notification updated successfully' }]);
      const after = (await stored('email_notifications'))!.subscription_renewal_customer as Row;
      expect(after).toEqual({ ...before, active: 'no' });
      expect(fired).toEqual([['store/email_notification/updated', 'subscription_renewal_customer', after, before]]);
      expect((await activities()).pop()).toMatchObject({ title: 'Email notification updated', content: 'subscription_renewal_customer: active' });

      await api().post(`${URL}/enable-notification/subscription_renewal_customer`).send({ active: 'yes' }).expect(200);
      expect((await stored('email_notifications'))!.subscription_renewal_customer).toEqual(before);
    });

    it('keeps the other notifications as they are', async () => {
      const before = (await stored('email_notifications')) as Row;
      await api().post(`${URL}/enable-notification/invoice_reminder_overdue_admin`).send({ active: 'no' }).expect(200);
      const after = (await stored('email_notifications')) as Row;
      expect(after).toEqual({ ...before, invoice_reminder_overdue_admin: { ...(before.invoice_reminder_overdue_admin as Row), active: 'no' } });
    });

    it.each([
      ['no body', undefined, { required: 'The active field is required.' }],
      ['active missing', {}, { required: 'The active field is required.' }],
      ['active maybe', { active: 'maybe' }, { in: 'The selected active is invalid.' }],
      ['active 0', { active: 0 }, { string: 'The active field must be a string.' }],
    ])('refuses %s with 422, changing nothing', async (_case, body, error) => {
      const before = await snapshot();
      const res = await api()
        .post(`${URL}/enable-notification/order_paid_customer`)
        .send(body as object);
      expect(res.status).toBe(422);
      expect(res.body.errors.active).toEqual(error);
      expect(await snapshot()).toEqual(before);
    });

    it('refuses an unknown key in the body with 422', async () => {
      const res = await api().post(`${URL}/enable-notification/order_paid_customer`).send({ active: 'no', subject: 'x' });
      expect(res.status).toBe(422);
      expect(res.body.errors.subject).toEqual({ unknown: 'The subject field is not recognised.' });
    });

    it('answers 404 for an unknown notification', async () => {
      const before = await snapshot();
      const res = await api().post(`${URL}/enable-notification/nope`).send({ active: 'no' });
      expect([res.status, res.body]).toEqual([404, { message: 'Notification Details not found' }]);
      expect(await snapshot()).toEqual(before);
    });

    it("answers 500 'Failed to update notification' when the store cannot be written", async () => {
      const before = await snapshot();
      const set = jest.spyOn(app.host.options, 'set').mockRejectedValueOnce(new Error('disk full'));
      try {
        const res = await api().post(`${URL}/enable-notification/order_paid_customer`).send({ active: 'no' });
        expect([res.status, res.body]).toEqual([500, { message: 'Failed to update notification' }]);
      } finally {
        set.mockRestore();
      }
      expect(await snapshot()).toEqual(before);
    });

    it('keeps every one of parallel switches of different notifications', async () => {
      const results = await Promise.all(NOTIFICATION_KEYS.map((key) => api().post(`${URL}/enable-notification/${key}`).send({ active: 'no' })));
      expect(results.map((res) => res.status)).toEqual(NOTIFICATION_KEYS.map(() => 200));
      const saved = (await stored('email_notifications')) as Record<NotificationKey, Row>;
      for (const key of NOTIFICATION_KEYS) expect(saved[key].active).toBe('no');
    });
  });

  describe('GET /email-notification/get-short-codes', () => {
    it('answers the default templates, every smartcode group and the ready-made buttons', async () => {
      const res = await api().get(`${URL}/get-short-codes`);
      expect(res.status).toBe(200);
      expect(res.body.data.email_templates).toHaveLength(18);
      expect(res.body.data.email_templates[0]).toEqual({ path: 'order/paid-admin.mjml', label: NOTIFICATIONS.order_paid_admin.title });
      expect(res.body.data.email_templates.map((t: Row) => t.path)).toEqual(NOTIFICATION_KEYS.map((key) => NOTIFICATIONS[key].template_path));
      expect(Object.keys(res.body.data.shortcodes).sort()).toEqual(['customer', 'general', 'license', 'order', 'settings', 'subscription', 'transaction']);
      expect(res.body.data.shortcodes).toEqual(SMARTCODE_GROUPS);
      expect(Object.keys(res.body.data.shortcodes.order.shortcodes)).toEqual(
        expect.arrayContaining([
          '{{order.id}}',
          '{{order.invoice_no}}',
          '{{order.status}}',
          '{{order.total_amount_formatted}}',
          '{{order.customer_dashboard_link}}',
          '{{order.created_at}}',
        ]),
      );
      expect(Object.keys(res.body.data.shortcodes.license.shortcodes)).toEqual(expect.arrayContaining(['{{license.key}}', '{{license.expiration_date}}']));
      expect(res.body.data.buttons).toEqual(EMAIL_BUTTONS);
      expect(Object.keys(res.body.data.buttons).length).toBeGreaterThan(0);
      for (const html of Object.values(res.body.data.buttons)) expect(html).toMatch(/<a [^>]*href="/);
    });
  });

  describe('GET /email-notification/get-short-codes: the groups and codes the spec lists', () => {
    const SPEC_CODES: Record<string, string[]> = {
      order: ['order.id', 'order.invoice_no', 'order.status', 'order.total_amount_formatted', 'order.customer_dashboard_link', 'order.created_at'],
      general: ['site.admin_email', 'site.site_url', 'site.site_title', 'user.display_name', 'user.user_email'],
      customer: ['first_name', 'last_name', 'email', 'city', 'state', 'country'].map((field) => `order.billing.${field}`),
      transaction: [
        'total',
        'total_formatted',
        'refund_amount',
        'refund_amount_formatted',
        'payment_method',
        'card_last_4',
        'card_brand',
        'status',
        'currency',
      ].map((field) => `transaction.${field}`),
      settings: ['store_name', 'store_logo', 'store_address', 'store_address2', 'store_country', 'store_state', 'store_city', 'store_postcode'].map(
        (field) => `settings.${field}`,
      ),
      license: ['sl', 'key', 'status', 'product_name', 'variant', 'limit', 'activation_count', 'expiration_date'].map((field) => `license.${field}`),
    };

    it.each(Object.entries(SPEC_CODES))('group %s: {title, key, shortcodes} with every code the spec names, each labelled', async (group, codes) => {
      const res = await api().get(`${URL}/get-short-codes`);
      expect(res.status).toBe(200);
      const view = res.body.data.shortcodes[group];
      expect(view).toEqual({ title: expect.any(String), key: group, shortcodes: expect.any(Object) });
      for (const code of codes) expect(view.shortcodes[`{{${code}}}`]).toEqual(expect.stringMatching(/\S/));
    });
  });

  describe('GET /email-notification/get-settings', () => {
    it('answers the defaults and the smartcodes admin_email may hold', async () => {
      const res = await api().get(`${URL}/get-settings`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        from_name: app.host.site.title,
        from_email: app.host.site.admin_email,
        reply_to_name: '',
        reply_to_email: '',
        email_footer: '',
        show_email_footer: 'yes',
        admin_email: '{{site.admin_email}}',
        notification_config: {},
      });
      expect(res.body.shortcodes).toEqual([
        expect.objectContaining({ key: 'general', shortcodes: expect.objectContaining({ '{{site.admin_email}}': expect.any(String) }) }),
      ]);
      expect(Object.keys(res.body.shortcodes[0].shortcodes)).toEqual(['{{site.admin_email}}']);
    });
  });

  describe('POST /email-notification/save-settings', () => {
    const valid = { from_name: 'Acme Shop', from_email: 'shop@acme.test', admin_email: 'ops@acme.test' };

    it('saves the settings, sanitises the footer, logs an activity and fires store/email_settings/updated', async () => {
      const previous = (await api().get(`${URL}/get-settings`)).body.data;
      const body = {
        ...valid,
        reply_to_name: 'Acme Support',
        reply_to_email: 'support@acme.test',
        email_footer: '<p style="text-align:center">Acme <a href="{{site.site_url}}">shop</a></p><img src=x onerror="alert(1)">',
        show_email_footer: 'no',
        admin_email: ' ops@acme.test ,{{site.admin_email}},  boss@acme.test ',
        notification_config: { digest: true },
      };
      let res;
      const fired = await recordHooks(async () => {
        res = await api().post(`${URL}/save-settings`).send(body);
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Email settings saved successfully' }]);

      const saved = await stored('email_settings');
      expect(saved).toMatchObject({
        from_name: 'Acme Shop',
        from_email: 'shop@acme.test',
        reply_to_name: 'Acme Support',
        reply_to_email: 'support@acme.test',
        show_email_footer: 'no',
        admin_email: 'ops@acme.test, {{site.admin_email}}, boss@acme.test',
        notification_config: { digest: true },
      });
      expect(saved!.email_footer).toContain('href="{{site.site_url}}"');
      expect(saved!.email_footer).not.toContain('onerror');
      expect((await api().get(`${URL}/get-settings`)).body.data).toEqual(saved);
      expect(fired).toEqual([['store/email_settings/updated', saved, previous]]);
      expect((await activities()).pop()).toMatchObject({ object_type: 'settings', object_id: 0, title: 'Email settings updated' });
    });

    it('takes back what GET /email-notification/get-settings answers, unchanged', async () => {
      const shown = (await api().get(`${URL}/get-settings`)).body.data;
      const res = await api().post(`${URL}/save-settings`).send(shown);
      expect([res.status, res.body]).toEqual([200, { message: 'Email settings saved successfully' }]);
      expect((await api().get(`${URL}/get-settings`)).body.data).toEqual(shown);
    });

    it('keeps the saved value of every optional field left out', async () => {
      const before = (await stored('email_settings')) as Row;
      await api().post(`${URL}/save-settings`).send({ from_name: 'Renamed', from_email: 'new@acme.test', admin_email: 'ops@acme.test' }).expect(200);
      expect(await stored('email_settings')).toEqual({ ...before, from_name: 'Renamed', from_email: 'new@acme.test', admin_email: 'ops@acme.test' });
    });

    it('clears the reply-to address with an empty string, and takes 255-character names', async () => {
      await api()
        .post(`${URL}/save-settings`)
        .send({ ...valid, from_name: 'n'.repeat(255), reply_to_name: 'r'.repeat(255), reply_to_email: '' })
        .expect(200);
      expect(await stored('email_settings')).toMatchObject({ reply_to_email: '', from_name: 'n'.repeat(255) });
    });

    it('takes from and reply-to addresses of 255 characters', async () => {
      const from = `${'f'.repeat(243)}@example.com`;
      const replyTo = `${'r'.repeat(243)}@example.com`;
      expect([from.length, replyTo.length]).toEqual([255, 255]);
      const res = await api()
        .post(`${URL}/save-settings`)
        .send({ ...valid, from_email: from, reply_to_email: replyTo });
      expect([res.status, res.body]).toEqual([200, { message: 'Email settings saved successfully' }]);
      expect(await stored('email_settings')).toMatchObject({ from_email: from, reply_to_email: replyTo });
    });

    const long = `${'a'.repeat(244)}@example.com`;
    const bad: Array<[string, Row, string, Record<string, string>]> = [
      ['from_name missing', { from_email: 'a@b.co', admin_email: 'a@b.co' }, 'from_name', { required: 'The from name field is required.' }],
      ['from_name empty', { ...valid, from_name: '' }, 'from_name', { required: 'The from name field is required.' }],
      ['from_name too long', { ...valid, from_name: 'n'.repeat(256) }, 'from_name', { max: 'The from name field must not be greater than 255 characters.' }],
      ['from_name on two lines', { ...valid, from_name: 'A\nB' }, 'from_name', { regex: 'The from name field must be a single line.' }],
      ['from_email missing', { from_name: 'A', admin_email: 'a@b.co' }, 'from_email', { required: 'The from email field is required.' }],
      ['from_email not an address', { ...valid, from_email: 'shop' }, 'from_email', { email: 'The from email field must be a valid email address.' }],
      ['from_email too long', { ...valid, from_email: long }, 'from_email', { max: 'The from email field must not be greater than 255 characters.' }],
      [
        'reply_to_name too long',
        { ...valid, reply_to_name: 'r'.repeat(256) },
        'reply_to_name',
        { max: 'The reply to name field must not be greater than 255 characters.' },
      ],
      [
        'reply_to_email not an address',
        { ...valid, reply_to_email: 'support' },
        'reply_to_email',
        { email: 'The reply to email field must be a valid email address.' },
      ],
      [
        'reply_to_email too long',
        { ...valid, reply_to_email: long },
        'reply_to_email',
        { max: 'The reply to email field must not be greater than 255 characters.' },
      ],
      ['admin_email missing', { from_name: 'A', from_email: 'a@b.co' }, 'admin_email', { required: 'The admin email field is required.' }],
      ['admin_email empty', { ...valid, admin_email: '' }, 'admin_email', { required: 'The admin email field is required.' }],
      ['admin_email only commas', { ...valid, admin_email: ' , ' }, 'admin_email', { email: expect.stringContaining('{{site.admin_email}}') }],
      [
        'admin_email with a bad entry',
        { ...valid, admin_email: 'ops@acme.test, nobody' },
        'admin_email',
        { email: expect.stringContaining('valid email address') },
      ],
      [
        'admin_email with an unknown smartcode',
        { ...valid, admin_email: '{{site.admin_mail}}' },
        'admin_email',
        { email: expect.stringContaining('valid email address') },
      ],
      [
        'admin_email with a smartcode that is no address',
        { ...valid, admin_email: '{{site.site_title}}' },
        'admin_email',
        { email: expect.stringContaining('valid email address') },
      ],
      [
        "admin_email with the customer's address",
        { ...valid, admin_email: '{{user.user_email}}' },
        'admin_email',
        { email: expect.stringContaining('valid email address') },
      ],
      ['admin_email a number', { ...valid, admin_email: 5 }, 'admin_email', { string: 'The admin email field must be a string.' }],
      ['show_email_footer maybe', { ...valid, show_email_footer: 'maybe' }, 'show_email_footer', { in: 'The selected show email footer is invalid.' }],
      ['email_footer an object', { ...valid, email_footer: { html: 'x' } }, 'email_footer', { string: 'The email footer field must be a string.' }],
      [
        'notification_config a list',
        { ...valid, notification_config: [1] },
        'notification_config',
        { array: 'The notification config field must be an array.' },
      ],
      ['an unknown key', { ...valid, smtp_host: 'x' }, 'smtp_host', { unknown: 'The smtp host field is not recognised.' }],
    ];

    it.each(bad)('refuses %s with 422 naming the field, changing nothing', async (_case, body, field, error) => {
      const before = await snapshot();
      const res = await api().post(`${URL}/save-settings`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual(error);
      expect(await snapshot()).toEqual(before);
    });

    it("answers 500 'Failed to save email settings' when the store cannot be written, changing nothing", async () => {
      const before = await snapshot();
      const set = jest.spyOn(app.host.options, 'set').mockRejectedValueOnce(new Error('disk full'));
      try {
        const res = await api().post(`${URL}/save-settings`).send(valid);
        expect([res.status, res.body]).toEqual([500, { message: 'Failed to save email settings' }]);
      } finally {
        set.mockRestore();
      }
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('GET /email-notification/reminders', () => {
    it('answers the settings and a description of every form field', async () => {
      await app.host.options.delete('email_reminders');
      const res = await api().get(`${URL}/reminders`);
      expect(res.status).toBe(200);
      expect(res.body.settings).toEqual({
        reminders_enabled: 'no',
        invoice_reminders_enabled: 'no',
        invoice_reminder_due_days: 0,
        invoice_reminder_overdue_days: '1,3,7',
        yearly_renewal_reminders_enabled: 'no',
        yearly_renewal_reminder_days: 30,
        trial_end_reminders_enabled: 'no',
        trial_end_reminder_days: 3,
        monthly_renewal_reminders_enabled: 'no',
        monthly_renewal_reminder_days: 7,
        quarterly_renewal_reminders_enabled: 'no',
        quarterly_renewal_reminder_days: 14,
        half_yearly_renewal_reminders_enabled: 'no',
        half_yearly_renewal_reminder_days: 14,
      });
      const fields = res.body.fields.reminders;
      expect(Object.keys(fields).sort()).toEqual(Object.keys(res.body.settings).sort());
      expect(fields.reminders_enabled).toMatchObject({ type: 'toggle', options: ['yes', 'no'], depends_on: null, label: expect.any(String) });
      expect(fields.yearly_renewal_reminders_enabled).toMatchObject({ type: 'toggle', depends_on: 'reminders_enabled' });
      expect(fields.invoice_reminder_due_days).toMatchObject({ type: 'number', unit: 'days', min: 0, max: 365, depends_on: 'invoice_reminders_enabled' });
      expect(fields.yearly_renewal_reminder_days).toMatchObject({ type: 'number', min: 7, max: 90, depends_on: 'yearly_renewal_reminders_enabled' });
      expect(fields.trial_end_reminder_days).toMatchObject({ min: 1, max: 14, depends_on: 'trial_end_reminders_enabled' });
      expect(fields.monthly_renewal_reminder_days).toMatchObject({ min: 3, max: 28, depends_on: 'monthly_renewal_reminders_enabled' });
      expect(fields.quarterly_renewal_reminder_days).toMatchObject({ min: 7, max: 60, depends_on: 'quarterly_renewal_reminders_enabled' });
      expect(fields.half_yearly_renewal_reminder_days).toMatchObject({ min: 7, max: 60, depends_on: 'half_yearly_renewal_reminders_enabled' });
      expect(fields.invoice_reminder_overdue_days).toMatchObject({
        type: 'day_list',
        min: 1,
        max: 365,
        max_items: 20,
        depends_on: 'invoice_reminders_enabled',
      });
    });
  });

  describe.each(['post', 'put'] as const)('%s /email-notification/reminders', (method) => {
    const save = (body: unknown) =>
      api()
        [method](`${URL}/reminders`)
        .send(body as object);

    beforeEach(async () => {
      await app.host.options.delete('email_reminders');
    });

    it('takes back what GET /email-notification/reminders answers, unchanged', async () => {
      const shown = (await api().get(`${URL}/reminders`)).body.settings;
      const res = await save(shown);
      expect([res.status, res.body.settings]).toEqual([200, shown]);
      expect((await api().get(`${URL}/reminders`)).body.settings).toEqual(shown);
    });

    it('saves, answers the message and the settings, logs an activity and fires store/email_reminders/updated', async () => {
      let res;
      const fired = await recordHooks(async () => {
        res = await save({ reminders_enabled: 'yes', yearly_renewal_reminders_enabled: 'yes', yearly_renewal_reminder_days: 45 });
      });
      expect(res!.status).toBe(200);
      expect(res!.body.message).toBe('Reminder settings saved successfully');
      expect(res!.body.settings).toMatchObject({
        reminders_enabled: 'yes',
        yearly_renewal_reminders_enabled: 'yes',
        yearly_renewal_reminder_days: 45,
        trial_end_reminder_days: 3,
      });
      expect(await stored('email_reminders')).toEqual(res!.body.settings);
      expect((await api().get(`${URL}/reminders`)).body.settings).toEqual(res!.body.settings);
      expect(fired).toEqual([['store/email_reminders/updated', res!.body.settings, expect.objectContaining({ reminders_enabled: 'no' })]]);
      expect((await activities()).pop()).toEqual({
        object_type: 'settings',
        object_id: 0,
        title: 'Reminder settings updated',
        content: 'reminders_enabled, yearly_renewal_reminders_enabled, yearly_renewal_reminder_days',
      });
    });

    const ranges: Array<[field: string, toggle: string, min: number, max: number]> = [
      ['invoice_reminder_due_days', 'invoice_reminders_enabled', 0, 365],
      ['yearly_renewal_reminder_days', 'yearly_renewal_reminders_enabled', 7, 90],
      ['trial_end_reminder_days', 'trial_end_reminders_enabled', 1, 14],
      ['monthly_renewal_reminder_days', 'monthly_renewal_reminders_enabled', 3, 28],
      ['quarterly_renewal_reminder_days', 'quarterly_renewal_reminders_enabled', 7, 60],
      ['half_yearly_renewal_reminder_days', 'half_yearly_renewal_reminders_enabled', 7, 60],
    ];

    it.each(ranges)('checks %s only while %s is yes (%i…%i)', async (field, toggle, min, max) => {
      const label = field.replace(/_/g, ' ');
      const message = `The ${label} field must be between ${min} and ${max}.`;
      for (const value of [min, max]) {
        const res = await save({ [toggle]: 'yes', [field]: value });
        expect([res.status, res.body.settings?.[field]]).toEqual([200, value]);
      }
      for (const value of [min - 1, max + 1]) {
        const before = await snapshot();
        const res = await save({ [toggle]: 'yes', [field]: value });
        expect([res.status, res.body.message, res.body.errors]).toEqual([422, message, { [field]: { between: message } }]);
        expect(await snapshot()).toEqual(before);
      }
      for (const value of [min - 1, min, max, max + 1]) {
        const off = await save({ [toggle]: 'no', [field]: value });
        expect([off.status, off.body.settings?.[field]]).toEqual([200, value]);
        expect((await stored('email_reminders'))![field]).toBe(value);
      }

      const on = await save({ [toggle]: 'yes' });
      expect([on.status, on.body.errors]).toEqual([422, { [field]: { between: message } }]);
      expect((await stored('email_reminders'))![toggle]).toBe('no');
    });

    it('normalises the overdue day list: sorted, without repeats or blanks', async () => {
      const res = await save({ invoice_reminders_enabled: 'yes', invoice_reminder_overdue_days: ' 7, 1,3,3,, 365 ' });
      expect(res.status).toBe(200);
      expect(res.body.settings.invoice_reminder_overdue_days).toBe('1,3,7,365');
      expect((await stored('email_reminders'))!.invoice_reminder_overdue_days).toBe('1,3,7,365');
    });

    it.each([
      ['1,3,7', '1,3,7'],
      ['1, 3, 7', '1,3,7'],
      ['  14  ', '14'],
      ['3,', '3'],
      [',3', '3'],
      ['7,7,7', '7'],
      ['007,10', '7,10'],
      [' , ,', ''],
    ])('stores the overdue day list %j as %j', async (list, storedList) => {
      const res = await save({ invoice_reminders_enabled: 'yes', invoice_reminder_overdue_days: list });
      expect([res.status, res.body.settings.invoice_reminder_overdue_days]).toEqual([200, storedList]);
      expect((await stored('email_reminders'))!.invoice_reminder_overdue_days).toBe(storedList);
      expect((await api().get(`${URL}/reminders`)).body.settings.invoice_reminder_overdue_days).toBe(storedList);
    });

    it('accepts an empty overdue day list (no overdue reminders)', async () => {
      const res = await save({ invoice_reminders_enabled: 'yes', invoice_reminder_overdue_days: '' });
      expect([res.status, res.body.settings.invoice_reminder_overdue_days]).toEqual([200, '']);
    });

    it.each([
      ['1,two,3', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['1.5', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['-1', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['1 3', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['1;3', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['3 days', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['1,,x', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['+3', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['1e2', { list: 'The invoice reminder overdue days field must be a comma-separated list of whole days.' }],
      ['0,3', { between: 'Each of the invoice reminder overdue days must be between 1 and 365.' }],
      ['1,366', { between: 'Each of the invoice reminder overdue days must be between 1 and 365.' }],
      [Array.from({ length: 21 }, (_, i) => i + 1).join(','), { max: 'The invoice reminder overdue days field must not have more than 20 days.' }],
    ])('refuses the overdue day list %j while invoice reminders are on', async (list, error) => {
      const before = await snapshot();
      const res = await save({ invoice_reminders_enabled: 'yes', invoice_reminder_overdue_days: list });
      expect([res.status, res.body.errors]).toEqual([422, { invoice_reminder_overdue_days: error }]);
      expect(await snapshot()).toEqual(before);
    });

    it('does not check the overdue day list while invoice reminders are off', async () => {
      const res = await save({ invoice_reminders_enabled: 'no', invoice_reminder_overdue_days: ' 0,x ' });
      expect([res.status, res.body.settings.invoice_reminder_overdue_days]).toEqual([200, '0,x']);
    });

    it.each([
      ['a toggle maybe', { reminders_enabled: 'maybe' }, 'reminders_enabled', { in: 'The selected reminders enabled is invalid.' }],
      [
        'a toggle true',
        { trial_end_reminders_enabled: true },
        'trial_end_reminders_enabled',
        { string: 'The trial end reminders enabled field must be a string.' },
      ],
      ['days as text', { trial_end_reminder_days: '3' }, 'trial_end_reminder_days', { integer: 'The trial end reminder days field must be an integer.' }],
      [
        'days as a fraction',
        { monthly_renewal_reminder_days: 3.5 },
        'monthly_renewal_reminder_days',
        { integer: 'The monthly renewal reminder days field must be an integer.' },
      ],
      [
        'days beyond a 32-bit integer',
        { yearly_renewal_reminder_days: 2 ** 31 },
        'yearly_renewal_reminder_days',
        { max: 'The yearly renewal reminder days field must not be greater than 2147483647.' },
      ],
      [
        'days null',
        { yearly_renewal_reminder_days: null },
        'yearly_renewal_reminder_days',
        { integer: 'The yearly renewal reminder days field must be an integer.' },
      ],
      [
        'an overdue list that is an array',
        { invoice_reminder_overdue_days: [1, 3, 7] },
        'invoice_reminder_overdue_days',
        { string: 'The invoice reminder overdue days field must be a string.' },
      ],
      [
        'an overdue list that is a number',
        { invoice_reminder_overdue_days: 3 },
        'invoice_reminder_overdue_days',
        { string: 'The invoice reminder overdue days field must be a string.' },
      ],
      [
        'an unknown key',
        { weekly_renewal_reminder_days: 3 },
        'weekly_renewal_reminder_days',
        { unknown: 'The weekly renewal reminder days field is not recognised.' },
      ],
    ])('refuses %s with 422, changing nothing', async (_case, body, field, error) => {
      const before = await snapshot();
      const res = await save(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual(error);
      expect(await snapshot()).toEqual(before);
    });

    it('keeps both of two parallel saves of different fields', async () => {
      const results = await Promise.all([
        save({ monthly_renewal_reminders_enabled: 'yes', monthly_renewal_reminder_days: 5 }),
        save({ trial_end_reminders_enabled: 'yes', trial_end_reminder_days: 2 }),
        save({ reminders_enabled: 'yes' }),
      ]);
      expect(results.map((res) => res.status)).toEqual([200, 200, 200]);
      expect(await stored('email_reminders')).toMatchObject({
        reminders_enabled: 'yes',
        monthly_renewal_reminders_enabled: 'yes',
        monthly_renewal_reminder_days: 5,
        trial_end_reminders_enabled: 'yes',
        trial_end_reminder_days: 2,
      });
    });

    it("answers 500 'Failed to save reminder settings' when the store cannot be written, changing nothing", async () => {
      const before = await snapshot();
      const set = jest.spyOn(app.host.options, 'set').mockRejectedValueOnce(new Error('disk full'));
      try {
        const res = await save({ reminders_enabled: 'yes' });
        expect([res.status, res.body]).toEqual([500, { message: 'Failed to save reminder settings' }]);
      } finally {
        set.mockRestore();
      }
      expect(await snapshot()).toEqual(before);
    });
  });
});
