import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/host/cli';
import { readConfig } from '../../src/host/config';
import { openDatabase } from '../../src/host/database';
import { rngFor } from '../../src/modules/demo/rng';
import { emailWord, generateCustomer, seedScaleCustomers } from '../../src/modules/demo/scale';
import { startTestApp, type TestApp } from '../support/app';

interface CustomerRow {
  id: number;
  email: string;
  uuid: string;
  status: string;
  country: string;
  created_at: string;
  ltv: number;
  purchase_count: number;
}

describe('npm run cli -- seed --scale N', () => {
  let app: TestApp;
  const seed = (flags: Record<string, string | boolean>) => app.host.commands.get('seed')!.run(flags);
  const count = async (table: string) => Number(((await app.database.db(table).count({ n: '*' }).first()) as { n: number | string }).n);

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('writes N customers with a primary billing and shipping address each, and says what it did', async () => {
    const output = await seed({ scale: '250' });
    expect(output[0]).toMatch(/^Scale seed \(seed 1\): 250 customers in \d+\.\d s, ids \d+–\d+\.$/);
    expect(output[1]).toMatch(/^ {2}customers: 250 store_customers, 500 store_customer_addresses in \d+\.\d s/);
    expect(output[2]).toMatch(/^ {2}orders: 2,500 store_orders, \d[\d,]* store_order_items, \d[\d,]* store_order_transactions in \d+\.\d s/);

    expect(await count('store_customers')).toBe(250);
    expect(await count('store_customer_addresses')).toBe(500);

    const customers = (await app.database.db('store_customers').select()) as CustomerRow[];
    const emails = customers.map((c) => c.email);
    expect(new Set(emails).size).toBe(250);
    for (const email of emails) expect(email).toMatch(/^[a-z0-9._]+@[a-z.]+$/);
    expect(new Set(customers.map((c) => c.uuid)).size).toBe(250);

    // Varied: several countries, some inactive, some with purchases.
    expect(new Set(customers.map((c) => c.country)).size).toBeGreaterThanOrEqual(5);
    const statuses = new Set(customers.map((c) => c.status));
    expect(statuses.has('active')).toBe(true);
    expect(statuses.has('inactive')).toBe(true);
    expect(customers.filter((c) => c.status === 'active').length).toBeGreaterThan(200);
    // Ten orders each, most of them paid: nearly everyone has bought something.
    const buyers = customers.filter((c) => Number(c.ltv) > 0);
    expect(buyers.length).toBeGreaterThan(200);
    for (const buyer of buyers) expect(Number(buyer.purchase_count)).toBeGreaterThan(0);

    // Sign-ups spread over the three years before now (the test clock), rising with the id.
    const now = app.clock.now().getTime();
    const times = [...customers].sort((a, b) => a.id - b.id).map((c) => new Date(`${c.created_at.replace(' ', 'T')}Z`).getTime());
    const year = 365 * 24 * 3600 * 1000;
    expect(Math.min(...times)).toBeGreaterThanOrEqual(now - 3 * year);
    expect(Math.min(...times)).toBeLessThan(now - 2.9 * year);
    expect(Math.max(...times)).toBeLessThanOrEqual(now);
    expect(Math.max(...times)).toBeGreaterThan(now - 0.1 * year);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('writes ten orders per customer (and the subscriptions part its own) with items and transactions that agree with the order totals', async () => {
    const db = app.database.db;
    expect(await count('store_order_items')).toBeGreaterThanOrEqual(2500);
    const orders = (await db('store_orders').select()) as Array<Record<string, string | number | null>>;
    const purchases = orders.filter((o) => o.type === 'payment');
    expect(purchases).toHaveLength(2500);
    const perCustomer = new Map<number, number>();
    for (const o of purchases) perCustomer.set(Number(o.customer_id), (perCustomer.get(Number(o.customer_id)) ?? 0) + 1);
    expect([...perCustomer.values()].every((n) => n === 10)).toBe(true);
    expect(new Set(orders.map((o) => o.payment_status))).toEqual(new Set(['paid', 'pending', 'failed', 'refunded', 'partially-refunded']));

    const sums = (await db('store_order_transactions')
      .groupBy('order_id', 'transaction_type')
      .select('order_id', 'transaction_type')
      .sum({ total: 'total' })) as Array<{ order_id: number; transaction_type: string; total: number | string }>;
    const ledger = new Map<string, number>(sums.map((s) => [`${s.order_id}:${s.transaction_type}`, Number(s.total)]));
    const items = (await db('store_order_items').groupBy('order_id').select('order_id').sum({ lines: 'line_total' })) as Array<{
      order_id: number;
      lines: number | string;
    }>;
    const lines = new Map(items.map((i) => [Number(i.order_id), Number(i.lines)]));
    for (const o of orders) {
      expect(ledger.get(`${o.id}:charge`) ?? 0).toBe(Number(o.total_paid));
      expect(ledger.get(`${o.id}:refund`) ?? 0).toBe(Number(o.total_refund));
      expect(Number(o.total_paid) - Number(o.total_refund)).toBeGreaterThanOrEqual(0);
      expect(lines.get(Number(o.id))! + Number(o.shipping_total)).toBe(Number(o.total_amount));
    }

    // Paid orders carry unique receipt numbers and `<prefix><number>` invoices; the counter ends at the highest.
    const paid = orders.filter((o) => Number(o.total_paid) > 0);
    const receipts = paid.map((o) => Number(o.receipt_number));
    expect(new Set(receipts).size).toBe(paid.length);
    for (const o of paid) expect(o.invoice_no).toBe(`INV-${o.receipt_number}`);
    const counter = (await db('store_counters').where({ name: 'receipt' }).first('value')) as { value: number | string };
    expect(Number(counter.value)).toBe(Math.max(...receipts));
    expect(orders.filter((o) => Number(o.total_paid) === 0).every((o) => o.receipt_number === null && o.invoice_no === '')).toBe(true);

    // The customers' statistics are those of their paid orders.
    const customer = (await db('store_customers').orderBy('id').first()) as CustomerRow & { aov: number };
    const own = paid.filter((o) => Number(o.customer_id) === customer.id);
    expect(Number(customer.purchase_count)).toBe(own.length);
    expect(Number(customer.ltv)).toBe(own.reduce((sum, o) => sum + Number(o.total_paid) - Number(o.total_refund), 0));
  });

  it('exactly one primary address per customer and type, matching its customer', async () => {
    const db = app.database.db;
    const primaries = (await db('store_customer_addresses')
      .where({ is_primary: 1 })
      .groupBy('customer_id', 'type')
      .select('customer_id', 'type')
      .count({ n: '*' })) as Array<{ customer_id: number; type: string; n: number | string }>;
    expect(primaries).toHaveLength(500);
    expect(primaries.every((p) => Number(p.n) === 1)).toBe(true);
    const slots = (await db('store_customer_addresses').select('type', 'primary_slot')) as Array<{ type: string; primary_slot: string }>;
    expect(slots.every((s) => s.primary_slot === s.type)).toBe(true);

    const orphans = await db('store_customer_addresses as a')
      .leftJoin('store_customers as c', 'c.id', 'a.customer_id')
      .whereNull('c.id')
      .count({ n: '*' })
      .first();
    expect(Number((orphans as { n: number }).n)).toBe(0);
    const mismatched = await db('store_customer_addresses as a')
      .join('store_customers as c', 'c.id', 'a.customer_id')
      .where((q) => q.whereRaw('a.email <> c.email').orWhereRaw("a.type = 'billing' and (a.country <> c.country or a.postcode <> c.postcode)"))
      .count({ n: '*' })
      .first();
    expect(Number((mismatched as { n: number }).n)).toBe(0);
  });

  it('runs again on the same store: numbering continues, nothing collides', async () => {
    const before = (await app.database.db('store_customers').max({ id: 'id' }).first()) as { id: number };
    const output = await seed({ scale: '250' });
    expect(output[0]).toMatch(/^Scale seed \(seed 1\): 250 customers/);
    expect(output[0]).not.toMatch(/skipped/);
    expect(await count('store_customers')).toBe(500);
    expect(await count('store_customer_addresses')).toBe(1000);
    const after = (await app.database.db('store_customers').min({ id: 'id' }).where('id', '>', before.id).first()) as { id: number };
    expect(after.id).toBeGreaterThan(before.id);
    const distinct = (await app.database.db('store_customers').countDistinct({ n: 'email' }).first()) as { n: number | string };
    expect(Number(distinct.n)).toBe(500);
  });

  it('skips a generated email that already exists and writes N all the same', async () => {
    // The seeder numbers on from the count of customers (501 once this one is in); take that number's email first.
    const next = generateCustomer(1, 501, new Date('2026-01-01T00:00:00Z'), app.clock.now(), 'USD');
    await app.database.db('store_customers').insert({
      ...next.customer,
      uuid: '00000000-0000-4000-8000-000000000001',
    });
    const output = await seed({ scale: '5' });
    expect(output[0]).toMatch(/^Scale seed \(seed 1\): 5 customers .*; 1 generated emails already existed and were skipped\.$/);
    expect(await count('store_customers')).toBe(506);
    expect(await count('store_customer_addresses')).toBe(1010);
  });

  it('is deterministic: the same seed and number give the same person (uuid aside)', () => {
    const at = new Date('2025-03-01T12:00:00Z');
    const now = new Date('2026-11-21T10:00:00Z');
    const strip = (g: ReturnType<typeof generateCustomer>) => ({ ...g, customer: { ...g.customer, uuid: null } });
    expect(strip(generateCustomer(7, 42, at, now, 'USD'))).toEqual(strip(generateCustomer(7, 42, at, now, 'USD')));
    expect(generateCustomer(7, 42, at, now, 'USD').customer.email).not.toBe(generateCustomer(8, 42, at, now, 'USD').customer.email);
    const a = rngFor(1, 'orders', 3);
    const b = rngFor(1, 'orders', 3);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
    expect(rngFor(1, 'customer', 3)()).not.toBe(rngFor(1, 'orders', 3)());
  });

  it('emails are lower-case ASCII made from the names', () => {
    expect(emailWord('Müller')).toBe('mueller');
    expect(emailWord('Åberg')).toBe('aberg');
    expect(emailWord('de Jong')).toBe('dejong');
    expect(emailWord('Élodie')).toBe('elodie');
    expect(emailWord('Groß')).toBe('gross');
  });

  it('--seed changes the people; a bad --scale is refused', async () => {
    await expect(seed({ scale: '0' })).rejects.toThrow('--scale must be a whole number from 1 to 10,000,000');
    await expect(seed({ scale: 'many' })).rejects.toThrow('--scale must be a whole number');
    await expect(seed({ scale: '5', seed: '-1' })).rejects.toThrow('--seed must be a whole number');
    const output = await seed({ scale: '3', seed: '99' });
    expect(output[0]).toMatch(/^Scale seed \(seed 99\): 3 customers/);
  });

  it('splits a run into insert batches (600 address rows in one statement) and hands back what it wrote', async () => {
    const before = await count('store_customers');
    const result = await seedScaleCustomers(app.ctx(), 700, 11, { batchSize: 300 });
    expect(result.customers).toHaveLength(700);
    expect(result.addresses).toBe(1400);
    expect(await count('store_customers')).toBe(before + 700);
    expect(result.customers.map((c) => c.index)).toEqual(Array.from({ length: 700 }, (_, i) => before + i));
    const sample = result.customers[650];
    const row = (await app.database.db('store_customers').where({ id: sample.id }).first()) as CustomerRow;
    expect(row.created_at).toBe(sample.created_at);
    expect(row.country).toBe(sample.country);
    const own = await app.database.db('store_customer_addresses').where({ customer_id: sample.id }).orderBy('type');
    expect(own.map((a: { type: string }) => a.type)).toEqual(['billing', 'shipping']);
  });

  it('--demo still works alone and together with --scale', async () => {
    const output = await seed({ demo: true, scale: '2' });
    expect(output[0]).toMatch(/^Demo store seeded: .*3 customers\.$/);
    expect(output[2]).toMatch(/^Scale seed \(seed 1\): 2 customers/);
    expect(await seed({})).toEqual(['Nothing to seed: pass --demo.']);
  });
});

describe('seed --scale through the CLI', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-scale-cli-'));
  const config = { ...readConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), logLevel: 'silent', secret: 'cli-secret' };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('parses --scale and --seed', async () => {
    const result = await runCli(['seed', '--scale', '20', '--seed', '3'], config);
    expect(result.code).toBe(0);
    expect(result.output[0]).toMatch(/^Scale seed \(seed 3\): 20 customers in \d+\.\d s, ids 1–20\.$/);
  });

  it('--customers-only writes the customers and their addresses, no orders', async () => {
    const result = await runCli(['seed', '--scale', '30', '--customers-only'], config);
    expect(result.code).toBe(0);
    expect(result.output[0]).toMatch(/^Scale seed \(seed 1\): 30 customers in \d+\.\d s, ids 21–50\.$/);
    expect(result.output[1]).toMatch(/^ {2}customers: 30 store_customers, 60 store_customer_addresses in /);
    expect(result.output).toHaveLength(2);
    const db = await openDatabase(config.databaseUrl);
    try {
      const orders = (await db('store_orders').whereBetween('customer_id', [21, 50]).count({ n: '*' }).first()) as { n: number | string };
      expect(Number(orders.n)).toBe(0);
      const earlier = (await db('store_orders').where('customer_id', '<=', 20).where('type', 'payment').count({ n: '*' }).first()) as { n: number | string };
      expect(Number(earlier.n)).toBe(200);
      const subscriptions = (await db('store_subscriptions').whereBetween('customer_id', [21, 50]).count({ n: '*' }).first()) as { n: number | string };
      expect(Number(subscriptions.n)).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it('an unknown flag gives the usage', async () => {
    const result = await runCli(['seed', '--scale', '2', '--fast'], config);
    expect(result.code).toBe(2);
    expect(result.output[1]).toBe('usage: npm run cli -- seed --demo | --scale N [--seed S] [--customers-only]');
  });
});
