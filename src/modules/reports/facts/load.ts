import type { Knex } from 'knex';
import { lockForUpdate } from '../../../core/db';
import { fromTimestamp } from '../../../core/time';
import { completionBand, itemBand, valueBand } from '../bands';
import { variantTitle } from '../store/titles';
import { REPORT_PAYMENT_STATUSES, type ReportFact, type ReportLine } from '../types';

/**
 * The report facts of orders, computed from `store_orders`, `store_order_items` and `store_order_addresses`: a few
 * queries per call whatever the number of orders (ids go in chunks), so the rebuild reads 5,000 orders at a time.
 */

type Db = Knex | Knex.Transaction;
type Row = Record<string, unknown>;

export interface LoadFactsOptions {
  /** Inside a sync (MySQL): read the orders with `FOR UPDATE`, so their facts follow the latest committed rows. */
  lock?: boolean;
  /**
   * Each customer's first counted order, instead of reading it: the rebuild reads it once for every customer; the
   * sync passes an empty map and sets the flags itself (`sync/first-orders.ts`).
   */
  firstOrders?: Map<number, number>;
}

/** Ids per `IN (...)` list: far below SQLite's 32,766 bound values and MySQL's 65,535. */
const CHUNK = 5_000;
const TITLE_LENGTH = 255;
const COUNTED = [...REPORT_PAYMENT_STATUSES];

