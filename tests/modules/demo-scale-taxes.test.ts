import { mulDivRound } from '../../src/core/money';
import { SCALE_TAX_RATES } from '../../src/modules/demo/scale-taxes';
import { BASE, startTestApp, type TestApp } from '../support/app';

type Row = Record<string, string | number | null>;

describe('seed --scale N: the tax part', () => {
  let app: TestApp;
  let output: string[];
  let orders: Row[];
  let records: Array<Row & { meta: Record<string, unknown> }>;
  const db = () => app.database.db;
  const seed = (flags: Record<string, string | boolean>) => app.host.commands.get('seed')!.run(flags);

  beforeAll(async () => {
    app = await startTestApp();
    output = await seed({ scale: '200' });
    orders = (await db()('store_orders as o')
      .join('store_customers as c', 'c.id', 'o.customer_id')
      .where('o.type', 'payment')
      .orderBy('o.id')
      .select('o.*', 'c.country as customer_country')) as Row[];
    records = ((await db()('store_order_tax_rates').orderBy('id')) as Row[]).map((r) => ({ ...r, meta: JSON.parse(String(r.meta)) }));
  });
  afterAll(() => app.close());

  const rateIds = async () =>
    new Map(((await db()('store_tax_rates').select('id', 'country')) as Row[]).map((r) => [String(r.country), Number(r.id)] as [string, number]));

  it('adds a standard rate per seeded country and says what it wrote', async () => {
    expect(output[4]).toMatch(/^ {2}taxes: 10 store_tax_rates, [\d,]+ store_order_tax_rates in \d+\.\d s \([\d,]+ rows\/s\)$/);
    const [written] = /([\d,]+) store_order_tax_rates/.exec(output[4])!.slice(1);
    expect(records).toHaveLength(Number(written.replace(/,/g, '')));
    const rates = (await db()('store_tax_rates').orderBy('country').select('country', 'rate', 'name', 'group', 'priority')) as Row[];
    expect(rates.map((r) => [r.country, r.rate, r.name])).toEqual(
      Object.entries(SCALE_TAX_RATES)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([country, { rate, name }]) => [country, rate, name]),
    );
    expect(Object.fromEntries(rates.map((r) => [r.country, r.group]))).toMatchObject({ US: 'NA', CA: 'NA', DE: 'EU', GB: 'EUR', AU: 'OC' });
  });

  it('prices the one-time orders tax-inclusive at the country rate: lines, order and shipping tax agree', async () => {
    const lines = (await db()('store_order_items').groupBy('order_id').select('order_id').sum({ tax: 'tax_amount' })) as Array<{
      order_id: number;
      tax: number;
    }>;
    const lineTax = new Map(lines.map((l) => [Number(l.order_id), Number(l.tax)]));
    for (const o of orders) {
      const rate = Number(SCALE_TAX_RATES[String(o.customer_country)].rate.replace('.', '')); // millionths
      expect([o.id, Number(o.tax_behavior), Number(o.tax_total)]).toEqual([o.id, 2, lineTax.get(Number(o.id))]);
      expect([o.id, Number(o.shipping_tax)]).toEqual([o.id, mulDivRound(Number(o.shipping_total), rate, 1_000_000 + rate)]);
      // The tax a price holds is about r / (100 + r) of it.
      const taxable = Number(o.total_amount) - Number(o.shipping_total);
      expect(Math.abs(Number(o.tax_total) - (taxable * rate) / (1_000_000 + rate))).toBeLessThanOrEqual(3);
    }
  });

  it('writes one record per paid order as paying does, and one reversal per refunded order as a refund does', async () => {
    const rates = await rateIds();
    const paid = orders.filter((o) => Number(o.total_paid) > 0);
    const originals = records.filter((r) => r.meta.reverses === undefined);
    expect(originals.map((r) => Number(r.order_id))).toEqual(paid.map((o) => Number(o.id)));
    const refunds = new Map(
      ((await db()('store_order_transactions').where('transaction_type', 'refund').select('id', 'order_id')) as Row[]).map((t) => [
        Number(t.order_id),
        Number(t.id),
      ]),
    );
    for (const [i, o] of paid.entries()) {
      const record = originals[i];
      const country = String(o.customer_country);
      expect(record).toMatchObject({ created_at: o.created_at });
      expect([Number(record.order_tax), Number(record.shipping_tax), Number(record.total_tax), Number(record.tax_rate_id)]).toEqual([
        Number(o.tax_total),
        Number(o.shipping_tax),
        Number(o.tax_total) + Number(o.shipping_tax),
        rates.get(country),
      ]);
      expect(record.meta).toEqual({
        rates: [
          {
            tax_rate_id: rates.get(country),
            name: SCALE_TAX_RATES[country].name,
            rate: SCALE_TAX_RATES[country].rate,
            country,
            state: '',
            is_compound: 0,
            order_tax: Number(o.tax_total),
            shipping_tax: Number(o.shipping_tax),
          },
        ],
        tax_country: country,
        store_vat_number: '',
      });
      const reversals = records.filter((r) => r.meta.reverses === Number(record.id));
      if (Number(o.total_refund) === 0) {
        expect(reversals).toEqual([]);
        continue;
      }
      const expected = (amount: number) => 0 - mulDivRound(amount, Number(o.total_refund), Number(o.total_paid));
      const moved = expected(Number(o.tax_total)) !== 0 || expected(Number(o.shipping_tax)) !== 0;
      expect(reversals).toHaveLength(moved ? 1 : 0);
      if (!moved) continue;
      expect([Number(reversals[0].order_tax), Number(reversals[0].shipping_tax), reversals[0].meta.refund_transaction_id, reversals[0].created_at]).toEqual([
        expected(Number(o.tax_total)),
        expected(Number(o.shipping_tax)),
        refunds.get(Number(o.id)),
        o.refunded_at,
      ]);
      if (o.payment_status === 'refunded') expect(Number(record.total_tax) + Number(reversals[0].total_tax)).toBe(0);
    }
    expect(records.some((r) => r.meta.reverses !== undefined)).toBe(true);
  });

  it('files a record 20 days after its quarter ended, once that has passed; the newest stay unfiled', () => {
    // The test clock is 2026-11-21: the third quarter of 2026 was filed on 2026-10-21, the fourth is open.
    for (const r of records) {
      const created = String(r.created_at);
      const filed = created < '2026-07-01' ? `${quarterFiling(created)} 09:00:00` : created < '2026-10-01' ? '2026-10-21 09:00:00' : null;
      expect([r.id, r.filed_at]).toEqual([r.id, filed]);
    }
    expect(records.filter((r) => r.filed_at === null).length).toBeGreaterThan(0);
    expect(records.filter((r) => r.filed_at !== null).length).toBeGreaterThan(records.length / 2);
  });

  it('the filing list shows them', async () => {
    const admin = await app.createUser('scale-tax-admin', ['administrator']);
    const res = await app.as(admin).get(`${BASE}/taxes?active_view=not_filed`);
    expect(res.status).toBe(200);
    expect(res.body.taxes.total).toBe(records.filter((r) => r.filed_at === null).length);
  });

  it('a second run adds records for its own orders and no second set of rates', async () => {
    const before = (await rateIds()).size;
    const again = await seed({ scale: '20' });
    expect(again[4]).toMatch(/^ {2}taxes: 0 store_tax_rates, [\d,]+ store_order_tax_rates/);
    expect(Number((await db()('store_tax_rates').count({ n: '*' }).first())!.n)).toBe(before);
    const duplicates = (await db()('store_order_tax_rates')
      .whereRaw("meta not like '%reverses%'")
      .groupBy('order_id')
      .havingRaw('count(*) > 1')
      .select('order_id')) as Row[];
    expect(duplicates).toEqual([]);
  });
});

/** `YYYY-MM-21` of the month after the quarter of `created` ended. */
function quarterFiling(created: string): string {
  const year = Number(created.slice(0, 4));
  const month = Number(created.slice(5, 7));
  const next = Math.floor((month - 1) / 3) * 3 + 4;
  return next > 12 ? `${year + 1}-01-21` : `${year}-${String(next).padStart(2, '0')}-21`;
}
