/**
 * Data export at scale (issue 16, "Speed"): `seed --scale N` writes 10×N orders (default N = 100,000: one million),
 * then the whole order table is exported four ways, on SQLite and MariaDB:
 *
 *   http-csv   POST /data-export/orders/batch, a client loop (max_records 1000), 12 CSV columns   target ≥ 20,000 records/s
 *   http-json  the same with format json and 3 modules (items, transactions, customer)            target ≥ 5,000 records/s
 *              (both twice: a server with Node's GC settings, and one with `--heap-growing-percent=50`)
 *   cli-csv    npm run cli -- export orders --format csv (12 columns) into a file                 target ≥ 20,000 records/s
 *   cli-json   npm run cli -- export orders --format json (3 modules) into a JSON Lines file      target ≥ 5,000 records/s
 *
 *   npm run bench:data-export        (builds, then runs dist/bench/data-export.js)
 *
 * The store, the seeding command and the server (`node dist/src/main.js`, `BENCH_WORKERS` processes) are those of
 * `bench/harness.ts`. The RSS of every process doing the work (the server's processes, the CLI) is sampled every 100 ms
 * from /proc over the whole export; each must stay within 100 MB of its first sample (the CLI's once its output file
 * exists, i.e. after its start-up). The client loop's RSS is reported too. Records/s is
 * the records written or received over the wall time of the whole export (for the CLI: the process's whole life,
 * start-up included). Each export is checked: every order exactly once, in id order, and (files) one line a record.
 * Results: `bench/results/data-export-<database>.md` (`-<node flags>` added when `BENCH_NODE_ARGS` is set). Environment: that of the harness (`BENCH_DATABASES`,
 * `BENCH_SCALE`, `BENCH_WORKERS`, `BENCH_NODE_ARGS`, also given to the CLI, `BENCH_RESULTS_DIR`, `BENCH_KEEP`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import { findPackageRoot } from '../src/host/paths';
import { API, SCALE, codeVersion, count, databaseVersion, machine, openStore, startServer, stopProcess, type DatabaseKind, type Store } from './harness';

const ROOT = findPackageRoot(__dirname);
const DIST = path.resolve(__dirname, '..');
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(ROOT, 'bench', 'results');
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim()) as DatabaseKind[];
const MARIADB_STATE = '/tmp/bench-data-export-mariadb.state';
/** `BENCH_NODE_ARGS` (e.g. `--max-old-space-size=256`): Node flags of the server (the harness passes them) and of the CLI. */
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
/**
 * The server's GC settings measured: Node's, and the old generation growing by half its live size instead of up to
 * four times (the CLI sets that itself). A server exporting for hours settles about 150 MB higher with Node's.
 */
const SERVER_GC = [
  { label: '', args: [] as string[] },
  { label: ' (gc 50%)', args: ['--heap-growing-percent=50'] },
];

/** The 12 CSV columns: order fields, two money pairs' halves, the customer (a join), the billing country (a join), dates. */
const COLUMNS = [
  'id',
  'invoice_no',
  'status',
  'payment_status',
  'currency',
  'total_amount',
  'total_amount_formatted',
  'customer_name',
  'customer_email',
  'billing_country',
  'created_at',
  'created_at_local',
];
const MODULES = ['items', 'transactions', 'customer'];
const TARGET = { csv: 20_000, json: 5_000, rssGrowthMb: 100 };
const SAMPLE_MS = 100;

interface RssTrack {
  process: string;
  startMb: number;
  maxMb: number;
  /** The target holds for the exporting processes (server, CLI); the benchmark's own client loop is only reported. */
  judged: boolean;
}

interface ExportRun {
  name: string;
  via: 'http' | 'cli';
  format: 'csv' | 'json';
  records: number;
  seconds: number;
  recordsPerSecond: number;
  batches: number | null;
  rss: RssTrack[];
  target: number;
  problems: string[];
  pass: boolean;
}

function rssMb(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : null;
  } catch {
    return null;
  }
}

/** The process and its children (the server's workers). */
function processTree(pid: number): number[] {
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return [pid, ...children.flatMap(processTree)];
  } catch {
    return [pid];
  }
}

/**
 * Samples the RSS of named processes every 100 ms; each keeps its first sample and its largest. `started` holds the
 * samples back until the export has begun (the CLI: once its output file exists, i.e. after its start-up).
 */
