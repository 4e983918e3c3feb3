import fc from 'fast-check';
import type { MemoryLogger } from '../support/app';
import type { FuzzStore } from './fuzz-store';
import { send, type HttpResponse } from './http-client';
import { violations, type Violation } from './invariants';
import { credentialsOf } from './credentials';
import { describeMutation, describeRequest, fuzzCase, materialize, type FuzzCase, type HttpRequest } from './requests';
import { answeringTarget, NO_ERRORS, type FuzzTarget } from './route-targets';
import { TableWatch } from './table-watch';

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** fast-check's counterexample path, to replay one failure. */
  path?: string;
  /** Go on after a failure, ignoring failures of a kind already found, to list every kind in one run. */
  keepGoing: boolean;
}

/** The default run is bounded for CI; `npm run fuzz -- --runs N --seed S` sets these through the environment. */
export function fuzzOptions(env: NodeJS.ProcessEnv = process.env): FuzzOptions {
  const number = (name: string, fallback: number) => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got "${env[name]}"`);
    return value;
  };
  return { runs: number('FUZZ_RUNS', 3000), seed: number('FUZZ_SEED', 20261121), path: env.FUZZ_PATH || undefined, keepGoing: env.FUZZ_KEEP_GOING === '1' };
}

/** A failing request, shrunk. */
export interface Finding {
  violations: Violation[];
  fuzzCase: FuzzCase;
  request: HttpRequest;
  response: string;
  seed: number;
  path: string;
  /** Requests sent in the round that found it, before shrinking. */
  after: number;
  shrinks: number;
}

export interface FuzzResult {
  requests: number;
  elapsedMs: number;
  statuses: Record<string, number>;
  findings: Finding[];
}

class FuzzFailure extends Error {
  constructor(
    readonly found: Violation[],
    readonly request: HttpRequest,
    readonly response: string,
  ) {
    super(found.map((v) => `${v.kind}: ${v.detail}`).join('; '));
  }
}

/** Checks the server still answers (and renews the cookie session) after this many requests. */
const BATCH = 100;
/** With keepGoing, at most this many rounds (one new kind of failure each). */
const MAX_ROUNDS = 60;

/**
 * `TypeError: Cannot read … (at src/modules/x.ts:12)` for each error the server logged. A database error is named by
 * its driver code and message without the statement (`ER_BAD_FIELD_ERROR: Unknown column 'Infinity' in 'WHERE'`), so
 * one cause reached through many queries is one kind of failure.
 */
function loggedErrors(entries: MemoryLogger['entries']): string[] {
  return entries
    .filter((entry) => entry.level === 'error')
    .map((entry) => {
      const { err } = (entry.obj ?? {}) as { err?: { name?: string; message?: string; stack?: string; code?: unknown } };
      if (!err) return entry.msg ?? 'an error without detail';
      const frame = err.stack?.split('\n').find((line) => line.includes('/src/') && !line.includes('node_modules'));
      const where = frame?.match(/(src\/[^:)]+:\d+)/)?.[1];
      const message = err.message ?? '';
      // knex prefixes the driver's message with the statement: `select … - Unknown column …`.
      const cut = message.lastIndexOf(' - ');
      const text = typeof err.code === 'string' ? `${err.code}: ${cut < 0 ? message : message.slice(cut + 3)}` : message;
      return `${err.name ?? 'Error'} ${text.slice(0, 200)}${where ? ` (at ${where})` : ''}`;
    });
}

function responseSummary(response: HttpResponse | { error: string }): string {
  if ('error' in response) return `no answer: ${response.error}`;
  return `${response.status} ${response.text.length > 500 ? `${response.text.slice(0, 500)}…` : response.text}`;
}

/**
 * Sends `runs` generated requests (per round), one per fast-check run, and checks the invariants after each; the
 * tables as one request left them are the "before" of the next. Between batches it checks the server still answers
 * and logs the cookie shopper in again (outside any request, so the tables are read afresh afterwards).
 */
export async function runFuzz(store: FuzzStore, options: FuzzOptions): Promise<FuzzResult> {
  const { db } = store.app.host;
  const logger = store.app.logger;
  const statuses: Record<string, number> = {};
  const findings: Finding[] = [];
  const known = new Set<string>();
  const watch = await TableWatch.start(db, store.tables);
  let requests = 0;
  let roundRequests = 0;
  const started = Date.now();

  /** The endpoint whose envelope the answer must be in: another one when the case changed the method. */
  const answeredBy = ({ target, mutations }: FuzzCase): FuzzTarget => {
    const method = mutations.reduce<string>((current, m) => (m.kind === 'method' ? m.method : current), target.method);
    return (
      answeringTarget(store.targets, target, method) ?? { ...target, method: method as FuzzTarget['method'], input: null, errors: NO_ERRORS, anonymous: true }
    );
  };

  const property = fc.asyncProperty(fuzzCase(store.targets), async (generated) => {
    const request = materialize(generated, store.creds);
    const mark = logger.entries.length;
    const response = await send(store.port, request).catch((error: Error) => ({ error: error.message }));
    const changed = await watch.changes();
    requests++;
    roundRequests++;
    const status = 'error' in response ? 'no answer' : String(response.status);
    statuses[status] = (statuses[status] ?? 0) + 1;
    const found = violations({
      target: answeredBy(generated),
      request,
      response,
      changed,
      logged: loggedErrors(logger.entries.slice(mark)),
      credentials: credentialsOf(generated),
    });
    if (roundRequests % BATCH === 0) {
      if (await store.isUp()) {
        await store.renewCookieSession();
        await watch.changes();
      } else found.push({ kind: 'no-answer', detail: 'the server stopped answering GET /wp-json/ after this batch', key: 'server down' });
    }
    const fresh = found.filter((violation) => !known.has(violation.key));
    if (fresh.length) throw new FuzzFailure(fresh, request, responseSummary(response));
  });

  for (let round = 0; round < (options.keepGoing ? MAX_ROUNDS : 1); round++) {
    roundRequests = 0;
    const seed = options.seed + round;
    const details = await fc.check(property, { numRuns: options.runs, seed, path: round === 0 ? options.path : undefined });
    if (!details.failed) break;
    const failure = details.errorInstance;
    if (!(failure instanceof FuzzFailure) || !details.counterexample)
      throw failure instanceof Error ? failure : new Error(`fast-check stopped: ${JSON.stringify(details)}`);
    findings.push({
      violations: failure.found,
      fuzzCase: details.counterexample[0],
      request: failure.request,
      response: failure.response,
      seed,
      path: details.counterexamplePath,
      after: details.numRuns,
      shrinks: details.numShrinks,
    });
    for (const violation of failure.found) known.add(violation.key);
  }
  return { requests, elapsedMs: Date.now() - started, statuses, findings };
}

const CALLER_NAMES = {
  admin: 'the administrator (application password)',
  'shopper-app': 'a customer (application password)',
  'shopper-cookie': 'a customer (cookie and nonce)',
  anonymous: 'an anonymous caller',
};

function indent(text: string, by = '      '): string {
  return text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');
}

/** Each finding with everything needed to replay it: seed and path, and the shrunk request as sent. */
export function formatFindings(result: FuzzResult): string {
  const blocks = result.findings.map((finding, i) => {
    const { fuzzCase: c } = finding;
    return [
      `[${i + 1}] ${finding.violations.map((v) => `${v.kind}: ${v.detail}`).join('\n    ')}`,
      `    route: ${c.target.method} /${c.target.namespace}${c.target.path}, as ${CALLER_NAMES[c.caller]}`,
      `    mutations: ${c.mutations.map(describeMutation).join('; ')}`,
      `    seed ${finding.seed}, path "${finding.path}" (found after ${finding.after} requests, shrunk ${finding.shrinks} times)`,
      `    replay: npm run fuzz -- --seed ${finding.seed} --path "${finding.path}"`,
      `    request:\n${indent(describeRequest(finding.request))}`,
      `    response: ${finding.response}`,
    ].join('\n');
  });
  return [`The fuzzer found ${result.findings.length} failure(s) in ${result.requests} requests:`, ...blocks].join('\n\n');
}

export function formatSummary(result: FuzzResult): string {
  const statuses = Object.entries(result.statuses)
    .sort()
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  return `fuzz: ${result.requests} requests in ${(result.elapsedMs / 1000).toFixed(1)} s (${statuses}), ${result.findings.length} failure(s)`;
}
