/**
 * What the store's load benchmarks (`bench/customers.ts`, `bench/orders.ts`) share. A benchmark names its seeding,
 * its endpoints (request, answer check, target, connections) and its data (`Benchmark`); `runBenchmark` does the rest,
 * for each database in turn:
 *
 * - a fresh store: SQLite in a temporary DATA_DIR, or a throwaway MariaDB started with `scripts/mariadb.sh` under the
 *   benchmark's own `MARIADB_STATE` and stopped at the end;
 * - seeded with the real CLI command (`node dist/src/host/cli.js seed --scale N` plus the benchmark's flags, timed);
 * - an administrator with an application password; requests use HTTP Basic with it, as an integration would;
 * - before the load, on an in-process server over the seeded store: the benchmark's own preparation (settings, test
 *   data, API calls), then the SQL statements each request runs with their plans (EXPLAIN [QUERY PLAN]) and, for
 *   selects, their single-run times;
 * - the real server (`node dist/src/main.js`, `WORKERS` processes) in its own process on a free loopback port, so
 *   autocannon here does not take the server's CPU; each endpoint's answer is checked once before the load;
 * - each measured run: a 2 s warm-up, then the endpoint's connections (16 unless it says otherwise) for 10 s. The
 *   endpoints are measured in alternating order over `BENCH_ROUNDS` rounds and each endpoint's median round is
 *   reported. Besides req/s and latency it records the server's and (MariaDB) the database server's CPU time per
 *   request, from /proc. Throughput counts 2xx answers only; any non-2xx answer, error or timeout makes the run
 *   invalid.
 *
 * Writes `bench/results/<benchmark>-<database>.json`, prints a table, and sets exit code 1 when a target is missed or
 * a run is invalid.
 *
 * Environment: `BENCH_DATABASES` (default `sqlite,mariadb`), `BENCH_SCALE` (`seed --scale N`, default 100000),
 * `BENCH_SECONDS` (measured seconds, default 10), `BENCH_ROUNDS` (default 3), `BENCH_WORKERS` (server processes,
 * default 2), `BENCH_NODE_ARGS` (for the server process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`),
 * `BENCH_SERVER_ENV` (`'NAME=value …'` for the server process), `BENCH_SERVER_LOG` (a file the server's output is
 * appended to, e.g. to read why answers were 500), `BENCH_KEEP=1` keeps the SQLite data dir for a look
 * after, `BENCH_RESULTS_DIR` writes the results elsewhere than `bench/results` (e.g. for trial runs),
 * `BENCH_ENDPOINTS` (names, e.g. `detail`) measures only those endpoints (e.g. to profile one).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import type { HostRuntime } from '../src/host/app';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import { findPackageRoot } from '../src/host/paths';

const run = promisify(execFile);

const CONNECTIONS = 16;
const WARMUP_SECONDS = 2;
const DURATION_SECONDS = positive(process.env.BENCH_SECONDS, 10);
const ROUNDS = positive(process.env.BENCH_ROUNDS, 3);
/** `seed --scale N`: N customers (and, since issue 5, 10×N orders). */
export const SCALE = positive(process.env.BENCH_SCALE, 100_000);
/** Server processes (`WORKERS`): one per core of this 2-core machine, as the README recommends for production. */
const WORKERS = positive(process.env.BENCH_WORKERS, 2);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim()) as DatabaseKind[];
const ONLY = process.env.BENCH_ENDPOINTS?.split(',').map((name) => name.trim());
const READY_TIMEOUT_MS = 60_000;
export const API = '/wp-json/store/v2';
const ROOT = findPackageRoot(__dirname);
const DIST = path.resolve(__dirname, '..');
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(ROOT, 'bench', 'results');

export type DatabaseKind = 'sqlite' | 'mariadb';

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** What an endpoint's median round must reach; every bound given must hold. */
export interface Target {
  requestsPerSecond?: number;
  p50Ms?: number;
  p99Ms?: number;
}

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /** Headers of this request besides the caller's authorization (e.g. a shopper's cookie). */
  headers?: Record<string, string>;
}

