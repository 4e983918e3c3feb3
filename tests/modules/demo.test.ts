import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('npm run cli -- seed --demo', () => {
  let app: TestApp;
  let admin: TestUser;
  const seed = (flags: Record<string, boolean> = { demo: true }) => app.host.commands.get('seed')!.run(flags);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
  });
  afterAll(() => app.close());

  it('creates a small realistic store', async () => {
    const output = await seed();
    expect(output[0]).toBe('Demo store seeded: 4 categories, 9 products, 2 coupons, 5 shipping zones, 8 shipping methods, 3 customers.');

    const products = (await app.as(admin).get(`${BASE}/products?per_page=50`)).body.products;
    expect(products.total).toBeGreaterThanOrEqual(8);
    const variations = products.data.flatMap((p: { variations: unknown[] }) => p.variations) as Array<Record<string, unknown>>;
    expect(products.data.some((p: { fulfillment_type: string }) => p.fulfillment_type === 'physical')).toBe(true);
    expect(products.data.some((p: { fulfillment_type: string }) => p.fulfillment_type === 'digital')).toBe(true);
    expect(variations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ payment_type: 'subscription', billing_interval: 'monthly', bill_times: 0 }),
        expect.objectContaining({ payment_type: 'subscription', billing_interval: 'yearly' }),
        expect.objectContaining({ payment_type: 'subscription', bill_times: 3 }),
        expect.objectContaining({ payment_type: 'subscription', trial_days: 14 }),
      ]),
    );

    const zones = (await app.as(admin).get(`${BASE}/shipping/zones`)).body.zones as Array<{ countries: string[]; states: string[]; is_rest_of_world: number }>;
    expect(zones.some((z) => z.countries.includes('US') && z.states.length > 0)).toBe(true);
    expect(zones.some((z) => z.countries.includes('GB'))).toBe(true);
    expect(zones.some((z) => z.countries.includes('DE'))).toBe(true);
    expect(zones.some((z) => z.is_rest_of_world === 1)).toBe(true);

    expect((await app.as(admin).get(`${BASE}/coupons`)).body.coupons.total).toBe(2);
    const customers = await app.database.db('store_customers').select('id', 'email', 'user_id');
    expect(customers).toHaveLength(3);
    for (const customer of customers) {
      expect(customer.user_id).not.toBeNull();
      const addresses = await app.database.db('store_customer_addresses').where({ customer_id: customer.id, is_primary: 1 });
      expect(addresses.map((a: { type: string }) => a.type).sort()).toEqual(['billing', 'shipping']);
    }
    const settings = (await app.as(admin).get(`${BASE}/settings/store`)).body.settings;
    expect(settings.store_name).toBe('Demo Store');
  });

  it('running it again duplicates nothing', async () => {
    const before = await Promise.all(
      [
        'store_products',
        'store_product_variations',
        'store_coupons',
        'store_shipping_zones',
        'store_shipping_methods',
        'store_customers',
        'store_customer_addresses',
        'users',
      ].map((t) => app.database.db(t).count({ n: '*' }).first()),
    );
    expect((await seed())[0]).toBe('Demo store already present; nothing added.');
    const after = await Promise.all(
      [
        'store_products',
        'store_product_variations',
        'store_coupons',
        'store_shipping_zones',
        'store_shipping_methods',
        'store_customers',
        'store_customer_addresses',
        'users',
      ].map((t) => app.database.db(t).count({ n: '*' }).first()),
    );
    expect(after).toEqual(before);
  });

  it('at start-up (--demo) it loads only into an empty store', async () => {
    expect(await seed({ demo: true, ifEmpty: true })).toEqual(['The store already has products; the demo was not loaded.']);
  });

  it('demo customers can log in', async () => {
    const res = await app.browser().login('jane', 'demo-customer-password');
    expect(res.status).toBe(200);
  });

  it('without --demo it does nothing', async () => {
    expect(await seed({})).toEqual(['Nothing to seed: pass --demo.']);
  });
});
