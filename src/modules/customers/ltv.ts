import type { Knex } from 'knex';
import { mulDivRound } from '../../core/money';
import { PURCHASE_PAYMENT_STATUSES } from '../order-records/purchases';
import { presentCustomer, type CustomerRow } from './presenter';
import type { CustomerRecord } from './types';

export interface CustomerStats {
  /** Cents: Σ (total_paid − total_refund) of the purchases. */
  ltv: number;
  purchase_count: number;
  /** Cents per currency, e.g. `{USD: 12000, EUR: 3000}`. */
  purchase_value: Record<string, number>;
  /** ltv / purchase_count in cents, rounded half up; 0 without purchases. */
  aov: number;
  first_purchase_date: string | null;
  last_purchase_date: string | null;
}

interface Bucket {
  currency: string;
  orders: number | string;
  paid: number | string | null;
  refunded: number | string | null;
  first: string | null;
  last: string | null;
}

/**
 * The purchase statistics of a customer from its orders: a purchase is an order whose payment status is paid,
 * partially paid, partially refunded or refunded; its value is what was paid minus what was refunded. Dates are the
 * orders' `created_at`. Pure reads, so it is safe inside any transaction.
 */
export async function computeCustomerStats(db: Knex | Knex.Transaction, customerId: number): Promise<CustomerStats> {
  const buckets = (await db('store_orders')
    .where('customer_id', customerId)
    .whereIn('payment_status', [...PURCHASE_PAYMENT_STATUSES])
    .groupBy('currency')
    .select('currency')
    .count({ orders: '*' })
    .sum({ paid: 'total_paid', refunded: 'total_refund' })
    .min({ first: 'created_at' })
    .max({ last: 'created_at' })) as Bucket[];
  const purchase_value: Record<string, number> = {};
  let ltv = 0;
  let count = 0;
  let first: string | null = null;
  let last: string | null = null;
  for (const b of buckets) {
    const value = Number(b.paid ?? 0) - Number(b.refunded ?? 0);
    purchase_value[b.currency] = value;
    ltv += value;
    count += Number(b.orders);
    if (b.first && (!first || b.first < first)) first = b.first;
    if (b.last && (!last || b.last > last)) last = b.last;
  }
  return {
    ltv,
    purchase_count: count,
    purchase_value,
    aov: count ? mulDivRound(ltv, 1, count) : 0,
    first_purchase_date: first,
    last_purchase_date: last,
  };
}

/**
 * Recomputes and stores a customer's `ltv`, `purchase_count`, `purchase_value`, `aov` and first/last purchase dates
 * (the orders module calls this when an order is paid or refunded). Returns the updated record, or null when there
 * is no such customer. `updated_at` is left alone: the statistics are derived from the orders.
 */
export async function recalculateCustomerStats(trx: Knex | Knex.Transaction, customerId: number): Promise<CustomerRecord | null> {
  const stats = await computeCustomerStats(trx, customerId);
  const updated = await trx('store_customers')
    .where({ id: customerId })
    .update({ ...stats, purchase_value: JSON.stringify(stats.purchase_value) });
  if (!updated) return null;
  const row = (await trx('store_customers').where({ id: customerId }).first()) as CustomerRow;
  return presentCustomer(row);
}
