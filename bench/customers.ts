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
 * For each database: a fresh store (SQLite file in a temporary DATA_DIR; MariaDB started with
 * `MARIADB_STATE=/tmp/bench-mariadb.state scripts/mariadb.sh`, stopped at the end), seeded with the real CLI command
 * (`node dist/src/host/cli.js seed --scale N`, timed), an administrator with an application password, then the real
 * server (`node dist/src/main.js`) in its own process on a free loopback port, so autocannon here does not take the
 * server's CPU. Requests use HTTP Basic with the application password, as an integration would.
 *
 * Rate limits: API callers are held to the spec's hourly request classes (list: 100 per user per hour), which would
 * turn nearly every benchmark request into a 429. The budget is a setting, the `hourly_request_limits` option, so the
 * benchmark store sets `{list: 1e9}` before the server starts: every request is still counted (the limiter's write
 * stays in the measured path), none is refused. Throughput counts 2xx answers only; non-2xx answers are reported
 * and make the run invalid.
 *
 * Each measured run: a 2 s warm-up, then 16 connections for 10 s. The three endpoints are measured in alternating
 * order over `BENCH_ROUNDS` rounds (default 3) and each endpoint's median round is reported. Besides req/s and
 * latency it records the server's and (MariaDB) the database server's CPU time per request (from /proc), and, before
 * the load, the SQL statements each request runs with their plans (EXPLAIN [QUERY PLAN]) and single-run times.
 * Writes `bench/results/customers-<database>.json`; exits 1 when a target is missed or a run is invalid.
 *
 * Environment: `BENCH_DATABASES` (default `sqlite,mariadb`), `BENCH_SCALE` (customers, default 100000),
 * `BENCH_SECONDS` (measured seconds, default 10), `BENCH_ROUNDS` (default 3), `BENCH_WORKERS` (server processes, default 2), `BENCH_NODE_ARGS` (for the server
 * process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), `BENCH_SERVER_ENV` (`'NAME=value …'` for the server process),
 * `BENCH_KEEP=1` keeps the SQLite data dir for a look after.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import { findPackageRoot } from '../src/host/paths';

const run = promisify(execFile);

const CONNECTIONS = 16;
const WARMUP_SECONDS = 2;
const DURATION_SECONDS = positive(process.env.BENCH_SECONDS, 10);
const ROUNDS = positive(process.env.BENCH_ROUNDS, 3);
const SCALE = positive(process.env.BENCH_SCALE, 100_000);
/** Server processes (`WORKERS`): one per core of this 2-core machine, as the README recommends for production. */
const WORKERS = positive(process.env.BENCH_WORKERS, 2);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim()) as DatabaseKind[];
const MARIADB_STATE = '/tmp/bench-mariadb.state';
const READY_TIMEOUT_MS = 60_000;
/** The hourly list budget of the benchmark store (the `hourly_request_limits` setting; the spec's default is 100). */
const BENCH_LIST_LIMIT = 1_000_000_000;
const API = '/wp-json/store/v2';
const ROOT = findPackageRoot(__dirname);
const DIST = path.resolve(__dirname, '..');

type DatabaseKind = 'sqlite' | 'mariadb';
type EndpointName = 'list' | 'search' | 'detail';

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

interface Target {
  requestsPerSecond: number;
  p99Ms: number;
}

const TARGETS: Record<EndpointName, Target> = {
  list: { requestsPerSecond: 1500, p99Ms: 50 },
  search: { requestsPerSecond: 100, p99Ms: 150 },
  detail: { requestsPerSecond: 1500, p99Ms: 50 },
};

interface Endpoint {
  name: EndpointName;
  path: string;
  /** What the answer must look like before the load (fails loudly instead of measuring errors fast). */
  check(body: unknown): string | null;
}

export interface RunResult {
  endpoint: EndpointName;
  round: number;
  /** 2xx answers per second over the measured run (non-2xx answers are not counted). */
  requestsPerSecond: number;
  requests2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyMs: { average: number; p50: number; p90: number; p99: number; max: number };
  /** CPU time (user + system) per 2xx answer, microseconds: the Node server, and the database server (MariaDB). */
  serverCpuMicrosPerRequest: number | null;
  databaseCpuMicrosPerRequest: number | null;
}

export interface QueryProfile {
  endpoint: EndpointName;
  sql: string;
  bindings: unknown[];
  /** Median of 15 runs on an idle database, milliseconds (selects only). */
  medianMs: number | null;
  plan: string[];
}

