import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertedId, insertMany } from '../../core/db';
import { mulDivRound, parseDecimalToCents } from '../../core/money';
import { fromTimestamp, toTimestamp } from '../../core/time';
import type { TaxRateShare } from '../orders/totals';
import { getStoreSettings } from '../settings/store-settings';
import { countryGroup } from '../tax-rates/regions';
import { paidTaxRecords, reversalTaxRecords } from '../taxes/record-rows';
import type { NewTaxRecord, TaxRecord, TaxRecordMeta } from '../taxes/types';
import type { SeededCustomer } from './scale';

/**
 * The tax part of `seed --scale N`: the one-time orders (`scale-orders.ts`) are priced tax-inclusive at their
 * customer's country's standard rate below; this part adds those rates to the store (once) and writes the order tax
 * records the filing list shows: one per paid order, built as paying writes them (`paidTaxRecords`), plus one
 * reversing record per refunded order (`reversalTaxRecords`, as a settled refund writes it). A record is filed 20
 * days after its calendar quarter ended, when that date has passed (most of three years of history; the last
 * quarter or two stay unfiled). Written in bulk: the records of 500 customers' orders per batch, several batches
 * per transaction.
 */

/** Each seeded country's standard rate (percent, four decimals, as `store_tax_rates.rate`) and its name. */
export const SCALE_TAX_RATES: Record<string, { rate: string; name: string }> = {
  US: { rate: '7.2500', name: 'Sales Tax' },
  CA: { rate: '5.0000', name: 'GST' },
  GB: { rate: '20.0000', name: 'VAT' },
  DE: { rate: '19.0000', name: 'MwSt' },
  FR: { rate: '20.0000', name: 'TVA' },
  AU: { rate: '10.0000', name: 'GST' },
  NL: { rate: '21.0000', name: 'BTW' },
  ES: { rate: '21.0000', name: 'IVA' },
  IT: { rate: '22.0000', name: 'IVA' },
  SE: { rate: '25.0000', name: 'Moms' },
};

/** A rate in millionths (`'7.2500'` → 72,500): the tax an inclusive price holds is `price × r / (1,000,000 + r)`. */
const millionths = (rate: string): number => parseDecimalToCents(rate, 4) ?? 0;

/** The tax contained in `amount` (cents) at `country`'s seeded rate, rounded half up; 0 for a country without one. */
export function inclusiveScaleTax(amount: number, country: string): number {
  const rate = Object.hasOwn(SCALE_TAX_RATES, country) ? millionths(SCALE_TAX_RATES[country].rate) : 0;
  return rate ? mulDivRound(amount, rate, 1_000_000 + rate) : 0;
}

const CUSTOMERS_PER_BATCH = 500;
const BATCHES_PER_TRANSACTION = 4;
const ROWS_PER_INSERT = 1000;
const FILING_DELAY_DAYS = 20;

/** When a record of `createdAt` was filed: 20 days after its quarter ended, or null while that is still ahead. */
export function scaleFiledAt(createdAt: string, now: Date): string | null {
  const at = fromTimestamp(createdAt);
  const quarterEnd = Date.UTC(at.getUTCFullYear(), Math.floor(at.getUTCMonth() / 3) * 3 + 3, 1);
  const filed = new Date(quarterEnd + FILING_DELAY_DAYS * 86_400_000 + 9 * 3_600_000);
  return filed <= now ? toTimestamp(filed) : null;
}

type SeededRates = Map<string, { id: number; rate: string; name: string }>;

/** The seeded countries' rates, added to the store unless the country has a rate of that name already. */
async function ensureRates(db: Knex, now: string): Promise<{ rates: SeededRates; added: number }> {
  const rates: SeededRates = new Map();
  let added = 0;
  for (const [country, { rate, name }] of Object.entries(SCALE_TAX_RATES)) {
    const where = { country, state: '', postcode: '', city: '', name };
    const existing = (await db('store_tax_rates').where(where).orderBy('id').first('id', 'rate')) as { id: number; rate: string } | undefined;
    if (existing) {
      rates.set(country, { id: Number(existing.id), rate: String(existing.rate), name });
      continue;
    }
    const id = insertedId(
      await db('store_tax_rates').insert({ ...where, rate, group: countryGroup(country) ?? '', priority: 1, created_at: now, updated_at: now }),
    );
    rates.set(country, { id, rate, name });
    added += 1;
  }
  return { rates, added };
}

interface PaidOrder {
  id: number;
  customer_id: number;
  tax_total: number;
  shipping_tax: number;
  total_paid: number;
  total_refund: number;
  created_at: string;
  refunded_at: string | null;
}

