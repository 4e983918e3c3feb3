/**
 * Reports at scale (issue 15, "Bench"): every report endpoint over the last 30 days, the last 365 days and all time,
 * one caller at a time, on a store of `seed --demo --scale N` (default N = 100,000: one million one-time orders plus
 * ~620,000 subscription and renewal orders), on SQLite and MariaDB. Target: p95 < 250 ms for every endpoint and range.
 *
 *   npm run bench:reports            (builds, then runs dist/bench/reports.js)
 *
 * For each database:
 * - a fresh store (`openStore` of `bench/harness.ts`: SQLite in a temporary DATA_DIR, or a throwaway MariaDB under
 *   `MARIADB_STATE=/tmp/bench-reports-mariadb.state`), its payment mode set to live, then seeded with the real CLI
 *   (`node dist/src/host/cli.js seed --demo --scale N`, timed): the demo catalogue, so order lines name real products
 *   and variations, the orders in the live mode (a few percent test), and the report facts rebuilt at the end;
 * - a bench admin with an application password (HTTP Basic, as an integration calls);
 * - the real server (`node dist/src/main.js`, `BENCH_WORKERS` processes, default 2) in its own process;
 * - per endpoint and range: the answer checked once (200 and the spec's response keys), `BENCH_WARMUP` requests
 *   (default 10), then `BENCH_SAMPLES` (default 200) requests one after another over one keep-alive connection, each
 *   timed from sending to the last byte of the body; p50/p95/p99 by nearest rank;
 * - for every endpoint and range over the target: the SQL one request runs, each select's plan (EXPLAIN [QUERY PLAN])
 *   and its time alone (median of 5 runs), from an in-process runtime over the same store.
 *
 * Writes `bench/results/reports-<database>.md` (the machine, the data size, the seeding, the table, the misses) and
 * sets exit code 1 when an endpoint misses the target or answers anything but 200.
 *
 * Ranges are local dates in the site's time zone (UTC unless the store sets one): last 30 days = today − 29 … today,
 * last 365 days = today − 364 … today, all time = the first order's date … today. Standard endpoints take them as
 * `params[startDate]`/`params[endDate]`, `quick-order-stats` as `day_range` (`-29 days`, `-364 days`, `all_time`),
 * `sales-growth` as `start_date`/`end_date`. `overview` (always the last 30 months) and `search-repeat-customer` (a
 * page of customers) take no range and are measured once.
 *
 * Environment: `BENCH_DATABASES` (default `sqlite,mariadb`), `BENCH_SCALE` (default 100000), `BENCH_SAMPLES`,
 * `BENCH_WARMUP`, `BENCH_WORKERS`, `BENCH_ENDPOINTS` (names, e.g. `revenue,order-chart`), `BENCH_TZ` (sends
 * `user_tz`, e.g. `Asia/Kolkata`, whose half-hour offset makes the engine read sub-hour remainders from the facts),
 * `BENCH_RESULTS_DIR`. To measure an existing store instead of a fresh one (seeded first when it has no orders, kept
 * after): `BENCH_STORE_DIR=<SQLite DATA_DIR>` or `BENCH_STORE_URL=<mysql://… URL>` (then with one database in
 * `BENCH_DATABASES`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { systemCtx } from '../src/core/context';
import { RateLimits } from '../src/core/ratelimit';
import type { HostRuntime } from '../src/host/app';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import { findPackageRoot } from '../src/host/paths';
import { reportDefaults, reportTimeZone } from '../src/modules/reports/params';
import { savePaymentSettings } from '../src/modules/settings/payment-settings';
import {
  API,
  SCALE,
  codeVersion,
  count,
  databaseVersion,
  machine,
  openStore,
  startServer,
  stopProcess,
  type DatabaseKind,
  type Server,
  type Store,
} from './harness';

const run = promisify(execFile);

declare module '../src/host/contract' {
  interface OptionMap {
    /** How the benchmark seeded this store: kept in it, so a later run over the same store can say so. */
    bench_reports_seeding: Seeding;
  }
}