export interface Endpoint {
  name: string;
  /** The path reported; for an endpoint whose requests differ (`next`), a template such as `/orders/{id}`. */
  path: string;
  target: Target;
  /** Requests go without the bench admin's credentials, as a shopper's would (public routes). */
  anonymous?: boolean;
  /** The `Authorization` header of the requests instead of the bench admin's (e.g. a logged-in customer's, for portal routes). */
  authorization?: string;
  /** Concurrent connections of the load (default 16); 1 measures a single caller's latency. */
  connections?: number;
  /** The next request, for endpoints that must not repeat one (each write on another order); default: GET `path`. */
  next?: () => BenchRequest;
  /** What the answer must look like before the load (fails loudly instead of measuring errors fast). */
  check(body: unknown): string | null;
  /** Also profile the statements only the first request runs (a count cached afterwards). */
  profileFirstRequest?: boolean;
  /** Why the load so far does not count although every answer was 2xx (e.g. a list of ids ran out). */
  problem?: () => string | null;
}

export interface RunResult {
  endpoint: string;
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
  endpoint: string;
  sql: string;
  bindings: unknown[];
  /** Median of 15 runs on an idle database, milliseconds (selects only). */
  medianMs: number | null;
  plan: string[];
}

export interface EndpointReport {
  endpoint: string;
  path: string;
  target: Target;
  median: RunResult;
  pass: boolean;
}

export interface BenchReport<Data, Settings> {
  benchmark: string;
  database: DatabaseKind;
  date: string;
  environment: ReturnType<typeof machine> & { databaseVersion: string };
  /** The code measured: the commit, and the files changed on top of it (results files aside). */
  code: { commit: string | null; changedFiles: string[] };
  settings: { connections: number; warmupSeconds: number; durationSeconds: number; rounds: number } & Settings & { workers: number };
  seeding: { command: string; wallSeconds: number; output: string[] };
  data: Data;
  endpoints: EndpointReport[];
  pass: boolean;
  /** Why the run does not count, when a run saw errors or non-2xx answers. */
  invalid: string | null;
  queries: QueryProfile[];
  rounds: RunResult[];
  verification: Verification | null;
}

/** The seeded store as a benchmark's preparation sees it: an in-process runtime, and the API as the bench admin. */
export interface BenchStore {
  kind: DatabaseKind;
  runtime: HostRuntime;
  api(request: BenchRequest): Promise<{ status: number; body: unknown }>;
}

export interface Prepared<Data> {
  endpoints: Endpoint[];
  data: Data;
  /** One line on what was chosen (search terms, ids, settings), printed before the load. */
  note: string;
}

export interface Benchmark<Data, Settings> {
  /** `customers`, `orders`: names the results file and the temporary data dirs. */
  name: string;
  /** `MARIADB_STATE` of its throwaway MariaDB, so it never stops another benchmark's or the tests' server. */
  mariadbState: string;
  /** What `seed --scale N` writes, for the progress line (`2,000 customers`). */
  seeds: string;
  /** Flags added to `seed --scale N` (the customers benchmark: `--customers-only`). */
  seedFlags?: string[];
  /** Settings of this benchmark recorded in the results (scale, limits). */
  settings: Settings;
  prepare(store: BenchStore): Promise<Prepared<Data>>;
  /** The table's first words on the data (`2,000 customers, 4,000 addresses`). */
  summary(data: Data): string;
  /** After the load, checks what the writes left in the database; any problem makes the run fail. */
  verify?(db: Knex, data: Data): Promise<Verification>;
}