export interface EndpointReport {
  endpoint: EndpointName;
  path: string;
  target: Target;
  median: RunResult;
  pass: boolean;
}

export interface CustomersReport {
  benchmark: 'customers';
  database: DatabaseKind;
  date: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string; loadAverage: number[]; databaseVersion: string };
  /** The code measured: the commit, and the files changed on top of it (results files aside). */
  code: { commit: string | null; changedFiles: string[] };
  settings: {
    connections: number;
    warmupSeconds: number;
    durationSeconds: number;
    rounds: number;
    customers: number;
    hourlyListLimit: number;
    workers: number;
  };
  seeding: { command: string; wallSeconds: number; output: string[] };
  data: { customers: number; addresses: number; searchTerm: string; searchMatches: number; detailId: number };
  endpoints: EndpointReport[];
  pass: boolean;
  /** Why the run does not count, when a run saw errors or non-2xx answers. */
  invalid: string | null;
  queries: QueryProfile[];
  rounds: RunResult[];
}

// ---------------------------------------------------------------------------------------------------------------
// Processes

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** CPU time (user + system) of one process so far, microseconds, from /proc (Linux); null elsewhere or when gone. */
function processCpuMicros(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after "pid (comm) state".
    return ((Number(fields[11]) + Number(fields[12])) / 100) * 1_000_000;
  } catch {
    return null;
  }
}

/** CPU time of a process and its children (the cluster's workers), microseconds; null when unknown. */
function cpuMicros(pid: number | undefined): number | null {
  if (!pid) return null;
  const own = processCpuMicros(pid);
  if (own === null) return null;
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return children.reduce((sum, child) => sum + (processCpuMicros(child) ?? 0), own);
}

interface Store {
  kind: DatabaseKind;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  databasePid?: number;
  close(): Promise<void>;
}

async function openStore(kind: DatabaseKind): Promise<Store> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `store-bench-customers-${kind}-`));
  const removeDir = () => {
    if (process.env.BENCH_KEEP && kind === 'sqlite') console.log(`kept ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  };
  // An explicit environment: never a DATABASE_URL or PORT inherited from the shell.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: 'warn', STORE_SECRET: 'bench-secret' };
  if (kind === 'sqlite') return { kind, env, dataDir, close: async () => removeDir() };

  const script = path.join(ROOT, 'scripts', 'mariadb.sh');
  const scriptEnv = { ...process.env, MARIADB_STATE };
  process.stdout.write('starting MariaDB … ');
  const { stdout } = await run('bash', [script], { env: scriptEnv });
  const url = stdout.trim().split('\n').pop()!;
  const state = fs.readFileSync(MARIADB_STATE, 'utf8');
  const pid = Number(/^pid=(\d+)$/m.exec(state)?.[1]);
  console.log(`pid ${pid}`);
  return {
    kind,
    env: { ...env, DATABASE_URL: url },
    dataDir,
    databasePid: pid,
    async close() {
      await run('bash', [script, 'stop'], { env: scriptEnv }).catch((error: unknown) => console.error('could not stop MariaDB:', error));
      removeDir();
    },
  };
}

async function seed(store: Store): Promise<CustomersReport['seeding']> {
  const args = [path.join(DIST, 'src', 'host', 'cli.js'), 'seed', '--scale', String(SCALE)];
  process.stdout.write(`seeding ${SCALE.toLocaleString('en-US')} customers: node dist/src/host/cli.js seed --scale ${SCALE} … `);
  const started = Date.now();
  const { stdout } = await run(process.execPath, args, { env: store.env, maxBuffer: 16 * 1024 * 1024 });
  const wallSeconds = (Date.now() - started) / 1000;
  const output = stdout.trim().split('\n');
  console.log(`${wallSeconds.toFixed(1)} s\n  ${output.join('\n  ')}`);
  return { command: `npm run cli -- seed --scale ${SCALE}`, wallSeconds: Math.round(wallSeconds * 10) / 10, output };
}

/** `BENCH_SERVER_ENV='NAME=value …'`: extra environment for the server process (e.g. `LOG_LEVEL=info`). */
function serverEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVER_ENV ?? '').split(' ').filter((p) => p.includes('='));
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

interface Server {
  child: ChildProcess;
  base: string;
  stderr: string[];
}

async function startServer(store: Store): Promise<Server> {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(DIST, 'src', 'main.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...store.env, WORKERS: String(WORKERS), ...serverEnv(), PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
  });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`the server did not start within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    const onExit = (code: number | null) => fail(new Error(`the server exited with code ${code} before it was ready`));
    const onData = (chunk: string) => {
      out += chunk;
      if (!/Store is listening on/.test(out)) return;
      clearTimeout(timer);
      // Only this function's listeners go: later output (e.g. at shutdown) must not touch stopServer's.
      child.off('exit', onExit);
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve({ child, base: `http://127.0.0.1:${port}`, stderr });
    };
    function fail(error: Error) {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(new Error(`${error.message}\n${stderr.join('')}`));
    }
    child.once('exit', onExit);
    child.stdout!.setEncoding('utf8').on('data', onData);
  });
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve();
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
    server.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    server.child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The benchmark store: caller, setting, test data, query plans