const TARGET_P95_MS = 250;
const SAMPLES = positive(process.env.BENCH_SAMPLES, 200);
const WARMUP = positive(process.env.BENCH_WARMUP, 10);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());
const ONLY = process.env.BENCH_ENDPOINTS?.split(',').map((name) => name.trim());
const TIME_ZONE = process.env.BENCH_TZ?.trim() || null;
const ROOT = findPackageRoot(__dirname);
const DIST = path.resolve(__dirname, '..');
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(ROOT, 'bench', 'results');

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

// ---------------------------------------------------------------------------------------------------------------
// The endpoints and their ranges

type RangeName = 'last 30 days' | 'last 365 days' | 'all time' | 'none';

interface Dates {
  today: string;
  firstOrder: string;
}

/** How an endpoint takes a range: the standard `params[...]`, its own parameters, or none. */
type RangeStyle = 'standard' | 'day_range' | 'start_end' | 'none';

interface ReportEndpoint {
  name: string;
  style: RangeStyle;
  /** Keys the answer must have (spec: the report's response keys). */
  keys: string[];
  /** Query parameters besides the range. */
  extra?: Record<string, string>;
}

const standard = (name: string, keys: string[]): ReportEndpoint => ({ name, style: 'standard', keys });

/** The spec's twenty report endpoints, in its table's order. */
const ENDPOINTS: ReportEndpoint[] = [
  { name: 'overview', style: 'none', keys: ['data'] },
  standard('fetch-report-meta', ['currencies', 'min_date', 'storeMode', 'first_order_date']),
  { name: 'quick-order-stats', style: 'day_range', keys: ['stats', 'from_date', 'to_date'] },
  { name: 'sales-growth', style: 'start_end', keys: ['sales_data'] },
  standard('report-overview', ['data', 'orders_by_payment_method']),
  { name: 'search-repeat-customer', style: 'none', keys: ['repeat_customers'], extra: { 'params[per_page]': '10', 'params[current_page]': '1' } },
  standard('top-products-sold', ['top_products_sold']),
  standard('revenue', ['revenueReport', 'summary', 'previousSummary', 'fluctuations', 'appliedGroupKey']),
  standard('revenue-by-group', ['data']),
  standard('order-value-distribution', ['data']),
  standard('fetch-new-vs-returning-customer', ['newVsReturning']),
  standard('fetch-order-by-group', ['data']),
  standard('fetch-report-by-day-and-hour', []),
  standard('item-count-distribution', ['data']),
  standard('order-completion-time', ['data']),
  standard('order-chart', ['orderChartData', 'summary', 'previousSummary', 'fluctuations']),
  standard('sales-report', ['graphs', 'summaryData', 'previousSummary', 'fluctuations']),
  standard('fetch-top-sold-products', []),
  standard('fetch-top-sold-variants', []),
  standard('refund-chart', ['summary', 'previousSummary', 'chartData', 'fluctuations']),
];

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function rangeDates(range: RangeName, dates: Dates): { start: string; end: string } {
  const start = range === 'last 30 days' ? addDays(dates.today, -29) : range === 'last 365 days' ? addDays(dates.today, -364) : dates.firstOrder;
  return { start, end: dates.today };
}

const DAY_RANGES: Record<Exclude<RangeName, 'none'>, string> = { 'last 30 days': '-29 days', 'last 365 days': '-364 days', 'all time': 'all_time' };

/** The query of one endpoint over one range. */
function queryOf(endpoint: ReportEndpoint, range: RangeName, dates: Dates): Record<string, string> {
  const query: Record<string, string> = { ...endpoint.extra };
  if (range !== 'none') {
    const { start, end } = rangeDates(range, dates);
    if (endpoint.style === 'standard') Object.assign(query, { 'params[startDate]': start, 'params[endDate]': end });
    if (endpoint.style === 'start_end') Object.assign(query, { start_date: start, end_date: end });
    if (endpoint.style === 'day_range') query.day_range = DAY_RANGES[range];
  }
  if (TIME_ZONE) query.user_tz = TIME_ZONE;
  return query;
}

function pathOf(endpoint: ReportEndpoint, query: Record<string, string>): string {
  const search = Object.entries(query)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  return `${API}/reports/${endpoint.name}${search ? `?${search}` : ''}`;
}

