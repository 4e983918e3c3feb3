/**
 * Shipping zones and methods (admin API), and the service the checkout and orders use to offer and price them.
 *
 * Reads need `store/settings`, writes `store/sensitive`; errors come in the `{message}` envelope, validation
 * errors as 422 `{message, errors: {field: {rule: message}}}`. Every write logs an activity (object_type
 * `shipping`, object_id = the zone) and fires its `store/shipping_zone/*` or `store/shipping_method/*` action after
 * the commit.
 */
import type { ActionMap } from '../../src/host/contract';
import { createCtx } from '../../src/core/context';
import { RateLimits } from '../../src/core/ratelimit';
import { priceMethod, shippingOptions } from '../../src/modules/shipping/service';
import type { ShippingItem } from '../../src/modules/shipping/types';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const SHIPPING_ACTIONS = [
  'store/shipping_zone/created',
  'store/shipping_zone/updated',
  'store/shipping_zone/deleted',
  'store/shipping_method/created',
  'store/shipping_method/updated',
  'store/shipping_method/deleted',
] as const;
type ShippingAction = (typeof SHIPPING_ACTIONS)[number];

const NOW = '2026-11-21 10:00:00';

/** `[case, body, field, rule, message]` rows → `[case, field, rule, body, message]`, so test titles name the field. */
const withFieldFirst = <B>(rows: Array<[string, B, string, string, unknown]>): Array<[string, string, string, B, unknown]> =>
  rows.map(([name, body, field, rule, message]) => [name, field, rule, body, message]);

