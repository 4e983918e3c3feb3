/**
 * Tax rates and overrides (admin API): rates grouped by region and country, a country's rates with its rate form
 * settings and collection status, country status on/off (and `EU` for every member), rate create/update/delete and
 * the shipping override.
 *
 * Reads need `store/settings`, writes `store/sensitive`; errors come in the `{message}` envelope, validation errors
 * as 422 `{message, errors: {field: {rule: message}}}`. Every write logs an activity (object_type `tax_rate`) and
 * fires its `store/tax_rate/*` or `store/tax/country_status_changed` action after the commit.
 */
import type { ActionMap } from '../../src/host/contract';
import { isTaxCollectionEnabled } from '../../src/modules/tax-rates/country-status';
import { EU_MEMBERS } from '../../src/modules/tax-rates/regions';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const ACTIONS = ['store/tax_rate/created', 'store/tax_rate/updated', 'store/tax_rate/deleted', 'store/tax/country_status_changed'] as const;
type TaxAction = (typeof ACTIONS)[number];

const NOW = '2026-11-21 10:00:00';
const LATER = '2026-11-21 11:00:00';

type Row = Record<string, unknown>;

describe('tax rates', () => {
  let app: TestApp;
  let admin: TestUser;
  let reader: TestUser;
  let writer: TestUser;
  let productManager: TestUser;
  let shopper: TestUser;
  let standard: number;
  let reduced: number;

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.users.roles.register('settings_reader', { title: 'Settings reader', capabilities: ['store/settings'] });
    await app.host.users.roles.register('sensitive_writer', { title: 'Sensitive writer', capabilities: ['store/sensitive'] });
    admin = await app.createUser('admin', ['administrator']);
    reader = await app.createUser('reader', ['settings_reader']);
    writer = await app.createUser('writer', ['sensitive_writer']);
    productManager = await app.createUser('products', ['product_manager']);
    shopper = await app.createUser('shopper');
    const db = app.database.db;
    standard = Number((await db('store_tax_classes').where({ slug: 'standard' }).first('id')).id);
    await db('store_tax_classes').insert({ title: 'Reduced rate', slug: 'reduced', meta: '[]', created_at: NOW, updated_at: NOW });
    reduced = Number((await db('store_tax_classes').where({ slug: 'reduced' }).first('id')).id);
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    app.clock.set('2026-11-21T10:00:00Z');
    const db = app.database.db;
    await db('store_tax_rates').delete();
    await db('store_activities').delete();
    await app.host.options.delete('tax_country_status');
  });

  const api = () => app.as(admin);

  /** Records the tax-rate actions fired while `work` runs. */
  async function recordHooks(work: () => Promise<unknown>): Promise<Array<[TaxAction, ...unknown[]]>> {
    const fired: Array<[TaxAction, ...unknown[]]> = [];
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

  async function createRate(body: Row): Promise<Row & { id: number }> {
    const res = await api().post(`${BASE}/tax/country/rate`).send(body);
    expect([res.status, res.body.message]).toEqual([200, 'Tax rate has been created successfully']);
    return res.body.tax_rate as Row & { id: number };
  }

  const storedRates = async () => (await app.database.db('store_tax_rates').orderBy('id')) as Row[];

  const activities = async () =>
    (await app.database.db('store_activities').orderBy('id')).map((a: Row) => ({
      object_type: a.object_type,
      object_id: Number(a.object_id),
      title: a.title,
      content: a.content,
    }));

  /** What a refused request must leave as it was. */
  const snapshot = async () => ({
    rates: await storedRates(),
    activities: await activities(),
    status: await app.host.options.get('tax_country_status'),
  });

  describe('GET /tax/rates', () => {
    it('answers an empty list when no rate exists', async () => {
      const res = await app.as(reader).get(`${BASE}/tax/rates`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tax_rates: [] });
    });

    it('groups by region in a fixed order (EU, Europe, North America, South America, Asia, Africa, Oceania, Antarctica), then country by name, rates by priority then id', async () => {
      // California comes before Federal by id, after it by priority; New York ties with California on priority.
      await createRate({ class_id: 0, country: 'US', state: 'CA', rate: '7.25', name: 'California', priority: 2 });
      await createRate({ class_id: standard, country: 'US', rate: '0', name: 'Federal', priority: 1, for_shipping: 0 });
      await createRate({ class_id: 0, country: 'US', state: 'NY', rate: '4', name: 'New York', priority: 2 });
      await createRate({ class_id: standard, country: 'DE', rate: '19', name: 'MwSt' });
      await createRate({ class_id: reduced, country: 'DE', rate: '7', name: 'MwSt reduced' });
      await createRate({ class_id: standard, country: 'FR', rate: '20', name: 'TVA', for_shipping: '5.5' });
      await createRate({ class_id: standard, country: 'NO', rate: '25', name: 'MVA' });
      await createRate({ class_id: standard, country: 'CH', rate: '8.1', name: 'MWST' });
      await createRate({ class_id: standard, country: 'TR', rate: '20', name: 'KDV', group: 'eur' });
      await createRate({ class_id: 0, country: 'CA', state: 'QC', rate: '9.975', name: 'QST' });
      await createRate({ class_id: standard, country: 'BR', rate: '17', name: 'ICMS' });
      await createRate({ class_id: standard, country: 'JP', rate: '10', name: 'Consumption tax' });
      await createRate({ class_id: standard, country: 'ZA', rate: '15', name: 'VAT' });
      await createRate({ class_id: standard, country: 'AU', rate: '10', name: 'GST' });
      await createRate({ class_id: 0, country: 'AQ', rate: '0', name: 'None' });

      const res = await app.as(reader).get(`${BASE}/tax/rates`);
      expect(res.status).toBe(200);
      const std = standard;
      expect(res.body).toEqual({
        tax_rates: [
          {
            group_name: 'EU',
            group_code: 'EU',
            countries: [
              { country_code: 'FR', country_name: 'France', rates: [{ class_id: std, name: 'TVA', rate: '20.0000', for_shipping: 5.5 }], total_rates: 1 },
              {
                country_code: 'DE',
                country_name: 'Germany',
                rates: [
                  { class_id: std, name: 'MwSt', rate: '19.0000', for_shipping: null },
                  { class_id: reduced, name: 'MwSt reduced', rate: '7.0000', for_shipping: null },
                ],
                total_rates: 2,
              },
            ],
            total_countries: 2,
          },
          {
            group_name: 'Europe',
            group_code: 'EUR',
            countries: [
              { country_code: 'NO', country_name: 'Norway', rates: [{ class_id: std, name: 'MVA', rate: '25.0000', for_shipping: null }], total_rates: 1 },
              { country_code: 'CH', country_name: 'Switzerland', rates: [{ class_id: std, name: 'MWST', rate: '8.1000', for_shipping: null }], total_rates: 1 },
              { country_code: 'TR', country_name: 'Türkiye', rates: [{ class_id: std, name: 'KDV', rate: '20.0000', for_shipping: null }], total_rates: 1 },
            ],
            total_countries: 3,
          },
          {
            group_name: 'North America',
            group_code: 'NA',
            countries: [
              { country_code: 'CA', country_name: 'Canada', rates: [{ class_id: 0, name: 'QST', rate: '9.9750', for_shipping: null }], total_rates: 1 },
              {
                country_code: 'US',
                country_name: 'United States of America',
                rates: [
                  { class_id: std, name: 'Federal', rate: '0.0000', for_shipping: 0 },
                  { class_id: 0, name: 'California', rate: '7.2500', for_shipping: null },
                  { class_id: 0, name: 'New York', rate: '4.0000', for_shipping: null },
                ],
                total_rates: 3,
              },
            ],
            total_countries: 2,
          },
          {
            group_name: 'South America',
            group_code: 'SA',
            countries: [
              { country_code: 'BR', country_name: 'Brazil', rates: [{ class_id: std, name: 'ICMS', rate: '17.0000', for_shipping: null }], total_rates: 1 },
            ],
            total_countries: 1,
          },
          {
            group_name: 'Asia',
            group_code: 'AS',
            countries: [
              {
                country_code: 'JP',
                country_name: 'Japan',
                rates: [{ class_id: std, name: 'Consumption tax', rate: '10.0000', for_shipping: null }],
                total_rates: 1,
              },
            ],
            total_countries: 1,
          },
          {
            group_name: 'Africa',
            group_code: 'AF',
            countries: [
              {
                country_code: 'ZA',
                country_name: 'South Africa',
                rates: [{ class_id: std, name: 'VAT', rate: '15.0000', for_shipping: null }],
                total_rates: 1,
              },
            ],
            total_countries: 1,
          },
          {
            group_name: 'Oceania',
            group_code: 'OC',
            countries: [
              { country_code: 'AU', country_name: 'Australia', rates: [{ class_id: std, name: 'GST', rate: '10.0000', for_shipping: null }], total_rates: 1 },
            ],
            total_countries: 1,
          },
          {
            group_name: 'Antarctica',
            group_code: 'AN',
            countries: [
              { country_code: 'AQ', country_name: 'Antarctica', rates: [{ class_id: 0, name: 'None', rate: '0.0000', for_shipping: null }], total_rates: 1 },
            ],
            total_countries: 1,
          },
        ],
      });
    });

    it("groups a rate without a known group under its country's region", async () => {
      const rate = await createRate({ class_id: standard, country: 'DE', rate: '19', name: 'MwSt' });
      await app.database.db('store_tax_rates').where({ id: rate.id }).update({ group: '' });
      const res = await app.as(reader).get(`${BASE}/tax/rates`);
      expect(res.body.tax_rates.map((g: Row) => [g.group_code, (g.countries as Row[]).map((c) => c.country_code)])).toEqual([['EU', ['DE']]]);
    });
  });

  describe('GET /tax/rates/country/rates/{country_code}', () => {
    it("answers the country's full rate rows by priority then id, with the state's name, its form settings and tax_enabled", async () => {
      const city = await createRate({ class_id: 0, country: 'US', state: 'CA', city: 'Los Angeles', rate: '2.25', name: 'LA County', priority: 2 });
      const state = await createRate({ class_id: standard, country: 'US', state: 'ca', rate: '7.25', name: 'California', for_order: 1 });
      await createRate({ class_id: standard, country: 'CA', state: 'QC', rate: '9.975', name: 'QST' });
      const res = await app.as(reader).get(`${BASE}/tax/rates/country/rates/us`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        tax_rates: [
          {
            id: state.id,
            class_id: standard,
            country: 'US',
            state: 'CA',
            postcode: '',
            city: '',
            rate: '7.2500',
            name: 'California',
            group: 'NA',
            priority: 1,
            is_compound: 0,
            for_shipping: null,
            for_order: 1,
            formatted_state: 'California',
            created_at: NOW,
            updated_at: NOW,
          },
          {
            id: city.id,
            class_id: 0,
            country: 'US',
            state: 'CA',
            postcode: '',
            city: 'Los Angeles',
            rate: '2.2500',
            name: 'LA County',
            group: 'NA',
            priority: 2,
            is_compound: 0,
            for_shipping: null,
            for_order: 0,
            formatted_state: 'California',
            created_at: NOW,
            updated_at: NOW,
          },
        ],
        settings: { hidden: ['is_compound'] },
        tax_enabled: true,
      });
    });

    it('filters by class_id (0: the rates without a class); an unknown class is a 422', async () => {
      const none = await createRate({ class_id: 0, country: 'DE', rate: '19', name: 'Any class' });
      const std = await createRate({ class_id: standard, country: 'DE', rate: '19', name: 'Standard' });
      const red = await createRate({ class_id: reduced, country: 'DE', rate: '7', name: 'Reduced' });
      const ids = async (query: string) => (await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE${query}`)).body.tax_rates.map((r: Row) => r.id);
      expect(await ids('')).toEqual([none.id, std.id, red.id]);
      expect(await ids('?class_id=0')).toEqual([none.id]);
      expect(await ids(`?class_id=${standard}`)).toEqual([std.id]);
      expect(await ids(`?class_id=${reduced}`)).toEqual([red.id]);
      const unknown = await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE?class_id=9999`);
      expect(unknown.status).toBe(422);
      expect(unknown.body).toEqual({
        message: 'The selected tax class does not exist.',
        errors: { class_id: { exists: 'The selected tax class does not exist.' } },
      });
      const bad = await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE?class_id=abc`);
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors)).toEqual(['class_id']);
    });

    it.each([
      ['US (its own)', 'US', { hidden: ['is_compound'] }],
      ['CA (its own)', 'CA', { hidden: ['city', 'postcode'] }],
      ['GB (its own)', 'GB', { hidden: ['state', 'city', 'postcode', 'is_compound', 'for_order'] }],
      ['DE (the European Union region)', 'DE', { hidden: ['state', 'city', 'postcode', 'is_compound', 'for_order'] }],
      ['NO (the Europe region)', 'NO', { hidden: ['state', 'city', 'postcode', 'is_compound', 'for_order'] }],
      ['JP (neither)', 'JP', null],
      ['MX (neither)', 'MX', null],
    ])('settings for %s', async (_case, code, settings) => {
      const res = await app.as(reader).get(`${BASE}/tax/rates/country/rates/${code}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tax_rates: [], settings, tax_enabled: true });
    });

    it('tax_enabled follows the country status', async () => {
      await api().post(`${BASE}/tax/country-status/DE`).send({ enabled: 0 }).expect(200);
      expect((await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE`)).body.tax_enabled).toBe(false);
      expect((await app.as(reader).get(`${BASE}/tax/rates/country/rates/FR`)).body.tax_enabled).toBe(true);
    });

    it.each(['XX', 'USA', 'EU', 'U1', '__proto__'])('answers 422 Invalid country code for %s', async (code) => {
      const res = await app.as(reader).get(`${BASE}/tax/rates/country/rates/${code}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'Invalid country code', errors: { country_code: { country: 'Invalid country code' } } });
    });
  });

  describe('POST /tax/country-status/{country_code}', () => {
    it('turns collection off and on for a country: the flag is stored, logged and announced', async () => {
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().post(`${BASE}/tax/country-status/de`).send({ enabled: 0 });
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({ enabled: 0, message: 'Tax collection has been disabled for Germany' });
      expect(await app.host.options.get('tax_country_status')).toEqual({ DE: 0 });
      expect(await isTaxCollectionEnabled(app.host, 'DE')).toBe(false);
      expect(await isTaxCollectionEnabled(app.host, 'de')).toBe(false);
      expect(await isTaxCollectionEnabled(app.host, 'FR')).toBe(true);
      expect(fired).toEqual([['store/tax/country_status_changed', { code: 'DE', countries: ['DE'], enabled: 0 }]]);

      const on = await api().post(`${BASE}/tax/country-status/DE`).send({ enabled: '1' });
      expect(on.body).toEqual({ enabled: 1, message: 'Tax collection has been enabled for Germany' });
      expect(await isTaxCollectionEnabled(app.host, 'DE')).toBe(true);
      expect(await activities()).toEqual([
        { object_type: 'tax_rate', object_id: 0, title: 'Tax collection disabled', content: 'Germany (DE)' },
        { object_type: 'tax_rate', object_id: 0, title: 'Tax collection enabled', content: 'Germany (DE)' },
      ]);
    });

    it('EU sets every member state at once and no other country', async () => {
      await api().post(`${BASE}/tax/country-status/NO`).send({ enabled: 0 }).expect(200);
      const off = await api().post(`${BASE}/tax/country-status/eu`).send({ enabled: 0 });
      expect(off.body).toEqual({ enabled: 0, message: 'Tax collection has been disabled for the European Union' });
      const status = await app.host.options.get('tax_country_status');
      expect(Object.keys(status ?? {}).sort()).toEqual([...EU_MEMBERS, 'NO'].sort());
      expect(EU_MEMBERS).toHaveLength(27);
      for (const country of EU_MEMBERS) expect([country, await isTaxCollectionEnabled(app.host, country)]).toEqual([country, false]);
      expect(await isTaxCollectionEnabled(app.host, 'CH')).toBe(true);

      const on = await api().post(`${BASE}/tax/country-status/EU`).send({ enabled: 1 });
      expect(on.body).toEqual({ enabled: 1, message: 'Tax collection has been enabled for the European Union' });
      for (const country of EU_MEMBERS) expect([country, await isTaxCollectionEnabled(app.host, country)]).toEqual([country, true]);
      expect(await isTaxCollectionEnabled(app.host, 'NO')).toBe(false);
    });

    it('parallel changes of different countries are all kept', async () => {
      const codes = ['DE', 'FR', 'IT', 'ES', 'NL', 'US'];
      const results = await Promise.all(codes.map((code) => api().post(`${BASE}/tax/country-status/${code}`).send({ enabled: 0 })));
      expect(results.map((res) => res.status)).toEqual(codes.map(() => 200));
      expect(await app.host.options.get('tax_country_status')).toEqual(Object.fromEntries(codes.map((code) => [code, 0])));
    });

    it.each([
      ['an unknown code', 'XX', { enabled: 0 }, 'Invalid country code', { country_code: { country: 'Invalid country code' } }],
      ['an alpha-3 code', 'DEU', { enabled: 0 }, 'Invalid country code', { country_code: { country: 'Invalid country code' } }],
      ['no enabled', 'DE', {}, 'The enabled field is required.', { enabled: { required: 'The enabled field is required.' } }],
      ['enabled 2', 'DE', { enabled: 2 }, 'The enabled field must be 1 or 0.', { enabled: { in: 'The enabled field must be 1 or 0.' } }],
      ['enabled true', 'DE', { enabled: true }, 'The enabled field must be 1 or 0.', { enabled: { numeric: 'The enabled field must be 1 or 0.' } }],
      ['enabled "yes"', 'DE', { enabled: 'yes' }, 'The enabled field must be 1 or 0.', { enabled: { numeric: 'The enabled field must be 1 or 0.' } }],
    ])('refuses %s with 422 and changes nothing', async (_case, code, body, message, errors) => {
      const before = await snapshot();
      const res = await api().post(`${BASE}/tax/country-status/${code}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message, errors });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('POST /tax/country/rate', () => {
    it('creates a rate with the defaults: country upper-cased, state as its code, rate with four decimals, group from the country; logged and announced', async () => {
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().post(`${BASE}/tax/country/rate`).send({ class_id: 0, country: 'us', state: 'California', rate: '7.25', name: ' CA State ' });
      });
      expect(res!.status).toBe(200);
      const expected = {
        id: expect.any(Number),
        class_id: 0,
        country: 'US',
        state: 'CA',
        postcode: '',
        city: '',
        rate: '7.2500',
        name: 'CA State',
        group: 'NA',
        priority: 1,
        is_compound: 0,
        for_shipping: null,
        for_order: 0,
        formatted_state: 'California',
        created_at: NOW,
        updated_at: NOW,
      };
      expect(res!.body).toEqual({ message: 'Tax rate has been created successfully', tax_rate: { ...expected, tax_class: null } });
      const id = res!.body.tax_rate.id as number;
      expect(await storedRates()).toEqual([
        {
          id,
          class_id: 0,
          country: 'US',
          state: 'CA',
          postcode: '',
          city: '',
          rate: '7.2500',
          name: 'CA State',
          group: 'NA',
          priority: 1,
          is_compound: 0,
          for_shipping: null,
          for_order: 0,
          created_at: NOW,
          updated_at: NOW,
        },
      ]);
      const { tax_class: _class, ...announced } = res!.body.tax_rate;
      expect(fired).toEqual([['store/tax_rate/created', { ...announced, tax_class: null }]]);
      expect(await activities()).toEqual([{ object_type: 'tax_rate', object_id: id, title: 'Tax rate created', content: `CA State (#${id}): US CA 7.2500%` }]);
    });

    it('answers the class as {id, title}; numbers may come as strings; flags and the shipping override are stored', async () => {
      const res = await api()
        .post(`${BASE}/tax/country/rate`)
        .send({
          class_id: String(reduced),
          country: 'CA',
          state: 'QC',
          rate: 9.975,
          name: 'QST',
          priority: '2',
          is_compound: '1',
          for_order: 1,
          for_shipping: '5.5',
        });
      expect(res.status).toBe(200);
      expect(res.body.tax_rate).toMatchObject({
        class_id: reduced,
        tax_class: { id: reduced, title: 'Reduced rate' },
        rate: '9.9750',
        priority: 2,
        is_compound: 1,
        for_order: 1,
        for_shipping: 5.5,
        formatted_state: 'Quebec',
      });
      const row = await app.database.db('store_tax_rates').where({ id: res.body.tax_rate.id }).first();
      expect([Number(row.for_shipping), row.priority, row.is_compound, row.for_order]).toEqual([5.5, 2, 1, 1]);
    });

    it('takes a form-encoded body', async () => {
      const res = await api().post(`${BASE}/tax/country/rate`).type('form').send(`class_id=${standard}&country=de&rate=19&name=MwSt&priority=3&is_compound=0`);
      expect(res.status).toBe(200);
      expect(res.body.tax_rate).toMatchObject({
        class_id: standard,
        country: 'DE',
        rate: '19.0000',
        group: 'EU',
        priority: 3,
        tax_class: { id: standard, title: 'Standard' },
      });
    });

    it('normalises postcode and city lists: exact postcodes, prefixes, ranges; separators , or ;', async () => {
      const rate = await createRate({
        class_id: 0,
        country: 'US',
        state: 'CA',
        postcode: ' 90210 ; 902* , 90001...90099 ;',
        city: 'San Francisco; Oakland ,',
        rate: 1,
      });
      expect([rate.postcode, rate.city]).toEqual(['90210,902*,90001...90099', 'San Francisco,Oakland']);
      const gb = await createRate({ class_id: 0, country: 'GB', postcode: 'sw1a 1aa, sw1*', rate: 20 });
      expect(gb.postcode).toBe('SW1A 1AA,SW1*');
    });

    it('takes a state by name or ISO code (Tokyo is 13); a country without a state list keeps the text', async () => {
      expect(await createRate({ class_id: 0, country: 'JP', state: 'Tokyo', rate: 10 })).toMatchObject({ state: '13', formatted_state: 'Tokyo', group: 'AS' });
      expect(await createRate({ class_id: 0, country: 'DE', state: 'Bayern', rate: 19 })).toMatchObject({ state: 'Bayern', formatted_state: 'Bayern' });
    });

    it.each([
      ['0', '0.0000'],
      [0, '0.0000'],
      ['100', '100.0000'],
      ['0.0001', '0.0001'],
      [12.5, '12.5000'],
      [' 8.875 ', '8.8750'],
    ])('stores the rate %p as %p', async (rate, stored) => {
      expect((await createRate({ class_id: 0, country: 'US', rate })).rate).toBe(stored);
    });

    it('takes an explicit group (any region code, upper-cased)', async () => {
      expect((await createRate({ class_id: 0, country: 'TR', rate: 20, group: 'eur' })).group).toBe('EUR');
      expect((await createRate({ class_id: 0, country: 'TR', rate: 20 })).group).toBe('AS');
      expect((await createRate({ class_id: 0, country: 'CY', rate: 19, group: null })).group).toBe('EU');
    });

    const long = 'x'.repeat(46);
    it.each([
      ['no class', { country: 'US', rate: 1 }, 'class_id', 'required', 'Tax class is required'],
      ['a null class', { class_id: null, country: 'US', rate: 1 }, 'class_id', 'required', 'Tax class is required'],
      ['a negative class', { class_id: -1, country: 'US' }, 'class_id', 'min', 'The class id must be 0 (no class) or the id of a tax class.'],
      ['a class as text', { class_id: 'abc', country: 'US' }, 'class_id', 'integer', 'The class id must be 0 (no class) or the id of a tax class.'],
      ['an unknown class', { class_id: 9999, country: 'US' }, 'class_id', 'exists', 'The selected tax class does not exist.'],
      ['no country', { class_id: 0, rate: 1 }, 'country', 'required', 'The country field is required.'],
      ['an unknown country', { class_id: 0, country: 'XX' }, 'country', 'in', 'The country must be an ISO 3166-1 alpha-2 code, such as US.'],
      ['a long country', { class_id: 0, country: long }, 'country', 'max', 'The country field must not be greater than 45 characters.'],
      ['a country as a number', { class_id: 0, country: 1 }, 'country', 'string', 'The country field must be a string.'],
      ['an unknown state', { class_id: 0, country: 'US', state: 'ZZ' }, 'state', 'in', 'The state ZZ is not one of the states of United States of America.'],
      ['a long state', { class_id: 0, country: 'DE', state: long }, 'state', 'max', 'The state field must not be greater than 45 characters.'],
      [
        "a postcode outside the state's range",
        { class_id: 0, country: 'US', state: 'CA', postcode: '90210, 10001' },
        'postcode',
        'postcode',
        'The postcode 10001 is not valid for California, United States of America.',
      ],
      [
        "a postcode not of the country's form",
        { class_id: 0, country: 'DE', postcode: '1234' },
        'postcode',
        'postcode',
        'The postcode 1234 is not valid for Germany.',
      ],
      [
        'a range that ends before it starts',
        { class_id: 0, country: 'US', postcode: '90299...90210' },
        'postcode',
        'postcode',
        'The postcode range 90299...90210 ends before it starts.',
      ],
      [
        'a range without an end',
        { class_id: 0, country: 'US', postcode: '90210...' },
        'postcode',
        'postcode',
        'The postcode range 90210... must be written as start...end.',
      ],
      [
        'a bare wildcard',
        { class_id: 0, country: 'US', postcode: '*' },
        'postcode',
        'postcode',
        'The postcode prefix * must start with a letter or digit and hold only letters, digits, spaces and dashes.',
      ],
      [
        'markup as a postcode',
        { class_id: 0, country: 'US', postcode: '<b>' },
        'postcode',
        'postcode',
        'The postcode <B> may only hold letters, digits, spaces and dashes.',
      ],
      [
        'a long postcode list',
        { class_id: 0, country: 'US', postcode: `${'90210,'.repeat(7)}90210x` },
        'postcode',
        'max',
        'The postcode field must not be greater than 45 characters.',
      ],
      ['a long city', { class_id: 0, country: 'US', city: long }, 'city', 'max', 'The city field must not be greater than 45 characters.'],
      ['a long name', { class_id: 0, country: 'US', name: long }, 'name', 'max', 'The name field must not be greater than 45 characters.'],
      ['an unknown group', { class_id: 0, country: 'US', group: 'XX' }, 'group', 'in', 'The group must be one of EU, EUR, NA, SA, AS, AF, OC, AN.'],
      ['a long group', { class_id: 0, country: 'US', group: long }, 'group', 'max', 'The group field must not be greater than 45 characters.'],
      [
        'a rate with 5 decimals',
        { class_id: 0, country: 'US', rate: '7.12345' },
        'rate',
        'numeric',
        'The rate must be a number with at most 4 decimals, such as 7.25.',
      ],
      ['a negative rate', { class_id: 0, country: 'US', rate: '-1' }, 'rate', 'min', 'The rate must be at least 0.'],
      ['a rate over 100', { class_id: 0, country: 'US', rate: '100.0001' }, 'rate', 'max', 'The rate must not be greater than 100.'],
      ['a rate as words', { class_id: 0, country: 'US', rate: 'seven' }, 'rate', 'numeric', 'The rate must be a number with at most 4 decimals, such as 7.25.'],
      [
        'a rate with an exponent',
        { class_id: 0, country: 'US', rate: '1e1' },
        'rate',
        'numeric',
        'The rate must be a number with at most 4 decimals, such as 7.25.',
      ],
      ['a rate as a boolean', { class_id: 0, country: 'US', rate: true }, 'rate', 'string', 'The rate field must be a number.'],
      ['a long rate', { class_id: 0, country: 'US', rate: '1'.repeat(46) }, 'rate', 'max', 'The rate field must not be greater than 45 characters.'],
      ['priority 0', { class_id: 0, country: 'US', priority: 0 }, 'priority', 'min', 'The priority field must be an integer of at least 1.'],
      ['a negative priority', { class_id: 0, country: 'US', priority: -1 }, 'priority', 'min', 'The priority field must be an integer of at least 1.'],
      ['a fractional priority', { class_id: 0, country: 'US', priority: 1.5 }, 'priority', 'integer', 'The priority field must be an integer of at least 1.'],
      ['priority "0"', { class_id: 0, country: 'US', priority: '0' }, 'priority', 'integer', 'The priority field must be an integer of at least 1.'],
      ['a huge priority', { class_id: 0, country: 'US', priority: 2147483648 }, 'priority', 'max', 'The priority field must not be greater than 2147483647.'],
      [
        'a huge priority as text',
        { class_id: 0, country: 'US', priority: '9999999999' },
        'priority',
        'max',
        'The priority field must not be greater than 2147483647.',
      ],
      ['is_compound 2', { class_id: 0, country: 'US', is_compound: 2 }, 'is_compound', 'in', 'The is compound field must be 0 or 1.'],
      ['for_order "yes"', { class_id: 0, country: 'US', for_order: 'yes' }, 'for_order', 'numeric', 'The for order field must be 0 or 1.'],
      ['a negative shipping rate', { class_id: 0, country: 'US', for_shipping: -1 }, 'for_shipping', 'min', 'The for shipping must be at least 0.'],
      [
        'a shipping rate with 5 decimals',
        { class_id: 0, country: 'US', for_shipping: '1.00001' },
        'for_shipping',
        'numeric',
        'The for shipping must be a number with at most 4 decimals, such as 7.25.',
      ],
      ['an unknown field', { class_id: 0, country: 'US', color: 'red' }, 'color', 'unknown', 'The color field is not recognised.'],
    ])('refuses %s: 422 naming %s and stores nothing', async (_case, body, field, rule, message) => {
      const before = await snapshot();
      const res = await api().post(`${BASE}/tax/country/rate`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
      expect(res.body.errors[field as string]).toEqual({ [rule as string]: message });
      expect(await snapshot()).toEqual(before);
    });

    it('names every failing field at once', async () => {
      const res = await api().post(`${BASE}/tax/country/rate`).send({ class_id: 0, country: 'US', state: 'ZZ', rate: '-2', group: 'XX' });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['group', 'rate', 'state']);
    });
  });

  describe('PUT /tax/country/rate/{id}', () => {
    it('changes the fields sent and keeps the others; logged and announced with the rate before', async () => {
      const rate = await createRate({
        class_id: 0,
        country: 'US',
        state: 'CA',
        postcode: '90210',
        city: 'Beverly Hills',
        rate: '7.25',
        name: 'CA',
        priority: 2,
        for_shipping: 1,
      });
      await app.database.db('store_activities').delete();
      app.clock.set('2026-11-21T11:00:00Z');
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().put(`${BASE}/tax/country/rate/${rate.id}`).send({ class_id: standard, rate: '7.5', is_compound: 1 });
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({
        message: 'Tax rate has been updated successfully',
        tax_rate: {
          ...rate,
          class_id: standard,
          rate: '7.5000',
          is_compound: 1,
          updated_at: LATER,
          tax_class: { id: standard, title: 'Standard' },
        },
      });
      const { tax_class: _before, ...previous } = rate;
      const { tax_class: _after, ...current } = res!.body.tax_rate;
      expect(fired).toEqual([['store/tax_rate/updated', { ...current, tax_class: { id: standard, title: 'Standard' } }, previous]]);
      expect(await activities()).toEqual([
        { object_type: 'tax_rate', object_id: rate.id, title: 'Tax rate updated', content: `CA (#${rate.id}): US CA 7.5000%; class_id, rate, is_compound` },
      ]);
    });

    it('null resets a field to its default', async () => {
      const rate = await createRate({ class_id: 0, country: 'US', state: 'CA', rate: '7.25', name: 'CA', priority: 4, for_shipping: 2, is_compound: 1 });
      const res = await api()
        .put(`${BASE}/tax/country/rate/${rate.id}`)
        .send({ class_id: 0, state: null, for_shipping: null, priority: null, is_compound: null, rate: null, name: null });
      expect(res.status).toBe(200);
      expect(res.body.tax_rate).toMatchObject({ state: '', formatted_state: '', for_shipping: null, priority: 1, is_compound: 0, rate: '0.0000', name: '' });
    });

    it('a new country clears the state, postcode, city and group not sent', async () => {
      const rate = await createRate({ class_id: 0, country: 'US', state: 'CA', postcode: '90210', city: 'Beverly Hills', rate: 7 });
      const res = await api().put(`${BASE}/tax/country/rate/${rate.id}`).send({ class_id: 0, country: 'DE' });
      expect(res.status).toBe(200);
      expect(res.body.tax_rate).toMatchObject({ country: 'DE', state: '', postcode: '', city: '', group: 'EU', rate: '7.0000' });
      const same = await api().put(`${BASE}/tax/country/rate/${rate.id}`).send({ class_id: 0, country: 'DE', group: 'EUR' });
      expect(same.body.tax_rate.group).toBe('EUR');
      const kept = await api().put(`${BASE}/tax/country/rate/${rate.id}`).send({ class_id: 0, name: 'Renamed' });
      expect(kept.body.tax_rate).toMatchObject({ group: 'EUR', name: 'Renamed' });
    });

    it('checks the kept fields against a new state: a postcode outside it is refused', async () => {
      const rate = await createRate({ class_id: 0, country: 'US', state: 'CA', postcode: '90210', rate: 7 });
      const before = await snapshot();
      const res = await api().put(`${BASE}/tax/country/rate/${rate.id}`).send({ class_id: 0, state: 'NY' });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ postcode: { postcode: 'The postcode 90210 is not valid for New York, United States of America.' } });
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['no class', { rate: 5 }, 422, { message: 'Tax class is required', errors: { class_id: { required: 'Tax class is required' } } }],
      [
        'an unknown class',
        { class_id: 9999 },
        422,
        { message: 'The selected tax class does not exist.', errors: { class_id: { exists: 'The selected tax class does not exist.' } } },
      ],
      [
        'priority 0',
        { class_id: 0, priority: 0 },
        422,
        {
          message: 'The priority field must be an integer of at least 1.',
          errors: { priority: { min: 'The priority field must be an integer of at least 1.' } },
        },
      ],
      [
        'a long name',
        { class_id: 0, name: 'x'.repeat(46) },
        422,
        {
          message: 'The name field must not be greater than 45 characters.',
          errors: { name: { max: 'The name field must not be greater than 45 characters.' } },
        },
      ],
    ])('refuses %s and changes nothing', async (_case, body, status, answer) => {
      const rate = await createRate({ class_id: 0, country: 'US', rate: 5 });
      const before = await snapshot();
      const res = await api().put(`${BASE}/tax/country/rate/${rate.id}`).send(body);
      expect([res.status, res.body]).toEqual([status, answer]);
      expect(await snapshot()).toEqual(before);
    });

    it('answers 404 for an unknown rate', async () => {
      const res = await api().put(`${BASE}/tax/country/rate/9999`).send({ class_id: 0 });
      expect([res.status, res.body]).toEqual([404, { message: 'Tax rate not found' }]);
    });
  });

  describe('DELETE /tax/country/rate/{id}', () => {
    it('deletes the rate; logged and announced; a second delete is 404', async () => {
      const rate = await createRate({ class_id: 0, country: 'DE', rate: 19, name: 'MwSt' });
      const other = await createRate({ class_id: 0, country: 'DE', rate: 7, name: 'Reduced' });
      await app.database.db('store_activities').delete();
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().delete(`${BASE}/tax/country/rate/${rate.id}`);
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Tax rate has been deleted successfully' }]);
      expect((await storedRates()).map((r) => r.id)).toEqual([other.id]);
      const { tax_class: _class, ...deleted } = rate;
      expect(fired).toEqual([['store/tax_rate/deleted', deleted]]);
      expect(await activities()).toEqual([
        { object_type: 'tax_rate', object_id: rate.id, title: 'Tax rate deleted', content: `MwSt (#${rate.id}): DE 19.0000%` },
      ]);
      const again = await api().delete(`${BASE}/tax/country/rate/${rate.id}`);
      expect([again.status, again.body]).toEqual([404, { message: 'Tax rate not found' }]);
    });
  });

  describe('POST /tax/rates/country/override', () => {
    it("sets the rate's shipping override (decimals allowed); logged and announced", async () => {
      const rate = await createRate({ class_id: 0, country: 'DE', rate: 19, name: 'MwSt' });
      await app.database.db('store_activities').delete();
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().post(`${BASE}/tax/rates/country/override`).send({ id: rate.id, override_tax_rate: 7 });
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Tax override has been saved successfully' }]);
      const listed = await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE`);
      expect(listed.body.tax_rates[0].for_shipping).toBe(7);
      const { tax_class: _class, ...previous } = rate;
      expect(fired).toEqual([['store/tax_rate/updated', listed.body.tax_rates[0], previous]]);
      expect(await activities()).toEqual([
        { object_type: 'tax_rate', object_id: rate.id, title: 'Shipping tax override saved', content: `MwSt (#${rate.id}): DE 19.0000%; shipping 7.0000%` },
      ]);
      await api()
        .post(`${BASE}/tax/rates/country/override`)
        .send({ id: String(rate.id), override_tax_rate: '2.5' })
        .expect(200);
      expect((await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE`)).body.tax_rates[0].for_shipping).toBe(2.5);
      await api().post(`${BASE}/tax/rates/country/override`).send({ id: rate.id, override_tax_rate: 0 }).expect(200);
      expect((await app.as(reader).get(`${BASE}/tax/rates/country/rates/DE`)).body.tax_rates[0].for_shipping).toBe(0);
    });

    it('answers 404 Tax rate not found for an unknown rate', async () => {
      const res = await api().post(`${BASE}/tax/rates/country/override`).send({ id: 9999, override_tax_rate: 5 });
      expect([res.status, res.body]).toEqual([404, { message: 'Tax rate not found' }]);
    });

    it.each([
      ['no id', () => ({ override_tax_rate: 5 }), 'id', 'required', 'The id field is required.'],
      ['id 0', () => ({ id: 0, override_tax_rate: 5 }), 'id', 'min', 'The id must be the id of a tax rate.'],
      ['no override_tax_rate', (id: number) => ({ id }), 'override_tax_rate', 'required', 'The override tax rate field is required.'],
      ['a negative override', (id: number) => ({ id, override_tax_rate: -1 }), 'override_tax_rate', 'min', 'The override tax rate must be at least 0.'],
      [
        'an override over 100',
        (id: number) => ({ id, override_tax_rate: 101 }),
        'override_tax_rate',
        'max',
        'The override tax rate must not be greater than 100.',
      ],
      [
        'an override with 5 decimals',
        (id: number) => ({ id, override_tax_rate: '1.00001' }),
        'override_tax_rate',
        'numeric',
        'The override tax rate must be a number with at most 4 decimals, such as 7.25.',
      ],
      [
        'an override as a boolean',
        (id: number) => ({ id, override_tax_rate: true }),
        'override_tax_rate',
        'string',
        'The override tax rate field must be a number.',
      ],
    ])('refuses %s with 422 and changes nothing', async (_case, body, field, rule, message) => {
      const rate = await createRate({ class_id: 0, country: 'DE', rate: 19 });
      const before = await snapshot();
      const res = await api().post(`${BASE}/tax/rates/country/override`).send(body(rate.id));
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('DELETE /tax/rates/country/override/{id}', () => {
    it('resets for_shipping to null; logged and announced; a rate without one is left as it is', async () => {
      const rate = await createRate({ class_id: 0, country: 'DE', rate: 19, name: 'MwSt', for_shipping: 7 });
      await app.database.db('store_activities').delete();
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().delete(`${BASE}/tax/rates/country/override/${rate.id}`);
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Shipping override has been deleted successfully' }]);
      const row = await app.database.db('store_tax_rates').where({ id: rate.id }).first();
      expect(row.for_shipping).toBeNull();
      expect(fired).toHaveLength(1);
      expect(fired[0][0]).toBe('store/tax_rate/updated');
      expect((fired[0][1] as Row).for_shipping).toBeNull();
      expect(await activities()).toEqual([
        { object_type: 'tax_rate', object_id: rate.id, title: 'Shipping tax override deleted', content: `MwSt (#${rate.id}): DE 19.0000%` },
      ]);

      const before = await snapshot();
      const again = await recordHooks(async () => {
        res = await api().delete(`${BASE}/tax/rates/country/override/${rate.id}`);
      });
      expect([res!.status, res!.body]).toEqual([200, { message: 'Shipping override has been deleted successfully' }]);
      expect(again).toEqual([]);
      expect(await snapshot()).toEqual(before);
    });

    it('answers 404 for an unknown rate', async () => {
      const res = await api().delete(`${BASE}/tax/rates/country/override/9999`);
      expect([res.status, res.body]).toEqual([404, { message: 'Tax rate not found' }]);
    });
  });

  describe('permissions', () => {
    type Verb = 'get' | 'post' | 'put' | 'delete';
    const reads = (): Array<[Verb, string]> => [
      ['get', '/tax/rates'],
      ['get', '/tax/rates/country/rates/US'],
    ];
    const writes = (id: number): Array<[Verb, string, Row]> => [
      ['post', '/tax/country-status/US', { enabled: 0 }],
      ['post', '/tax/country/rate', { class_id: 0, country: 'US', rate: 5 }],
      ['put', `/tax/country/rate/${id}`, { class_id: 0, rate: 6 }],
      ['post', '/tax/rates/country/override', { id, override_tax_rate: 3 }],
      ['delete', `/tax/rates/country/override/${id}`, {}],
      ['delete', `/tax/country/rate/${id}`, {}],
    ];

    it('anonymous callers get 401 on every route, and nothing changes', async () => {
      const rate = await createRate({ class_id: 0, country: 'US', rate: 5 });
      const before = await snapshot();
      for (const [verb, path] of reads()) expect([verb, path, (await app.http[verb](`${BASE}${path}`)).status]).toEqual([verb, path, 401]);
      for (const [verb, path, body] of writes(rate.id))
        expect([verb, path, (await app.http[verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, path, 401]);
      expect(await snapshot()).toEqual(before);
    });

    it.each([
      ['a customer', () => shopper],
      ['a product manager (no store/settings)', () => productManager],
    ])('%s gets 403 on every route, and nothing changes', async (_who, who) => {
      const rate = await createRate({ class_id: 0, country: 'US', rate: 5 });
      const before = await snapshot();
      for (const [verb, path] of reads()) {
        const res = await app.as(who())[verb](`${BASE}${path}`);
        expect([verb, path, res.status, res.body.code]).toEqual([verb, path, 403, 'rest_forbidden']);
      }
      for (const [verb, path, body] of writes(rate.id))
        expect([verb, path, (await app.as(who())[verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, path, 403]);
      expect(await snapshot()).toEqual(before);
    });

    it('store/settings reads but cannot write', async () => {
      const rate = await createRate({ class_id: 0, country: 'US', rate: 5 });
      const before = await snapshot();
      for (const [verb, path] of reads()) expect([verb, path, (await app.as(reader)[verb](`${BASE}${path}`)).status]).toEqual([verb, path, 200]);
      for (const [verb, path, body] of writes(rate.id))
        expect([verb, path, (await app.as(reader)[verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, path, 403]);
      expect(await snapshot()).toEqual(before);
    });

    it('store/sensitive writes (without store/settings it cannot read)', async () => {
      const rate = await createRate({ class_id: 0, country: 'US', rate: 5 });
      for (const [verb, path] of reads()) expect([verb, path, (await app.as(writer)[verb](`${BASE}${path}`)).status]).toEqual([verb, path, 403]);
      for (const [verb, path, body] of writes(rate.id))
        expect([verb, path, (await app.as(writer)[verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, path, 200]);
      expect((await storedRates()).map((r) => r.country)).toEqual(['US']);
    });
  });
});