const rangesOf = (endpoint: ReportEndpoint): RangeName[] => (endpoint.style === 'none' ? ['none'] : ['last 30 days', 'last 365 days', 'all time']);

// ---------------------------------------------------------------------------------------------------------------
// The store

interface ReportStore extends Store {
  /** An existing store named by BENCH_STORE_DIR or BENCH_STORE_URL (kept after the run). */
  existing: boolean;
}

async function openReportStore(kind: DatabaseKind): Promise<ReportStore> {
  const dir = process.env.BENCH_STORE_DIR;
  const url = process.env.BENCH_STORE_URL;
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', STORE_SECRET: 'bench-secret' };
  if (kind === 'sqlite' && dir)
    return { kind, env: { ...env, DATA_DIR: path.resolve(dir) }, dataDir: path.resolve(dir), existing: true, close: async () => undefined };
  if (kind === 'mariadb' && url) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bench-reports-mariadb-'));
    const close = async () => fs.rmSync(dataDir, { recursive: true, force: true });
    return { kind, env: { ...env, DATA_DIR: dataDir, DATABASE_URL: url }, dataDir, existing: true, close };
  }
  return { ...(await openStore(kind, { name: 'reports', mariadbState: '/tmp/bench-reports-mariadb.state' })), existing: false };
}