/** What `verify` found: figures for the results file, and every inconsistency. */
export interface Verification {
  facts: Record<string, number | string>;
  problems: string[];
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
export function cpuMicros(pid: number | undefined): number | null {
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

export interface Store {
  kind: DatabaseKind;
  env: NodeJS.ProcessEnv;
  dataDir: string;
  databasePid?: number;
  close(): Promise<void>;
}

export async function openStore(kind: DatabaseKind, benchmark: { name: string; mariadbState: string }): Promise<Store> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `store-bench-${benchmark.name}-${kind}-`));
  const removeDir = () => {
    if (process.env.BENCH_KEEP && kind === 'sqlite') console.log(`kept ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  };
  // An explicit environment: never a DATABASE_URL or PORT inherited from the shell.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: 'warn', STORE_SECRET: 'bench-secret' };
  if (kind === 'sqlite') return { kind, env, dataDir, close: async () => removeDir() };

  const script = path.join(ROOT, 'scripts', 'mariadb.sh');
  const scriptEnv = { ...process.env, MARIADB_STATE: benchmark.mariadbState };
  process.stdout.write('starting MariaDB … ');
  const { stdout } = await run('bash', [script], { env: scriptEnv });
  const url = stdout.trim().split('\n').pop()!;
  const state = fs.readFileSync(benchmark.mariadbState, 'utf8');
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

async function seed(store: Store, seeds: string, flags: string[]): Promise<BenchReport<unknown, object>['seeding']> {
  const command = ['seed', '--scale', String(SCALE), ...flags];
  const args = [path.join(DIST, 'src', 'host', 'cli.js'), ...command];
  process.stdout.write(`seeding ${seeds}: node dist/src/host/cli.js ${command.join(' ')} … `);
  const started = Date.now();
  const { stdout } = await run(process.execPath, args, { env: store.env, maxBuffer: 16 * 1024 * 1024 });
  const wallSeconds = (Date.now() - started) / 1000;
  const output = stdout.trim().split('\n');
  console.log(`${wallSeconds.toFixed(1)} s\n  ${output.join('\n  ')}`);
  return { command: `npm run cli -- ${command.join(' ')}`, wallSeconds: Math.round(wallSeconds * 10) / 10, output };
}

/** `BENCH_SERVER_ENV='NAME=value …'`: extra environment for the server process (e.g. `LOG_LEVEL=info`). */
function serverEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVER_ENV ?? '').split(' ').filter((p) => p.includes('='));
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

export interface Server {
  child: ChildProcess;
  base: string;
  stderr: string[];
}

export async function startServer(store: Store): Promise<Server> {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(DIST, 'src', 'main.js')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...store.env, WORKERS: String(WORKERS), ...serverEnv(), PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production' },
  });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  if (process.env.BENCH_SERVER_LOG) {
    const log = fs.createWriteStream(process.env.BENCH_SERVER_LOG, { flags: 'a' });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  }
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

/** Ends a server process: SIGTERM, then SIGKILL after 10 s. */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

function requestOf(endpoint: Endpoint): BenchRequest {
  return endpoint.next ? endpoint.next() : { method: 'GET', path: endpoint.path };
}

/** The bench admin's credentials (or the endpoint's own), unless the endpoint is called anonymously. */
const credentials = (authorization: string, endpoint?: Endpoint): Record<string, string> =>
  endpoint?.anonymous ? {} : { authorization: endpoint?.authorization ?? authorization };

function send(base: string, authorization: string, request: BenchRequest, endpoint?: Endpoint): Promise<Response> {
  const json = request.body !== undefined;
  return fetch(base + request.path, {
    method: request.method,
    headers: { ...credentials(authorization, endpoint), ...request.headers, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify(request.body) : undefined,
  });
}

async function answerOf(response: Response): Promise<{ status: number; body: unknown }> {
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The benchmark store: caller, preparation, query plans

export const count = async (db: Knex, table: string) => Number(((await db(table).count({ n: '*' }).first()) as { n: number | string }).n);

export async function databaseVersion(db: Knex, kind: DatabaseKind): Promise<string> {
  const version = (await db.raw('select ' + (kind === 'sqlite' ? 'sqlite_version()' : 'version()') + ' as v')) as unknown;
  return String((Array.isArray(version) && Array.isArray(version[0]) ? version[0][0] : (version as Array<{ v: string }>)[0])?.v ?? '');
}

async function explain(db: Knex, kind: DatabaseKind, sql: string, bindings: unknown[]): Promise<string[]> {
  const sqlite = kind === 'sqlite';
  const explained = await db.raw(`${sqlite ? 'explain query plan' : 'explain'} ${sql}`, bindings as Knex.RawBinding[]);
  const rows = (sqlite ? explained : (explained as unknown[])[0]) as Array<Record<string, unknown>>;
  return rows.map((row) =>
    sqlite ? String(row.detail) : `${row.table}: type=${row.type} key=${row.key ?? 'NULL'} rows=${row.rows} ${row.Extra ?? ''}`.trim(),
  );
}

async function medianRunMs(db: Knex, sql: string, bindings: unknown[]): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    await db.raw(sql, bindings as Knex.RawBinding[]);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[7] * 1000) / 1000;
}

/** The statements one request runs, as knex sends them. */
async function statementsOf(db: Knex, send: () => Promise<Response>): Promise<Array<{ sql: string; bindings: unknown[] }>> {
  const seen: Array<{ sql: string; bindings: unknown[] }> = [];
  const listener = (q: { sql: string; bindings?: unknown[] }) => seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', listener);
  try {
    await send().then((r) => r.text());
  } finally {
    db.off('query', listener);
  }
  return seen;
}

/**
 * The SQL each endpoint runs, captured from a real request (the second one; the first warms the caches), with the
 * plan of each select, update and delete, and the time of each select alone (median of 15 runs). Other statements
 * (inserts, transaction control) are listed without plan or time. For an endpoint with `profileFirstRequest`, the
 * statements only the first request ran (e.g. a list's count, cached afterwards) are listed too, as `<name> (cold)`.
 */
async function profileQueries(
  runtime: HostRuntime,
  kind: DatabaseKind,
  call: (request: BenchRequest, endpoint: Endpoint) => Promise<Response>,
  endpoints: Endpoint[],
) {
  const profiles: QueryProfile[] = [];
  const { db } = runtime;
  for (const endpoint of endpoints) {
    const first = await statementsOf(db, () => call(requestOf(endpoint), endpoint));
    const second = await statementsOf(db, () => call(requestOf(endpoint), endpoint));
    const again = new Set(second.map((q) => q.sql));
    const cold = endpoint.profileFirstRequest ? first.filter((q) => !again.has(q.sql)).map((q) => ({ ...q, name: `${endpoint.name} (cold)` })) : [];
    for (const { sql, bindings, name } of [...cold, ...second.map((q) => ({ ...q, name: endpoint.name }))]) {
      const isSelect = /^\s*select/i.test(sql);
      const plan = /^\s*(select|update|delete)/i.test(sql) ? await explain(db, kind, sql, bindings) : [];
      const medianMs = isSelect ? await medianRunMs(db, sql, bindings) : null;
      profiles.push({ endpoint: name, sql, bindings, medianMs, plan });
    }
  }
  return profiles;
}

interface Ready<Data> extends Prepared<Data> {
  authorization: string;
  databaseVersion: string;
  queries: QueryProfile[];
}

/** The bench admin, the benchmark's preparation and the query profiles, on an in-process server over the seeded store. */
async function prepareStore<Data>(store: Store, benchmark: Benchmark<Data, object>): Promise<Ready<Data>> {
  const runtime = await boot({ ...readConfig({ ...store.env, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
  try {
    const { host } = runtime;
    const user = await host.users.create({ login: 'bench-admin', email: 'bench-admin@example.com', roles: ['administrator'] });
    const { password } = await host.users.appPasswords.create(user.id, 'bench');
    const authorization = `Basic ${Buffer.from(`${user.login}:${password}`).toString('base64')}`;
    const server = await runtime.listen();
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const call = (request: BenchRequest, endpoint?: Endpoint) => send(base, authorization, request, endpoint);
    const all = await benchmark.prepare({ kind: store.kind, runtime, api: (request) => call(request).then(answerOf) });
    const prepared = ONLY ? { ...all, endpoints: all.endpoints.filter((e) => ONLY.includes(e.name)) } : all;
    if (!prepared.endpoints.length) throw new Error(`BENCH_ENDPOINTS: none of ${ONLY!.join(', ')} (${all.endpoints.map((e) => e.name).join(', ')})`);
    console.log(prepared.note);
    const queries = await profileQueries(runtime, store.kind, call, prepared.endpoints);
    return { ...prepared, authorization, databaseVersion: await databaseVersion(runtime.db, store.kind), queries };
  } finally {
    await runtime.close();
  }
}

/** Runs the benchmark's `verify` on the store after the load, through an in-process runtime of its own. */
async function verifyStore<Data>(store: Store, verify: NonNullable<Benchmark<Data, object>['verify']>, data: Data): Promise<Verification> {
  const runtime = await boot({ ...readConfig({ ...store.env, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
  try {
    const verification = await verify(runtime.db, data);
    console.log(`verified: ${JSON.stringify(verification.facts)}${verification.problems.length ? `; problems: ${verification.problems.join('; ')}` : ''}`);
    return verification;
  } finally {
    await runtime.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Load

async function checkAnswer(server: Server, authorization: string, endpoint: Endpoint): Promise<void> {
  const request = requestOf(endpoint);
  const { status, body } = await answerOf(await send(server.base, authorization, request, endpoint));
  let problem: string | null = status === 200 ? null : `status ${status}`;
  if (!problem) {
    try {
      problem = endpoint.check(body);
    } catch (error) {
      problem = (error as Error).message;
    }
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  if (problem) throw new Error(`${endpoint.name} (${request.method} ${request.path}): ${problem}; answer: ${text.slice(0, 300)}`);
}

/** The first answer of a load that was not 2xx, to say why a run is invalid. */
type Refusal = { status: number; body: string } | null;

async function load(server: Server, authorization: string, endpoint: Endpoint, seconds: number): Promise<autocannon.Result & { refusal: Refusal }> {
  let refusal: Refusal = null;
  const onResponse = (status: number, body: string) => {
    if ((status < 200 || status > 299) && !refusal) refusal = { status, body: String(body).slice(0, 300) };
  };
  const options = { connections: endpoint.connections ?? CONNECTIONS, duration: seconds, headers: credentials(authorization, endpoint) };
  const next = endpoint.next;
  if (!next) return { ...(await autocannon({ ...options, url: server.base, requests: [{ path: endpoint.path, onResponse }] })), refusal };
  // Each request built asks the endpoint for its next one (a new order id, another customer).
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    const { method, path: requestPath, body, headers } = next();
    const json = body !== undefined;
    return {
      ...request,
      method,
      path: requestPath,
      body: json ? JSON.stringify(body) : undefined,
      headers: { ...request.headers, ...headers, ...(json ? { 'content-type': 'application/json' } : {}) },
    };
  };
  return { ...(await autocannon({ ...options, url: server.base, requests: [{ setupRequest, onResponse }] })), refusal };
}

async function measure(server: Server, store: Store, ready: Ready<unknown>, endpoint: Endpoint, round: number, width: number): Promise<RunResult> {
  process.stdout.write(`round ${round}/${ROUNDS} ${endpoint.name.padEnd(width)}: warm-up ${WARMUP_SECONDS} s, measuring ${DURATION_SECONDS} s … `);
  await load(server, ready.authorization, endpoint, WARMUP_SECONDS);
  const serverBefore = cpuMicros(server.child.pid);
  const dbBefore = cpuMicros(store.databasePid);
  const result = await load(server, ready.authorization, endpoint, DURATION_SECONDS);
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
  if (result.refusal) console.log(`  first non-2xx answer: ${result.refusal.status} ${result.refusal.body}`);
  return runResult;
}

/** The run with the median throughput (the lower middle one for an even count). */
export function median<Run extends { requestsPerSecond: number }>(runs: Run[]): Run {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** Whether a run reached its target with nothing but 2xx answers. */
function meets(target: Target, run: RunResult): boolean {
  return (
    run.non2xx + run.errors + run.timeouts === 0 &&
    (target.requestsPerSecond === undefined || run.requestsPerSecond >= target.requestsPerSecond) &&
    (target.p50Ms === undefined || run.latencyMs.p50 < target.p50Ms) &&
    (target.p99Ms === undefined || run.latencyMs.p99 < target.p99Ms)
  );
}

function describeTarget(target: Target): string {
  const parts: string[] = [];
  if (target.requestsPerSecond !== undefined) parts.push(`≥ ${target.requestsPerSecond} req/s`);
  if (target.p50Ms !== undefined) parts.push(`p50 < ${target.p50Ms} ms`);
  if (target.p99Ms !== undefined) parts.push(`p99 < ${target.p99Ms} ms`);
  return parts.join(', ');
}

/** The machine a result was measured on, and how busy it was at the end. */
export function machine(): { node: string; platform: string; cpus: number; cpuModel: string; loadAverage: number[] } {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    loadAverage: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

export async function codeVersion(): Promise<BenchReport<unknown, object>['code']> {
  try {
    const commit = (await run('git', ['rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim();
    const status = (await run('git', ['status', '--porcelain'], { cwd: ROOT })).stdout.split('\n');
    const changedFiles = status.map((line) => line.slice(3).trim()).filter((file) => file && !file.startsWith('bench/results/'));
    return { commit, changedFiles };
  } catch {
    return { commit: null, changedFiles: [] };
  }
}

async function benchDatabase<Data, Settings extends object>(kind: DatabaseKind, benchmark: Benchmark<Data, Settings>): Promise<BenchReport<Data, Settings>> {
  console.log(`\n== ${kind}`);
  const store = await openStore(kind, benchmark);
  let server: Server | null = null;
  try {
    const seeding = await seed(store, benchmark.seeds, benchmark.seedFlags ?? []);
    const ready = await prepareStore(store, benchmark);
    server = await startServer(store);
    for (const endpoint of ready.endpoints) await checkAnswer(server, ready.authorization, endpoint);

    const width = Math.max(...ready.endpoints.map((e) => e.name.length));
    const rounds: RunResult[] = [];
    const problems: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? ready.endpoints : [...ready.endpoints].reverse();
      for (const endpoint of order) {
        const result = await measure(server, store, ready, endpoint, round, width);
        rounds.push(result);
        if (result.non2xx || result.errors || result.timeouts)
          problems.push(`round ${round} ${endpoint.name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
        const problem = endpoint.problem?.();
        if (problem) problems.push(`round ${round} ${endpoint.name}: ${problem}`);
      }
    }

    const verification = benchmark.verify ? await verifyStore(store, benchmark.verify, ready.data) : null;
    if (verification?.problems.length) problems.push(...verification.problems.map((p) => `verify: ${p}`));
    const endpoints = ready.endpoints.map((endpoint): EndpointReport => {
      const best = median(rounds.filter((r) => r.endpoint === endpoint.name));
      return { endpoint: endpoint.name, path: endpoint.path, target: endpoint.target, median: best, pass: meets(endpoint.target, best) };
    });
    const invalid = problems.length ? problems.join('; ') : null;
    return {
      benchmark: benchmark.name,
      database: kind,
      date: new Date().toISOString(),
      environment: { ...machine(), databaseVersion: ready.databaseVersion },
      code: await codeVersion(),
      settings: {
        connections: CONNECTIONS,
        warmupSeconds: WARMUP_SECONDS,
        durationSeconds: DURATION_SECONDS,
        rounds: ROUNDS,
        ...benchmark.settings,
        workers: WORKERS,
      },
      seeding,
      data: ready.data,
      endpoints,
      pass: !invalid && endpoints.every((e) => e.pass),
      invalid,
      queries: ready.queries,
      rounds,
      verification,
    };
  } finally {
    if (server) await stopProcess(server.child);
    await store.close();
  }
}

