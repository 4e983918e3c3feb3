/**
 * Orders at scale (issue 5, "Speed"): `seed --scale N` writes N customers and 10×N orders with their items and
 * transactions (default N = 100,000: one million orders), then the admin order API under load, on SQLite and MariaDB:
 *
 *   GET  /wp-json/store/v2/orders?per_page=10              16 connections; target ≥ 1,000 req/s, p99 < 60 ms
 *   GET  /wp-json/store/v2/orders?active_view=paid         16 connections; target ≥ 1,000 req/s, p99 < 60 ms
 *   GET  /wp-json/store/v2/orders/{id}                     an order with items and transactions; same target
 *   GET  /wp-json/store/v2/orders?search=<invoice no>      16 connections; target p50 < 20 ms
 *   POST /wp-json/store/v2/orders                          1 connection (latency); target p50 < 15 ms
 *   POST /wp-json/store/v2/orders/{id}/mark-as-paid        1 connection (latency); target p50 < 15 ms
 *
 *   npm run bench:orders             (builds, then runs dist/bench/orders.js)
 *
 * The store, the seeding (timed), the server, the load, CPU per request, query plans, results
 * (`bench/results/orders-<database>.json`) and the environment variables are those of `bench/harness.ts`. MariaDB runs
 * with `MARIADB_STATE=/tmp/bench-orders-mariadb.state`.
 *
 * The two writes never repeat a request: each `POST /orders` is for the next customer (two lines of a product's two
 * variations; the scale seeder writes no catalogue, so the benchmark creates that product through `POST /products`
 * when the store has none), and each mark-as-paid is for the next unpaid order of a list read from the database before
 * the load (about one order in ten is on hold awaiting payment: ~100,000 at full size, far more than the runs take).
 * A run that runs out of unpaid orders is invalid. The order routes have no hourly request limit, so no setting is
 * raised: any 429 would show as non-2xx answers and invalidate the run.
 */
import type { Knex } from 'knex';
import { escapeLike } from '../src/core/db';
import { ORDERS_PER_CUSTOMER } from '../src/modules/demo/scale-orders';
import { API, SCALE, count, main, type BenchRequest, type BenchStore, type Benchmark, type Endpoint, type Prepared } from './harness';

const READ_TARGET = { requestsPerSecond: 1000, p99Ms: 60 };
/** Connections of the two writes: one caller, so the figures are each request's own latency. */
const LATENCY_CONNECTIONS = 1;

export interface OrdersData {
  customers: number;
  orders: number;
  items: number;
  transactions: number;
  invoiceNo: string;
  /** Orders whose invoice number starts with `invoiceNo` (the search is a prefix match). */
  invoiceMatches: number;
  detailId: number;
  detailItems: number;
  detailTransactions: number;
  /** The variations `POST /orders` sells, and whether the benchmark created their product. */
  variationIds: number[];
  productCreated: boolean;
  /** Unpaid orders (on hold, payment pending) available to mark-as-paid. */
  unpaidOrders: number;
}

interface OrdersSettings {
  customers: number;
  orders: number;
  latencyConnections: number;
}

type Page = { data?: Array<Record<string, unknown>>; total?: number };
const pageOf = (body: unknown): Page | undefined => (body as { orders?: Page }).orders;
const ids = (rows: Array<{ id: number | string }>) => rows.map((row) => Number(row.id));

