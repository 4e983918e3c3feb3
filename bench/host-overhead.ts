/**
 * Host overhead: how much of a bare Express 5 app's throughput a store route keeps once it runs behind the
 * real host (application-password auth over HTTP Basic, the policy and `store/user/can`, ajv validation, the
 * envelope). Both servers answer the same small JSON object; each runs in its own child process
 * (`bench/servers.ts`) so autocannon, in this process, does not take the server's CPU.
 *
 *   npm run bench            (builds, then runs dist/bench/host-overhead.js)
 *
 * Each measured run: a 2 s warm-up, then 16 connections for 10 s, loopback only. The two servers are measured
 * in alternating rounds (bare, store / store, bare / bare, store) and each one's median round is reported, so
 * a burst of other work on the machine does not land on one side only. Prints req/s (average) and p99 latency
 * for both, the server's CPU time per request, the ratio b/a and PASS/FAIL against the 60% target, and writes
 * `bench/results/host-overhead.json`. Exits 1 on FAIL.
 *
 * `BENCH_SECONDS` (measured seconds per run) and `BENCH_ROUNDS` change the defaults while working on the
 * script; `BENCH_NODE_ARGS` is passed to the server processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * The results file records the settings used.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { machine, median, stopProcess } from './harness';
import type { ServerKind, ServerReady } from './servers';
import { findPackageRoot } from '../src/host/paths';

const CONNECTIONS = 16;
const WARMUP_SECONDS = 2;
const DURATION_SECONDS = positive(process.env.BENCH_SECONDS, 10);
const ROUNDS = positive(process.env.BENCH_ROUNDS, 3);
const TARGET_RATIO = 0.6;
const READY_TIMEOUT_MS = 60_000;
const EXPECTED_BODY = JSON.stringify({ ok: true, q: 'hello' });

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export interface RunResult {
  kind: ServerKind;
  round: number;
  /** Mean requests per second over the measured run. */
  requestsPerSecond: number;
  requestsTotal: number;
  latencyMs: { average: number; p50: number; p90: number; p99: number; max: number };
  /** The server process's CPU time (user + system) per request during the measured run, in microseconds. */
  serverCpuMicrosPerRequest: number | null;
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface ServerProcess {
  kind: ServerKind;
  child: ChildProcess;
  ready: ServerReady;
  url: string;
}

function startServer(kind: ServerKind): Promise<ServerProcess> {
  const script = path.join(__dirname, 'servers.js');
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, script, kind], {
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`${kind} server did not report ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    function fail(error: Error) {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(error);
    }
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${kind} server exited with code ${code} before it was ready`)));
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      try {
        const ready = JSON.parse(buffered.slice(0, newline)) as ServerReady;
        resolve({ kind, child, ready, url: `http://127.0.0.1:${ready.port}${ready.path}` });
      } catch (error) {
        fail(error as Error);
      }
    });
  });
}

/** The server's CPU time so far in microseconds, or null when it does not answer. */
function serverCpu(server: ServerProcess): Promise<number | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(null), 2000);
    function done(value: number | null) {
      clearTimeout(timer);
      server.child.off('message', onMessage);
      resolve(value);
    }
    function onMessage(message: unknown) {
      const usage = (message as { cpuUsage?: NodeJS.CpuUsage }).cpuUsage;
      if (usage) done(usage.user + usage.system);
    }
    server.child.on('message', onMessage);
    server.child.send('cpu-usage');
  });
}

function headersOf(ready: ServerReady): Record<string, string> {
  return ready.authorization ? { authorization: ready.authorization } : {};
}

/** One request before the load, so a misconfigured server (401, 404, wrong body) fails loudly, not as a fast number. */
async function checkAnswer(server: ServerProcess): Promise<void> {
  const response = await fetch(server.url, { headers: headersOf(server.ready) });
  const text = await response.text();
  if (response.status !== 200 || text !== EXPECTED_BODY) {
    throw new Error(`${server.kind} server answered ${response.status} ${text.slice(0, 200)} instead of ${EXPECTED_BODY}`);
  }
}

function load(server: ServerProcess, seconds: number): Promise<autocannon.Result> {
  return autocannon({ url: server.url, connections: CONNECTIONS, duration: seconds, headers: headersOf(server.ready) });
}

