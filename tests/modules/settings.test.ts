import { getPaymentSettings } from '../../src/modules/settings/payment-settings';
import { vendorIdEditingEnabled } from '../../src/modules/settings/store-settings';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('settings', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let clerk: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['order_manager']);
    clerk = await app.createUser('clerk', ['customer_service']);
    shopper = await app.createUser('shopper');
    await app.host.users.roles.register('settings_reader', { title: 'Settings reader', capabilities: ['store/settings'] });
  });
  afterAll(() => app.close());

  describe('GET /settings/store', () => {
    it('returns the defaults on a fresh store', async () => {
      const res = await app.as(admin).get(`${BASE}/settings/store`);
      expect(res.status).toBe(200);
      expect(res.body.settings).toMatchObject({
        store_country: 'US',
        currency: 'USD',
        name_mode: 'separate',
        account_creation: 'user_choice',
        invoice_prefix: 'INV-',
        early_payment_enabled: false,
        vendor_id_editing_enabled: false,
        terms_enabled: false,
        orders_per_page: 10,
      });
      expect(res.body.settings.checkout_fields.billing_address_1).toEqual({ enabled: true, required: true });
      expect(res.body.settings.checkout_fields.billing_phone).toEqual({ enabled: true, required: false });
    });

    it('needs store/settings: 401 anonymous, 403 without it', async () => {
      expect((await app.http.get(`${BASE}/settings/store`)).status).toBe(401);
      expect((await app.as(shopper).get(`${BASE}/settings/store`)).status).toBe(403);
      expect((await app.as(clerk).get(`${BASE}/settings/store`)).status).toBe(403);
    });
  });

  describe('PUT /settings/store', () => {
    it('saves a partial update, keeps the rest, logs an activity and fires store/settings/updated', async () => {
      const fired: Array<[string, string]> = [];
      const off = app.host.hooks.addAction('store/settings/updated', (next, previous) => {
        fired.push([previous.store_name, next.store_name]);
      });
      const res = await app
        .as(admin)
        .put(`${BASE}/settings/store`)
        .send({
          store_name: 'Acme Goods',
          store_country: 'de',
          currency: 'eur',
          name_mode: 'full',
          checkout_fields: { billing_phone: { enabled: true, required: true } },
        });
      off();
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Store settings saved successfully');
      expect(res.body.settings).toMatchObject({ store_name: 'Acme Goods', store_country: 'DE', currency: 'EUR', name_mode: 'full', invoice_prefix: 'INV-' });
      expect(res.body.settings.checkout_fields.billing_phone).toEqual({ enabled: true, required: true });
      expect(res.body.settings.checkout_fields.billing_address_1).toEqual({ enabled: true, required: true });
      expect(fired).toEqual([['My Store', 'Acme Goods']]);

      const again = await app.as(admin).get(`${BASE}/settings/store`);
      expect(again.body.settings.store_name).toBe('Acme Goods');
      const activity = await app.database.db('store_activities').where({ object_type: 'settings' }).orderBy('id', 'desc').first();
      expect(activity.title).toBe('Store settings updated');
      expect(activity.content).toContain('store_name');
    });

    it.each([
      [{ store_country: 'XX' }, 'store_country', 'country'],
      [{ currency: 'ABC' }, 'currency', 'currency'],
      [{ name_mode: 'middle' }, 'name_mode', 'in'],
      [{ account_creation: 'sometimes' }, 'account_creation', 'in'],
      [{ store_name: '' }, 'store_name', 'required'],
      [{ orders_per_page: 500 }, 'orders_per_page', 'max'],
      [{ invoice_prefix: 'INV <script>' }, 'invoice_prefix', 'regex'],
      [{ terms_enabled: true, terms_url: '' }, 'terms_url', 'required'],
      [{ thousand_separator: '.', decimal_separator: '.' }, 'decimal_separator', 'different'],
      [{ checkout_fields: { billing_phone: { enabled: false, required: true } } }, 'checkout_fields.billing_phone', 'enabled'],
      [{ early_payment_enabled: 'yes' }, 'early_payment_enabled', 'boolean'],
      [{ unknown_setting: 1 }, 'unknown_setting', 'unknown'],
    ])('refuses %j with 422 naming %s and changes nothing', async (body, field, rule) => {
      const before = (await app.as(admin).get(`${BASE}/settings/store`)).body.settings;
      const res = await app.as(admin).put(`${BASE}/settings/store`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toHaveProperty(rule);
      expect((await app.as(admin).get(`${BASE}/settings/store`)).body.settings).toEqual(before);
    });

    it('needs store/sensitive: a settings reader gets 403', async () => {
      const reader = await app.createUser('reader', ['settings_reader']);
      expect((await app.as(reader).get(`${BASE}/settings/store`)).status).toBe(200);
      expect((await app.as(reader).put(`${BASE}/settings/store`).send({ store_name: 'Nope' })).status).toBe(403);
      expect((await app.as(manager).put(`${BASE}/settings/store`).send({ store_name: 'Nope' })).status).toBe(403);
    });

    it('parallel saves of different settings all stay (each save reads the stored row locked, not the 5 s cache)', async () => {
      const saves = [
        { store_name: 'Parallel Store' },
        { invoice_prefix: 'PAR-' },
        { orders_per_page: 25 },
        { store_vat_number: 'DE123' },
        { terms_url: 'https://example.com/terms' },
      ];
      const before = (await app.as(admin).get(`${BASE}/settings/store`)).body.settings;
      const answers = await Promise.all(saves.map((body) => app.as(admin).put(`${BASE}/settings/store`).send(body)));
      expect(answers.map((res) => res.status)).toEqual(saves.map(() => 200));
      const res = await app.as(admin).get(`${BASE}/settings/store`);
      expect(res.body.settings).toMatchObject(Object.assign({}, ...saves));
      const restore = Object.fromEntries(saves.flatMap((body) => Object.keys(body)).map((key) => [key, before[key]]));
      await app.as(admin).put(`${BASE}/settings/store`).send(restore).expect(200);
    });
  });

  describe('tax settings (PUT /settings/store)', () => {
    const taxSettings = async () => {
      const { tax_enabled, prices_include_tax, tax_based_on, tax_rounding, shipping_tax_class, store_vat_number } = (
        await app.as(admin).get(`${BASE}/settings/store`)
      ).body.settings;
      return { tax_enabled, prices_include_tax, tax_based_on, tax_rounding, shipping_tax_class, store_vat_number };
    };
    const reset = {
      tax_enabled: true,
      prices_include_tax: false,
      tax_based_on: 'shipping',
      tax_rounding: 'line',
      shipping_tax_class: 'standard',
      store_vat_number: '',
    };
    afterEach(async () => {
      await app.as(admin).put(`${BASE}/settings/store`).send(reset).expect(200);
      await app.database.db('store_tax_classes').whereNot({ slug: 'standard' }).delete();
    });

    it('defaults: tax on, prices without tax, the shipping address, rounded per line, shipping in the Standard class, no VAT number', async () => {
      expect(await taxSettings()).toEqual(reset);
    });

    it('saves each of them; the shipping tax class may be any existing class', async () => {
      await app.as(admin).post(`${BASE}/tax/classes`).send({ slug: 'reduced' }).expect(200);
      const saved = {
        tax_enabled: false,
        prices_include_tax: true,
        tax_based_on: 'store',
        tax_rounding: 'total',
        shipping_tax_class: 'reduced',
        store_vat_number: 'DE123456789',
      };
      const res = await app.as(admin).put(`${BASE}/settings/store`).send(saved);
      expect(res.status).toBe(200);
      expect(res.body.settings).toMatchObject(saved);
      expect(await taxSettings()).toEqual(saved);
      await app.as(admin).put(`${BASE}/settings/store`).send({ tax_based_on: 'billing' }).expect(200);
      expect(await taxSettings()).toEqual({ ...saved, tax_based_on: 'billing' });
    });

    it.each([
      [{ tax_enabled: 1 }, 'tax_enabled', { boolean: 'The tax enabled field must be a boolean.' }],
      [{ prices_include_tax: 'yes' }, 'prices_include_tax', { boolean: 'The prices include tax field must be a boolean.' }],
      [{ tax_based_on: 'country' }, 'tax_based_on', { in: 'The selected tax based on is invalid.' }],
      [{ tax_rounding: 'item' }, 'tax_rounding', { in: 'The selected tax rounding is invalid.' }],
      [{ shipping_tax_class: 'luxury' }, 'shipping_tax_class', { exists: 'The selected shipping tax class is invalid.' }],
      [{ shipping_tax_class: 'tax_exempt' }, 'shipping_tax_class', { exists: 'The selected shipping tax class is invalid.' }],
      [{ shipping_tax_class: '' }, 'shipping_tax_class', { required: 'The shipping tax class field is required.' }],
      [{ store_vat_number: 'x'.repeat(46) }, 'store_vat_number', { max: 'The store vat number field must not be greater than 45 characters.' }],
    ])('refuses %j with 422 naming the field; nothing changes', async (body, field, error) => {
      const before = (await app.as(admin).get(`${BASE}/settings/store`)).body.settings;
      const res = await app.as(admin).put(`${BASE}/settings/store`).send(body);
      expect([res.status, res.body.errors]).toEqual([422, { [field]: error }]);
      expect((await app.as(admin).get(`${BASE}/settings/store`)).body.settings).toEqual(before);
    });
  });

  describe('vendor-id editing switch', () => {
    it('follows the setting and the store/subscription/vendor_id_editing_enabled filter', async () => {
      const ctx = () => app.ctx();
      expect(await vendorIdEditingEnabled(ctx())).toBe(false);
      await app.as(admin).put(`${BASE}/settings/store`).send({ vendor_id_editing_enabled: true }).expect(200);
      expect(await vendorIdEditingEnabled(ctx())).toBe(true);
      const off = app.host.hooks.addFilter('store/subscription/vendor_id_editing_enabled', () => false);
      expect(await vendorIdEditingEnabled(ctx())).toBe(false);
      off();
    });
  });

  describe('GET /settings/payment-methods', () => {
    it('lists every gateway; secrets are never returned, only whether they are set', async () => {
      const res = await app.as(admin).get(`${BASE}/settings/payment-methods`);
      expect(res.status).toBe(200);
      expect(res.body.settings.mode).toBe('test');
      expect(Object.keys(res.body.settings.gateways).sort()).toEqual(['bank_transfer', 'cod', 'paypal', 'stripe']);
      expect(res.body.settings.gateways.stripe).toMatchObject({ enabled: false, title: 'Card', test_secret_key_set: false, live_webhook_secret_set: false });
      expect(res.body.settings.gateways.stripe).not.toHaveProperty('test_secret_key');
      expect(res.body.settings.gateways.paypal).toMatchObject({ test_client_secret_set: false });
    });

    it('needs store/sensitive, even to read', async () => {
      expect((await app.http.get(`${BASE}/settings/payment-methods`)).status).toBe(401);
      expect((await app.as(manager).get(`${BASE}/settings/payment-methods`)).status).toBe(403);
    });
  });

  describe('PUT /settings/payment-methods', () => {
    it('stores keys write-only: the answer, the hook and the activity never carry a secret', async () => {
      const seen: unknown[] = [];
      const off = app.host.hooks.addAction('store/payment_settings/updated', (settings) => {
        seen.push(settings);
      });
      const res = await app
        .as(admin)
        .put(`${BASE}/settings/payment-methods`)
        .send({
          mode: 'live',
          gateways: { stripe: { enabled: true, live_publishable_key: 'pk_live_123', live_secret_key: 'sk_live_SECRET', live_webhook_secret: 'whsec_SECRET' } },
        });
      off();
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Payment settings saved successfully');
      expect(res.body.settings.mode).toBe('live');
      expect(res.body.settings.gateways.stripe).toMatchObject({
        enabled: true,
        live_publishable_key: 'pk_live_123',
        live_secret_key_set: true,
        live_webhook_secret_set: true,
        test_secret_key_set: false,
      });
      for (const text of [JSON.stringify(res.body), JSON.stringify(seen), JSON.stringify(await app.database.db('store_activities'))]) {
        expect(text).not.toContain('SECRET');
      }
      expect((await getPaymentSettings(app.host)).gateways.stripe.live_secret_key).toBe('sk_live_SECRET');
    });

    it('omitted secrets stay; an empty string clears', async () => {
      await app
        .as(admin)
        .put(`${BASE}/settings/payment-methods`)
        .send({ gateways: { stripe: { title: 'Cards' } } })
        .expect(200);
      const kept = await app.as(admin).get(`${BASE}/settings/payment-methods`);
      expect(kept.body.settings.gateways.stripe).toMatchObject({ title: 'Cards', live_secret_key_set: true });
      await app
        .as(admin)
        .put(`${BASE}/settings/payment-methods`)
        .send({ gateways: { stripe: { live_secret_key: '' } } })
        .expect(200);
      const cleared = await app.as(admin).get(`${BASE}/settings/payment-methods`);
      expect(cleared.body.settings.gateways.stripe.live_secret_key_set).toBe(false);
    });

    it.each([
      [{ mode: 'sandbox' }, 'mode'],
      [{ gateways: { stripe: { enabled: 'yes' } } }, 'gateways.stripe.enabled'],
      [{ gateways: { stripe: { checkout_mode: 'popup' } } }, 'gateways.stripe.checkout_mode'],
      [{ gateways: { stripe: { live_secret_key: 'sk live with spaces' } } }, 'gateways.stripe.live_secret_key'],
      [{ gateways: { bitcoin: { enabled: true } } }, 'gateways.bitcoin'],
    ])('refuses %j with 422 naming %s', async (body, field) => {
      const res = await app.as(admin).put(`${BASE}/settings/payment-methods`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toHaveProperty([field]);
    });
  });
});
