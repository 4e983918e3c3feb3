import { fromTimestamp } from '../../src/core/time';
import { addInterval, GRACE_PERIOD_DAYS } from '../../src/modules/subscriptions/lifecycle';
import type { BillingInterval } from '../../src/modules/subscriptions/types';
import { BASE, startTestApp, type TestApp } from '../support/app';

type Row = Record<string, string | number | null>;

const ms = (value: string | number | null) => fromTimestamp(String(value)).getTime();

describe('seed --scale N: the subscriptions part', () => {
  let app: TestApp;
  let subscriptions: Row[];
  let orders: Row[];
  let charges: Row[];
  let output: string[];
  const db = () => app.database.db;
  const seed = (target: TestApp, flags: Record<string, string | boolean>) => target.host.commands.get('seed')!.run(flags);

  beforeAll(async () => {
    app = await startTestApp();
    output = await seed(app, { scale: '200' });
    subscriptions = (await db()('store_subscriptions').orderBy('id')) as Row[];
    orders = (await db()('store_orders').whereIn('type', ['subscription', 'renewal']).orderBy('id')) as Row[];
    charges = (await db()('store_order_transactions').whereIn('order_type', ['subscription', 'renewal'])) as Row[];
  });
  afterAll(() => app.close());

  it('writes two subscriptions per customer with their orders, and says so', async () => {
    expect(output[3]).toMatch(
      /^ {2}subscriptions: 400 store_subscriptions, [\d,]+ store_orders, [\d,]+ store_order_items, [\d,]+ store_order_transactions in \d+\.\d s \([\d,]+ rows\/s\)$/,
    );
    expect(subscriptions).toHaveLength(400);
    const perCustomer = new Map<number, number>();
    for (const s of subscriptions) perCustomer.set(Number(s.customer_id), (perCustomer.get(Number(s.customer_id)) ?? 0) + 1);
    expect(perCustomer.size).toBe(200);
    expect([...perCustomer.values()].every((n) => n === 2)).toBe(true);
    const [written] = /([\d,]+) store_orders/.exec(output[3])!.slice(1);
    expect(orders).toHaveLength(Number(written.replace(/,/g, '')));
    // About 1.5 renewals per subscription: enough history, never millions of rows.
    const renewals = orders.filter((o) => o.type === 'renewal').length;
    expect(renewals).toBeGreaterThan(300);
    expect(renewals).toBeLessThan(1000);
  });

  it('spreads statuses like a live store, every status the list can show', () => {
    const byStatus = new Map<string, number>();
    for (const s of subscriptions) byStatus.set(String(s.status), (byStatus.get(String(s.status)) ?? 0) + 1);
    expect([...byStatus.keys()].sort()).toEqual([
      'active',
      'canceled',
      'completed',
      'expired',
      'expiring',
      'failing',
      'intended',
      'paused',
      'pending',
      'trialing',
    ]);
    expect(byStatus.get('active')!).toBeGreaterThan(140);
    expect(byStatus.get('canceled')!).toBeGreaterThan(40);
    expect(new Set(subscriptions.map((s) => s.billing_interval))).toEqual(new Set(['daily', 'weekly', 'monthly', 'quarterly', 'half_yearly', 'yearly']));
  });

  it('each subscription has its first order and bill_count charges, renewals one interval apart, the charges recorded for it', () => {
    const orderById = new Map(orders.map((o) => [Number(o.id), o]));
    const chargesOf = new Map<number, Row[]>();
    for (const c of charges) chargesOf.set(Number(c.order_id), [...(chargesOf.get(Number(c.order_id)) ?? []), c]);
    for (const s of subscriptions) {
      const parent = orderById.get(Number(s.parent_order_id))!;
      expect(parent).toMatchObject({ type: 'subscription', customer_id: s.customer_id, payment_method: s.current_payment_method, created_at: s.created_at });
      const renewals = orders.filter((o) => o.type === 'renewal' && o.parent_id === parent.id).sort((a, b) => ms(a.created_at) - ms(b.created_at));
      const trial = Number(s.trial_days) > 0;
      const billed = s.status !== 'pending' && s.status !== 'intended';
      expect(renewals).toHaveLength(billed ? Number(s.bill_count) - (trial ? 0 : 1) : 0);
      expect(parent.payment_status).toBe(billed ? 'paid' : 'pending');
      const interval = s.billing_interval as BillingInterval;
      const first = trial ? renewals[0]?.created_at : parent.created_at;
      renewals.forEach((renewal, i) => {
        expect(renewal).toMatchObject({ payment_status: 'paid', customer_id: s.customer_id, total_amount: s.recurring_amount });
        expect(renewal.created_at).toBe(addInterval(String(first), interval, trial ? i : i + 1));
        expect(JSON.parse(String(renewal.config))).toEqual({ subscription_id: s.id });
        expect(chargesOf.get(Number(renewal.id))).toEqual([expect.objectContaining({ subscription_id: s.id, status: 'succeeded', total: s.recurring_amount })]);
      });
      if (Number(parent.total_paid) > 0) expect(chargesOf.get(Number(parent.id))).toEqual([expect.objectContaining({ total: parent.total_paid })]);
      else expect(chargesOf.get(Number(parent.id))).toBeUndefined();
    }
  });

  it('dates fit the status: the next charge ahead while running, just missed when failing, the end past when ended', async () => {
    const now = app.clock.now().getTime();
    const customers = new Map(((await db()('store_customers').select('id', 'created_at')) as Row[]).map((c) => [Number(c.id), ms(c.created_at)]));
    for (const s of subscriptions) {
      expect(ms(s.created_at)).toBeGreaterThanOrEqual(customers.get(Number(s.customer_id))!);
      expect(ms(s.created_at)).toBeLessThanOrEqual(now);
      expect(ms(s.updated_at)).toBeLessThanOrEqual(now);
      const next = s.next_billing_date === null ? null : ms(s.next_billing_date);
      const grace = GRACE_PERIOD_DAYS[s.billing_interval as BillingInterval] * 86_400_000;
      switch (s.status) {
        case 'active':
        case 'expiring':
          expect(next).toBeGreaterThan(now);
          expect(Number(s.bill_count)).toBeGreaterThan(0);
          if (s.status === 'expiring') expect(s.expire_at).toBe(s.next_billing_date);
          break;
        case 'failing':
          expect(next).toBeLessThan(now);
          expect(next).toBeGreaterThan(now - grace);
          break;
        case 'trialing':
          expect(Number(s.bill_count)).toBe(0);
          expect(ms(s.trial_ends_at)).toBeGreaterThan(now);
          expect(s.next_billing_date).toBe(s.trial_ends_at);
          break;
        case 'pending':
        case 'intended':
          expect(Number(s.bill_count)).toBe(0);
          expect(next).toBeNull();
          break;
        case 'completed':
          expect(Number(s.bill_count)).toBe(Number(s.bill_times));
          expect(Number(s.bill_times)).toBeGreaterThan(0);
          break;
        case 'canceled':
          expect(ms(s.canceled_at)).toBeLessThanOrEqual(now);
          expect(next).toBeNull();
          break;
        case 'expired':
          expect(ms(s.expire_at)).toBeLessThan(now);
          break;
      }
      if (Number(s.bill_times) > 0) expect(Number(s.bill_count)).toBeLessThanOrEqual(Number(s.bill_times));
    }
  });

  it('gateway ids as Stripe and PayPal spell them: one subscription id each, plan and customer ids shared', () => {
    for (const s of subscriptions) {
      expect(s.collection_method).toBe('automatic');
      if (s.current_payment_method === 'stripe') {
        expect(s).toMatchObject({ vendor_subscription_id: expect.stringMatching(/^sub_[0-9a-f]{24}$/), vendor_customer_id: expect.stringMatching(/^cus_/) });
        expect(s.vendor_plan_id).toMatch(/^price_/);
      } else {
        expect(s.current_payment_method).toBe('paypal');
        expect(s).toMatchObject({ vendor_subscription_id: expect.stringMatching(/^I-[A-Z0-9]{12}$/), vendor_plan_id: expect.stringMatching(/^P-/) });
      }
    }
    expect(new Set(subscriptions.map((s) => s.vendor_subscription_id)).size).toBe(400);
    expect(new Set(subscriptions.map((s) => s.vendor_plan_id)).size).toBeLessThan(30);
    const chargeIds = charges.map((c) => `${c.payment_method}:${c.vendor_charge_id}`);
    expect(new Set(chargeIds).size).toBe(chargeIds.length);
  });

  it('paid orders get receipt numbers; the customers statistics count them', async () => {
    for (const o of orders) {
      if (Number(o.total_paid) > 0) expect(o.invoice_no).toBe(`INV-${o.receipt_number}`);
      else expect(o).toMatchObject({ receipt_number: null, invoice_no: '' });
    }
    const customer = (await db()('store_customers').orderBy('id').first()) as Row;
    const paid = (await db()('store_orders').where({ customer_id: customer.id }).where('total_paid', '>', 0)) as Row[];
    expect(Number(customer.purchase_count)).toBe(paid.length);
    expect(Number(customer.ltv)).toBe(paid.reduce((sum, o) => sum + Number(o.total_paid) - Number(o.total_refund), 0));
    expect(customer.last_purchase_date).toBe(
      paid
        .map((o) => String(o.created_at))
        .sort()
        .at(-1),
    );
  });

  it('GET /subscriptions lists them, and finds a customer’s by email', async () => {
    const admin = await app.createUser('admin', ['administrator']);
    const page = await app.as(admin).get(`${BASE}/subscriptions?per_page=10`).expect(200);
    expect(page.body.data).toMatchObject({ total: 400, per_page: 10 });
    const { email, id } = (await db()('store_customers').orderBy('id').first('email', 'id')) as { email: string; id: number };
    const found = await app
      .as(admin)
      .get(`${BASE}/subscriptions?search=${encodeURIComponent(email)}`)
      .expect(200);
    expect(found.body.data.data.map((s: { customer_id: number }) => s.customer_id)).toEqual([id, id]);
  });

  it('is deterministic: the same seed on a fresh store writes the same subscriptions (gateway ids and uuids aside)', async () => {
    const other = await startTestApp();
    try {
      const shape = async (target: TestApp) => {
        await seed(target, { scale: '30', seed: '7' });
        return target.database
          .db('store_subscriptions')
          .orderBy('id')
          .select('customer_id', 'status', 'item_name', 'billing_interval', 'bill_count', 'created_at', 'next_billing_date', 'canceled_at');
      };
      const fresh = await startTestApp();
      try {
        expect(await shape(other)).toEqual(await shape(fresh));
      } finally {
        await fresh.close();
      }
    } finally {
      await other.close();
    }
  });

  it('--customers-only writes no subscriptions', async () => {
    const before = await db()('store_subscriptions').count({ n: '*' }).first();
    await seed(app, { scale: '5', 'customers-only': true });
    expect(await db()('store_subscriptions').count({ n: '*' }).first()).toEqual(before);
  });
});