export function chunks<T>(values: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

const seconds = (timestamp: string) => fromTimestamp(timestamp).getTime() / 1000;

async function inChunks(ids: number[], read: (chunk: number[]) => Promise<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for (const chunk of chunks(ids)) rows.push(...(await read(chunk)));
  return rows;
}

/**
 * Each customer's first counted order: the earliest by `created_at`, then by id. `customerIds` null means every
 * customer (one grouped query, for the rebuild).
 */
export async function firstOrderIds(db: Db, customerIds: number[] | null): Promise<Map<number, number>> {
  const first = new Map<number, number>();
  if (customerIds === null) {
    const earliest = db('store_orders')
      .whereIn('payment_status', COUNTED)
      .whereNotNull('customer_id')
      .groupBy('customer_id')
      .select('customer_id', db.raw('min(created_at) as first_at'))
      .as('f');
    const rows = (await db('store_orders as o')
      .join(earliest, function () {
        this.on('f.customer_id', '=', 'o.customer_id').andOn('f.first_at', '=', 'o.created_at');
      })
      .whereIn('o.payment_status', COUNTED)
      .groupBy('o.customer_id')
      .select('o.customer_id', db.raw('min(o.id) as id'))) as Row[];
    for (const row of rows) first.set(Number(row.customer_id), Number(row.id));
    return first;
  }
  const rows = await inChunks(
    [...new Set(customerIds)].sort((a, b) => a - b),
    (chunk) => db('store_orders').whereIn('customer_id', chunk).whereIn('payment_status', COUNTED).select('customer_id', 'id', 'created_at') as Promise<Row[]>,
  );
  const earliest = new Map<number, { id: number; at: string }>();
  for (const row of rows) {
    const customer = Number(row.customer_id);
    const id = Number(row.id);
    const at = String(row.created_at);
    const known = earliest.get(customer);
    if (!known || at < known.at || (at === known.at && id < known.id)) earliest.set(customer, { id, at });
  }
  for (const [customer, { id }] of earliest) first.set(customer, id);
  return first;
}

function toLines(items: Row[]): Map<number, ReportLine[]> {
  const byOrder = new Map<number, Map<string, ReportLine>>();
  for (const item of items) {
    const orderId = Number(item.order_id);
    const productId = Number(item.post_id ?? 0);
    const variationId = Number(item.variation_id ?? 0);
    const key = `${productId}:${variationId}`;
    let lines = byOrder.get(orderId);
    if (!lines) byOrder.set(orderId, (lines = new Map()));
    let line = lines.get(key);
    if (!line) {
      const title = variantTitle(String(item.post_title ?? ''), String(item.title ?? '')).slice(0, TITLE_LENGTH);
      lines.set(key, (line = { order_id: orderId, product_id: productId, variation_id: variationId, title, quantity: 0, revenue: 0 }));
    }
    line.quantity += Number(item.quantity ?? 0);
    line.revenue += Number(item.line_total ?? 0);
  }
  return new Map([...byOrder].map(([orderId, lines]) => [orderId, [...lines.values()]]));
}

function toFact(order: Row, lines: ReportLine[], countries: Map<string, string>, firstOrders: Map<number, number>): ReportFact {
  const id = Number(order.id);
  const createdAt = String(order.created_at);
  const customer = order.customer_id === null || order.customer_id === undefined ? null : Number(order.customer_id);
  const gross = Number(order.total_paid);
  const currency = String(order.currency);
  const items = lines.reduce((sum, line) => sum + line.quantity, 0);
  const completion = order.status === 'completed' && order.completed_at ? seconds(String(order.completed_at)) - seconds(createdAt) : null;
  return {
    order_id: id,
    created_at: createdAt,
    mode: String(order.mode),
    currency,
    status: String(order.status),
    type: String(order.type),
    payment_status: String(order.payment_status),
    payment_method: String(order.payment_method ?? ''),
    billing_country: countries.get(`${id}:billing`) ?? '',
    shipping_country: countries.get(`${id}:shipping`) ?? '',
    customer_id: customer,
    first_order: customer === null || firstOrders.get(customer) === id ? 1 : 0,
    gross,
    refund: Number(order.total_refund),
    tax: Number(order.tax_total),
    shipping_tax: Number(order.shipping_tax),
    shipping_total: Number(order.shipping_total),
    items,
    completion_seconds: completion,
    value_band: valueBand(gross, currency),
    item_band: itemBand(items),
    completion_band: completionBand(completion),
  };
}

const ORDER_COLUMNS = [
  'id',
  'created_at',
  'mode',
  'currency',
  'status',
  'type',
  'payment_status',
  'payment_method',
  'customer_id',
  'total_paid',
  'total_refund',
  'tax_total',
  'shipping_tax',
  'shipping_total',
  'completed_at',
];

/** The facts and lines of the given orders that the reports count (payment status in `REPORT_PAYMENT_STATUSES`), by order id. */
export async function loadFacts(db: Db, orderIds: number[], options: LoadFactsOptions = {}): Promise<{ facts: ReportFact[]; lines: ReportLine[] }> {
  const ids = [...new Set(orderIds)].sort((a, b) => a - b);
  const orders = await inChunks(ids, (chunk) => {
    const query = db('store_orders').whereIn('id', chunk).whereIn('payment_status', COUNTED).select(ORDER_COLUMNS).orderBy('id');
    return (options.lock ? lockForUpdate(query, db) : query) as Promise<Row[]>;
  });
  if (!orders.length) return { facts: [], lines: [] };
  const counted = orders.map((order) => Number(order.id));
  const items = await inChunks(
    counted,
    (chunk) =>
      db('store_order_items')
        .whereIn('order_id', chunk)
        .select('order_id', 'post_id', 'variation_id', 'post_title', 'title', 'quantity', 'line_total')
        .orderBy(['order_id', 'cart_index', 'id']) as Promise<Row[]>,
  );
  const addresses = await inChunks(
    counted,
    (chunk) => db('store_order_addresses').whereIn('order_id', chunk).select('order_id', 'type', 'country') as Promise<Row[]>,
  );
  const countries = new Map(addresses.map((address) => [`${address.order_id}:${address.type}`, String(address.country ?? '')]));
  const customers = orders.filter((order) => order.customer_id !== null).map((order) => Number(order.customer_id));
  const firstOrders = options.firstOrders ?? (await firstOrderIds(db, customers));
  const linesByOrder = toLines(items);
  const facts = orders.map((order) => toFact(order, linesByOrder.get(Number(order.id)) ?? [], countries, firstOrders));
  return { facts, lines: counted.flatMap((id) => linesByOrder.get(id) ?? []) };
}