/** Two sellable variations: the store's first ones, or those of a product created through the API. */
async function variations({ runtime, api }: BenchStore): Promise<{ variationIds: number[]; productCreated: boolean }> {
  const existing = () =>
    runtime
      .db('store_product_variations as v')
      .join('store_products as p', 'p.id', 'v.product_id')
      .where({ 'v.status': 'active', 'p.status': 'publish' })
      .where('v.price', '>', 0)
      .orderBy('v.id')
      .limit(2)
      .select('v.id') as Promise<Array<{ id: number }>>;
  const found = ids(await existing());
  if (found.length === 2) return { variationIds: found, productCreated: false };
  const product = {
    title: 'Benchmark Hoodie',
    status: 'publish',
    fulfillment_type: 'physical',
    variations: [
      { title: 'Medium', sku: 'BENCH-HOODIE-M', price: 4900 },
      { title: 'Large', sku: 'BENCH-HOODIE-L', price: 5400 },
    ],
  };
  const { status, body } = await api({ method: 'POST', path: `${API}/products`, body: product });
  if (status !== 200) throw new Error(`POST /products answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  const created = ids(await existing());
  if (created.length !== 2) throw new Error('POST /products left no two sellable variations');
  return { variationIds: created, productCreated: true };
}

/** A paid order from the middle of the store with at least two items, and what it carries. */
async function detailOrder(db: Knex, from: number): Promise<{ id: number; items: number; transactions: number }> {
  const row = (await db('store_orders as o')
    .where('o.id', '>=', from)
    .where('o.total_paid', '>', 0)
    .whereRaw('(select count(*) from store_order_items as i where i.order_id = o.id) >= 2')
    .orderBy('o.id')
    .first('o.id')) as { id: number } | undefined;
  if (!row) throw new Error('found no paid order with two items');
  const id = Number(row.id);
  const countOf = async (table: string) => Number(((await db(table).where({ order_id: id }).count({ n: '*' }).first()) as { n: number | string }).n);
  return { id, items: await countOf('store_order_items'), transactions: await countOf('store_order_transactions') };
}

async function invoiceNumber(db: Knex, from: number): Promise<{ invoiceNo: string; matches: number }> {
  const row = (await db('store_orders').where('id', '>=', from).whereNot('invoice_no', '').orderBy('id').first('invoice_no')) as
    { invoice_no: string } | undefined;
  if (!row) throw new Error('found no order with an invoice number');
  const counted = (await db('store_orders')
    .whereRaw(`invoice_no like ? escape '!'`, [`${escapeLike(row.invoice_no)}%`])
    .count({ n: '*' })
    .first()) as { n: number | string };
  return { invoiceNo: row.invoice_no, matches: Number(counted.n) };
}

/** Hands out the items of `list` one by one, from `start`, round and round. */
function cycle<T>(list: T[], start = 0): () => T {
  let i = start;
  return () => list[i++ % list.length];
}

async function prepare(store: BenchStore): Promise<Prepared<OrdersData>> {
  const { db } = store.runtime;
  const catalogue = await variations(store);
  const customers = await count(db, 'store_customers');
  const orders = await count(db, 'store_orders');
  const middle = (await db('store_orders')
    .orderBy('id')
    .offset(Math.floor(orders / 2))
    .first('id')) as { id: number };
  const detail = await detailOrder(db, Number(middle.id));
  const invoice = await invoiceNumber(db, Number(middle.id));
  const customerIds = ids((await db('store_customers').orderBy('id').select('id')) as Array<{ id: number }>);
  const unpaid = ids(
    (await db('store_orders').where('payment_status', 'pending').whereNot('status', 'canceled').orderBy('id').select('id')) as Array<{ id: number }>,
  );

  const nextCustomer = cycle(customerIds, Math.floor(customerIds.length / 2));
  const [first, second] = catalogue.variationIds;
  const create = (): BenchRequest => ({
    method: 'POST',
    path: `${API}/orders`,
    body: {
      customer_id: nextCustomer(),
      order_items: [
        { variation_id: first, quantity: 1 },
        { variation_id: second, quantity: 2 },
      ],
      note: 'Phone order',
    },
  });
  let marked = 0;
  const markPaid = (): BenchRequest => ({ method: 'POST', path: `${API}/orders/${unpaid[Math.min(marked++, unpaid.length - 1)]}/mark-as-paid`, body: {} });

  const endpoints: Endpoint[] = [
    {
      name: 'list',
      path: `${API}/orders?per_page=10`,
      target: READ_TARGET,
      profileFirstRequest: true,
      check: (body) => {
        const page = pageOf(body);
        return page?.data?.length === 10 && (page.total ?? 0) >= orders ? null : `expected 10 of at least ${orders} orders`;
      },
    },
    {
      name: 'paid',
      path: `${API}/orders?active_view=paid`,
      target: READ_TARGET,
      profileFirstRequest: true,
      check: (body) => {
        const page = pageOf(body);
        if (page?.data?.length !== 10) return 'expected a page of 10 orders';
        return page.data.every((order) => order.payment_status === 'paid') ? null : 'an order of the paid view is not paid';
      },
    },
    {
      name: 'detail',
      path: `${API}/orders/${detail.id}`,
      target: READ_TARGET,
      check: (body) => {
        const order = (body as { order?: { id?: number; order_items?: unknown[]; transactions?: unknown[] } }).order;
        if (order?.id !== detail.id) return `expected order ${detail.id}`;
        return order.order_items?.length === detail.items && order.transactions?.length === detail.transactions
          ? null
          : `expected ${detail.items} items and ${detail.transactions} transactions`;
      },
    },
    {
      name: 'search',
      path: `${API}/orders?search=${encodeURIComponent(invoice.invoiceNo)}`,
      target: { p50Ms: 20 },
      check: (body) => {
        const page = pageOf(body);
        if (page?.total !== invoice.matches) return `expected ${invoice.matches} match(es)`;
        return page.data?.some((order) => order.invoice_no === invoice.invoiceNo) ? null : `${invoice.invoiceNo} is not in the answer`;
      },
    },
    {
      name: 'create',
      path: `${API}/orders`,
      target: { p50Ms: 15 },
      connections: LATENCY_CONNECTIONS,
      next: create,
      check: (body) => {
        const answer = body as { message?: string; order_id?: number };
        return answer.message === 'Order created successfully!' && Number.isInteger(answer.order_id) ? null : 'expected the created order';
      },
    },
    {
      name: 'mark-paid',
      path: `${API}/orders/{id}/mark-as-paid`,
      target: { p50Ms: 15 },
      connections: LATENCY_CONNECTIONS,
      next: markPaid,
      check: (body) => ((body as { message?: string }).message === 'Order has been marked as paid' ? null : 'expected the order marked as paid'),
      problem: () => (marked > unpaid.length ? `ran out of unpaid orders (${unpaid.length}); later requests repeated the last one` : null),
    },
  ];

  const data: OrdersData = {
    customers,
    orders,
    items: await count(db, 'store_order_items'),
    transactions: await count(db, 'store_order_transactions'),
    invoiceNo: invoice.invoiceNo,
    invoiceMatches: invoice.matches,
    detailId: detail.id,
    detailItems: detail.items,
    detailTransactions: detail.transactions,
    ...catalogue,
    unpaidOrders: unpaid.length,
  };
  return {
    endpoints,
    data,
    note:
      `invoice "${invoice.invoiceNo}" (${invoice.matches} match(es)), detail id ${detail.id} (${detail.items} items, ${detail.transactions} transactions), ` +
      `${unpaid.length.toLocaleString('en-US')} unpaid orders for mark-as-paid, variations ${catalogue.variationIds.join(' and ')}` +
      (catalogue.productCreated ? ' (product created through POST /products)' : ''),
  };
}

const ordersBenchmark: Benchmark<OrdersData, OrdersSettings> = {
  name: 'orders',
  mariadbState: '/tmp/bench-orders-mariadb.state',
  seeds: `${SCALE.toLocaleString('en-US')} customers and ${(SCALE * ORDERS_PER_CUSTOMER).toLocaleString('en-US')} orders`,
  settings: { customers: SCALE, orders: SCALE * ORDERS_PER_CUSTOMER, latencyConnections: LATENCY_CONNECTIONS },
  prepare,
  summary: (data) =>
    `${data.customers.toLocaleString('en-US')} customers, ${data.orders.toLocaleString('en-US')} orders, ` +
    `${data.items.toLocaleString('en-US')} items, ${data.transactions.toLocaleString('en-US')} transactions`,
};

if (require.main === module) main(ordersBenchmark);
