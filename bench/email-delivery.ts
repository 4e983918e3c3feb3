/**
 * Email delivery (issue 14, "Speed"): 1,000 queued notification emails delivered by the real job worker to a local
 * SMTP server, on SQLite and MariaDB. Target: ≥ 200 emails/s, none lost, none duplicated.
 *
 *   npm run bench:email-delivery        (builds, then runs dist/bench/email-delivery.js)
 *
 * The store is `bench/harness.ts`'s (`BENCH_DATABASES`, `BENCH_KEEP`, `BENCH_RESULTS_DIR`; MariaDB runs with
 * `MARIADB_STATE=/tmp/bench-email-delivery-mariadb.state`), seeded in-process with the real `seed --scale 100` command
 * (100 customers, 1,000 orders). An `order_paid_customer` email is queued for each of `BENCH_EMAILS` orders (default
 * 1,000) with `enqueueNotification`, 100 per transaction, as the events queue them. A sink (`smtp-server` on loopback,
 * in this process: its CPU counts against the store) records each message's envelope recipient and Message-ID.
 *
 * Measured: from `jobs.start()` (the worker of `npm start`, polling every 100 ms, its email jobs 10 at a time, the
 * SMTP transport's 5 pooled connections) until the last job is done, cold: the first poll and the first compile of the
 * template are inside (`firstMessageMs`). Then, after a pause for any late duplicate, `verify` checks:
 * the sink got exactly one message per queued email (recipient = the order's customer), no Message-ID twice, the
 * sent-mail log holds the same Message-IDs, every job done at its first attempt.
 *
 * Writes `bench/results/email-delivery.json` (one entry per database); exit code 1 when a check or the target fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { SMTPServer } from 'smtp-server';
import { systemCtx, transaction } from '../src/core/context';
import { RateLimits } from '../src/core/ratelimit';
import type { HostRuntime } from '../src/host/app';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import { findPackageRoot } from '../src/host/paths';
import { enqueueNotification, SEND_EMAIL_JOB } from '../src/modules/email-notification/sending/enqueue';
import { EMAIL_CONCURRENCY } from '../src/modules/email-notification/sending/register';
import { codeVersion, databaseVersion, machine, openStore, type DatabaseKind } from './harness';

const EMAILS = positive(process.env.BENCH_EMAILS, 1000);
const TARGET_PER_SECOND = 200;
const POLL_MS = 100;
const QUEUE_BATCH = 100;
const SETTLE_MS = 1000;
const TIMEOUT_MS = 120_000;
const EVENT_KEY = 'bench';
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());
const ROOT = findPackageRoot(__dirname);
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(ROOT, 'bench', 'results');

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

interface Received {
  messageId: string;
  recipients: string[];
  /** When it arrived (`performance.now()`). */
  at: number;
}