interface Prepared {
  authorization: string;
  endpoints: Endpoint[];
  data: CustomersReport['data'];
  databaseVersion: string;
}

const count = async (db: Knex, table: string) => Number(((await db(table).count({ n: '*' }).first()) as { n: number | string }).n);

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

async function prepare(store: Store): Promise<Prepared> {
  const runtime = await boot({ ...readConfig(store.env), logLevel: 'warn' });
  try {
    const { db, host } = runtime;
    const user = await host.users.create({ login: 'bench-admin', email: 'bench-admin@example.com', roles: ['administrator'] });
    const { password } = await host.users.appPasswords.create(user.id, 'bench');
    await host.options.set('hourly_request_limits', { list: BENCH_LIST_LIMIT });

    const customers = await count(db, 'store_customers');
    const addresses = await count(db, 'store_customer_addresses');
    const search = await searchTerm(db);
    const middle = (await db('store_customers')
      .orderBy('id')
      .offset(Math.floor(customers / 2))
      .first('id')) as { id: number };
    const detailId = Number(middle.id);
    const version = (await db.raw('select ' + (store.kind === 'sqlite' ? 'sqlite_version()' : 'version()') + ' as v')) as unknown;
    const databaseVersion = String((Array.isArray(version) && Array.isArray(version[0]) ? version[0][0] : (version as Array<{ v: string }>)[0])?.v ?? '');

    const endpoints: Endpoint[] = [
      {
        name: 'list',
        path: `${API}/customers?per_page=10`,
        check: (body) => {
          const page = (body as { customers?: { data?: unknown[]; total?: number } }).customers;
          return page?.data?.length === 10 && page.total === customers ? null : `expected 10 of ${customers} customers`;
        },
      },
      {
        name: 'search',
        path: `${API}/customers?search=${encodeURIComponent(search.term)}`,
        check: (body) => {
          const page = (body as { customers?: { data?: Array<{ email: string }>; total?: number } }).customers;
          if (page?.total !== search.matches) return `expected ${search.matches} matches`;
          return page.data!.every((c) => c.email.includes(search.term)) ? null : 'an answer does not contain the fragment';
        },
      },
      {
        name: 'detail',
        path: `${API}/customers/${detailId}?with[]=billing_address`,
        check: (body) => {
          const customer = (body as { customer?: { id?: number; billing_address?: Array<{ is_primary: number; type: string }> } }).customer;
          if (customer?.id !== detailId) return `expected customer ${detailId}`;
          const billing = customer.billing_address ?? [];
          return billing.length === 1 && billing[0].type === 'billing' && billing[0].is_primary === 1 ? null : 'expected one primary billing address';
        },
      },
    ];
    return {
      authorization: `Basic ${Buffer.from(`${user.login}:${password}`).toString('base64')}`,
      endpoints,
      data: { customers, addresses, searchTerm: search.term, searchMatches: search.matches, detailId },
      databaseVersion,
    };
  } finally {
    await runtime.close();
  }
}

/**
 * The SQL each endpoint runs, captured from a real request on an in-process server over the seeded store, with the
 * plan of each statement and its time alone (median of 15 runs). Statements other than selects (the rate limiter's
 * upsert) are listed without plan or time.
 */
