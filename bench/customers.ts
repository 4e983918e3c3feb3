/**
 * Customers at scale: 100,000 customers with two addresses each, then three admin API reads under load, on SQLite and
 * on MariaDB (issue 4, "Speed"):
 *
 *   GET /wp-json/store/v2/customers?per_page=10                      default sort; target ≥ 1,500 req/s, p99 < 50 ms
 *   GET /wp-json/store/v2/customers?search=<email fragment>          a few matches; target ≥ 100 req/s, p99 < 150 ms
 *   GET /wp-json/store/v2/customers/<id>?with[]=billing_address      target ≥ 1,500 req/s, p99 < 50 ms
 *
 *   npm run bench:customers          (builds, then runs dist/bench/customers.js)
 *
 * The seeding is `seed --scale N --customers-only` (the customers and their addresses, no orders: seconds, not
 * minutes). The store, the server, the load (16 connections, 10 s after a 2 s warm-up, alternating rounds, median), CPU
 * per request, query plans, results (`bench/results/customers-<database>.json`) and the environment variables are those
 * of `bench/harness.ts`. MariaDB runs with `MARIADB_STATE=/tmp/bench-mariadb.state`.
 *
 * Rate limits: API callers are held to the spec's hourly request classes (list: 100 per user per hour), which would
 * turn nearly every benchmark request into a 429. The budget is a setting, the `hourly_request_limits` option, so the
 * benchmark store sets `{list: 1e9}` before the server starts: every request is still counted (the limiter's write
 * stays in the measured path), none is refused.
 */
import type { Knex } from 'knex';
import { API, SCALE, count, main, type BenchReport, type Benchmark, type BenchStore, type Endpoint, type Prepared } from './harness';

/** The hourly list budget of the benchmark store (the `hourly_request_limits` setting; the spec's default is 100). */
const BENCH_LIST_LIMIT = 1_000_000_000;

export interface CustomersData {
  customers: number;
  addresses: number;
  searchTerm: string;
  searchMatches: number;
  detailId: number;
}

interface CustomersSettings {
  customers: number;
  hourlyListLimit: number;
}

export type CustomersReport = BenchReport<CustomersData, CustomersSettings>;

/**
 * An email fragment that matches between 2 and 20 customers: the start of a local part, cut short by a digit or two,
 * chosen so that searching it as a contained text (`LIKE '%x%'`) or as a prefix (`LIKE 'x%'`) finds the same
 * customers, which keeps the benchmark comparable whichever the search does.
 */
async function searchTerm(db: Knex): Promise<{ term: string; matches: number }> {
  const matching = async (pattern: string) =>
    Number(((await db('store_customers').whereRaw(`email like ? escape '!'`, [pattern]).count({ n: '*' }).first()) as { n: number | string }).n);
  const rows = (await db('store_customers')
    .orderBy('id')
    .offset(Math.floor(SCALE / 2))
    .limit(50)
    .select('email')) as Array<{ email: string }>;
  for (const { email } of rows) {
    const local = email.split('@')[0];
    for (const cut of [2, 1, 3]) {
      const term = local.slice(0, local.length - cut);
      if (term.length < 5 || !/\d$/.test(term)) continue;
      const escaped = term.replace(/[!%_]/g, '!$&');
      const matches = await matching(`%${escaped}%`);
      if (matches >= 2 && matches <= 20 && (await matching(`${escaped}%`)) === matches) return { term, matches };
    }
  }
  throw new Error('found no email fragment matching 2 to 20 customers');
}

async function prepare({ runtime }: BenchStore): Promise<Prepared<CustomersData>> {
  const { db, host } = runtime;
  await host.options.set('hourly_request_limits', { list: BENCH_LIST_LIMIT });

  const customers = await count(db, 'store_customers');
  const addresses = await count(db, 'store_customer_addresses');
  const search = await searchTerm(db);
  const middle = (await db('store_customers')
    .orderBy('id')
    .offset(Math.floor(customers / 2))
    .first('id')) as { id: number };
  const detailId = Number(middle.id);

  const endpoints: Endpoint[] = [
    {
      name: 'list',
      path: `${API}/customers?per_page=10`,
      target: { requestsPerSecond: 1500, p99Ms: 50 },
      check: (body) => {
        const page = (body as { customers?: { data?: unknown[]; total?: number } }).customers;
        return page?.data?.length === 10 && page.total === customers ? null : `expected 10 of ${customers} customers`;
      },
    },
    {
      name: 'search',
      path: `${API}/customers?search=${encodeURIComponent(search.term)}`,
      target: { requestsPerSecond: 100, p99Ms: 150 },
      check: (body) => {
        const page = (body as { customers?: { data?: Array<{ email: string }>; total?: number } }).customers;
        if (page?.total !== search.matches) return `expected ${search.matches} matches`;
        return page.data!.every((c) => c.email.includes(search.term)) ? null : 'an answer does not contain the fragment';
      },
    },
    {
      name: 'detail',
      path: `${API}/customers/${detailId}?with[]=billing_address`,
      target: { requestsPerSecond: 1500, p99Ms: 50 },
      check: (body) => {
        const customer = (body as { customer?: { id?: number; billing_address?: Array<{ is_primary: number; type: string }> } }).customer;
        if (customer?.id !== detailId) return `expected customer ${detailId}`;
        const billing = customer.billing_address ?? [];
        return billing.length === 1 && billing[0].type === 'billing' && billing[0].is_primary === 1 ? null : 'expected one primary billing address';
      },
    },
  ];
  return {
    endpoints,
    data: { customers, addresses, searchTerm: search.term, searchMatches: search.matches, detailId },
    note:
      `search term "${search.term}" (${search.matches} matches), detail id ${detailId}; ` +
      `hourly_request_limits = {list: ${BENCH_LIST_LIMIT.toExponential()}}`,
  };
}

const customersBenchmark: Benchmark<CustomersData, CustomersSettings> = {
  name: 'customers',
  mariadbState: '/tmp/bench-mariadb.state',
  seeds: `${SCALE.toLocaleString('en-US')} customers`,
  seedFlags: ['--customers-only'],
  settings: { customers: SCALE, hourlyListLimit: BENCH_LIST_LIMIT },
  prepare,
  summary: (data) => `${data.customers.toLocaleString('en-US')} customers, ${data.addresses.toLocaleString('en-US')} addresses`,
};

if (require.main === module) main(customersBenchmark);
