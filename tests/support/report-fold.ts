import type { Knex } from 'knex';
import { completionBand, itemBand, valueBand } from '../../src/modules/reports/bands';
import {
  FAMILIES,
  REPORT_PAYMENT_STATUSES,
  type AggregateQuery,
  type AggregateRow,
  type FamilyName,
  type Interval,
  type ReportFilters,
} from '../../src/modules/reports/types';

/**
 * The reports' expected figures, computed the plain way: the counted orders read straight from `store_orders`,
 * `store_order_items` and `store_order_addresses` (never from the report facts or summaries), filtered like
 * `ReportFilters`, put in buckets by comparing `created_at` with the bucket boundaries, and summed in memory.
 */

export interface FoldLine {
  product_id: number;
  variation_id: number;
  quantity: number;
  revenue: number;
}

/** A counted order with what the reports read of it. Money in cents. */
export interface FoldOrder {
  id: number;
  created_at: string;
  mode: string;
  currency: string;
  status: string;
  type: string;
  payment_status: string;
  payment_method: string;
  billing_country: string;
  shipping_country: string;
  customer_id: number | null;
  first_order: 0 | 1;
  gross: number;
  refund: number;
  tax: number;
  shipping_tax: number;
  shipping_total: number;
  items: number;
  completion_seconds: number | null;
  value_band: number;
  item_band: number;
  completion_band: number;
  /** Per product and variation, quantities and line totals summed. */
  lines: FoldLine[];
}

type Raw = Record<string, unknown>;

const seconds = (timestamp: string) => Date.parse(`${timestamp.replace(' ', 'T')}Z`) / 1000;

/** Every order the reports count (payment status in the report set), in id order. */
export async function loadCountedOrders(db: Knex): Promise<FoldOrder[]> {
  const orders = (await db('store_orders')
    .whereIn('payment_status', [...REPORT_PAYMENT_STATUSES])
    .orderBy('id')) as Raw[];
  const ids = new Set(orders.map((order) => Number(order.id)));
  const items = ((await db('store_order_items').select('order_id', 'post_id', 'variation_id', 'quantity', 'line_total')) as Raw[]).filter((item) =>
    ids.has(Number(item.order_id)),
  );
  const addresses = ((await db('store_order_addresses').select('order_id', 'type', 'country')) as Raw[]).filter((address) => ids.has(Number(address.order_id)));

  const country = new Map(addresses.map((address) => [`${address.order_id}:${address.type}`, String(address.country ?? '')]));
  const lines = new Map<number, Map<string, FoldLine>>();
  for (const item of items) {
    const orderId = Number(item.order_id);
    const productId = Number(item.post_id ?? 0);
    const variationId = Number(item.variation_id ?? 0);
    const perOrder = lines.get(orderId) ?? new Map<string, FoldLine>();
    lines.set(orderId, perOrder);
    const line = perOrder.get(`${productId}:${variationId}`) ?? { product_id: productId, variation_id: variationId, quantity: 0, revenue: 0 };
    perOrder.set(`${productId}:${variationId}`, line);
    line.quantity += Number(item.quantity ?? 0);
    line.revenue += Number(item.line_total ?? 0);
  }

  // First order: the customer's earliest counted order by created_at, then id.
  const earliest = new Map<number, Raw>();
  for (const order of orders) {
    if (order.customer_id === null) continue;
    const customer = Number(order.customer_id);
    const known = earliest.get(customer);
    if (!known || String(order.created_at) < String(known.created_at)) earliest.set(customer, order);
  }

  return orders.map((order) => {
    const id = Number(order.id);
    const orderLines = [...(lines.get(id)?.values() ?? [])];
    const items = orderLines.reduce((sum, line) => sum + line.quantity, 0);
    const gross = Number(order.total_paid);
    const completed = order.status === 'completed' && order.completed_at;
    const completion = completed ? seconds(String(order.completed_at)) - seconds(String(order.created_at)) : null;
    const customer = order.customer_id === null ? null : Number(order.customer_id);
    return {
      id,
      created_at: String(order.created_at),
      mode: String(order.mode),
      currency: String(order.currency),
      status: String(order.status),
      type: String(order.type),
      payment_status: String(order.payment_status),
      payment_method: String(order.payment_method),
      billing_country: country.get(`${id}:billing`) ?? '',
      shipping_country: country.get(`${id}:shipping`) ?? '',
      customer_id: customer,
      first_order: customer === null || Number(earliest.get(customer)?.id) === id ? 1 : 0,
      gross,
      refund: Number(order.total_refund),
      tax: Number(order.tax_total),
      shipping_tax: Number(order.shipping_tax),
      shipping_total: Number(order.shipping_total),
      items,
      completion_seconds: completion,
      value_band: valueBand(gross, String(order.currency)),
      item_band: itemBand(items),
      completion_band: completionBand(completion),
      lines: orderLines,
    };
  });
}

