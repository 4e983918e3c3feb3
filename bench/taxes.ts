/**
 * Order tax records at scale (issue 12, "Speed"): `seed --scale N` writes N customers, their orders (the one-time
 * purchases priced with their country's tax), subscriptions, and the tax records of the paid orders: one per paid
 * one-time order plus one reversal per refunded one (default N = 100,000: about 1,000,000 records, most of them filed).
 * Then the filing list under load, on SQLite and MariaDB:
 *
 *   GET /wp-json/store/v2/taxes?per_page=10                 the default list; target ≥ 1,000 req/s, p99 < 60 ms
 *   GET /wp-json/store/v2/taxes?search=<order id>            a search (record id or order id); same target
 *   GET /wp-json/store/v2/taxes?active_view=not_filed        the records still to file; same target
 *
 *   npm run bench:taxes              (builds, then runs dist/bench/taxes.js)
 *
 * The store, the seeding (timed), the server, the load (16 connections, 10 s after a 2 s warm-up, alternating rounds,
 * median), CPU per request, query plans, results (`bench/results/taxes-<database>.json`) and the environment variables
 * are those of `bench/harness.ts`. MariaDB runs with `MARIADB_STATE=/tmp/bench-taxes-mariadb.state`. `/taxes` has no
 * hourly request limit, so no setting is raised.
 */
import type { Knex } from 'knex';
import { API, SCALE, count, main, type BenchStore, type Benchmark, type Prepared } from './harness';

const READ_TARGET = { requestsPerSecond: 1000, p99Ms: 60 };

export interface TaxesData {
  customers: number;
  orders: number;
  records: number;
  notFiled: number;
  /** The order searched for by its id, and how many records it has. */
  searchOrderId: number;
  searchMatches: number;
}

interface TaxesSettings {
  customers: number;
}

type Page = { data?: Array<Record<string, unknown>>; total?: number };
const pageOf = (body: unknown): Page | undefined => (body as { taxes?: Page }).taxes;

/** A refunded order from the middle of the store (so it has an original and a reversing record), and what a search for its id finds. */
async function searchedOrder(db: Knex): Promise<{ id: number; matches: number }> {
  const middle = (await db('store_order_tax_rates')
    .orderBy('id')
    .offset(Math.floor((await count(db, 'store_order_tax_rates')) / 2))
    .first('id')) as { id: number };
  const row = (await db('store_order_tax_rates as t')
    .join('store_orders as o', 'o.id', 't.order_id')
    .where('t.id', '>=', middle.id)
    .where('o.total_refund', '>', 0)
    .orderBy('t.id')
    .first('o.id')) as { id: number } | undefined;
  if (!row) throw new Error('found no refunded order with tax records');
  const id = Number(row.id);
  // The search also matches the record whose id is the number.
  const matches = await db('store_order_tax_rates').where('order_id', id).orWhere('id', id).count({ n: '*' }).first();
  return { id, matches: Number((matches as { n: number | string }).n) };
}

async function prepare({ runtime }: BenchStore): Promise<Prepared<TaxesData>> {
  const { db } = runtime;
  const customers = await count(db, 'store_customers');
  const orders = await count(db, 'store_orders');
  const records = await count(db, 'store_order_tax_rates');
  const notFiled = Number(((await db('store_order_tax_rates').whereNull('filed_at').count({ n: '*' }).first()) as { n: number | string }).n);
  const searched = await searchedOrder(db);

  const endpoints = [
    {
      name: 'list',
      path: `${API}/taxes?per_page=10`,
      target: READ_TARGET,
      profileFirstRequest: true,
      check: (body: unknown) => {
        const page = pageOf(body);
        return page?.data?.length === 10 && page.total === records ? null : `expected 10 of ${records} records`;
      },
    },
    {
      name: 'search',
      path: `${API}/taxes?search=${searched.id}`,
      target: READ_TARGET,
      check: (body: unknown) => {
        const page = pageOf(body);
        if (page?.total !== searched.matches) return `expected ${searched.matches} matches`;
        return page.data!.every((r) => r.order_id === searched.id || r.id === searched.id)
          ? null
          : `a record is neither order ${searched.id}'s nor #${searched.id}`;
      },
    },
    {
      name: 'not_filed',
      path: `${API}/taxes?active_view=not_filed`,
      target: READ_TARGET,
      profileFirstRequest: true,
      check: (body: unknown) => {
        const page = pageOf(body);
        if (page?.data?.length !== 10 || page.total !== notFiled) return `expected 10 of ${notFiled} unfiled records`;
        return page.data.every((r) => r.filed_at === null) ? null : 'a filed record in the not_filed view';
      },
    },
  ];
  return {
    endpoints,
    data: { customers, orders, records, notFiled, searchOrderId: searched.id, searchMatches: searched.matches },
    note: `search: order ${searched.id} (${searched.matches} records); ${notFiled.toLocaleString('en-US')} of ${records.toLocaleString('en-US')} records unfiled`,
  };
}

const taxesBenchmark: Benchmark<TaxesData, TaxesSettings> = {
  name: 'taxes',
  mariadbState: '/tmp/bench-taxes-mariadb.state',
  seeds: `${SCALE.toLocaleString('en-US')} customers with their orders, subscriptions and tax records`,
  settings: { customers: SCALE },
  prepare,
  summary: (data) =>
    `${data.records.toLocaleString('en-US')} tax records (${data.notFiled.toLocaleString('en-US')} unfiled), ${data.orders.toLocaleString('en-US')} orders`,
};

if (require.main === module) main(taxesBenchmark);