async function inProcess<T>(store: Store, work: (runtime: HostRuntime) => Promise<T>): Promise<T> {
  const runtime = await boot({ ...readConfig({ ...store.env, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

interface Seeding {
  command: string;
  wallSeconds: number;
  output: string[];
  /** When it was seeded; `reused` when this run measured a store an earlier run seeded. */
  date: string;
  reused?: boolean;
}

/**
 * Live payment mode first (the seeded orders take the store's mode), then `seed --demo --scale N` unless the store
 * has orders already (an existing store: what an earlier run recorded about its seeding, or null).
 */
async function seedStore(store: ReportStore): Promise<Seeding | null> {
  const { orders, recorded } = await inProcess(store, async ({ host, db }) => {
    await savePaymentSettings(systemCtx(host, new RateLimits(db)), { mode: 'live' });
    return { orders: await count(db, 'store_orders'), recorded: await host.options.get('bench_reports_seeding') };
  });
  if (orders > 0) {
    console.log(`the store has ${orders.toLocaleString('en-US')} orders: not seeded again`);
    return recorded ? { ...recorded, reused: true } : null;
  }
  const command = ['seed', '--demo', '--scale', String(SCALE)];
  process.stdout.write(`seeding: node dist/src/host/cli.js ${command.join(' ')} … `);
  const started = Date.now();
  const { stdout } = await run(process.execPath, [path.join(DIST, 'src', 'host', 'cli.js'), ...command], { env: store.env, maxBuffer: 16 * 1024 * 1024 });
  const wallSeconds = Math.round((Date.now() - started) / 100) / 10;
  const output = stdout.trim().split('\n');
  console.log(`${wallSeconds} s\n  ${output.join('\n  ')}`);
  const seeding: Seeding = { command: `npm run cli -- ${command.join(' ')}`, wallSeconds, output, date: new Date(started).toISOString() };
  await inProcess(store, ({ host }) => host.options.set('bench_reports_seeding', seeding));
  return seeding;
}

interface DataSize {
  customers: number;
  ordersByType: Record<string, number>;
  orders: number;
  /** Orders the reports count (rows of `store_report_orders`), and those the default filters see (live, store currency). */
  counted: number;
  countedLiveStoreCurrency: number;
  currencies: Record<string, number>;
  modes: Record<string, number>;
  summaryRows: Record<string, number>;
  orderAddresses: number;
  orderItems: number;
  databaseBytes: number | null;
}

const tally = (rows: Array<Record<string, unknown>>, key: string): Record<string, number> =>
  Object.fromEntries(rows.map((row) => [String(row[key]), Number(row.n)]));

async function databaseBytes(store: Store, db: Knex): Promise<number | null> {
  if (store.kind === 'sqlite') {
    const file = path.join(store.dataDir, 'store.sqlite');
    return fs.existsSync(file) ? fs.statSync(file).size : null;
  }
  const [rows] = (await db.raw('select sum(data_length + index_length) as bytes from information_schema.tables where table_schema = database()')) as [
    Array<{ bytes: number | string | null }>,
  ];
  return rows[0]?.bytes === null || rows[0]?.bytes === undefined ? null : Number(rows[0].bytes);
}

async function dataSize(store: Store, db: Knex, currency: string): Promise<DataSize> {
  const byType = (await db('store_orders').groupBy('type').select('type').count({ n: '*' })) as Array<Record<string, unknown>>;
  const currencies = (await db('store_report_orders').groupBy('currency').select('currency').count({ n: '*' })) as Array<Record<string, unknown>>;
  const modes = (await db('store_report_orders').groupBy('mode').select('mode').count({ n: '*' })) as Array<Record<string, unknown>>;
  const live = (await db('store_report_orders').where({ mode: 'live', currency }).count({ n: '*' }).first()) as { n: number | string };
  const summaryRows: Record<string, number> = {};
  for (const table of ['store_report_sales', 'store_report_groups', 'store_report_items', 'store_report_bands', 'store_report_order_lines']) {
    summaryRows[table] = await count(db, table);
  }
  return {
    customers: await count(db, 'store_customers'),
    ordersByType: tally(byType, 'type'),
    orders: await count(db, 'store_orders'),
    counted: await count(db, 'store_report_orders'),
    countedLiveStoreCurrency: Number(live.n),
    currencies: tally(currencies, 'currency'),
    modes: tally(modes, 'mode'),
    summaryRows,
    orderAddresses: await count(db, 'store_order_addresses'),
    orderItems: await count(db, 'store_order_items'),
    databaseBytes: await databaseBytes(store, db),
  };
}

interface Prepared {
  authorization: string;
  dates: Dates;
  data: DataSize;
  databaseVersion: string;
  currency: string;
  timeZone: string;
}

/** The bench admin, the dates of the ranges and the data size, from an in-process runtime. */
async function prepare(store: Store): Promise<Prepared> {
  return inProcess(store, async ({ host, db }) => {
    const login = `bench-reports-${Date.now()}`;
    const user = await host.users.create({ login, email: `${login}@example.com`, roles: ['administrator'] });
    const { password } = await host.users.appPasswords.create(user.id, 'bench');
    const authorization = `Basic ${Buffer.from(`${user.login}:${password}`).toString('base64')}`;
    const ctx = systemCtx(host, new RateLimits(db));
    const { currency } = await reportDefaults(ctx);
    const timeZone = await reportTimeZone(ctx, TIME_ZONE ? { user_tz: TIME_ZONE } : {});
    const first = (await db('store_orders').min({ at: 'created_at' }).first()) as { at: string | Date | null };
    const firstAt = first.at instanceof Date ? first.at.toISOString() : String(first.at ?? '');
    const dates: Dates = {
      today: localDate(new Date(), timeZone),
      firstOrder: firstAt ? localDate(new Date(`${firstAt.slice(0, 19).replace(' ', 'T')}Z`), timeZone) : '',
    };
    if (!dates.firstOrder) throw new Error('the store has no orders');
    return { authorization, dates, data: await dataSize(store, db, currency), databaseVersion: await databaseVersion(db, store.kind), currency, timeZone };
  });
}

function localDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

interface Measurement {
  endpoint: string;
  range: RangeName;
  path: string;
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
  /** Bytes of the answer's body. */
  bytes: number;
  pass: boolean;
  problem: string | null;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (ms: number) => Math.round(ms * 10) / 10;

async function timed(url: string, authorization: string): Promise<{ ms: number; status: number; text: string }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization } });
  const text = await response.text();
  return { ms: performance.now() - started, status: response.status, text };
}

function checkAnswer(endpoint: ReportEndpoint, status: number, text: string): string | null {
  if (status !== 200) return `status ${status}: ${text.slice(0, 300)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 100)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the answer is not an object';
  const missing = endpoint.keys.filter((key) => !(key in body));
  return missing.length ? `missing ${missing.join(', ')}: ${text.slice(0, 200)}` : null;
}

async function measure(server: Server, authorization: string, endpoint: ReportEndpoint, range: RangeName, dates: Dates): Promise<Measurement> {
  const requestPath = pathOf(endpoint, queryOf(endpoint, range, dates));
  const url = server.base + requestPath;
  const label = `${endpoint.name} (${range})`;
  process.stdout.write(`${label.padEnd(50)} `);
  const first = await timed(url, authorization);
  const problem = checkAnswer(endpoint, first.status, first.text);
  const result = (times: number[], failure: string | null): Measurement => {
    const sorted = [...times].sort((a, b) => a - b);
    const at = (p: number) => (sorted.length ? round(percentile(sorted, p)) : NaN);
    const p95 = at(95);
    return {
      endpoint: endpoint.name,
      range,
      path: requestPath,
      samples: times.length,
      p50: at(50),
      p95,
      p99: at(99),
      max: sorted.length ? round(sorted[sorted.length - 1]) : NaN,
      mean: sorted.length ? round(sorted.reduce((a, b) => a + b, 0) / sorted.length) : NaN,
      bytes: Buffer.byteLength(first.text),
      pass: failure === null && p95 < TARGET_P95_MS,
      problem: failure,
    };
  };
  if (problem) {
    console.log(`FAILED: ${problem}`);
    return result([], problem);
  }
  for (let i = 0; i < WARMUP; i++) await timed(url, authorization);
  const times: number[] = [];
  let failure: string | null = null;
  for (let i = 0; i < SAMPLES; i++) {
    const sample = await timed(url, authorization);
    if (sample.status !== 200) {
      failure = `sample ${i + 1}: status ${sample.status}: ${sample.text.slice(0, 200)}`;
      break;
    }
    times.push(sample.ms);
  }
  const measured = result(times, failure);
  console.log(`p50 ${measured.p50} ms, p95 ${measured.p95} ms, p99 ${measured.p99} ms, max ${measured.max} ms${measured.pass ? '' : '  MISS'}`);
  return measured;
}

// ---------------------------------------------------------------------------------------------------------------
// What a slow request runs

interface Statement {
  sql: string;
  bindings: unknown[];
  medianMs: number | null;
  plan: string[];
}

async function explain(db: Knex, kind: DatabaseKind, sql: string, bindings: unknown[]): Promise<string[]> {
  const sqlite = kind === 'sqlite';
  const explained = await db.raw(`${sqlite ? 'explain query plan' : 'explain'} ${sql}`, bindings as Knex.RawBinding[]);
  const rows = (sqlite ? explained : (explained as unknown[])[0]) as Array<Record<string, unknown>>;
  return rows.map((row) =>
    sqlite ? String(row.detail) : `${row.table}: type=${row.type} key=${row.key ?? 'NULL'} rows=${row.rows} ${row.Extra ?? ''}`.trim(),
  );
}

async function medianMs(db: Knex, sql: string, bindings: unknown[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await db.raw(sql, bindings as Knex.RawBinding[]);
    times.push(performance.now() - started);
  }
  return round(times.sort((a, b) => a - b)[2]);
}

/** The statements each slow request runs (captured from a real request on an in-process server), with plans and times. */
async function profile(store: Store, authorization: string, slow: Measurement[]): Promise<Map<string, Statement[]>> {
  const profiles = new Map<string, Statement[]>();
  if (!slow.length) return profiles;
  await inProcess(store, async (runtime) => {
    const server = await runtime.listen();
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const { db } = runtime;
    // The statements timed below can keep the connection idle past the server's keep-alive: a reused socket the server
    // closed meanwhile fails once, so a failed request is sent again.
    const get = (requestPath: string) =>
      fetch(base + requestPath, { headers: { authorization } })
        .catch(() => fetch(base + requestPath, { headers: { authorization } }))
        .then((r) => r.text());
    for (const m of slow) {
      await get(m.path);
      const seen: Array<{ sql: string; bindings: unknown[] }> = [];
      const listener = (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
      db.on('query', listener);
      try {
        await get(m.path);
      } finally {
        db.off('query', listener);
      }
      const statements: Statement[] = [];
      for (const { sql, bindings } of seen) {
        const select = /^\s*select/i.test(sql);
        statements.push({
          sql,
          bindings,
          medianMs: select ? await medianMs(db, sql, bindings) : null,
          plan: select ? await explain(db, store.kind, sql, bindings) : [],
        });
      }
      profiles.set(`${m.endpoint} (${m.range})`, statements);
    }
  });
  return profiles;
}

// ---------------------------------------------------------------------------------------------------------------
// The results file

interface Report {
  kind: DatabaseKind;
  date: string;
  environment: ReturnType<typeof machine> & { databaseVersion: string; loadAverageBefore: number[] };
  code: Awaited<ReturnType<typeof codeVersion>>;
  seeding: Seeding | null;
  prepared: Prepared;
  measurements: Measurement[];
  profiles: Map<string, Statement[]>;
  wallSeconds: number;
}

const n = (value: number) => value.toLocaleString('en-US');

function markdown(report: Report): string {
  const { prepared, environment: env, measurements } = report;
  const { data, dates } = prepared;
  const name = report.kind === 'sqlite' ? 'SQLite' : 'MariaDB';
  const misses = measurements.filter((m) => !m.pass);
  const lines = [
    `# Reports benchmark: ${name}`,
    '',
    `Measured ${report.date} by \`npm run bench:reports\` (\`bench/reports.ts\`) in ${Math.round(report.wallSeconds)} s. ` +
      `Target: p95 < ${TARGET_P95_MS} ms for every endpoint and range. ` +
      (misses.length ? `**${misses.length} of ${measurements.length} runs miss it.**` : `All ${measurements.length} runs meet it.`),
    '',
    '## Machine and code',
    '',
    `- ${env.cpus} × ${env.cpuModel}, ${env.platform}, Node ${env.node}; ${name} ${env.databaseVersion}`,
    `- load average (1, 5, 15 min) before ${env.loadAverageBefore.join(', ')}, after ${env.loadAverage.join(', ')} (the machine is shared)`,
    report.code.commit
      ? `- commit ${report.code.commit}${report.code.changedFiles.length ? ` with ${report.code.changedFiles.length} changed files on top` : ''}`
      : '- commit unknown (built outside the git checkout)',
    '',
    '## Data',
    '',
    `- ${n(data.customers)} customers; ${n(data.orders)} orders (${Object.entries(data.ordersByType)
      .map(([type, count]) => `${n(count)} ${type}`)
      .join(', ')}), ${n(data.orderItems)} order items, ${n(data.orderAddresses)} order addresses`,
    `- ${n(data.counted)} counted orders (report facts) by currency: ${Object.entries(data.currencies)
      .map(([currency, count]) => `${currency} ${n(count)}`)
      .join(', ')}; by mode: ${Object.entries(data.modes)
      .map(([mode, count]) => `${mode} ${n(count)}`)
      .join(', ')}; the default filters (live, ${prepared.currency}) see ${n(data.countedLiveStoreCurrency)}`,
    `- summary rows: ${Object.entries(data.summaryRows)
      .map(([table, count]) => `${table} ${n(count)}`)
      .join(', ')}`,
    `- database size: ${data.databaseBytes === null ? 'unknown' : `${(data.databaseBytes / 1024 ** 3).toFixed(2)} GiB`}`,
    `- dates in ${prepared.timeZone}: first order ${dates.firstOrder}, today ${dates.today}`,
    '',
    '## Seeding',
    '',
    ...(report.seeding
      ? [
          `\`${report.seeding.command}\` in ${report.seeding.wallSeconds} s` +
            (report.seeding.reused ? ` (on ${report.seeding.date.slice(0, 10)}, by an earlier run over the same store; this run reused it):` : ':'),
          '',
          '```',
          ...report.seeding.output,
          '```',
        ]
      : ['An existing store was measured (seeded before this run, not by it).']),
    '',
    '## Method',
    '',
    `The real server (\`node dist/src/main.js\`, ${process.env.BENCH_WORKERS ?? 2} worker processes) on loopback; one caller: ` +
      `per endpoint and range ${WARMUP} warm-up requests, then ${SAMPLES} requests one after another over one keep-alive connection, ` +
      'each timed from sending to the last byte of the body (HTTP Basic with an application password). Percentiles by nearest rank. ' +
      'Ranges: last 30 days = today − 29 … today (daily buckets), last 365 days = today − 364 … today (monthly), all time = the first ' +
      'order date … today (yearly), as `params[startDate]`/`params[endDate]` (`quick-order-stats`: `day_range`; `sales-growth`: ' +
      '`start_date`/`end_date`).' +
      (TIME_ZONE ? ` Every request sends \`user_tz=${TIME_ZONE}\`.` : ''),
    '',
    '## Results (ms)',
    '',
    '| endpoint | range | p50 | p95 | p99 | max | body | result |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...measurements.map(
      (m) =>
        `| ${m.endpoint} | ${m.range === 'none' ? '(no range)' : m.range} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.max} | ${(m.bytes / 1024).toFixed(1)} KiB | ` +
        `${m.problem ? `ERROR: ${m.problem.replace(/\|/g, '\\|').slice(0, 120)}` : m.pass ? 'pass' : '**MISS**'} |`,
    ),
  ];
  if (report.profiles.size) {
    lines.push('', '## What the misses run', '');
    for (const [label, statements] of report.profiles) {
      lines.push(`### ${label}`, '');
      for (const s of statements) {
        lines.push(`- ${s.medianMs === null ? '' : `${s.medianMs} ms: `}\`${s.sql.replace(/\s+/g, ' ').slice(0, 600)}\``);
        if (s.bindings.length) lines.push(`  bindings: \`${JSON.stringify(s.bindings).slice(0, 300)}\``);
        for (const step of s.plan) lines.push(`  - ${step}`);
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// Running

async function benchDatabase(kind: DatabaseKind): Promise<Report> {
  console.log(`\n== ${kind}`);
  const started = Date.now();
  const loadAverageBefore = os.loadavg().map((v) => Math.round(v * 100) / 100);
  const store = await openReportStore(kind);
  let server: Server | null = null;
  try {
    const seeding = await seedStore(store);
    const prepared = await prepare(store);
    console.log(
      `${n(prepared.data.orders)} orders, ${n(prepared.data.counted)} counted; first order ${prepared.dates.firstOrder}, today ${prepared.dates.today} (${prepared.timeZone})`,
    );
    server = await startServer(store);
    const endpoints = ONLY ? ENDPOINTS.filter((e) => ONLY.includes(e.name)) : ENDPOINTS;
    if (!endpoints.length) throw new Error(`BENCH_ENDPOINTS: none of ${ONLY!.join(', ')} (${ENDPOINTS.map((e) => e.name).join(', ')})`);
    const measurements: Measurement[] = [];
    for (const endpoint of endpoints) {
      for (const range of rangesOf(endpoint)) measurements.push(await measure(server, prepared.authorization, endpoint, range, prepared.dates));
    }
    await stopProcess(server.child);
    server = null;
    const profiles = await profile(
      store,
      prepared.authorization,
      measurements.filter((m) => !m.pass && !m.problem),
    );
    return {
      kind,
      date: new Date().toISOString(),
      environment: { ...machine(), databaseVersion: prepared.databaseVersion, loadAverageBefore },
      code: await codeVersion(),
      seeding,
      prepared,
      measurements,
      profiles,
      wallSeconds: (Date.now() - started) / 1000,
    };
  } finally {
    if (server) await stopProcess(server.child);
    await store.close();
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  let pass = true;
  for (const kind of DATABASES) {
    if (kind !== 'sqlite' && kind !== 'mariadb') throw new Error(`BENCH_DATABASES: unknown database "${kind}" (sqlite, mariadb)`);
    const report = await benchDatabase(kind);
    const file = path.join(RESULTS_DIR, `reports-${kind}.md`);
    fs.writeFileSync(file, markdown(report));
    const misses = report.measurements.filter((m) => !m.pass);
    console.log(
      `${kind}: ${report.measurements.length - misses.length} of ${report.measurements.length} runs meet p95 < ${TARGET_P95_MS} ms; written ${path.relative(process.cwd(), file)}`,
    );
    pass &&= misses.length === 0;
  }
  if (!pass) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
