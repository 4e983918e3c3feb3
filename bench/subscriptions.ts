/**
 * Subscriptions at scale (issue 11, "Speed"): `seed --scale N` writes N customers with their orders and 2×N
 * subscriptions with their first and renewal orders (default N = 100,000: 200,000 subscriptions), then three reads
 * under load, on SQLite and MariaDB:
 *
 *   GET /wp-json/store/v2/subscriptions?per_page=10                  admin list; target ≥ 1,000 req/s, p99 < 60 ms
 *   GET /wp-json/store/v2/customer-profile/subscriptions             one customer's portal list; same target
 *   GET /wp-json/store/v2/subscriptions?search=<customer email>      target ≥ 500 req/s, p99 < 100 ms
 *
 *   npm run bench:subscriptions      (builds, then runs dist/bench/subscriptions.js)
 *
 * The store, the seeding (timed), the server, the load (16 connections, 10 s after a 2 s warm-up, alternating rounds,
 * median), CPU per request, query plans, results (`bench/results/subscriptions-<database>.json`) and the environment
 * variables are those of `bench/harness.ts`. MariaDB runs with `MARIADB_STATE=/tmp/bench-subscriptions-mariadb.state`.
 *
 * The admin reads use the bench admin's application password; the portal list is called as a logged-in customer: a
 * user with an application password of their own, linked to a seeded customer whose two subscriptions the portal shows
 * (neither `pending` nor `intended`). Both callers are held to the hourly `list` class (100 an hour by default), so the
 * benchmark store raises `hourly_request_limits.list` before the server starts: every request is still counted, none is
 * refused.
 */
import type { Knex } from 'knex';
import { SUBSCRIPTIONS_PER_CUSTOMER } from '../src/modules/demo/scale-subscriptions';
import { API, SCALE, count, main, type BenchReport, type BenchStore, type Benchmark, type Endpoint, type Prepared } from './harness';

const READ_TARGET = { requestsPerSecond: 1000, p99Ms: 60 };
/** The hourly list budget of the benchmark store (the `hourly_request_limits` setting; the spec's default is 100). */
const BENCH_LIST_LIMIT = 1_000_000_000;

export interface SubscriptionsData {
  customers: number;
  subscriptions: number;
  orders: number;
  /** The customer searched by email and logged in to the portal, and their subscriptions. */
  customerId: number;
  email: string;
  customerSubscriptions: number;
}

interface SubscriptionsSettings {
  customers: number;
  subscriptions: number;
  hourlyListLimit: number;
}

export type SubscriptionsReport = BenchReport<SubscriptionsData, SubscriptionsSettings>;

type Page = { data?: Array<Record<string, unknown>>; total?: number };

/** A seeded customer from the middle of the store whose subscriptions all show in the portal (none pending or intended). */
async function portalCustomer(db: Knex): Promise<{ id: number; email: string; subscriptions: number }> {
  const middle = (await db('store_customers')
    .orderBy('id')
    .offset(Math.floor(SCALE / 2))
    .first('id')) as { id: number };
  const rows = (await db('store_subscriptions as s')
    .join('store_customers as c', 'c.id', 's.customer_id')
    .where('c.id', '>=', middle.id)
    .whereNull('c.user_id')
    .orderBy('c.id')
    .limit(200)
    .select('c.id', 'c.email', 's.status')) as Array<{ id: number; email: string; status: string }>;
  const byCustomer = new Map<number, { email: string; statuses: string[] }>();
  for (const row of rows) {
    const entry = byCustomer.get(Number(row.id)) ?? { email: row.email, statuses: [] };
    entry.statuses.push(row.status);
    byCustomer.set(Number(row.id), entry);
  }
  for (const [id, { email, statuses }] of byCustomer) {
    if (statuses.length === SUBSCRIPTIONS_PER_CUSTOMER && statuses.every((s) => s !== 'pending' && s !== 'intended')) {
      return { id, email, subscriptions: statuses.length };
    }
  }
  throw new Error('found no customer with two subscriptions the portal shows');
}

async function prepare({ runtime }: BenchStore): Promise<Prepared<SubscriptionsData>> {
  const { db, host } = runtime;
  await host.options.set('hourly_request_limits', { list: BENCH_LIST_LIMIT });

  const customers = await count(db, 'store_customers');
  const subscriptions = await count(db, 'store_subscriptions');
  const orders = await count(db, 'store_orders');
  const customer = await portalCustomer(db);
  const user = await host.users.create({ login: 'bench-customer', email: 'bench-customer@example.com', roles: ['customer'], email_verified: true });
  await db('store_customers').where({ id: customer.id }).update({ user_id: user.id });
  const { password } = await host.users.appPasswords.create(user.id, 'bench');
  const customerAuthorization = `Basic ${Buffer.from(`${user.login}:${password}`).toString('base64')}`;

  const endpoints: Endpoint[] = [
    {
      name: 'list',
      path: `${API}/subscriptions?per_page=10`,
      target: READ_TARGET,
      profileFirstRequest: true,
      check: (body) => {
        const page = (body as { data?: Page }).data;
        return page?.data?.length === 10 && page.total === subscriptions ? null : `expected 10 of ${subscriptions} subscriptions`;
      },
    },
    {
      name: 'portal',
      path: `${API}/customer-profile/subscriptions`,
      target: READ_TARGET,
      authorization: customerAuthorization,
      check: (body) => {
        const page = (body as { subscriptions?: Page }).subscriptions;
        return page?.data?.length === customer.subscriptions && page.total === customer.subscriptions
          ? null
          : `expected the customer's ${customer.subscriptions} subscriptions`;
      },
    },
    {
      name: 'search',
      path: `${API}/subscriptions?search=${encodeURIComponent(customer.email)}`,
      target: { requestsPerSecond: 500, p99Ms: 100 },
      check: (body) => {
        const page = (body as { data?: Page }).data;
        if (page?.total !== customer.subscriptions) return `expected ${customer.subscriptions} matches`;
        return page.data!.every((s) => s.customer_id === customer.id) ? null : `an answer is not customer ${customer.id}'s`;
      },
    },
  ];
  return {
    endpoints,
    data: { customers, subscriptions, orders, customerId: customer.id, email: customer.email, customerSubscriptions: customer.subscriptions },
    note:
      `portal and search: customer ${customer.id} <${customer.email}> (${customer.subscriptions} subscriptions); ` +
      `hourly_request_limits = {list: ${BENCH_LIST_LIMIT.toExponential()}}`,
  };
}

const subscriptionsBenchmark: Benchmark<SubscriptionsData, SubscriptionsSettings> = {
  name: 'subscriptions',
  mariadbState: '/tmp/bench-subscriptions-mariadb.state',
  seeds: `${SCALE.toLocaleString('en-US')} customers with their orders and ${(SCALE * SUBSCRIPTIONS_PER_CUSTOMER).toLocaleString('en-US')} subscriptions`,
  settings: { customers: SCALE, subscriptions: SCALE * SUBSCRIPTIONS_PER_CUSTOMER, hourlyListLimit: BENCH_LIST_LIMIT },
  prepare,
  summary: (data) =>
    `${data.customers.toLocaleString('en-US')} customers, ${data.subscriptions.toLocaleString('en-US')} subscriptions, ${data.orders.toLocaleString('en-US')} orders`,
};

if (require.main === module) main(subscriptionsBenchmark);
