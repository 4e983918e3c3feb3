/**
 * The report facts and summaries change in the transaction of every order change, and always equal what
 * `reports rebuild` computes from the orders: a seeded random sequence of order changes through the real API (admin
 * creates and edits, checkouts, payments, partial and full refunds, status and payment-status bulk actions, deletes,
 * customer and address changes, subscription renewals), compared row by row with a rebuild every few steps.
 */
import { transaction } from '../../src/core/context';
import { centsToDecimal } from '../../src/core/money';
import { MovableClock } from '../../src/host/clock';
import { createAddress } from '../../src/modules/customers/addresses';
import { rebuildReports } from '../../src/modules/reports/sync/rebuild';
import { recordRenewal } from '../../src/modules/subscriptions/renewals';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { checkoutFixtures, guestForm } from '../support/checkout';
import { subscriptionFamilies, useGateways, actionGateway, type Family } from '../support/subscription-actions';
import { expectRebuildAgrees, reportTables, seededRandom } from './reports-sync-fixtures';

type Row = Record<string, unknown>;

const STEPS = 120;
const CHECK_EVERY = 4;
const GUESTS = ['ann@example.com', 'bob@example.com', 'cem@example.com'];

describe('report sync: every order change keeps the summaries equal to a rebuild', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof checkoutFixtures>;
  let families: ReturnType<typeof subscriptionFamilies>;
  const random = seededRandom(15);
  const customers: number[] = [];
  const subscriptions: Family[] = [];
  let variations: Array<{ id: number; product_id: number }> = [];
  let usMethod = 0;
  let deMethod = 0;
  let renewals = 0;
  let deletedCounted = 0;

  beforeAll(async () => {
    app = await startTestApp({ clock: new MovableClock('2025-10-30T21:30:00Z') });
    admin = await app.createUser('admin', ['administrator']);
    fx = checkoutFixtures(app, () => admin);
    families = subscriptionFamilies(app, '2025-10-30 21:30:00');
    useGateways(app, actionGateway('subpay'));
    await app.host.options.set('cart_write_rate_limit', 100_000);
    await app.host.options.set('checkout_rate_limit', 100_000);
    await fx.paymentSettings({ cod: { enabled: true } });
    variations = [
      await fx.variation(2500, { title: 'Shirt' }),
      await fx.variation(900, { title: 'Ebook', fulfillment_type: 'digital' }),
      await fx.variation(12_999, { title: 'Lamp' }),
    ];
    usMethod = await fx.shippingMethod({ title: 'US Standard', charge_amount: 500 }, ['US']);
    deMethod = await fx.shippingMethod({ title: 'DE Standard', charge_amount: 700 }, ['DE']);
    for (let i = 0; i < 4; i++) customers.push(await fx.customer({ address: true }));
    for (let i = 0; i < 2; i++) {
      const id = await fx.customer();
      const base = {
        type: 'billing' as const,
        name: 'Kunde',
        email: 'kunde@example.com',
        address_1: 'Hauptstr. 1',
        city: 'Berlin',
        postcode: '10115',
        country: 'DE',
      };
      await createAddress(app.ctx(), id, base);
      await createAddress(app.ctx(), id, { ...base, type: 'shipping' });
      customers.push(id);
    }
    // Subscriptions as checkout leaves them, written straight into the tables: the rebuild is the baseline.
    subscriptions.push(await families.family({ customerId: customers[0] }), await families.family());
    // A paid test-mode order whose subscription ended: deletable, so a delete takes counted facts away.
    await families.family({ customerId: customers[4], subscription: { status: 'canceled' } });
    await rebuildReports(app.ctx());
  }, 120_000);
  afterAll(() => app.close());

  const db = () => app.host.db;
  const api = () => app.as(admin);
  const orders = async (where: (query: ReturnType<ReturnType<typeof db>>) => unknown = () => undefined): Promise<Row[]> => {
    const query = db()('store_orders').orderBy('id');
    where(query);
    return (await query) as Row[];
  };
  const someOf = (rows: Row[], most: number) => [...new Set(Array.from({ length: random.int(1, most) }, () => Number(random.pick(rows).id)))];

  async function expectOk(response: { status: number; body: unknown }, what: string): Promise<void> {
    if (response.status !== 200) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  }

  const actions: Record<string, () => Promise<void>> = {
    async adminCreate() {
      const variation = random.pick(variations);
      const body: Row = {
        customer_id: random.pick(customers),
        order_items: [{ variation_id: variation.id, quantity: random.int(1, 4) }],
        currency: random.pick(['USD', 'USD', 'EUR']),
      };
      if (random.next() < 0.5) body.payment_status = 'paid';
      if (random.next() < 0.3) body.status = 'completed';
      if (random.next() < 0.5) body.shipping = [{ type: 'custom', rate_name: 'Courier', custom_price: random.int(100, 900) }];
      await expectOk(await api().post(`${BASE}/orders`).send(body), 'POST /orders');
    },
    async checkout() {
      const germany = random.next() < 0.4;
      const cart = await fx.cartWith([[random.pick([variations[0].id, variations[2].id]), random.int(1, 3)]]);
      const form = guestForm({
        billing_email: random.pick(GUESTS),
        fc_selected_shipping_method: germany ? deMethod : usMethod,
        ...(germany ? { billing_country: 'DE', billing_state: '', billing_postcode: '10115', billing_city: 'Berlin' } : {}),
      });
      await expectOk(await fx.place(cart, form), 'POST /checkout/place-order');
    },
    async markPaid() {
      const unpaid = await orders((q) => q.whereIn('payment_status', ['pending', 'failed']).whereNot('status', 'canceled'));
      if (!unpaid.length) return;
      const order = random.pick(unpaid);
      await expectOk(await api().post(`${BASE}/orders/${order.id}/mark-as-paid`).send({ payment_method: 'offline' }), 'mark-as-paid');
    },
    async refund() {
      const charges = (await db()('store_order_transactions as t')
        .join('store_orders as o', 'o.id', 't.order_id')
        .where({ 't.transaction_type': 'charge', 't.status': 'succeeded', 't.payment_method': 'offline' })
        .whereIn('o.payment_status', ['paid', 'partially-paid', 'partially-refunded'])
        .select('t.id', 't.order_id', 't.total', 't.currency')) as Row[];
      const refunds = (await db()('store_order_transactions').where({ transaction_type: 'refund' }).whereIn('status', ['pending', 'refunded'])) as Row[];
      const left = (charge: Row) =>
        Number(charge.total) -
        refunds.filter((r) => JSON.parse(String(r.meta)).parent_transaction_id === Number(charge.id)).reduce((sum, r) => sum + Number(r.total), 0);
      const open = charges.filter((charge) => left(charge) > 0);
      if (!open.length) return;
      const charge = random.pick(open);
      const most = left(charge);
      const amount = random.next() < 0.4 ? most : random.int(1, most);
      const res = await api()
        .post(`${BASE}/orders/${charge.order_id}/refund`)
        .send({ refund_info: { transaction_id: charge.id, amount: centsToDecimal(amount) } });
      await expectOk(res, 'refund');
    },
    async orderStatus() {
      const all = await orders();
      if (!all.length) return;
      const res = await api()
        .post(`${BASE}/orders/do-bulk-action`)
        .send({ action: 'change_order_status', order_ids: someOf(all, 3), new_status: random.pick(['completed', 'processing', 'on-hold', 'canceled']) });
      await expectOk(res, 'change_order_status');
    },
    async paymentStatus() {
      const all = await orders();
      if (!all.length) return;
      const status = random.pick(['pending', 'failed', 'paid', 'refunded', 'partially-refunded', 'partially_paid']);
      const res = await api()
        .post(`${BASE}/orders/do-bulk-action`)
        .send({ action: 'change_payment_status', order_ids: someOf(all, 3), new_status: status });
      await expectOk(res, 'change_payment_status');
    },
    async remove() {
      const testMode = await orders((q) => q.where({ mode: 'test' }));
      const all = testMode.length && random.next() < 0.5 ? testMode : await orders();
      if (!all.length) return;
      const ids = someOf(all, 2);
      const counted = await db()('store_report_orders').whereIn('order_id', ids).pluck('order_id');
      await expectOk(await api().post(`${BASE}/orders/do-bulk-action`).send({ action: 'delete_orders', order_ids: ids }), 'delete_orders');
      deletedCounted += (await db()('store_orders').whereIn('id', counted).pluck('id')).length === 0 ? counted.length : 0;
    },
    async changeCustomer() {
      const all = await orders();
      if (!all.length) return;
      const order = random.pick(all);
      await expectOk(
        await api()
          .post(`${BASE}/orders/${order.id}/change-customer`)
          .send({ customer_id: random.pick(customers) }),
        'change-customer',
      );
    },
    async orderAddress() {
      const owned = await orders((q) => q.whereNotNull('customer_id'));
      if (!owned.length) return;
      const order = random.pick(owned);
      const addresses = (await db()('store_customer_addresses').where({ customer_id: order.customer_id })) as Row[];
      if (!addresses.length) return;
      const res = await api()
        .post(`${BASE}/orders/${order.id}/update-address-id`)
        .send({ address_id: random.pick(addresses).id, address_type: random.pick(['billing', 'shipping']) });
      await expectOk(res, 'update-address-id');
    },
    async customerAddress() {
      const owned = await orders((q) => q.whereIn('customer_id', customers));
      if (!owned.length) return;
      const order = random.pick(owned);
      const address = (await db()('store_customer_addresses').where({ customer_id: order.customer_id, type: 'billing', is_primary: 1 }).first()) as
        Row | undefined;
      if (!address) return;
      const patch =
        address.country === 'DE'
          ? { country: 'US', state: 'CA', postcode: '90001', city: 'Los Angeles' }
          : { country: 'DE', state: '', postcode: '10115', city: 'Berlin' };
      const res = await api()
        .put(`${BASE}/customers/${order.customer_id}/address`)
        .send({ id: address.id, ...patch, order_id: order.id });
      await expectOk(res, 'PUT /customers/{id}/address');
    },
    async editOrder() {
      const editable = await orders((q) => q.where({ type: 'payment' }).whereNot('status', 'completed'));
      if (!editable.length) return;
      const order = random.pick(editable);
      const items = (await db()('store_order_items').where({ order_id: order.id })) as Row[];
      const variation = random.pick(variations);
      const res = await api()
        .post(`${BASE}/orders/${order.id}`)
        .send({
          customer_id: order.customer_id,
          order_items: [{ variation_id: variation.id, quantity: random.int(1, 12) }],
          deletedItems: items.map((item) => Number(item.id)),
        });
      await expectOk(res, 'POST /orders/{id}');
    },
    async renewal() {
      const family = random.pick(subscriptions);
      const outcome = await transaction(app.ctx(), (trx, afterCommit) =>
        recordRenewal(app.ctx(), trx, afterCommit, {
          subscription_id: family.subscriptionId,
          payment_method: 'subpay',
          vendor_charge_id: `in_${++renewals}`,
          amount: random.int(500, 1500),
          currency: 'USD',
        }),
      );
      expect(outcome.outcome).toBe('renewed');
    },
  };
  const weighted = [
    ...Array<string>(4).fill('adminCreate'),
    ...Array<string>(3).fill('checkout'),
    ...Array<string>(3).fill('markPaid'),
    ...Array<string>(3).fill('refund'),
    ...Object.keys(actions),
  ];

  it(`${STEPS} random order changes through the API, the summaries compared with a rebuild every ${CHECK_EVERY}`, async () => {
    const done: string[] = [];
    for (let step = 1; step <= STEPS; step++) {
      // Hours to days between changes: the orders fall in many hour, day and month slots (and across a year's end).
      app.clock.advance(random.int(0, 60) * 60 * 60 * 1000 + random.int(0, 3599) * 1000);
      const name = random.pick(weighted);
      await actions[name]();
      done.push(name);
      if (step % CHECK_EVERY === 0) await expectRebuildAgrees(app, `step ${step}: ${done.slice(-CHECK_EVERY).join(', ')}`);
    }
    // The sequence reached every kind of change and left counted orders behind.
    expect(new Set(done)).toEqual(new Set(Object.keys(actions)));
    const counted = await reportTables(db());
    expect(counted.facts.length).toBeGreaterThan(10);
    expect(new Set(counted.facts.map((fact) => fact.currency))).toEqual(new Set(['USD', 'EUR']));
    expect(new Set(counted.facts.map((fact) => fact.type))).toEqual(new Set(['payment', 'subscription', 'renewal']));
    expect(counted.facts.some((fact) => Number(fact.refund) > 0)).toBe(true);
    expect(counted.facts.some((fact) => fact.billing_country === 'DE')).toBe(true);
    expect(deletedCounted).toBeGreaterThan(0);
  }, 300_000);
});