async function insertRecords(trx: Knex.Transaction, rows: NewTaxRecord[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insertMany(trx, 'store_order_tax_rates', rows.slice(i, i + ROWS_PER_INSERT));
}

/** The records of one batch of customers' paid, taxed one-time orders; returns how many it wrote. */
async function writeBatch(trx: Knex.Transaction, batch: SeededCustomer[], rates: SeededRates, vatNumber: string, now: Date): Promise<number> {
  const countryOf = new Map(batch.map((c) => [c.id, c.country]));
  const orders = (
    (await trx('store_orders')
      .whereIn(
        'customer_id',
        batch.map((c) => c.id),
      )
      .where({ type: 'payment', tax_behavior: 2 })
      .where('total_paid', '>', 0)
      .orderBy('id')
      .select('id', 'customer_id', 'tax_total', 'shipping_tax', 'total_paid', 'total_refund', 'created_at', 'refunded_at')) as Array<Record<string, unknown>>
  ).map((o): PaidOrder => ({
    id: Number(o.id),
    customer_id: Number(o.customer_id),
    tax_total: Number(o.tax_total),
    shipping_tax: Number(o.shipping_tax),
    total_paid: Number(o.total_paid),
    total_refund: Number(o.total_refund),
    created_at: String(o.created_at),
    refunded_at: (o.refunded_at as string | null) ?? null,
  }));
  const originals = orders.flatMap((order) => {
    const country = countryOf.get(order.customer_id)!;
    const rate = rates.get(country);
    if (!rate) return [];
    const share: TaxRateShare = {
      tax_rate_id: rate.id,
      name: rate.name,
      rate: rate.rate,
      country,
      state: '',
      is_compound: 0,
      order_tax: order.tax_total,
      shipping_tax: order.shipping_tax,
    };
    return paidTaxRecords(order.id, { rates: [share], tax_country: country }, vatNumber, order.created_at).map((record) => ({
      ...record,
      filed_at: scaleFiledAt(order.created_at, now),
    }));
  });
  await insertRecords(trx, originals);

  const refunded = orders.filter((o) => o.total_refund > 0 && o.refunded_at);
  if (!refunded.length) return originals.length;
  const ids = refunded.map((o) => o.id);
  const written = (await trx('store_order_tax_rates').whereIn('order_id', ids).select('id', 'order_id')) as Array<{ id: number; order_id: number }>;
  const recordOf = new Map(written.map((r) => [Number(r.order_id), Number(r.id)]));
  const refunds = (await trx('store_order_transactions').whereIn('order_id', ids).where('transaction_type', 'refund').select('id', 'order_id')) as Array<{
    id: number;
    order_id: number;
  }>;
  const refundOf = new Map(refunds.map((r) => [Number(r.order_id), Number(r.id)]));
  const originalOf = new Map(originals.map((r) => [r.order_id, r]));
  const reversals = refunded.flatMap((order) => {
    const original = originalOf.get(order.id);
    const id = recordOf.get(order.id);
    if (!original || id === undefined) return [];
    const record: TaxRecord = { ...original, id, meta: JSON.parse(original.meta) as TaxRecordMeta };
    const at = order.refunded_at!;
    return reversalTaxRecords([record], { paid: order.total_paid, refunded: order.total_refund }, refundOf.get(order.id) ?? 0, at).map((r) => ({
      ...r,
      filed_at: scaleFiledAt(at, now),
    }));
  });
  await insertRecords(trx, reversals);
  return originals.length + reversals.length;
}

/** Writes the seeded countries' rates and the tax records of the customers' paid one-time orders; returns row counts. */
export async function seedScaleTaxes(
  ctx: Ctx,
  customers: SeededCustomer[],
  options: { progress?: (line: string) => void } = {},
): Promise<Record<string, number>> {
  const db = ctx.db;
  const now = ctx.clock.now();
  const { store_vat_number } = await getStoreSettings(ctx.host);
  const { rates, added } = await ensureRates(db, toTimestamp(now));
  let records = 0;
  let done = 0;
  let nextReport = 100_000;
  while (done < customers.length) {
    await db.transaction(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && done < customers.length; b++) {
        const batch = customers.slice(done, done + CUSTOMERS_PER_BATCH);
        records += await writeBatch(trx, batch, rates, store_vat_number, now);
        done += batch.length;
      }
    });
    if (options.progress && records >= nextReport && done < customers.length) {
      options.progress(`${records.toLocaleString('en-US')} tax records …`);
      nextReport = (Math.floor(records / 100_000) + 1) * 100_000;
    }
  }
  return { store_tax_rates: added, store_order_tax_rates: records };
}