function sampleRss(processes: () => Array<{ name: string; pid: number; judged: boolean }>, started: () => boolean = () => true) {
  const tracks = new Map<string, RssTrack>();
  const sample = () => {
    if (!started()) return;
    for (const { name, pid, judged } of processes()) {
      const mb = rssMb(pid);
      if (mb === null) continue;
      const track = tracks.get(name);
      if (!track) tracks.set(name, { process: name, startMb: mb, maxMb: mb, judged });
      else track.maxMb = Math.max(track.maxMb, mb);
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop(): RssTrack[] {
      clearInterval(timer);
      sample();
      return [...tracks.values()].map((t) => ({ ...t, startMb: Math.round(t.startMb), maxMb: Math.round(t.maxMb) }));
    },
  };
}

function judge(run: Omit<ExportRun, 'pass' | 'recordsPerSecond'>): ExportRun {
  const recordsPerSecond = Math.round(run.records / run.seconds);
  const problems = [...run.problems];
  for (const t of run.rss) if (t.judged && t.maxMb - t.startMb > TARGET.rssGrowthMb) problems.push(`${t.process} RSS grew ${t.maxMb - t.startMb} MB`);
  return { ...run, recordsPerSecond, problems, pass: !problems.length && recordsPerSecond >= run.target };
}

/** Checks record ids arrive once each in increasing order and that there are `expected` of them. */
function idChecker(expected: number) {
  let last = 0;
  let seen = 0;
  const problems: string[] = [];
  return {
    add(id: number) {
      if (id <= last && problems.length < 5) problems.push(`record ${id} after ${last}`);
      last = id;
      seen++;
    },
    problems: () => (seen === expected ? problems : [...problems, `${seen} records instead of ${expected}`]),
  };
}

/** The HTTP client loop: batch after batch until `has_more` is false, as an integration would drive the export. */
async function httpExport(base: string, authorization: string, serverPid: number, format: 'csv' | 'json', orders: number): Promise<ExportRun> {
  const body = format === 'csv' ? { format, columns: COLUMNS } : { format, modules: MODULES };
  const ids = idChecker(orders);
  const rss = sampleRss(() => [
    ...processTree(serverPid).map((pid, i) => ({ name: i ? `server worker ${i}` : 'server primary', pid, judged: true })),
    { name: 'client', pid: process.pid, judged: false },
  ]);
  const started = performance.now();
  let cursor: number | null = null;
  let batches = 0;
  let total: number | null = null;
  for (;;) {
    const response = await fetch(`${base}${API}/data-export/orders/batch`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, max_records: 1000, ...(cursor === null ? {} : { cursor }) }),
    });
    const answer = (await response.json()) as {
      export: { records: Array<{ record_id: number }>; cursor: number | null; has_more: boolean; total: number | null };
    };
    if (response.status !== 200) throw new Error(`batch answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    batches++;
    total ??= answer.export.total;
    for (const record of answer.export.records) ids.add(record.record_id);
    if (!answer.export.has_more) break;
    cursor = answer.export.cursor;
  }
  const seconds = (performance.now() - started) / 1000;
  const problems = ids.problems();
  if (total !== orders) problems.push(`total ${total} instead of ${orders}`);
  return judge({ name: `http-${format}`, via: 'http', format, records: orders, seconds, batches, rss: rss.stop(), target: TARGET[format], problems });
}

/** Lines of a file and the record ids they start with (CSV: the first cell is the id; JSON Lines: `record_id`). */
async function checkFile(file: string, format: 'csv' | 'json', orders: number): Promise<string[]> {
  const ids = idChecker(orders);
  let header = format === 'csv';
  let rest = '';
  const separator = format === 'csv' ? '\r\n' : '\n';
  for await (const chunk of fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const lines = (rest + chunk).split(separator);
    rest = lines.pop()!;
    for (const line of lines) {
      if (header) header = false;
      else ids.add(format === 'csv' ? Number(line.slice(0, line.indexOf(','))) : Number(/^\{"record_id":(\d+)/.exec(line)?.[1]));
    }
  }
  return rest ? [...ids.problems(), 'the file does not end with a line break'] : ids.problems();
}

/** `npm run cli -- export orders …` as its own process, its RSS sampled from /proc. */
async function cliExport(store: Store, format: 'csv' | 'json', orders: number): Promise<ExportRun> {
  const out = path.join(store.dataDir, `orders.${format === 'csv' ? 'csv' : 'jsonl'}`);
  fs.rmSync(out, { force: true });
  const args = [
    'export',
    'orders',
    '--format',
    format,
    '--out',
    out,
    ...(format === 'csv' ? ['--columns', COLUMNS.join(',')] : ['--modules', MODULES.join(',')]),
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_ARGS, path.join(DIST, 'src', 'host', 'cli.js'), ...args], {
    env: store.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rss = sampleRss(
    () => (child.pid ? [{ name: 'cli', pid: child.pid, judged: true }] : []),
    () => fs.existsSync(out),
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  const tracks = rss.stop();
  if (code !== 0) throw new Error(`npm run cli -- ${args.join(' ')} exited with ${code}: ${output.slice(0, 500)}`);
  console.log(`  ${output.trim()}`);
  const problems = await checkFile(out, format, orders);
  fs.rmSync(out, { force: true });
  return judge({ name: `cli-${format}`, via: 'cli', format, records: orders, seconds, batches: null, rss: tracks, target: TARGET[format], problems });
}

async function seed(store: Store): Promise<{ seconds: number; output: string }> {
  const command = ['seed', '--scale', String(SCALE)];
  process.stdout.write(`seeding: node dist/src/host/cli.js ${command.join(' ')} … `);
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(DIST, 'src', 'host', 'cli.js'), ...command], { env: store.env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`seeding exited with ${code}`);
  const seconds = (performance.now() - started) / 1000;
  console.log(`${seconds.toFixed(1)} s`);
  return { seconds, output: output.trim() };
}

/** The bench admin's credentials, the order count and the database version, from an in-process runtime. */
async function prepare(store: Store): Promise<{ authorization: string; orders: number; version: string }> {
  const runtime = await boot({ ...readConfig({ ...store.env, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
  try {
    const user = await runtime.host.users.create({ login: 'bench-admin', email: 'bench-admin@example.com', roles: ['administrator'] });
    const { password } = await runtime.host.users.appPasswords.create(user.id, 'bench');
    return {
      authorization: `Basic ${Buffer.from(`${user.login}:${password}`).toString('base64')}`,
      orders: await count(runtime.db, 'store_orders'),
      version: await databaseVersion(runtime.db, store.kind),
    };
  } finally {
    await runtime.close();
  }
}

function report(
  kind: DatabaseKind,
  facts: { orders: number; seeding: { seconds: number; output: string }; version: string },
  runs: ExportRun[],
  code: Awaited<ReturnType<typeof codeVersion>>,
): string {
  const env = machine();
  const lines = [
    `# Data export benchmark: ${kind}`,
    '',
    `${new Date().toISOString()}; ${env.cpus} × ${env.cpuModel}, ${env.platform}, Node ${env.node}, ${kind} ${facts.version}; load average at the end ${env.loadAverage.join(' ')}.`,
    `Code: ${code.commit ?? 'unknown'}${code.changedFiles.length ? ` plus ${code.changedFiles.length} changed file(s)` : ''}.`,
    '',
    `Store: \`npm run cli -- seed --scale ${SCALE}\` (${facts.seeding.seconds.toFixed(1)} s): ${facts.orders.toLocaleString('en-US')} orders.`,
    `CSV: 12 columns (${COLUMNS.join(', ')}). JSON: the order and ${MODULES.length} modules (${MODULES.join(', ')}).`,
    'HTTP: one client looping over `POST /data-export/orders/batch` with max_records 1000 against the real server; CLI: its own process, start-up included.',
    `Node flags of the server and the CLI: ${NODE_ARGS.length ? NODE_ARGS.join(' ') : 'none'}.`,
    '',
    '| export | records | seconds | records/s | batches | target | RSS start → max (MB) | result |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.name} | ${r.records.toLocaleString('en-US')} | ${r.seconds.toFixed(1)} | ${r.recordsPerSecond.toLocaleString('en-US')} | ${r.batches ?? '-'} | ≥ ${r.target.toLocaleString('en-US')}/s | ` +
        `${r.rss.map((t) => `${t.process}${t.judged ? '' : ' (not judged)'} ${t.startMb} → ${t.maxMb}`).join('; ')} | ${r.pass ? 'PASS' : `FAIL${r.problems.length ? `: ${r.problems.join('; ')}` : ''}`} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

async function benchDatabase(kind: DatabaseKind): Promise<boolean> {
  console.log(`\n== ${kind}`);
  const store = await openStore(kind, { name: 'data-export', mariadbState: MARIADB_STATE });
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    const seeding = await seed(store);
    const { authorization, orders, version } = await prepare(store);
    const runs: ExportRun[] = [];
    for (const gc of SERVER_GC) {
      // the harness starts the server with BENCH_NODE_ARGS
      process.env.BENCH_NODE_ARGS = [...NODE_ARGS, ...gc.args].join(' ');
      server = await startServer(store);
      for (const format of ['csv', 'json'] as const) {
        process.stdout.write(`http-${format}${gc.label} … `);
        const run = await httpExport(server.base, authorization, server.child.pid!, format, orders);
        run.name += gc.label;
        console.log(`${run.recordsPerSecond} records/s`);
        runs.push(run);
      }
      await stopProcess(server.child);
      server = null;
    }
    process.env.BENCH_NODE_ARGS = NODE_ARGS.join(' ');
    for (const format of ['csv', 'json'] as const) {
      console.log(`cli-${format} …`);
      const run = await cliExport(store, format, orders);
      console.log(`  ${run.recordsPerSecond} records/s`);
      runs.push(run);
    }
    const text = report(kind, { orders, seeding, version }, runs, await codeVersion());
    const flags = NODE_ARGS.join('-')
      .replace(/[^\w=-]+/g, '')
      .replace(/^-+/, '');
    const file = path.join(RESULTS_DIR, `data-export-${kind}${flags ? `-${flags}` : ''}.md`);
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(file, text);
    console.log(`${text}\nwritten: ${path.relative(process.cwd(), file) || file}`);
    return runs.every((r) => r.pass);
  } finally {
    if (server) await stopProcess(server.child);
    await store.close();
  }
}

async function main(): Promise<void> {
  let pass = true;
  for (const kind of DATABASES) {
    if (kind !== 'sqlite' && kind !== 'mariadb') throw new Error(`BENCH_DATABASES: unknown database "${kind as string}" (sqlite, mariadb)`);
    pass = (await benchDatabase(kind)) && pass;
  }
  if (!pass) process.exitCode = 1;
}

if (os.platform() !== 'linux') console.warn('RSS and process trees are read from /proc: Linux only.');
main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
