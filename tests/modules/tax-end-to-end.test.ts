/**
 * Tax from end to end, over HTTP, as a store owner sets it up and a customer buys: classes (`POST /tax/classes`),
 * country rates (`POST /tax/country/rate`) with a shipping override (`POST /tax/rates/country/override`), a
 * product-category override (`POST /tax/product-overrides`), products whose variations carry a class
 * (`POST /products`), an order (checkout place-order, or the admin's `POST /orders`) for a destination, then
 * mark-as-paid → the order tax records `GET /taxes` lists (amounts and meta), a partial and a full refund → reversing
 * records that net every record to 0, and `POST /taxes` files them. Once for an exclusive USD store, once for a store
 * entering prices with VAT in them (EUR), once for a JPY store (amounts in yen).
 *
 * Only the customers' saved addresses are made through the customer service (the admin API has no address route).
 */
import { createAddress, type AddressInput } from '../../src/modules/customers/addresses';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';

interface Share {
  tax_rate_id: number | null;
  name: string;
  rate: string;
  country: string;
  state: string;
  is_compound: number;
  order_tax: number;
  shipping_tax: number;
  override_id?: number;
}

interface TaxRecord {
  id: number;
  order_id: number;
  tax_rate_id: number | null;
  shipping_tax: number;
  order_tax: number;
  total_tax: number;
  meta: { rates: Share[]; tax_country: string; store_vat_number: string; refund_transaction_id?: number; reverses?: number };
  filed_at: string | null;
  created_at: string;
  updated_at: string;
}