function table<Data, Settings>(report: BenchReport<Data, Settings>, summary: string): string[] {
  const cpu = (n: number | null) => (n === null ? '    -' : String(n).padStart(5));
  const width = Math.max('endpoint'.length, ...report.endpoints.map((e) => e.endpoint.length));
  const lines = [
    `${report.database}: ${summary}; seeded in ${report.seeding.wallSeconds} s (median of ${ROUNDS} round(s))`,
    `  ${'endpoint'.padEnd(width)}   req/s (2xx)   p50 ms   p99 ms   non2xx   server µs/req   db µs/req   target                 result`,
  ];
  for (const e of report.endpoints) {
    const m = e.median;
    lines.push(
      `  ${e.endpoint.padEnd(width)} ${m.requestsPerSecond.toFixed(0).padStart(11)} ${String(m.latencyMs.p50).padStart(8)} ${String(m.latencyMs.p99).padStart(8)} ` +
        `${String(m.non2xx).padStart(8)} ${cpu(m.serverCpuMicrosPerRequest).padStart(15)} ${cpu(m.databaseCpuMicrosPerRequest).padStart(11)}   ` +
        describeTarget(e.target).padEnd(22) +
        `   ${e.pass ? 'PASS' : 'FAIL'}`,
    );
  }
  if (report.invalid) lines.push(`  run invalid: ${report.invalid}`);
  return lines;
}

/** Runs the benchmark on each database of `BENCH_DATABASES`, writes the results, prints the tables; exit code 1 on a miss. */
async function runBenchmark<Data, Settings extends object>(benchmark: Benchmark<Data, Settings>): Promise<void> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const summary: string[] = [];
  let pass = true;
  for (const kind of DATABASES) {
    if (kind !== 'sqlite' && kind !== 'mariadb') throw new Error(`BENCH_DATABASES: unknown database "${kind as string}" (sqlite, mariadb)`);
    const report = await benchDatabase(kind, benchmark);
    const file = path.join(RESULTS_DIR, `${benchmark.name}-${kind}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    summary.push('', ...table(report, benchmark.summary(report.data)), `  written: ${path.relative(process.cwd(), file) || file}`);
    pass &&= report.pass;
  }
  console.log(summary.join('\n'));
  if (!pass) process.exitCode = 1;
}

/** The entry point of a benchmark script. */
export function main<Data, Settings extends object>(benchmark: Benchmark<Data, Settings>): void {
  runBenchmark(benchmark).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