/** Whether an order passes the report filters. */
export function matches(order: FoldOrder, filters: ReportFilters): boolean {
  return (
    order.mode === filters.mode &&
    order.currency === filters.currency &&
    !filters.excludeStatuses.includes(order.status) &&
    filters.types.includes(order.type) &&
    filters.paymentStatuses.includes(order.payment_status) &&
    (!filters.variationIds.length || order.lines.some((line) => filters.variationIds.includes(line.variation_id)))
  );
}

/** The index of the bucket `[from, to)` holding the order's `created_at`, or -1. */
export function bucketOf(order: FoldOrder, buckets: Interval[]): number {
  return buckets.findIndex((bucket) => bucket.from <= order.created_at && order.created_at < bucket.to);
}

/** The orders of each bucket that pass the filters. */
export function ordersByBucket(orders: FoldOrder[], filters: ReportFilters, buckets: Interval[]): FoldOrder[][] {
  const out = buckets.map((): FoldOrder[] => []);
  for (const order of orders) {
    if (!matches(order, filters)) continue;
    const bucket = bucketOf(order, buckets);
    if (bucket >= 0) out[bucket].push(order);
  }
  return out;
}

/** The sales metrics of some orders (`refunded_orders`: those with a refund). */
export function salesTotals(
  orders: FoldOrder[],
): Record<'orders' | 'refunded_orders' | 'gross' | 'refund' | 'tax' | 'shipping_tax' | 'shipping_total' | 'items', number> {
  const totals = { orders: 0, refunded_orders: 0, gross: 0, refund: 0, tax: 0, shipping_tax: 0, shipping_total: 0, items: 0 };
  for (const order of orders) {
    totals.orders += 1;
    totals.refunded_orders += order.refund > 0 ? 1 : 0;
    totals.gross += order.gross;
    totals.refund += order.refund;
    totals.tax += order.tax;
    totals.shipping_tax += order.shipping_tax;
    totals.shipping_total += order.shipping_total;
    totals.items += order.items;
  }
  return totals;
}

/** Net revenue of some orders, summed order by order from the raw columns. */
export function netOf(orders: FoldOrder[]): number {
  return orders.reduce((sum, order) => sum + order.gross - order.refund - order.tax - order.shipping_tax, 0);
}

/** The (dimension values, metrics) one order contributes to a family: one entry, or one per line for `items`. */
function contributions(family: FamilyName, order: FoldOrder): Array<{ values: Record<string, string | number>; metrics: Record<string, number> }> {
  const values: Record<string, string | number> = {
    status: order.status,
    type: order.type,
    payment_status: order.payment_status,
    first_order: order.first_order,
    payment_method: order.payment_method,
    billing_country: order.billing_country,
    shipping_country: order.shipping_country,
    value_band: order.value_band,
    item_band: order.item_band,
    completion_band: order.completion_band,
  };
  if (family === 'items') {
    return order.lines.map((line) => ({
      values: { ...values, product_id: line.product_id, variation_id: line.variation_id },
      metrics: { orders: 1, quantity: line.quantity, revenue: line.revenue },
    }));
  }
  if (family === 'bands') {
    const completed = order.completion_seconds !== null;
    return [
      {
        values,
        metrics: { orders: 1, completed_orders: completed ? 1 : 0, gross: order.gross, items: order.items, completion_seconds: order.completion_seconds ?? 0 },
      },
    ];
  }
  return [{ values, metrics: salesTotals([order]) }];
}

/** What `aggregate(query)` must answer, folded from the orders: rows sorted by bucket, then by their dimension values. */
export function foldAggregate<F extends FamilyName>(orders: FoldOrder[], query: AggregateQuery<F>): AggregateRow<F>[] {
  const metricNames = FAMILIES[query.family].metrics as readonly string[];
  const dims = [...new Set(query.groupBy ?? [])] as string[];
  const rows = new Map<string, AggregateRow<F>>();
  ordersByBucket(orders, query.filters, query.buckets).forEach((bucketOrders, bucket) => {
    for (const order of bucketOrders) {
      for (const { values, metrics } of contributions(query.family, order)) {
        const picked = Object.fromEntries(dims.map((dimension) => [dimension, values[dimension]]));
        const key = JSON.stringify([bucket, dims.map((dimension) => values[dimension])]);
        const row = rows.get(key) ?? ({ bucket, dims: picked, metrics: Object.fromEntries(metricNames.map((name) => [name, 0])) } as AggregateRow<F>);
        rows.set(key, row);
        const sums = row.metrics as Record<string, number>;
        for (const name of metricNames) sums[name] += metrics[name];
      }
    }
  });
  return sortRows([...rows.values()]);
}

/** Rows in a canonical order (bucket, then dimension values), to compare an engine answer with a fold. */
export function sortRows<R extends { bucket: number; dims: object }>(rows: R[]): R[] {
  const key = (row: R) => JSON.stringify(Object.entries(row.dims).sort(([a], [b]) => a.localeCompare(b)));
  return [...rows].sort((a, b) => a.bucket - b.bucket || key(a).localeCompare(key(b)));
}