async function measure(server: ServerProcess, round: number): Promise<RunResult> {
  process.stdout.write(`round ${round}/${ROUNDS} ${server.kind}: warm-up ${WARMUP_SECONDS} s, measuring ${DURATION_SECONDS} s … `);
  await load(server, WARMUP_SECONDS);
  const cpuBefore = await serverCpu(server);
  const result = await load(server, DURATION_SECONDS);
  const cpuAfter = await serverCpu(server);
  const run: RunResult = {
    kind: server.kind,
    round,
    requestsPerSecond: result.requests.average,
    requestsTotal: result.requests.total,
    latencyMs: {
      average: result.latency.average,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    serverCpuMicrosPerRequest:
      cpuBefore !== null && cpuAfter !== null && result.requests.total > 0 ? Math.round((cpuAfter - cpuBefore) / result.requests.total) : null,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
  process.stdout.write(`${run.requestsPerSecond.toFixed(0)} req/s, p99 ${run.latencyMs.p99} ms\n`);
  return run;
}

export interface HostOverheadReport {
  benchmark: 'host-overhead';
  date: string;
  environment: { node: string; platform: string; cpus: number; cpuModel: string; loadAverage: number[] };
  settings: { connections: number; warmupSeconds: number; durationSeconds: number; rounds: number; targetRatio: number; database: 'sqlite' };
  /** The median round of each server. */
  bare: RunResult;
  store: RunResult;
  /** store req/s ÷ bare req/s, of the median rounds. */
  ratio: number;
  /** bare CPU per request ÷ store CPU per request (the same ratio measured as server work rather than throughput). */
  cpuRatio: number | null;
  pass: boolean;
  /** Why the run does not count, when a run saw errors or non-2xx answers. */
  invalid: string | null;
  rounds: RunResult[];
}

function row(label: string, run: RunResult): string {
  const cpu = run.serverCpuMicrosPerRequest === null ? '' : `, server CPU ${run.serverCpuMicrosPerRequest} µs/req`;
  return `${label.padEnd(28)} ${run.requestsPerSecond.toFixed(0).padStart(7)} req/s   p99 ${String(run.latencyMs.p99).padStart(4)} ms   (avg ${run.latencyMs.average.toFixed(2)} ms${cpu})`;
}

async function main(): Promise<void> {
  const servers: Partial<Record<ServerKind, ServerProcess>> = {};
  const rounds: RunResult[] = [];
  try {
    servers.bare = await startServer('bare');
    servers.store = await startServer('store');
    await checkAnswer(servers.bare);
    await checkAnswer(servers.store);
    for (let round = 1; round <= ROUNDS; round++) {
      const order: ServerKind[] = round % 2 === 1 ? ['bare', 'store'] : ['store', 'bare'];
      for (const kind of order) rounds.push(await measure(servers[kind]!, round));
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => stopProcess(server.child)));
  }

  const bare = median(rounds.filter((r) => r.kind === 'bare'));
  const store = median(rounds.filter((r) => r.kind === 'store'));
  const ratio = store.requestsPerSecond / bare.requestsPerSecond;
  const cpuRatio = bare.serverCpuMicrosPerRequest && store.serverCpuMicrosPerRequest ? bare.serverCpuMicrosPerRequest / store.serverCpuMicrosPerRequest : null;
  const problems = rounds
    .filter((run) => run.non2xx || run.errors || run.timeouts)
    .map((run) => `round ${run.round} ${run.kind}: ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts`);
  const invalid = problems.length ? problems.join('; ') : null;
  const pass = !invalid && ratio >= TARGET_RATIO;
  const report: HostOverheadReport = {
    benchmark: 'host-overhead',
    date: new Date().toISOString(),
    environment: machine(),
    settings: {
      connections: CONNECTIONS,
      warmupSeconds: WARMUP_SECONDS,
      durationSeconds: DURATION_SECONDS,
      rounds: ROUNDS,
      targetRatio: TARGET_RATIO,
      database: 'sqlite',
    },
    bare,
    store,
    ratio: Math.round(ratio * 1000) / 1000,
    cpuRatio: cpuRatio === null ? null : Math.round(cpuRatio * 1000) / 1000,
    pass,
    invalid,
    rounds,
  };

  const lines = [
    '',
    `median of ${ROUNDS} round(s):`,
    row('(a) bare Express 5', bare),
    row('(b) store route via host', store),
    `ratio b/a: ${(ratio * 100).toFixed(1)}%  (target ≥ ${TARGET_RATIO * 100}%)  ${pass ? 'PASS' : 'FAIL'}` +
      (cpuRatio === null ? '' : `   [server CPU per request a/b: ${(cpuRatio * 100).toFixed(1)}%]`),
  ];
  if (invalid) lines.push(`run invalid: ${invalid}`);
  const dir = path.join(findPackageRoot(__dirname), 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'host-overhead.json');
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  lines.push(`written: ${path.relative(process.cwd(), file) || file}`);
  console.log(lines.join('\n'));
  if (!pass) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