interface Sink {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

const MESSAGE_ID = /^message-id:\s*(<[^>\r\n]+>)/im;

/** An SMTP server on loopback that keeps each message's envelope recipients and Message-ID (read from its header). */
async function startSink(): Promise<Sink> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const head = Buffer.concat(chunks)
          .toString('utf8')
          .split(/\r?\n\r?\n/, 1)[0];
        received.push({
          messageId: MESSAGE_ID.exec(head)?.[1] ?? '',
          recipients: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          at: performance.now(),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}?ignoreTLS=true`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The orders to write to: the first `EMAILS` orders whose customer has an email address. */
async function pickOrders(db: Knex): Promise<Array<{ id: number; email: string }>> {
  const rows = (await db('store_orders as o')
    .join('store_customers as c', 'c.id', 'o.customer_id')
    .where('c.email', '<>', '')
    .orderBy('o.id')
    .limit(EMAILS)
    .select('o.id', 'c.email')) as Array<{ id: number | string; email: string }>;
  return rows.map((row) => ({ id: Number(row.id), email: row.email.toLowerCase() }));
}

async function queueEmails(runtime: HostRuntime, orders: Array<{ id: number }>): Promise<void> {
  const ctx = systemCtx(runtime.host, new RateLimits(runtime.db));
  for (let start = 0; start < orders.length; start += QUEUE_BATCH) {
    await transaction(ctx, async (trx) => {
      for (const order of orders.slice(start, start + QUEUE_BATCH)) {
        await enqueueNotification(ctx, trx, { notification: 'order_paid_customer', object_type: 'order', object_id: order.id, event_key: EVENT_KEY });
      }
    });
  }
}

async function jobCounts(db: Knex): Promise<Record<string, number>> {
  const rows = (await db('jobs').where({ name: SEND_EMAIL_JOB }).groupBy('status').select('status').count({ n: '*' })) as Array<{
    status: string;
    n: number | string;
  }>;
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}

/**
 * Waits for the last job to be done: first for the sink to hold as many messages as were queued (watched in memory,
 * so the wait adds no load on the database), then for the jobs table to say so.
 */
async function waitUntilDone(db: Knex, sink: Sink, queued: number): Promise<void> {
  const started = Date.now();
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const late = (what: string) => new Error(`the emails were not delivered within ${TIMEOUT_MS / 1000} s: ${what}`);
  while (sink.received.length < queued) {
    if (Date.now() - started > TIMEOUT_MS) throw late(`${sink.received.length} received`);
    await pause(2);
  }
  for (;;) {
    const counts = await jobCounts(db);
    if (!counts.pending && !counts.running) return;
    if (Date.now() - started > TIMEOUT_MS) throw late(JSON.stringify(counts));
    await pause(10);
  }
}

async function verify(db: Knex, orders: Array<{ id: number; email: string }>, sink: Sink) {
  const problems: string[] = [];
  const messageIds = new Set(sink.received.map((r) => r.messageId));
  const expected = new Map(orders.map((order) => [order.id, order.email]));
  const log = (await db('store_email_log').where({ event_key: EVENT_KEY }).select('object_id', 'recipient', 'message_id')) as Array<{
    object_id: number | string;
    recipient: string;
    message_id: string;
  }>;
  const jobs = await jobCounts(db);
  const retried = Number(
    ((await db('jobs').where({ name: SEND_EMAIL_JOB }).andWhere('attempts', '>', 1).count({ n: '*' }).first()) as { n: number | string }).n,
  );
  const facts = {
    queued: orders.length,
    received: sink.received.length,
    distinctMessageIds: messageIds.size,
    logRows: log.length,
    jobs,
    retriedJobs: retried,
  };
  if (sink.received.length !== orders.length) problems.push(`${sink.received.length} messages received for ${orders.length} queued`);
  if (messageIds.size !== sink.received.length || messageIds.has('')) problems.push('a Message-ID is missing or came twice');
  if (log.length !== orders.length) problems.push(`${log.length} log rows for ${orders.length} queued`);
  const wrongRecipient = log.filter((row) => expected.get(Number(row.object_id)) !== row.recipient);
  if (wrongRecipient.length) problems.push(`${wrongRecipient.length} log rows name another recipient than the order's customer`);
  const unmatched = log.filter((row) => !messageIds.has(row.message_id));
  if (unmatched.length) problems.push(`${unmatched.length} logged Message-IDs never reached the sink`);
  const received = new Map(sink.received.map((r) => [r.messageId, r.recipients]));
  const misdelivered = log.filter((row) => JSON.stringify(received.get(row.message_id)) !== JSON.stringify([row.recipient]));
  if (misdelivered.length) problems.push(`${misdelivered.length} messages went to other envelope recipients than logged`);
  if (jobs.done !== orders.length || Object.keys(jobs).length !== 1) problems.push(`jobs by status: ${JSON.stringify(jobs)}`);
  return { facts, problems };
}

async function benchDatabase(kind: DatabaseKind) {
  console.log(`\n== ${kind}`);
  const store = await openStore(kind, { name: 'email-delivery', mariadbState: '/tmp/bench-email-delivery-mariadb.state' });
  const sink = await startSink();
  let runtime: HostRuntime | null = null;
  try {
    runtime = await boot({ ...readConfig({ ...store.env, SMTP_URL: sink.url, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
    process.stdout.write('seeding: seed --scale 100 … ');
    const seedStarted = performance.now();
    await runtime.host.commands.get('seed')?.run({ scale: '100' });
    console.log(`${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    const orders = await pickOrders(runtime.db);
    if (orders.length < EMAILS) throw new Error(`the seeded store has ${orders.length} orders with a customer email; ${EMAILS} are needed`);
    await queueEmails(runtime, orders);
    console.log(`queued ${orders.length} emails: ${JSON.stringify(await jobCounts(runtime.db))}`);

    process.stdout.write(`delivering through the job worker (${EMAIL_CONCURRENCY} at a time) … `);
    const started = performance.now();
    runtime.jobs.start(POLL_MS);
    await waitUntilDone(runtime.db, sink, orders.length);
    const seconds = (performance.now() - started) / 1000;
    await runtime.jobs.stop();
    const perSecond = Math.round((orders.length / seconds) * 10) / 10;
    // The first message waits for the first poll and the first template compile (once per process).
    const firstMessageMs = Math.round(Math.min(...sink.received.map((r) => r.at)) - started);
    console.log(`${seconds.toFixed(2)} s: ${perSecond} emails/s (the first message after ${firstMessageMs} ms)`);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

    const verification = await verify(runtime.db, orders, sink);
    console.log(`verified: ${JSON.stringify(verification.facts)}`);
    return {
      benchmark: 'email-delivery',
      database: kind,
      date: new Date().toISOString(),
      environment: { ...machine(), databaseVersion: await databaseVersion(runtime.db, kind) },
      code: await codeVersion(),
      settings: {
        emails: orders.length,
        notification: 'order_paid_customer',
        concurrency: EMAIL_CONCURRENCY,
        pollMs: POLL_MS,
        target: { emailsPerSecond: TARGET_PER_SECOND },
      },
      result: { seconds: Math.round(seconds * 100) / 100, emailsPerSecond: perSecond, firstMessageMs },
      verification,
      pass: !verification.problems.length && perSecond >= TARGET_PER_SECOND,
    };
  } finally {
    await runtime?.close();
    await sink.close();
    await store.close();
  }
}

async function run(): Promise<void> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const reports = [];
  for (const kind of DATABASES) {
    if (kind !== 'sqlite' && kind !== 'mariadb') throw new Error(`BENCH_DATABASES: unknown database "${kind}" (sqlite, mariadb)`);
    reports.push(await benchDatabase(kind));
  }
  const file = path.join(RESULTS_DIR, 'email-delivery.json');
  fs.writeFileSync(file, `${JSON.stringify(reports, null, 2)}\n`);
  console.log('');
  for (const r of reports) {
    const verdict = r.pass ? 'PASS' : `FAIL${r.verification.problems.length ? `: ${r.verification.problems.join('; ')}` : ' (rate)'}`;
    console.log(
      `${r.database}: ${r.result.emailsPerSecond} emails/s (${r.settings.emails} in ${r.result.seconds} s, target ≥ ${TARGET_PER_SECOND}); ${verdict}`,
    );
  }
  console.log(`written: ${path.relative(process.cwd(), file) || file}`);
  if (!reports.every((r) => r.pass)) process.exitCode = 1;
}

run().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