describe('tax end to end: set up through the API, charged on an order, recorded when paid, reversed by refunds, filed', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let standardClass: number;
  let reducedClass: number;
  let zeroClass: number;
  let booksCategory: number;

  const api = () => app.as(admin);
  const db = () => app.host.db;

  async function ok(res: { status: number; body: Record<string, unknown> }, message?: string): Promise<Record<string, unknown>> {
    expect([res.status, message === undefined ? undefined : res.body.message]).toEqual([200, message]);
    return res.body;
  }

  async function createRate(body: Record<string, unknown>): Promise<number> {
    const answer = await ok(await api().post(`${BASE}/tax/country/rate`).send(body), 'Tax rate has been created successfully');
    return (answer.tax_rate as { id: number }).id;
  }

  async function createProduct(title: string, price: number, variation: Record<string, unknown> = {}, more: Record<string, unknown> = {}): Promise<number> {
    const res = await api()
      .post(`${BASE}/products`)
      .send({ title, status: 'publish', ...more, variations: [{ title, price, ...variation }] });
    expect(res.status).toBe(200);
    const product = (res.body.product ?? res.body.data) as { variations: Array<{ id: number }> };
    return product.variations[0].id;
  }

  async function customerAt(address: Omit<AddressInput, 'type'>): Promise<number> {
    const res = await api()
      .post(`${BASE}/customers`)
      .send({ email: `${address.name.toLowerCase().replace(/\W/g, '')}@example.com`, first_name: address.name });
    expect(res.status).toBe(200);
    const id = res.body.data.id as number;
    await createAddress(app.ctx(), id, { ...address, type: 'billing' });
    await createAddress(app.ctx(), id, { ...address, type: 'shipping' });
    return id;
  }

  const markPaid = async (orderId: number) => ok(await api().post(`${BASE}/orders/${orderId}/mark-as-paid`).send({ payment_method: 'offline' }));

  async function chargeOf(orderId: number): Promise<number> {
    const charge = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge', status: 'succeeded' }).first('id');
    return Number(charge.id);
  }

  async function refund(orderId: number, amount: string): Promise<void> {
    const res = await api()
      .post(`${BASE}/orders/${orderId}/refund`)
      .send({ refund_info: { transaction_id: await chargeOf(orderId), amount } });
    expect([res.status, res.body.fluent_cart_refund?.status]).toEqual([200, 'success']);
  }

  /** The order's records as `GET /taxes` lists them, oldest first. */
  async function listed(orderId: number, query = ''): Promise<TaxRecord[]> {
    const res = await api().get(`${BASE}/taxes?search=${encodeURIComponent(`order_id = ${orderId}`)}&sort_by=id&sort_type=asc&per_page=200${query}`);
    expect(res.status).toBe(200);
    return res.body.taxes.data as TaxRecord[];
  }

  const orderRow = async (id: number) => {
    const row = await db()('store_orders').where({ id }).first();
    return {
      currency: row.currency as string,
      tax_total: Number(row.tax_total),
      shipping_tax: Number(row.shipping_tax),
      tax_behavior: Number(row.tax_behavior),
      total_amount: Number(row.total_amount),
    };
  };

  /** What each original record nets to once its reversals are added: `{tax_rate_id: [order_tax, shipping_tax]}`. */
  function netted(records: TaxRecord[]): Array<[number | null, number, number]> {
    const sums = new Map<number, [number | null, number, number]>();
    for (const record of records) {
      const key = record.meta.reverses ?? record.id;
      const sum = sums.get(key) ?? [record.tax_rate_id, 0, 0];
      sums.set(key, [sum[0], sum[1] + record.order_tax, sum[2] + record.shipping_tax]);
    }
    return [...sums.values()];
  }

  /** The amounts of records: `[tax_rate_id, order_tax, shipping_tax, total_tax]`. */
  const amounts = (records: TaxRecord[]) => records.map((r) => [r.tax_rate_id, r.order_tax, r.shipping_tax, r.total_tax]);

  async function fileAll(orderId: number): Promise<void> {
    const records = await listed(orderId);
    expect(records.every((r) => r.filed_at === null)).toBe(true);
    await ok(
      await api()
        .post(`${BASE}/taxes`)
        .send({ ids: records.map((r) => r.id) }),
      'Taxes marked as filed successfully',
    );
    expect(await listed(orderId, '&active_view=not_filed')).toEqual([]);
    const filed = await listed(orderId, '&active_view=filed');
    expect(filed.map((r) => r.id)).toEqual(records.map((r) => r.id));
    expect(filed.every((r) => r.filed_at === '2026-11-21 10:00:00')).toBe(true);
  }

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('tax-owner', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true } });

    const classes = await api().get(`${BASE}/tax/classes`);
    standardClass = (classes.body.classes as Array<{ id: number; slug: string }>).find((c) => c.slug === 'standard')!.id;
    reducedClass = ((await ok(await api().post(`${BASE}/tax/classes`).send({ slug: 'reduced' }), 'Tax class created successfully')).class as { id: number }).id;
    zeroClass = ((await ok(await api().post(`${BASE}/tax/classes`).send({ slug: 'zero' }), 'Tax class created successfully')).class as { id: number }).id;
    const category = await api().post(`${BASE}/products/categories`).send({ name: 'Books' });
    expect(category.status).toBe(200);
    booksCategory = category.body.category.id as number;
  });
  afterAll(() => app.close());

  afterEach(async () => {
    await fx.storeSettings({ currency: 'USD', prices_include_tax: false, tax_rounding: 'line', tax_based_on: 'shipping' });
  });

  describe('an exclusive USD store: checkout place-order to San Francisco', () => {
    let caState: number;
    let sfCity: number;
    let caReduced: number;
    let booksOverride: number;

    beforeAll(async () => {
      await fx.storeSettings({ store_vat_number: 'US-EIN-12-3456789' });
      caState = await createRate({ class_id: standardClass, country: 'US', state: 'CA', rate: '6', name: 'CA State', priority: 1 });
      await ok(await api().post(`${BASE}/tax/rates/country/override`).send({ id: caState, override_tax_rate: 5 }), 'Tax override has been saved successfully');
      sfCity = await createRate({
        class_id: 0,
        country: 'US',
        state: 'CA',
        city: 'San Francisco',
        postcode: '94100...94199',
        rate: '1.25',
        name: 'SF City',
        priority: 2,
      });
      caReduced = await createRate({ class_id: reducedClass, country: 'US', state: 'CA', rate: 2, name: 'CA Reduced', priority: 1 });
      // Books pay 3 % in California instead of every other rate.
      const saved = await ok(
        await api()
          .post(`${BASE}/tax/product-overrides`)
          .send({ country: 'US', state: 'CA', category_id: booksCategory, rate: 3, tax_label: 'Books tax', override_state_tax: 'yes' }),
        'Tax override has been saved successfully',
      );
      booksOverride = (saved.override as { id: number }).id;
    });

    it('charges each line its class, the override and the exemption, shipping its override; paying writes one record per rate; refunds reverse them to 0; filing marks them', async () => {
      const lamp = await createProduct('Lamp', 10000);
      const bread = await createProduct('Bread', 2000, { tax_class: 'reduced' });
      const novel = await createProduct('Novel', 1500, {}, { category_ids: [booksCategory] });
      const giftCard = await createProduct('Gift card', 5000, { tax_class: 'tax_exempt' });
      const method = await fx.shippingMethod({ title: 'Courier', charge_amount: 1000 }, ['US']);
      const hash = await fx.cartWith([
        [lamp, 1],
        [bread, 1],
        [novel, 1],
        [giftCard, 1],
      ]);
      const placed = await fx.place(hash, guestForm({ fc_selected_shipping_method: method }));
      expect(placed.status).toBe(200);
      const orderId = Number((await fx.orderOfCart(hash)).id);

      // Lamp 10000: CA 6 % 600 + SF 1.25 % 125; Bread 2000: reduced 2 % 40 + SF 25; Novel 1500: Books 3 % 45;
      // Gift card: exempt. Shipping 1000: CA at its 5 % override 50 + SF 1.25 % 12.5 → 13.
      expect(await orderRow(orderId)).toEqual({ currency: 'USD', tax_total: 835, shipping_tax: 63, tax_behavior: 1, total_amount: 18500 + 1000 + 835 + 63 });
      const items = await db()('store_order_items').where({ order_id: orderId }).orderBy('cart_index').select('tax_amount');
      expect(items.map((i) => Number(i.tax_amount))).toEqual([725, 65, 45, 0]);
      expect(await listed(orderId)).toEqual([]);

      await markPaid(orderId);
      const paid = await listed(orderId);
      const share = (tax_rate_id: number | null, name: string, rate: string, order_tax: number, shipping_tax: number, extra: Partial<Share> = {}): Share => ({
        tax_rate_id,
        name,
        rate,
        country: 'US',
        state: 'CA',
        is_compound: 0,
        order_tax,
        shipping_tax,
        ...extra,
      });
      const expected = [
        share(caState, 'CA State', '6.0000', 600, 50),
        share(sfCity, 'SF City', '1.2500', 150, 13),
        share(caReduced, 'CA Reduced', '2.0000', 40, 0),
        share(null, 'Books tax', '3', 45, 0, { override_id: booksOverride }),
      ];
      const byRate = (a: { tax_rate_id: number | null }, b: { tax_rate_id: number | null }) => (a.tax_rate_id ?? 0) - (b.tax_rate_id ?? 0);
      expect([...paid].sort(byRate)).toEqual(
        [...expected].sort(byRate).map((s) => ({
          id: expect.any(Number),
          order_id: orderId,
          tax_rate_id: s.tax_rate_id,
          order_tax: s.order_tax,
          shipping_tax: s.shipping_tax,
          total_tax: s.order_tax + s.shipping_tax,
          meta: { rates: [s], tax_country: 'US', store_vat_number: 'US-EIN-12-3456789' },
          filed_at: null,
          created_at: '2026-11-21 10:00:00',
          updated_at: '2026-11-21 10:00:00',
        })),
      );
      expect(paid.reduce((sum, r) => sum + r.total_tax, 0)).toBe(835 + 63);

      // with[]=tax_rate shows each record's rate; the override's record has none.
      const withRates = await api().get(`${BASE}/taxes?search=${encodeURIComponent(`order_id = ${orderId}`)}&with[]=tax_rate&with[]=order`);
      for (const record of withRates.body.taxes.data as Array<TaxRecord & { tax_rate: { id: number } | null; order: { id: number } }>) {
        expect(record.tax_rate?.id ?? null).toBe(record.tax_rate_id);
        expect(record.order.id).toBe(orderId);
      }

      // Half of 20398, then the other half.
      await refund(orderId, '101.99');
      const afterHalf = await listed(orderId);
      const reversals = afterHalf.slice(paid.length);
      const charge = await chargeOf(orderId);
      expect(reversals.every((r) => r.meta.refund_transaction_id !== undefined && r.meta.refund_transaction_id !== charge)).toBe(true);
      expect([...amounts(reversals)].sort((a, b) => Number(a[0] ?? 0) - Number(b[0] ?? 0))).toEqual(
        [
          [caState, -300, -25, -325],
          [sfCity, -75, -7, -82],
          [caReduced, -20, 0, -20],
          [null, -23, 0, -23],
        ].sort((a, b) => Number(a[0] ?? 0) - Number(b[0] ?? 0)),
      );

      await refund(orderId, '101.99');
      const all = await listed(orderId);
      expect(all).toHaveLength(12);
      expect(netted(all).map(([, order, shipping]) => [order, shipping])).toEqual([
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
      expect(all.reduce((sum, r) => sum + r.total_tax, 0)).toBe(0);

      await fileAll(orderId);
    });
  });

  describe('a store entering prices with VAT in them (EUR): the admin creates an order for Berlin', () => {
    let mwst: number;
    let reduced: number;

    beforeAll(async () => {
      mwst = await createRate({ class_id: standardClass, country: 'DE', rate: '19', name: 'MwSt' });
      reduced = await createRate({ class_id: reducedClass, country: 'DE', rate: '7', name: 'MwSt ermäßigt' });
      await createRate({ class_id: zeroClass, country: 'DE', rate: '0', name: 'MwSt 0 %' });
    });

    it('reports the VAT inside the prices (not added); paying records it per rate; a full refund reverses it exactly', async () => {
      await fx.storeSettings({ currency: 'EUR', prices_include_tax: true, store_vat_number: 'DE123456789' });
      const customer = await customerAt({
        name: 'Bettina',
        email: 'bettina@example.de',
        address_1: 'Unter den Linden 1',
        city: 'Berlin',
        postcode: '10117',
        country: 'DE',
      });
      const lamp = await createProduct('Leuchte', 11900);
      const bread = await createProduct('Brot', 10700, { tax_class: 'reduced' });
      const paper = await createProduct('Zeitung', 5000, { tax_class: 'zero' });
      const created = await api()
        .post(`${BASE}/orders`)
        .send({
          customer_id: customer,
          order_items: [
            { id: lamp, quantity: 1 },
            { id: bread, quantity: 1 },
            { id: paper, quantity: 1 },
          ],
          shipping: [{ type: 'custom', rate_name: 'DHL', custom_price: 595 }],
        });
      expect(created.status).toBe(200);
      const orderId = created.body.order_id as number;

      // 11900 × 19/119 = 1900; 10700 × 7/107 = 700; the zero class pays 0; shipping 595 × 19/119 = 95.
      expect(await orderRow(orderId)).toEqual({
        currency: 'EUR',
        tax_total: 2600,
        shipping_tax: 95,
        tax_behavior: 2,
        total_amount: 11900 + 10700 + 5000 + 595,
      });

      await markPaid(orderId);
      const paid = await listed(orderId);
      expect(amounts(paid)).toEqual([
        [mwst, 1900, 95, 1995],
        [reduced, 700, 0, 700],
      ]);
      expect(paid.map((r) => [r.meta.tax_country, r.meta.store_vat_number, r.meta.rates.map((s) => [s.name, s.rate, s.country, s.state])])).toEqual([
        ['DE', 'DE123456789', [['MwSt', '19.0000', 'DE', '']]],
        ['DE', 'DE123456789', [['MwSt ermäßigt', '7.0000', 'DE', '']]],
      ]);

      await refund(orderId, '281.95');
      const all = await listed(orderId);
      expect(amounts(all.slice(2))).toEqual([
        [mwst, -1900, -95, -1995],
        [reduced, -700, 0, -700],
      ]);
      expect(netted(all).map(([, order, shipping]) => [order, shipping])).toEqual([
        [0, 0],
        [0, 0],
      ]);

      await fileAll(orderId);
    });
  });

  describe('a JPY store: amounts in yen', () => {
    let consumption: number;
    let reducedJp: number;

    beforeAll(async () => {
      consumption = await createRate({ class_id: standardClass, country: 'JP', rate: '10', name: 'Consumption tax' });
      reducedJp = await createRate({ class_id: reducedClass, country: 'JP', rate: '8', name: 'Reduced consumption tax' });
    });

    it('rounds each tax half up to whole yen; half and then the rest refunded (in yen) reverse the records to 0', async () => {
      await fx.storeSettings({ currency: 'JPY', prices_include_tax: false, store_vat_number: 'T1234567890123' });
      const customer = await customerAt({
        name: 'Hanako',
        email: 'hanako@example.jp',
        address_1: '1-1 Chiyoda',
        city: 'Chiyoda',
        state: '13',
        postcode: '100-0001',
        country: 'JP',
      });
      const tea = await createProduct('Tea set', 1234);
      const rice = await createProduct('Rice', 555, { tax_class: 'reduced' });
      const created = await api()
        .post(`${BASE}/orders`)
        .send({
          customer_id: customer,
          order_items: [
            { id: tea, quantity: 1 },
            { id: rice, quantity: 1 },
          ],
          shipping: [{ type: 'custom', rate_name: 'Yamato', custom_price: 500 }],
        });
      expect(created.status).toBe(200);
      const orderId = created.body.order_id as number;

      // 1234 × 10 % = 123.4 → 123 yen; 555 × 8 % = 44.4 → 44 yen; shipping 500 × 10 % = 50 yen.
      expect(await orderRow(orderId)).toEqual({
        currency: 'JPY',
        tax_total: 167,
        shipping_tax: 50,
        tax_behavior: 1,
        total_amount: 1234 + 555 + 500 + 167 + 50,
      });

      await markPaid(orderId);
      const paid = await listed(orderId);
      expect(amounts(paid)).toEqual([
        [consumption, 123, 50, 173],
        [reducedJp, 44, 0, 44],
      ]);
      expect(paid.map((r) => [r.meta.tax_country, r.meta.store_vat_number])).toEqual([
        ['JP', 'T1234567890123'],
        ['JP', 'T1234567890123'],
      ]);

      // Half of 2506 yen: 61.5 → 62, 22, 25; then the rest: 61, 22, 25.
      await refund(orderId, '1253');
      expect(amounts((await listed(orderId)).slice(2))).toEqual([
        [consumption, -62, -25, -87],
        [reducedJp, -22, 0, -22],
      ]);
      await refund(orderId, '1253');
      const all = await listed(orderId);
      expect(amounts(all.slice(4))).toEqual([
        [consumption, -61, -25, -86],
        [reducedJp, -22, 0, -22],
      ]);
      expect(netted(all).map(([, order, shipping]) => [order, shipping])).toEqual([
        [0, 0],
        [0, 0],
      ]);

      await fileAll(orderId);
    });
  });
});