async function profileQueries(store: Store, prepared: Prepared): Promise<QueryProfile[]> {
  const runtime = await boot({ ...readConfig({ ...store.env, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
  const profiles: QueryProfile[] = [];
  try {
    const server = await runtime.listen();
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const { db } = runtime;
    const sqlite = store.kind === 'sqlite';
    for (const endpoint of prepared.endpoints) {
      const get = () => fetch(base + endpoint.path, { headers: { authorization: prepared.authorization } }).then((r) => r.text());
      await get();
      const seen: Array<{ sql: string; bindings: unknown[] }> = [];
      const listener = (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
      db.on('query', listener);
      await get();
      db.off('query', listener);
      for (const { sql, bindings } of seen) {
        const isSelect = /^\s*select/i.test(sql);
        let plan: string[] = [];
        let medianMs: number | null = null;
        if (isSelect) {
          const explained = await db.raw(`${sqlite ? 'explain query plan' : 'explain'} ${sql}`, bindings as Knex.RawBinding[]);
          const rows = (sqlite ? explained : (explained as unknown[])[0]) as Array<Record<string, unknown>>;
          plan = rows.map((row) =>
            sqlite ? String(row.detail) : `${row.table}: type=${row.type} key=${row.key ?? 'NULL'} rows=${row.rows} ${row.Extra ?? ''}`.trim(),
          );
          const times: number[] = [];
          for (let i = 0; i < 15; i++) {
            const t0 = performance.now();
            await db.raw(sql, bindings as Knex.RawBinding[]);
            times.push(performance.now() - t0);
          }
          times.sort((a, b) => a - b);
          medianMs = Math.round(times[7] * 1000) / 1000;
        }
        profiles.push({ endpoint: endpoint.name, sql, bindings, medianMs, plan });
      }
    }
  } finally {
    await runtime.close();
  }
  return profiles;
}

// ---------------------------------------------------------------------------------------------------------------
// Load

async function checkAnswer(server: Server, prepared: Prepared, endpoint: Endpoint): Promise<void> {
  const response = await fetch(server.base + endpoint.path, { headers: { authorization: prepared.authorization } });
  const text = await response.text();
  let problem: string | null = response.status === 200 ? null : `status ${response.status}`;
  if (!problem) {
    try {
      problem = endpoint.check(JSON.parse(text));
    } catch (error) {
      problem = (error as Error).message;
    }
  }
  if (problem) throw new Error(`${endpoint.name} (${endpoint.path}): ${problem}; answer: ${text.slice(0, 300)}`);
}

function load(server: Server, prepared: Prepared, endpoint: Endpoint, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url: server.base + endpoint.path, connections: CONNECTIONS, duration: seconds, headers: { authorization: prepared.authorization } });
}

async function measure(server: Server, store: Store, prepared: Prepared, endpoint: Endpoint, round: number): Promise<RunResult> {
  process.stdout.write(`round ${round}/${ROUNDS} ${endpoint.name.padEnd(6)}: warm-up ${WARMUP_SECONDS} s, measuring ${DURATION_SECONDS} s … `);
  await load(server, prepared, endpoint, WARMUP_SECONDS);
  const serverBefore = cpuMicros(server.child.pid);
  const dbBefore = cpuMicros(store.databasePid);
  const result = await load(server, prepared, endpoint, DURATION_SECONDS);
  const serverAfter = cpuMicros(server.child.pid);
  const dbAfter = cpuMicros(store.databasePid);
  const ok = result['2xx'];
  const perRequest = (before: number | null, after: number | null) => (before !== null && after !== null && ok > 0 ? Math.round((after - before) / ok) : null);
  const runResult: RunResult = {
    endpoint: endpoint.name,
    round,
    requestsPerSecond: Math.round((ok / result.duration) * 10) / 10,
    requests2xx: ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyMs: { average: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    serverCpuMicrosPerRequest: perRequest(serverBefore, serverAfter),
    databaseCpuMicrosPerRequest: perRequest(dbBefore, dbAfter),
  };
  console.log(
    `${runResult.requestsPerSecond.toFixed(0)} req/s, p50 ${runResult.latencyMs.p50} ms, p99 ${runResult.latencyMs.p99} ms` +
      (runResult.non2xx ? `, ${runResult.non2xx} non-2xx` : ''),
  );
  return runResult;
}

/** The run with the median throughput (the lower middle one for an even count). */
function median(runs: RunResult[]): RunResult {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function codeVersion(): Promise<CustomersReport['code']> {
  try {
    const commit = (await run('git', ['rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim();
    const status = (await run('git', ['status', '--porcelain'], { cwd: ROOT })).stdout.split('\n');
    const changedFiles = status.map((line) => line.slice(3).trim()).filter((file) => file && !file.startsWith('bench/results/'));
    return { commit, changedFiles };
  } catch {
    return { commit: null, changedFiles: [] };
  }
}

async function benchDatabase(kind: DatabaseKind): Promise<CustomersReport> {
  console.log(`\n== ${kind}`);
  const store = await openStore(kind);
  let server: Server | null = null;
  try {
    const seeding = await seed(store);
    const prepared = await prepare(store);
    console.log(
      `search term "${prepared.data.searchTerm}" (${prepared.data.searchMatches} matches), detail id ${prepared.data.detailId}; ` +
        `hourly_request_limits = {list: ${BENCH_LIST_LIMIT.toExponential()}}`,
    );
    const queries = await profileQueries(store, prepared);
    server = await startServer(store);
    for (const endpoint of prepared.endpoints) await checkAnswer(server, prepared, endpoint);

    const rounds: RunResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? prepared.endpoints : [...prepared.endpoints].reverse();
      for (const endpoint of order) rounds.push(await measure(server, store, prepared, endpoint, round));
    }

    const endpoints = prepared.endpoints.map((endpoint): EndpointReport => {
      const best = median(rounds.filter((r) => r.endpoint === endpoint.name));
      const target = TARGETS[endpoint.name];
      return {
        endpoint: endpoint.name,
        path: endpoint.path,
        target,
        median: best,
        pass: best.requestsPerSecond >= target.requestsPerSecond && best.latencyMs.p99 < target.p99Ms,
      };
    });
    const problems = rounds
      .filter((r) => r.non2xx || r.errors || r.timeouts)
      .map((r) => `round ${r.round} ${r.endpoint}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    const invalid = problems.length ? problems.join('; ') : null;
    const cpus = os.cpus();
    return {
      benchmark: 'customers',
      database: kind,
      date: new Date().toISOString(),
      environment: {
        node: process.version,
        platform: `${os.platform()} ${os.arch()}`,
        cpus: cpus.length,
        cpuModel: cpus[0]?.model ?? 'unknown',
        loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
        databaseVersion: prepared.databaseVersion,
      },
      code: await codeVersion(),
      settings: {
        connections: CONNECTIONS,
        warmupSeconds: WARMUP_SECONDS,
        durationSeconds: DURATION_SECONDS,
        rounds: ROUNDS,
        customers: SCALE,
        hourlyListLimit: BENCH_LIST_LIMIT,
        workers: WORKERS,
      },
      seeding,
      data: prepared.data,
      endpoints,
      pass: !invalid && endpoints.every((e) => e.pass),
      invalid,
      queries,
      rounds,
    };
  } finally {
    if (server) await stopServer(server);
    await store.close();
  }
}

function table(report: CustomersReport): string[] {
  const cpu = (n: number | null) => (n === null ? '    -' : String(n).padStart(5));
  const lines = [
    `${report.database}: ${report.data.customers.toLocaleString('en-US')} customers, ${report.data.addresses.toLocaleString('en-US')} addresses; ` +
      `seeded in ${report.seeding.wallSeconds} s (median of ${ROUNDS} round(s))`,
    '  endpoint   req/s (2xx)   p50 ms   p99 ms   non2xx   server µs/req   db µs/req   target                 result',
  ];
  for (const e of report.endpoints) {
    const m = e.median;
    lines.push(
      `  ${e.endpoint.padEnd(8)} ${m.requestsPerSecond.toFixed(0).padStart(11)} ${String(m.latencyMs.p50).padStart(8)} ${String(m.latencyMs.p99).padStart(8)} ` +
        `${String(m.non2xx).padStart(8)} ${cpu(m.serverCpuMicrosPerRequest).padStart(15)} ${cpu(m.databaseCpuMicrosPerRequest).padStart(11)}   ` +
        `≥ ${e.target.requestsPerSecond} req/s, p99 < ${e.target.p99Ms} ms`.padEnd(22) +
        `   ${e.pass ? 'PASS' : 'FAIL'}`,
    );
  }
  if (report.invalid) lines.push(`  run invalid: ${report.invalid}`);
  return lines;
}

async function main(): Promise<void> {
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const summary: string[] = [];
  let pass = true;
  for (const kind of DATABASES) {
    if (kind !== 'sqlite' && kind !== 'mariadb') throw new Error(`BENCH_DATABASES: unknown database "${kind as string}" (sqlite, mariadb)`);
    const report = await benchDatabase(kind);
    const file = path.join(dir, `customers-${kind}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    summary.push('', ...table(report), `  written: ${path.relative(process.cwd(), file) || file}`);
    pass &&= report.pass;
  }
  console.log(summary.join('\n'));
  if (!pass) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