describe('shipping', () => {
  let app: TestApp;
  let admin: TestUser;
  let reader: TestUser;
  let productManager: TestUser;
  let orderManager: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    await app.host.users.roles.register('settings_reader', { title: 'Settings reader', capabilities: ['store/settings'] });
    admin = await app.createUser('admin', ['administrator']);
    reader = await app.createUser('reader', ['settings_reader']);
    productManager = await app.createUser('products', ['product_manager']);
    orderManager = await app.createUser('orders', ['order_manager']);
    shopper = await app.createUser('shopper');
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    app.clock.set('2026-11-21T10:00:00Z');
    const db = app.database.db;
    await db('store_shipping_methods').delete();
    await db('store_shipping_zones').delete();
    await db('store_activities').delete();
  });

  /** Records the shipping actions fired while `work` runs. */
  async function recordHooks(work: () => Promise<unknown>): Promise<Array<[ShippingAction, ...unknown[]]>> {
    const fired: Array<[ShippingAction, ...unknown[]]> = [];
    const offs = SHIPPING_ACTIONS.map((name) =>
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

  const api = () => app.as(admin);

  async function zone(body: Record<string, unknown>) {
    const res = await api().post(`${BASE}/shipping/zones`).send(body);
    expect(res.status).toBe(200);
    return res.body.zone as { id: number; name: string };
  }

  async function method(body: Record<string, unknown>) {
    const res = await api().post(`${BASE}/shipping/methods`).send(body);
    expect(res.status).toBe(200);
    return res.body.method as { id: number; title: string };
  }

  const counts = async () => ({
    zones: Number((await app.database.db('store_shipping_zones').count({ n: '*' }))[0].n),
    methods: Number((await app.database.db('store_shipping_methods').count({ n: '*' }))[0].n),
    activities: Number((await app.database.db('store_activities').count({ n: '*' }))[0].n),
  });

  const activities = async () =>
    (await app.database.db('store_activities').orderBy('id')).map((a: Record<string, unknown>) => ({
      object_type: a.object_type,
      object_id: Number(a.object_id),
      title: a.title,
      content: a.content,
      created_by: a.created_by,
    }));

  describe('POST /shipping/zones', () => {
    it('takes a form-encoded body: its text values are coerced to the schema types, a JSON body is not', async () => {
      const form = await api().post(`${BASE}/shipping/zones`).type('form').send('name=Form%20zone&countries[]=de&position=3');
      expect(form.status).toBe(200);
      expect(form.body.zone).toMatchObject({ name: 'Form zone', countries: ['DE'], position: 3 });
      const json = await api().post(`${BASE}/shipping/zones`).send({ name: 'JSON zone', position: '3' });
      expect(json.status).toBe(422);
      expect(json.body.errors).toEqual({ position: { integer: expect.any(String) } });
      const bad = await api().post(`${BASE}/shipping/zones`).type('form').send('name=Bad&position=three');
      expect(bad.status).toBe(422);
      expect(await app.database.db('store_shipping_zones').whereIn('name', ['JSON zone', 'Bad']).count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it('creates a zone: codes upper-cased and de-duplicated, logged, store/shipping_zone/created fired', async () => {
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api()
          .post(`${BASE}/shipping/zones`)
          .send({ name: ' United States ', countries: ['us', 'US', 'ca'], states: ['us:ca', 'US:NY', 'US:CA'], position: 2 });
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({
        message: 'Shipping zone created successfully!',
        zone: {
          id: expect.any(Number),
          name: 'United States',
          countries: ['US', 'CA'],
          states: ['US:CA', 'US:NY'],
          is_rest_of_world: 0,
          position: 2,
          methods: [],
          created_at: NOW,
          updated_at: NOW,
        },
      });
      const id = res!.body.zone.id;
      const row = await app.database.db('store_shipping_zones').where({ id }).first();
      expect(JSON.parse(row.countries)).toEqual(['US', 'CA']);
      expect(JSON.parse(row.states)).toEqual(['US:CA', 'US:NY']);
      expect(fired).toEqual([['store/shipping_zone/created', res!.body.zone]]);
      expect(await activities()).toEqual([
        { object_type: 'shipping', object_id: id, title: 'Shipping zone created', content: 'United States', created_by: 'admin' },
      ]);
    });

    it('creates the rest-of-world zone; a second one is refused with 422 and nothing is stored', async () => {
      const world = await zone({ name: 'Rest of world', is_rest_of_world: 1 });
      expect(world).toMatchObject({ countries: [], states: [], is_rest_of_world: 1, position: 0 });
      const before = await counts();
      const res = await api().post(`${BASE}/shipping/zones`).send({ name: 'Everywhere else', is_rest_of_world: 1 });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'There is already a rest-of-world zone.',
        errors: { is_rest_of_world: { unique: 'There is already a rest-of-world zone.' } },
      });
      expect(await counts()).toEqual(before);
    });

    it('accepts the state codes of the address data: ISO codes such as JP:13 (Tokyo) and CA:QC', async () => {
      const res = await api()
        .post(`${BASE}/shipping/zones`)
        .send({ name: 'Tokyo and Quebec', countries: ['JP', 'CA'], states: ['JP:13', 'ca:qc'] });
      expect(res.status).toBe(200);
      expect(res.body.zone).toMatchObject({ countries: ['JP', 'CA'], states: ['JP:13', 'CA:QC'] });
    });

    it('parallel creates of a rest-of-world zone: one wins, the others are 422, and one such zone is stored (unique key)', async () => {
      const results = await Promise.all(
        ['World', 'Elsewhere', 'Everywhere'].map((name) => api().post(`${BASE}/shipping/zones`).send({ name, is_rest_of_world: 1 })),
      );
      expect(results.map((res) => res.status).sort()).toEqual([200, 422, 422]);
      for (const res of results.filter((r) => r.status === 422)) {
        expect(res.body).toEqual({
          message: 'There is already a rest-of-world zone.',
          errors: { is_rest_of_world: { unique: 'There is already a rest-of-world zone.' } },
        });
      }
      const winner = results.find((res) => res.status === 200)!.body.zone;
      expect(await app.database.db('store_shipping_zones').select('id', 'is_rest_of_world', 'rest_of_world_key')).toEqual([
        { id: winner.id, is_rest_of_world: 1, rest_of_world_key: 1 },
      ]);
      expect(await counts()).toEqual({ zones: 1, methods: 0, activities: 1 });
    });

    it.each(
      withFieldFirst<Record<string, unknown>>([
        ['no name', { countries: ['US'] }, 'name', 'required', 'The name field is required.'],
        ['an empty name', { name: '', countries: ['US'] }, 'name', 'required', 'The name field is required.'],
        ['a blank name', { name: '   ', countries: ['US'] }, 'name', 'required', 'The name field is required.'],
        ['a long name', { name: 'x'.repeat(192), countries: ['US'] }, 'name', 'max', 'The name field must not be greater than 191 characters.'],
        ['no countries', { name: 'Z' }, 'countries', 'required', 'The countries field is required unless the zone is the rest of the world.'],
        [
          'an empty country list',
          { name: 'Z', countries: [] },
          'countries',
          'required',
          'The countries field is required unless the zone is the rest of the world.',
        ],
        ['countries as a string', { name: 'Z', countries: 'US' }, 'countries', 'array', 'The countries field must be an array.'],
        ['an alpha-3 code', { name: 'Z', countries: ['USA'] }, 'countries.0', 'regex', 'The countries must be ISO 3166-1 alpha-2 codes such as US.'],
        [
          'an unknown code',
          { name: 'Z', countries: ['US', 'XX', 'zz'] },
          'countries',
          'country',
          'The countries must be ISO 3166-1 alpha-2 codes; unknown: XX, ZZ.',
        ],
        [
          'a state without its country',
          { name: 'Z', countries: ['US'], states: ['CA'] },
          'states.0',
          'regex',
          'The states must be written as country:state, such as US:CA.',
        ],
        [
          'a state of another country',
          { name: 'Z', countries: ['US'], states: ['US:CA', 'CA:ON'] },
          'states',
          'country',
          "Each state must belong to one of the zone's countries: CA:ON.",
        ],
        [
          'an unknown state',
          { name: 'Z', countries: ['US', 'CA'], states: ['US:CA', 'us:xx', 'CA:ZZ'] },
          'states',
          'in',
          'Unknown states: US:XX, CA:ZZ. Use the state codes of the country, such as US:CA.',
        ],
        [
          'a state name instead of its code',
          { name: 'Z', countries: ['US'], states: ['US:Texas'] },
          'states',
          'in',
          'Unknown states: US:TEXAS. Use the state codes of the country, such as US:CA.',
        ],
        [
          'a state of a country without states',
          { name: 'Z', countries: ['US', 'GB'], states: ['US:CA', 'GB:ENG'] },
          'states',
          'prohibited',
          'These countries have no states: GB:ENG. Leave the states out to cover the whole country.',
        ],
        [
          'rest of world with countries',
          { name: 'Z', is_rest_of_world: 1, countries: ['US'] },
          'countries',
          'prohibited',
          'A rest-of-world zone has no countries: it covers every country no other zone covers.',
        ],
        ['rest of world with states', { name: 'Z', is_rest_of_world: 1, states: ['US:CA'] }, 'states', 'prohibited', 'A rest-of-world zone has no states.'],
        ['is_rest_of_world 2', { name: 'Z', is_rest_of_world: 2 }, 'is_rest_of_world', 'in', 'The is rest of world field must be 0 or 1.'],
        ['is_rest_of_world true', { name: 'Z', is_rest_of_world: true }, 'is_rest_of_world', 'numeric', 'The is rest of world field must be 0 or 1.'],
        ['a negative position', { name: 'Z', countries: ['US'], position: -1 }, 'position', 'min', 'The position field must be at least 0.'],
        ['a fractional position', { name: 'Z', countries: ['US'], position: 1.5 }, 'position', 'integer', 'The position field must be an integer.'],
        ['an unknown field', { name: 'Z', countries: ['US'], color: 'red' }, 'color', 'unknown', 'The color field is not recognised.'],
      ]),
    )('refuses %s: 422 naming %s (%s) and stores nothing', async (_case, field, rule, body, message) => {
      const res = await api().post(`${BASE}/shipping/zones`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(await counts()).toEqual({ zones: 0, methods: 0, activities: 0 });
    });
  });

  describe('GET /shipping/zones', () => {
    it('lists every zone with its methods, by position then id, the rest-of-world zone last', async () => {
      const world = await zone({ name: 'Rest of world', is_rest_of_world: 1 });
      const us = await zone({ name: 'United States', countries: ['US'], position: 1 });
      const ca = await zone({ name: 'California', countries: ['US'], states: ['US:CA'], position: 0 });
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'], position: 1 });
      const standard = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800, position: 1 });
      const free = await method({ zone_id: us.id, title: 'Free over $100', charge_type: 'free', free_above: 10000 });
      await method({ zone_id: world.id, title: 'International', charge_type: 'flat_rate', charge_amount: 3000 });

      const res = await app.as(reader).get(`${BASE}/shipping/zones`);
      expect(res.status).toBe(200);
      expect(res.body.zones.map((z: { name: string }) => z.name)).toEqual(['California', 'United States', 'United Kingdom', 'Rest of world']);
      expect(res.body.zones.map((z: { id: number }) => z.id)).toEqual([ca.id, us.id, gb.id, world.id]);
      expect(res.body.zones[1].methods.map((m: { id: number }) => m.id)).toEqual([free.id, standard.id]);
      expect(res.body.zones[0].methods).toEqual([]);
      expect(res.body.zones[3].methods).toEqual([expect.objectContaining({ title: 'International', countries: [], states: [] })]);
    });

    it('is an empty list on a fresh store', async () => {
      const res = await api().get(`${BASE}/shipping/zones`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ zones: [] });
    });
  });

  describe('GET /shipping/zones/:id', () => {
    it('answers one zone with its methods', async () => {
      const us = await zone({ name: 'United States', countries: ['US'], states: ['US:CA'] });
      const standard = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800 });
      const res = await app.as(reader).get(`${BASE}/shipping/zones/${us.id}`);
      expect(res.status).toBe(200);
      expect(res.body.zone).toMatchObject({ id: us.id, name: 'United States', countries: ['US'], states: ['US:CA'] });
      expect(res.body.zone.methods).toEqual([expect.objectContaining({ id: standard.id, countries: ['US'], states: ['CA'] })]);
    });

    it('404 for an unknown zone', async () => {
      const res = await api().get(`${BASE}/shipping/zones/9999`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Shipping zone not found' });
    });
  });

  describe('PUT /shipping/zones/:id', () => {
    it('changes only what is sent, logs the changed fields, fires store/shipping_zone/updated with the previous zone', async () => {
      const us = await zone({ name: 'United States', countries: ['US'], states: ['US:CA'], position: 3 });
      await app.database.db('store_activities').delete();
      app.clock.advance(60_000);
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api()
          .put(`${BASE}/shipping/zones/${us.id}`)
          .send({ name: 'USA', states: ['US:CA', 'us:ny'] });
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({
        message: 'Shipping zone updated successfully!',
        zone: {
          id: us.id,
          name: 'USA',
          countries: ['US'],
          states: ['US:CA', 'US:NY'],
          is_rest_of_world: 0,
          position: 3,
          methods: [],
          created_at: NOW,
          updated_at: '2026-11-21 10:01:00',
        },
      });
      expect(fired).toEqual([['store/shipping_zone/updated', res!.body.zone, { ...us, methods: [] }]]);
      expect(await activities()).toEqual([
        { object_type: 'shipping', object_id: us.id, title: 'Shipping zone updated', content: 'USA: name, states', created_by: 'admin' },
      ]);
      expect((await api().get(`${BASE}/shipping/zones/${us.id}`)).body.zone.name).toBe('USA');
    });

    it('checks the zone as a whole: dropping a country its states belong to is refused', async () => {
      const na = await zone({ name: 'North America', countries: ['US', 'CA'], states: ['CA:ON'] });
      const res = await api()
        .put(`${BASE}/shipping/zones/${na.id}`)
        .send({ countries: ['US'] });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ states: { country: "Each state must belong to one of the zone's countries: CA:ON." } });
      expect((await api().get(`${BASE}/shipping/zones/${na.id}`)).body.zone.countries).toEqual(['US', 'CA']);
    });

    it('turns a zone into the rest of the world only without countries, and only if there is none yet', async () => {
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'] });
      const withCountries = await api().put(`${BASE}/shipping/zones/${gb.id}`).send({ is_rest_of_world: 1 });
      expect(withCountries.status).toBe(422);
      expect(withCountries.body.errors).toHaveProperty(['countries', 'prohibited']);

      const ok = await api().put(`${BASE}/shipping/zones/${gb.id}`).send({ name: 'World', is_rest_of_world: 1, countries: [] });
      expect(ok.status).toBe(200);
      expect(ok.body.zone).toMatchObject({ name: 'World', countries: [], is_rest_of_world: 1 });
      // Saving the rest-of-world zone again is not a second one.
      expect((await api().put(`${BASE}/shipping/zones/${gb.id}`).send({ is_rest_of_world: 1, position: 4 })).status).toBe(200);

      const de = await zone({ name: 'Germany', countries: ['DE'] });
      const second = await api().put(`${BASE}/shipping/zones/${de.id}`).send({ is_rest_of_world: 1, countries: [] });
      expect(second.status).toBe(422);
      expect(second.body.errors).toEqual({ is_rest_of_world: { unique: 'There is already a rest-of-world zone.' } });
      expect((await api().get(`${BASE}/shipping/zones/${de.id}`)).body.zone).toMatchObject({ countries: ['DE'], is_rest_of_world: 0 });
    });

    it('parallel updates that each make a zone the rest of the world: one wins, the other is 422 and keeps its countries', async () => {
      const de = await zone({ name: 'Germany', countries: ['DE'] });
      const fr = await zone({ name: 'France', countries: ['FR'] });
      const results = await Promise.all([de, fr].map((z) => api().put(`${BASE}/shipping/zones/${z.id}`).send({ is_rest_of_world: 1, countries: [] })));
      expect(results.map((res) => res.status).sort()).toEqual([200, 422]);
      const lost = results.findIndex((res) => res.status === 422);
      expect(results[lost].body.errors).toEqual({ is_rest_of_world: { unique: 'There is already a rest-of-world zone.' } });
      const rows = await app.database.db('store_shipping_zones').orderBy('id').select('id', 'countries', 'is_rest_of_world', 'rest_of_world_key');
      expect(rows.map((row) => ({ ...row, countries: JSON.parse(row.countries) }))).toEqual(
        [de, fr].map((z, i) =>
          i === lost
            ? { id: z.id, countries: [z === de ? 'DE' : 'FR'], is_rest_of_world: 0, rest_of_world_key: null }
            : { id: z.id, countries: [], is_rest_of_world: 1, rest_of_world_key: 1 },
        ),
      );
    });

    it('a zone that stops being the rest of the world frees the key for another', async () => {
      const world = await zone({ name: 'World', is_rest_of_world: 1 });
      expect(
        (
          await api()
            .put(`${BASE}/shipping/zones/${world.id}`)
            .send({ is_rest_of_world: 0, countries: ['GB'] })
        ).status,
      ).toBe(200);
      expect(await app.database.db('store_shipping_zones').where({ id: world.id }).first('rest_of_world_key')).toEqual({ rest_of_world_key: null });
      expect((await api().post(`${BASE}/shipping/zones`).send({ name: 'Elsewhere', is_rest_of_world: 1 })).status).toBe(200);
    });

    it.each<[Record<string, unknown>, string, string]>([
      [{ name: '' }, 'name', 'required'],
      [{ countries: [] }, 'countries', 'required'],
      [{ countries: ['XX'] }, 'countries', 'country'],
      [{ states: ['US:XX'] }, 'states', 'in'],
      [{ countries: ['US', 'DE'], states: ['DE:BY'] }, 'states', 'prohibited'],
      [{ position: 'first' }, 'position', 'integer'],
      [{ id: 5 }, 'id', 'unknown'],
    ])('refuses %j with 422 naming %s and changes nothing', async (body, field, rule) => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const before = (await api().get(`${BASE}/shipping/zones/${us.id}`)).body.zone;
      const res = await api().put(`${BASE}/shipping/zones/${us.id}`).send(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toHaveProperty(rule);
      expect((await api().get(`${BASE}/shipping/zones/${us.id}`)).body.zone).toEqual(before);
    });

    it('404 for an unknown zone', async () => {
      const res = await api().put(`${BASE}/shipping/zones/9999`).send({ name: 'Nowhere' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Shipping zone not found' });
    });
  });

  describe('DELETE /shipping/zones/:id', () => {
    it('deletes the zone and its methods; each method’s deletion and the zone’s fire after commit', async () => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'] });
      const a = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800 });
      const b = await method({ zone_id: us.id, title: 'Express', charge_type: 'flat_rate', charge_amount: 2000, position: 1 });
      const kept = await method({ zone_id: gb.id, title: 'Royal Mail', charge_type: 'flat_rate', charge_amount: 399 });
      const before = (await api().get(`${BASE}/shipping/zones/${us.id}`)).body.zone;
      await app.database.db('store_activities').delete();

      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().delete(`${BASE}/shipping/zones/${us.id}`);
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({ message: 'Shipping zone deleted successfully!' });
      expect(fired).toEqual([
        ['store/shipping_method/deleted', expect.objectContaining({ id: a.id })],
        ['store/shipping_method/deleted', expect.objectContaining({ id: b.id })],
        ['store/shipping_zone/deleted', before],
      ]);
      expect(await app.database.db('store_shipping_zones').where({ id: us.id }).first()).toBeUndefined();
      expect((await app.database.db('store_shipping_methods').select('id')).map((r: { id: number }) => Number(r.id))).toEqual([kept.id]);
      expect(await activities()).toEqual([
        { object_type: 'shipping', object_id: us.id, title: 'Shipping zone deleted', content: 'United States (2 methods)', created_by: 'admin' },
      ]);
      expect((await api().get(`${BASE}/shipping/zones/${us.id}`)).status).toBe(404);
    });

    it('404 for an unknown zone', async () => {
      const res = await api().delete(`${BASE}/shipping/zones/9999`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Shipping zone not found' });
    });
  });

  describe('POST /shipping/methods', () => {
    it('creates a method presented with the spec’s fields, the zone’s countries and plain state codes', async () => {
      const us = await zone({ name: 'United States', countries: ['US'], states: ['US:CA', 'US:NY'] });
      await app.database.db('store_activities').delete();
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().post(`${BASE}/shipping/methods`).send({ zone_id: us.id, title: ' Standard ', charge_type: 'flat_rate', charge_amount: 800 });
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({
        message: 'Shipping method created successfully!',
        method: {
          id: expect.any(Number),
          zone_id: us.id,
          title: 'Standard',
          charge_type: 'flat_rate',
          charge_amount: 800,
          free_above: null,
          status: 'active',
          countries: ['US'],
          states: ['CA', 'NY'],
          position: 0,
          created_at: NOW,
          updated_at: NOW,
        },
      });
      const id = res!.body.method.id;
      const row = await app.database.db('store_shipping_methods').where({ id }).first();
      expect({ ...row, id: Number(row.id), zone_id: Number(row.zone_id), charge_amount: Number(row.charge_amount) }).toMatchObject({
        zone_id: us.id,
        title: 'Standard',
        charge_type: 'flat_rate',
        charge_amount: 800,
        free_above: null,
        status: 'active',
      });
      expect(fired).toEqual([['store/shipping_method/created', res!.body.method]]);
      expect(await activities()).toEqual([
        { object_type: 'shipping', object_id: us.id, title: 'Shipping method created', content: `Standard (#${id})`, created_by: 'admin' },
      ]);
    });

    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      ['free above an amount', { charge_type: 'free', free_above: 10000 }, { charge_amount: 0, free_above: 10000 }],
      ['always free', { charge_type: 'free', charge_amount: 0, free_above: null }, { charge_amount: 0, free_above: null }],
      [
        'per item, inactive, positioned',
        { charge_type: 'per_item', charge_amount: 150, status: 'inactive', position: 7 },
        { charge_amount: 150, status: 'inactive', position: 7 },
      ],
      ['a zero flat rate', { charge_type: 'flat_rate', charge_amount: 0 }, { charge_amount: 0 }],
    ])('creates %s', async (_case, body, expected) => {
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'] });
      const res = await api()
        .post(`${BASE}/shipping/methods`)
        .send({ zone_id: gb.id, title: 'Method', ...body });
      expect(res.status).toBe(200);
      expect(res.body.method).toMatchObject({ ...body, ...expected, countries: ['GB'], states: [] });
    });

    it.each(
      withFieldFirst<Record<string, unknown>>([
        ['no zone', { zone_id: undefined }, 'zone_id', 'required', 'The zone id field is required.'],
        ['an unknown zone', { zone_id: 999999 }, 'zone_id', 'exists', 'The selected zone id is invalid.'],
        ['no title', { title: undefined }, 'title', 'required', 'The title field is required.'],
        ['a blank title', { title: '  ' }, 'title', 'required', 'The title field is required.'],
        ['a long title', { title: 't'.repeat(192) }, 'title', 'max', 'The title field must not be greater than 191 characters.'],
        ['no charge type', { charge_type: undefined }, 'charge_type', 'required', 'The charge type field is required.'],
        ['an unknown charge type', { charge_type: 'weight' }, 'charge_type', 'in', 'The selected charge type is invalid.'],
        [
          'a flat rate without amount',
          { charge_amount: undefined },
          'charge_amount',
          'required',
          'The charge amount field is required when the charge type is flat_rate.',
        ],
        [
          'per item without amount',
          { charge_type: 'per_item', charge_amount: undefined },
          'charge_amount',
          'required',
          'The charge amount field is required when the charge type is per_item.',
        ],
        ['a negative amount', { charge_amount: -1 }, 'charge_amount', 'min', 'The charge amount field must be at least 0.'],
        ['a decimal amount', { charge_amount: 8.5 }, 'charge_amount', 'integer', 'The charge amount field must be an integer.'],
        ['an amount as text', { charge_amount: '800' }, 'charge_amount', 'integer', 'The charge amount field must be an integer.'],
        ['a huge amount', { charge_amount: 10_000_000_001 }, 'charge_amount', 'max', 'The charge amount field must not be greater than 10000000000.'],
        [
          'a free method with an amount',
          { charge_type: 'free', charge_amount: 500 },
          'charge_amount',
          'prohibited',
          'A free shipping method has no charge amount.',
        ],
        ['free_above on a flat rate', { free_above: 10000 }, 'free_above', 'prohibited', 'Only a free shipping method can have a free above amount.'],
        [
          'a negative free_above',
          { charge_type: 'free', charge_amount: undefined, free_above: -5 },
          'free_above',
          'min',
          'The free above field must be at least 0.',
        ],
        ['an unknown status', { status: 'paused' }, 'status', 'in', 'The selected status is invalid.'],
        ['a negative position', { position: -2 }, 'position', 'min', 'The position field must be at least 0.'],
        ['an unknown field', { countries: ['US'] }, 'countries', 'unknown', 'The countries field is not recognised.'],
      ]),
    )('refuses %s: 422 naming %s (%s) and stores nothing', async (_case, field, rule, override, message) => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const before = await counts();
      const body = { zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800, ...override };
      const res = await api()
        .post(`${BASE}/shipping/methods`)
        .send(JSON.parse(JSON.stringify(body)));
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual({ [rule]: message });
      expect(await counts()).toEqual(before);
    });
  });

  describe('GET /shipping/methods', () => {
    it('lists methods in zone order, filtered by zone_id and status', async () => {
      const world = await zone({ name: 'Rest of world', is_rest_of_world: 1 });
      const us = await zone({ name: 'United States', countries: ['US'], states: ['US:CA'], position: 1 });
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'], position: 0 });
      const intl = await method({ zone_id: world.id, title: 'International', charge_type: 'flat_rate', charge_amount: 3000 });
      const express = await method({ zone_id: us.id, title: 'Express', charge_type: 'flat_rate', charge_amount: 2000, position: 2, status: 'inactive' });
      const standard = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800, position: 1 });
      const royal = await method({ zone_id: gb.id, title: 'Royal Mail', charge_type: 'flat_rate', charge_amount: 399 });

      const all = await app.as(reader).get(`${BASE}/shipping/methods`);
      expect(all.status).toBe(200);
      expect(all.body.methods.map((m: { id: number }) => m.id)).toEqual([royal.id, standard.id, express.id, intl.id]);
      expect(all.body.methods[1]).toMatchObject({ title: 'Standard', countries: ['US'], states: ['CA'], zone_id: us.id });

      const ofUs = await api().get(`${BASE}/shipping/methods?zone_id=${us.id}`);
      expect(ofUs.body.methods.map((m: { id: number }) => m.id)).toEqual([standard.id, express.id]);
      const inactive = await api().get(`${BASE}/shipping/methods?status=inactive`);
      expect(inactive.body.methods.map((m: { id: number }) => m.id)).toEqual([express.id]);
      const both = await api().get(`${BASE}/shipping/methods?zone_id=${us.id}&status=active`);
      expect(both.body.methods.map((m: { id: number }) => m.id)).toEqual([standard.id]);
      expect((await api().get(`${BASE}/shipping/methods?zone_id=999999`)).body).toEqual({ methods: [] });
    });

    it.each([
      ['status=paused', 'status', 'in'],
      ['zone_id=abc', 'zone_id', 'integer'],
      ['zone_id=0', 'zone_id', 'min'],
    ])('refuses ?%s with 422 naming %s', async (query, field, rule) => {
      const res = await api().get(`${BASE}/shipping/methods?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toHaveProperty(rule);
    });
  });

  describe('GET /shipping/methods/:id', () => {
    it('answers one method', async () => {
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'] });
      const royal = await method({ zone_id: gb.id, title: 'Royal Mail', charge_type: 'flat_rate', charge_amount: 399 });
      const res = await app.as(reader).get(`${BASE}/shipping/methods/${royal.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ method: royal });
    });

    it('404 for an unknown method', async () => {
      const res = await api().get(`${BASE}/shipping/methods/9999`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Shipping method not found' });
    });
  });

  describe('PUT /shipping/methods/:id', () => {
    it('changes only what is sent, logs it, fires store/shipping_method/updated with the previous method', async () => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const standard = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800 });
      await app.database.db('store_activities').delete();
      app.clock.advance(60_000);
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().put(`${BASE}/shipping/methods/${standard.id}`).send({ charge_amount: 950, status: 'inactive' });
      });
      expect(res!.status).toBe(200);
      expect(res!.body.message).toBe('Shipping method updated successfully!');
      expect(res!.body.method).toEqual({ ...standard, charge_amount: 950, status: 'inactive', updated_at: expect.not.stringMatching(NOW) });
      expect(fired).toEqual([['store/shipping_method/updated', res!.body.method, standard]]);
      expect(await activities()).toEqual([
        {
          object_type: 'shipping',
          object_id: us.id,
          title: 'Shipping method updated',
          content: `Standard (#${standard.id}): charge_amount, status`,
          created_by: 'admin',
        },
      ]);
      expect((await api().get(`${BASE}/shipping/methods/${standard.id}`)).body.method).toEqual(res!.body.method);
    });

    it('switching to free resets the amount; leaving free needs an amount and clears free_above', async () => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const m = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800 });

      const toFree = await api().put(`${BASE}/shipping/methods/${m.id}`).send({ charge_type: 'free', free_above: 5000 });
      expect(toFree.status).toBe(200);
      expect(toFree.body.method).toMatchObject({ charge_type: 'free', charge_amount: 0, free_above: 5000 });

      const noAmount = await api().put(`${BASE}/shipping/methods/${m.id}`).send({ charge_type: 'per_item' });
      expect(noAmount.status).toBe(422);
      expect(noAmount.body.errors).toEqual({ charge_amount: { required: 'The charge amount field is required when the charge type is per_item.' } });

      const toPerItem = await api().put(`${BASE}/shipping/methods/${m.id}`).send({ charge_type: 'per_item', charge_amount: 150 });
      expect(toPerItem.status).toBe(200);
      expect(toPerItem.body.method).toMatchObject({ charge_type: 'per_item', charge_amount: 150, free_above: null });

      const freeAbove = await api().put(`${BASE}/shipping/methods/${m.id}`).send({ free_above: 100 });
      expect(freeAbove.status).toBe(422);
      expect(freeAbove.body.errors).toHaveProperty(['free_above', 'prohibited']);
    });

    it('moves a method to another zone (logged on the new zone); an unknown zone is a 422', async () => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const gb = await zone({ name: 'United Kingdom', countries: ['GB'] });
      const m = await method({ zone_id: us.id, title: 'Courier', charge_type: 'flat_rate', charge_amount: 800 });
      await app.database.db('store_activities').delete();

      const moved = await api().put(`${BASE}/shipping/methods/${m.id}`).send({ zone_id: gb.id });
      expect(moved.status).toBe(200);
      expect(moved.body.method).toMatchObject({ zone_id: gb.id, countries: ['GB'] });
      expect(await activities()).toEqual([expect.objectContaining({ object_id: gb.id, content: `Courier (#${m.id}): zone_id` })]);

      const unknown = await api().put(`${BASE}/shipping/methods/${m.id}`).send({ zone_id: 999999 });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual({ zone_id: { exists: 'The selected zone id is invalid.' } });
      expect((await api().get(`${BASE}/shipping/methods/${m.id}`)).body.method.zone_id).toBe(gb.id);
    });

    it('404 for an unknown method', async () => {
      const res = await api().put(`${BASE}/shipping/methods/9999`).send({ title: 'Nope' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Shipping method not found' });
    });
  });

  describe('DELETE /shipping/methods/:id', () => {
    it('deletes the method, logs it on its zone, fires store/shipping_method/deleted', async () => {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const m = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800 });
      await app.database.db('store_activities').delete();
      let res: import('supertest').Response | undefined;
      const fired = await recordHooks(async () => {
        res = await api().delete(`${BASE}/shipping/methods/${m.id}`);
      });
      expect(res!.status).toBe(200);
      expect(res!.body).toEqual({ message: 'Shipping method deleted successfully!' });
      expect(fired).toEqual([['store/shipping_method/deleted', m]]);
      expect(await activities()).toEqual([
        { object_type: 'shipping', object_id: us.id, title: 'Shipping method deleted', content: `Standard (#${m.id})`, created_by: 'admin' },
      ]);
      expect(await counts()).toMatchObject({ zones: 1, methods: 0 });
      expect((await api().delete(`${BASE}/shipping/methods/${m.id}`)).status).toBe(404);
    });
  });

  describe('permissions', () => {
    const reads = (ids: { zone: number; method: number }): Array<[string, string]> => [
      ['get', '/shipping/zones'],
      ['get', `/shipping/zones/${ids.zone}`],
      ['get', '/shipping/methods'],
      ['get', `/shipping/methods/${ids.method}`],
    ];
    const writes = (ids: { zone: number; method: number }): Array<[string, string, Record<string, unknown>]> => [
      ['post', '/shipping/zones', { name: 'Germany', countries: ['DE'] }],
      ['put', `/shipping/zones/${ids.zone}`, { name: 'Renamed' }],
      ['delete', `/shipping/zones/${ids.zone}`, {}],
      ['post', '/shipping/methods', { zone_id: ids.zone, title: 'Courier', charge_type: 'flat_rate', charge_amount: 100 }],
      ['put', `/shipping/methods/${ids.method}`, { title: 'Renamed' }],
      ['delete', `/shipping/methods/${ids.method}`, {}],
    ];

    async function fixture() {
      const us = await zone({ name: 'United States', countries: ['US'] });
      const m = await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800 });
      await app.database.db('store_activities').delete();
      return { zone: us.id, method: m.id };
    }

    type Verb = 'get' | 'post' | 'put' | 'delete';

    it('anonymous callers get 401 on every route, and nothing changes', async () => {
      const ids = await fixture();
      const before = await counts();
      for (const [verb, path] of reads(ids)) expect([verb, path, (await app.http[verb as Verb](`${BASE}${path}`)).status]).toEqual([verb, path, 401]);
      for (const [verb, path, body] of writes(ids)) {
        expect([verb, path, (await app.http[verb as Verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, path, 401]);
      }
      expect(await counts()).toEqual(before);
    });

    it.each([
      ['a customer', () => shopper],
      ['a product manager (no store/settings)', () => productManager],
      ['an order manager (no store/settings)', () => orderManager],
    ])('%s gets 403 on every route, and nothing changes', async (_who, who) => {
      const ids = await fixture();
      const before = await counts();
      for (const [verb, path] of reads(ids)) {
        const res = await app.as(who())[verb as Verb](`${BASE}${path}`);
        expect([verb, path, res.status, res.body.code]).toEqual([verb, path, 403, 'rest_forbidden']);
      }
      for (const [verb, path, body] of writes(ids)) {
        const res = await app.as(who())[verb as Verb](`${BASE}${path}`).send(body);
        expect([verb, path, res.status]).toEqual([verb, path, 403]);
      }
      expect(await counts()).toEqual(before);
    });

    it('store/settings without store/sensitive reads but cannot write', async () => {
      const ids = await fixture();
      const before = await counts();
      for (const [verb, path] of reads(ids)) expect([verb, path, (await app.as(reader)[verb as Verb](`${BASE}${path}`)).status]).toEqual([verb, path, 200]);
      for (const [verb, path, body] of writes(ids)) {
        expect([verb, path, (await app.as(reader)[verb as Verb](`${BASE}${path}`).send(body)).status]).toEqual([verb, path, 403]);
      }
      expect(await counts()).toEqual(before);
    });
  });

  describe('shippingOptions and priceMethod (used by checkout and orders)', () => {
    const ctx = () =>
      createCtx(
        app.host,
        {
          user: null,
          ip: '127.0.0.1',
          query: {},
          auth: { method: null, sessionToken: null, sessionUserId: null, nonce: null, nonceValid: false },
          session: {} as never,
        },
        new RateLimits(app.host.db),
      );
    const CART: ShippingItem[] = [
      { quantity: 2, unit_price: 2500, fulfillment_type: 'physical' },
      { quantity: 1, unit_price: 1000, fulfillment_type: 'digital' },
    ];
    const DIGITAL: ShippingItem[] = [{ quantity: 1, unit_price: 1000, fulfillment_type: 'digital' }];

    let ids: Record<'ca' | 'us' | 'world' | 'courier' | 'standard' | 'perItem' | 'free' | 'paused' | 'intl', number>;
    beforeEach(async () => {
      const ca = await zone({ name: 'California', countries: ['US'], states: ['US:CA'] });
      const us = await zone({ name: 'United States', countries: ['US'], position: 1 });
      const world = await zone({ name: 'Rest of world', is_rest_of_world: 1 });
      ids = {
        ca: ca.id,
        us: us.id,
        world: world.id,
        courier: (await method({ zone_id: ca.id, title: 'California courier', charge_type: 'flat_rate', charge_amount: 500 })).id,
        standard: (await method({ zone_id: us.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 800, position: 1 })).id,
        perItem: (await method({ zone_id: us.id, title: 'Per item', charge_type: 'per_item', charge_amount: 150, position: 2 })).id,
        free: (await method({ zone_id: us.id, title: 'Free over $100', charge_type: 'free', free_above: 10000 })).id,
        paused: (await method({ zone_id: us.id, title: 'Express', charge_type: 'flat_rate', charge_amount: 2500, status: 'inactive' })).id,
        intl: (await method({ zone_id: world.id, title: 'International', charge_type: 'flat_rate', charge_amount: 3000 })).id,
      };
    });

    it('offers the matched zone’s active methods, priced, in the spec’s shape plus shipping_charge', async () => {
      const options = await shippingOptions(ctx(), { country: 'us', state: 'ny' }, CART);
      expect(options.required).toBe(true);
      expect(options.zone).toMatchObject({ id: ids.us, name: 'United States' });
      expect(options.methods.map((m) => [m.id, m.title, m.shipping_charge])).toEqual([
        [ids.standard, 'Standard', 800],
        [ids.perItem, 'Per item', 300],
      ]);
      expect(options.methods[0]).toMatchObject({ charge_type: 'flat_rate', charge_amount: 800, status: 'active', countries: ['US'], states: [] });

      const ca = await shippingOptions(ctx(), { country: 'US', state: 'CA' }, CART);
      expect(ca.methods).toEqual([expect.objectContaining({ id: ids.courier, states: ['CA'], shipping_charge: 500 })]);
      const jp = await shippingOptions(ctx(), { country: 'JP' }, [{ quantity: 3, unit_price: 4000, fulfillment_type: 'physical' }]);
      expect(jp.methods.map((m) => [m.id, m.shipping_charge])).toEqual([[ids.intl, 3000]]);
    });

    it('a digital-only cart needs no shipping: {required: false, zone: null, methods: []}', async () => {
      expect(await shippingOptions(ctx(), { country: 'US', state: 'NY' }, DIGITAL)).toEqual({ required: false, zone: null, methods: [] });
      expect(await priceMethod(ctx(), ids.standard, { country: 'US', state: 'NY' }, DIGITAL)).toBeNull();
    });

    it('passes the methods through store/shipping/available_methods with the normalised destination', async () => {
      const seen: unknown[] = [];
      const off = app.host.hooks.addFilter('store/shipping/available_methods', (methods, destination) => {
        seen.push(destination);
        return methods.filter((m) => m.charge_type !== 'per_item');
      });
      try {
        const options = await shippingOptions(ctx(), { country: 'us', state: 'US:ny' }, CART);
        expect(options.methods.map((m) => m.id)).toEqual([ids.standard]);
        expect(seen).toEqual([{ country: 'US', state: 'NY' }]);

        const refused = priceMethod(ctx(), ids.perItem, { country: 'US', state: 'NY' }, CART);
        await expect(refused).rejects.toMatchObject({
          status: 422,
          details: { errors: { shipping_method: { invalid: 'The selected shipping method is not available for this address.' } } },
        });
      } finally {
        off();
      }
      expect((await priceMethod(ctx(), ids.perItem, { country: 'US', state: 'NY' }, CART))?.shipping_charge).toBe(300);
    });

    it('a filter may reprice or add a method; one without a valid shipping_charge is priced by its charge type', async () => {
      const off = app.host.hooks.addFilter('store/shipping/available_methods', (methods) => [
        ...methods.map((m) => (m.id === ids.standard ? { ...m, shipping_charge: 123 } : m)),
        { ...methods[0], id: 424242, title: 'Pickup', charge_type: 'per_item', charge_amount: 10, shipping_charge: 'lots' } as never,
      ]);
      try {
        const options = await shippingOptions(ctx(), { country: 'US', state: 'NY' }, CART);
        expect(options.methods.map((m) => [m.title, m.shipping_charge])).toEqual([
          ['Standard', 123],
          ['Per item', 300],
          ['Pickup', 20],
        ]);
      } finally {
        off();
      }
    });

    it('priceMethod answers the chosen method with its charge', async () => {
      const free = await priceMethod(ctx(), ids.free, { country: 'US', state: 'TX' }, [{ quantity: 4, unit_price: 2500, fulfillment_type: 'physical' }]);
      expect(free).toMatchObject({ id: ids.free, title: 'Free over $100', charge_type: 'free', shipping_charge: 0 });
      const perItem = await priceMethod(ctx(), ids.perItem, { country: 'US', state: 'TX' }, [
        { quantity: 4, unit_price: 2500, fulfillment_type: 'physical' },
        { quantity: 9, unit_price: 100, fulfillment_type: 'digital' },
      ]);
      expect(perItem?.shipping_charge).toBe(600);
    });

    it.each<[string, () => number, string, string, ShippingItem[]]>([
      ['a method of another zone', () => ids.courier, 'US', 'NY', CART],
      ['an inactive method', () => ids.paused, 'US', 'NY', CART],
      ['free shipping below its threshold', () => ids.free, 'US', 'NY', CART],
      ['an unknown method', () => 999999, 'US', 'NY', CART],
      ['the rest-of-world method for a US address', () => ids.intl, 'US', 'CA', CART],
    ])('priceMethod refuses %s with 422 on shipping_method', async (_case, id, country, state, items) => {
      await expect(priceMethod(ctx(), id(), { country, state }, items)).rejects.toMatchObject({
        status: 422,
        message: 'The selected shipping method is not available for this address.',
        details: { errors: { shipping_method: { invalid: 'The selected shipping method is not available for this address.' } } },
      });
    });
  });
});
