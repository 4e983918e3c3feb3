/**
 * A renewal burst (issue 11, "Speed"): 1,000 signed Stripe `invoice.paid` webhooks, 200 of them duplicates, sent 16
 * at a time to the real server (`WORKERS` processes), on SQLite and MariaDB:
 *
 *   POST /wp-json/store/v2/webhooks/stripe   16 at a time; every answer 2xx; exactly 800 renewal orders and 800
 *                                            `store/subscription/renewed`; target ≥ 50 webhooks/s on MariaDB
 *
 *   npm run bench:renewals           (builds, then runs dist/bench/renewals.js)
 *
 * The store and the server are those of `bench/harness.ts` (`BENCH_DATABASES`, `BENCH_WORKERS`, `BENCH_SERVER_ENV`,
 * `BENCH_SERVER_LOG`, `BENCH_KEEP`, `BENCH_RESULTS_DIR`); MariaDB runs with
 * `MARIADB_STATE=/tmp/bench-renewals-mariadb.state`. `BENCH_SUBSCRIPTIONS` (default 400) sets the store's size.
 *
 * Seeding, straight into the tables through an in-process runtime (timed): a subscription product, then for each
 * subscription a customer, a paid parent order (its item, billing address and Stripe charge) and the active monthly
 * Stripe subscription (`sub_bench_<n>`). The server gets the signing secret, a test secret key and
 * `STRIPE_API_BASE` pointing at a local recorder: a renewal must call Stripe for nothing, and the recorder proves it.
 *
 * Before the load, one renewal of a probe subscription goes through an in-process server with its SQL statements
 * recorded (`probe` in the results: where a renewal's time goes, statement by statement).
 *
 * The burst: 800 billing-cycle invoices (`in_bench_<k>`, subscription `k mod N`), each as an `invoice.paid` event;
 * 100 of them delivered a second time under the same event id and 100 as a second event of the same payment
 * (`invoice.payment_succeeded`, its own event id), each duplicate placed within 16 deliveries of its original, so
 * many arrive while it is applied. Each delivery is signed at the moment it is sent.
 *
 * After the load (the server stopped), `verify` checks the database: 800 renewal orders, each paid with an invoice
 * number and exactly one succeeded charge under its invoice id (the 800 ids, each once), 800 renewed activity entries
 * (written in the renewal's transaction, whose commit fires `store/subscription/renewed`: one per hook), each
 * subscription's `bill_count` up by its own invoices, 900 event rows (800 renewed, 100 duplicates); and 1,000 answers
 * 200, the 100 same-id ones `duplicate: true`; no request reached the Stripe recorder.
 *
 * Writes `bench/results/renewals-<database>.json`; exit code 1 when a check or the MariaDB target fails.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Knex } from 'knex';
import Stripe from 'stripe';
import { systemCtx } from '../src/core/context';
import { insertMany } from '../src/core/db';
import { RateLimits } from '../src/core/ratelimit';
import { toTimestamp } from '../src/core/time';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import type { HostRuntime } from '../src/host/app';
import { findPackageRoot } from '../src/host/paths';
import { createProduct } from '../src/modules/products/service';
import { API, codeVersion, count, cpuMicros, databaseVersion, machine, openStore, startServer, stopProcess, type DatabaseKind, type Store } from './harness';

const WEBHOOKS = 1000;
const SAME_ID_DUPLICATES = 100;
const SECOND_EVENT_DUPLICATES = 100;
const RENEWALS = WEBHOOKS - SAME_ID_DUPLICATES - SECOND_EVENT_DUPLICATES;
const CONCURRENCY = 16;
const TARGET_PER_SECOND = 50;
const PRICE = 1500;
const SUBSCRIPTIONS = positive(process.env.BENCH_SUBSCRIPTIONS, 400);
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim()) as DatabaseKind[];
const SECRET = 'whsec_bench_renewals';
const SECRET_KEY = 'sk_test_bench_renewals';
const ROOT = findPackageRoot(__dirname);
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(ROOT, 'bench', 'results');

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

// ---------------------------------------------------------------------------------------------------------------
// A Stripe that must not be called

interface Recorder {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/** Counts every request (answering 503): renewals must reach Stripe for nothing. */
async function stripeRecorder(): Promise<Recorder> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"type":"api_error","message":"not during renewals"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding

const subscriptionId = (n: number | 'probe') => `sub_bench_${n}`;

/** A parent order, its item, address and charge, and the active Stripe subscription, for customers `from`…`to - 1`. */
async function seedBatch(db: Knex, variation: { id: number; product_id: number }, from: number, to: number, now: string): Promise<void> {
  await db.transaction(async (trx) => {
    const customers = [];
    for (let n = from; n < to; n++) {
      customers.push({
        email: `renewal-${n}@bench.example`,
        first_name: 'Bench',
        last_name: `Reader ${n}`,
        uuid: crypto.randomUUID(),
        created_at: now,
        updated_at: now,
      });
    }
    await insertMany(trx, 'store_customers', customers);
    const customerIds = (await trx('store_customers')
      .whereIn(
        'email',
        customers.map((c) => c.email),
      )
      .select('id', 'email')) as Array<{ id: number; email: string }>;
    const customerOf = new Map(customerIds.map((c) => [c.email, Number(c.id)]));
    const orders = customers.map((customer) => ({
      uuid: crypto.randomUUID(),
      customer_id: customerOf.get(customer.email),
      status: 'completed',
      payment_status: 'paid',
      payment_method: 'stripe',
      payment_method_title: 'Stripe',
      type: 'subscription',
      fulfillment_type: 'digital',
      mode: 'test',
      currency: 'USD',
      subtotal: PRICE,
      total_amount: PRICE,
      total_paid: PRICE,
      note: '',
      config: '{}',
      created_at: now,
      updated_at: now,
    }));
    await insertMany(trx, 'store_orders', orders);
    const orderIds = (await trx('store_orders')
      .whereIn(
        'uuid',
        orders.map((o) => o.uuid),
      )
      .select('id', 'uuid', 'customer_id')) as Array<{
      id: number;
      uuid: string;
      customer_id: number;
    }>;
    const byCustomer = new Map(orderIds.map((o) => [Number(o.customer_id), Number(o.id)]));
    const rows = customers.map((customer, i) => ({
      n: from + i,
      customerId: customerOf.get(customer.email)!,
      orderId: byCustomer.get(customerOf.get(customer.email)!)!,
    }));
    const line = {
      post_id: variation.product_id,
      variation_id: variation.id,
      fulfillment_type: 'digital',
      payment_type: 'subscription',
      post_title: 'Bench Magazine',
    };
    await insertMany(
      trx,
      'store_order_items',
      rows.map((r) => ({
        ...line,
        order_id: r.orderId,
        title: 'Monthly',
        quantity: 1,
        unit_price: PRICE,
        subtotal: PRICE,
        line_total: PRICE,
        other_info: '{}',
        line_meta: '{}',
        created_at: now,
        updated_at: now,
      })),
    );
    await insertMany(
      trx,
      'store_order_addresses',
      rows.map((r) => ({
        order_id: r.orderId,
        type: 'billing',
        name: `Bench Reader ${r.n}`,
        address_1: '1 Market Street',
        city: 'San Francisco',
        state: 'CA',
        postcode: '94105',
        country: 'US',
        meta: '{}',
        created_at: now,
        updated_at: now,
      })),
    );
    await insertMany(
      trx,
      'store_subscriptions',
      rows.map((r) => ({
        uuid: crypto.randomUUID(),
        customer_id: r.customerId,
        parent_order_id: r.orderId,
        product_id: variation.product_id,
        variation_id: variation.id,
        item_name: 'Bench Magazine - Monthly',
        status: 'active',
        collection_method: 'automatic',
        current_payment_method: 'stripe',
        vendor_subscription_id: subscriptionId(r.n),
        vendor_customer_id: `cus_bench_${r.n}`,
        billing_interval: 'monthly',
        currency: 'USD',
        recurring_amount: PRICE,
        bill_count: 1,
        next_billing_date: now,
        config: '{}',
        created_at: now,
        updated_at: now,
      })),
    );
    const subscriptionIds = (await trx('store_subscriptions')
      .whereIn(
        'parent_order_id',
        rows.map((r) => r.orderId),
      )
      .select('id', 'parent_order_id')) as Array<{
      id: number;
      parent_order_id: number;
    }>;
    await insertMany(
      trx,
      'store_order_transactions',
      subscriptionIds.map((s) => ({
        uuid: crypto.randomUUID(),
        order_id: s.parent_order_id,
        order_type: 'subscription',
        transaction_type: 'charge',
        subscription_id: s.id,
        vendor_charge_id: `pi_bench_first_${s.id}`,
        payment_method: 'stripe',
        payment_mode: 'test',
        status: 'succeeded',
        currency: 'USD',
        total: PRICE,
        meta: '{}',
        created_at: now,
        updated_at: now,
      })),
    );
  });
}

/** The catalogue (through the product service) and `count` subscriptions (plus the probe's, numbered `count`). */
async function seed(runtime: HostRuntime, subscriptions: number): Promise<void> {
  const ctx = systemCtx(runtime.host, new RateLimits(runtime.db));
  const product = await createProduct(ctx, {
    title: 'Bench Magazine',
    status: 'publish',
    fulfillment_type: 'digital',
    variations: [{ title: 'Monthly', price: PRICE, payment_type: 'subscription', billing_interval: 'monthly' }],
  } as Parameters<typeof createProduct>[1]);
  const variation = { id: product.variations[0].id, product_id: product.id };
  const now = toTimestamp(new Date());
  for (let from = 0; from <= subscriptions; from += 200) await seedBatch(runtime.db, variation, from, Math.min(subscriptions + 1, from + 200), now);
}

// ---------------------------------------------------------------------------------------------------------------
// Deliveries

interface Delivery {
  eventId: string;
  type: 'invoice.paid' | 'invoice.payment_succeeded';
  invoice: Record<string, unknown>;
  /** `same_id`: the original delivered again; `second_event`: another event of the same payment. */
  duplicate: 'same_id' | 'second_event' | null;
}

/** A billing-cycle invoice of the pinned API version, as an event carries it (no `payments`: events leave it out). */
function cycleInvoice(k: number, subscription: string, customer: string): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    id: `in_bench_${k}`,
    object: 'invoice',
    customer,
    status: 'paid',
    billing_reason: 'subscription_cycle',
    collection_method: 'charge_automatically',
    currency: 'usd',
    amount_due: PRICE,
    amount_paid: PRICE,
    amount_remaining: 0,
    attempt_count: 1,
    attempted: true,
    parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription, metadata: {} } },
    period_start: now - 30 * 86400,
    period_end: now,
    status_transitions: { finalized_at: now, paid_at: now },
    created: now,
    livemode: false,
  };
}

/**
 * The 1,000 deliveries in sending order: the 800 originals in order, each duplicate inserted within 16 places after
 * its original (an original and its duplicate are often in flight together).
 */
function deliveries(subscriptions: number): Delivery[] {
  const slots: Delivery[][] = [];
  for (let k = 0; k < RENEWALS; k++) {
    const n = k % subscriptions;
    slots.push([{ eventId: `evt_bench_${k}`, type: 'invoice.paid', invoice: cycleInvoice(k, subscriptionId(n), `cus_bench_${n}`), duplicate: null }]);
  }
  const duplicates = SAME_ID_DUPLICATES + SECOND_EVENT_DUPLICATES;
  const spacing = Math.floor(RENEWALS / duplicates);
  for (let j = 0; j < duplicates; j++) {
    const k = j * spacing;
    const original = slots[k][0];
    const sameId = j % 2 === 0;
    const duplicate: Delivery = sameId
      ? { ...original, duplicate: 'same_id' }
      : { eventId: `evt_bench_succeeded_${k}`, type: 'invoice.payment_succeeded', invoice: original.invoice, duplicate: 'second_event' };
    slots[Math.min(RENEWALS - 1, k + (j % CONCURRENCY))].push(duplicate);
  }
  return slots.flat();
}

function signed(delivery: Delivery): { body: string; signature: string } {
  const timestamp = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({
    id: delivery.eventId,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: timestamp,
    livemode: false,
    type: delivery.type,
    data: { object: delivery.invoice },
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp }) };
}

interface Answer {
  delivery: Delivery;
  status: number;
  body: unknown;
  ms: number;
}

async function send(base: string, delivery: Delivery): Promise<Answer> {
  const { body, signature } = signed(delivery);
  const started = performance.now();
  const response = await fetch(`${base}${API}/webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the report
  }
  return { delivery, status: response.status, body: parsed, ms: performance.now() - started };
}

/** Sends every delivery, `CONCURRENCY` in flight at any time, in order. */
async function burst(base: string, all: Delivery[]): Promise<{ answers: Answer[]; seconds: number }> {
  const answers: Answer[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < all.length) {
      const delivery = all[next++];
      answers.push(await send(base, delivery));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { answers, seconds: (performance.now() - started) / 1000 };
}

const percentile = (sorted: number[], p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] * 10) / 10;

// ---------------------------------------------------------------------------------------------------------------
// Probe and verification

/** One renewal through an in-process server, its statements recorded. */
async function probe(runtime: HostRuntime): Promise<{ ms: number; statements: string[] }> {
  const server = await runtime.listen();
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const statements: string[] = [];
    const listener = (q: { sql: string }) => statements.push(q.sql);
    runtime.db.on('query', listener);
    const answer = await send(base, {
      eventId: 'evt_bench_probe',
      type: 'invoice.paid',
      invoice: cycleInvoice(-1, subscriptionId(SUBSCRIPTIONS), `cus_bench_${SUBSCRIPTIONS}`),
      duplicate: null,
    });
    runtime.db.off('query', listener);
    if (answer.status !== 200) throw new Error(`the probe renewal answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return { ms: Math.round(answer.ms * 10) / 10, statements };
  } finally {
    server.close();
  }
}

interface Baseline {
  renewalOrders: number;
  events: number;
  renewedActivities: number;
  billCount: number;
}

const renewedActivities = (db: Knex) => db('store_activities').where({ object_type: 'subscription' }).where('title', 'like', 'Subscription renewed%');

async function baseline(db: Knex): Promise<Baseline> {
  const sum = (await db('store_subscriptions').sum({ n: 'bill_count' }).first()) as { n: number | string };
  return {
    renewalOrders: Number(((await db('store_orders').where({ type: 'renewal' }).count({ n: '*' }).first()) as { n: number | string }).n),
    events: await count(db, 'store_webhook_events'),
    renewedActivities: Number(((await renewedActivities(db).count({ n: '*' }).first()) as { n: number | string }).n),
    billCount: Number(sum.n),
  };
}

async function verify(
  db: Knex,
  before: Baseline,
  answers: Answer[],
  recorder: Recorder,
  subscriptions: number,
): Promise<{ facts: Record<string, number>; problems: string[] }> {
  const problems: string[] = [];
  const expectEqual = (what: string, actual: number, expected: number) => {
    if (actual !== expected) problems.push(`${what}: ${actual}, expected ${expected}`);
  };
  const after = await baseline(db);
  const invoiceIds = new Set(Array.from({ length: RENEWALS }, (_, k) => `in_bench_${k}`));
  const charges = (await db('store_order_transactions as t')
    .join('store_orders as o', 'o.id', 't.order_id')
    .where('o.type', 'renewal')
    .whereIn('t.vendor_charge_id', [...invoiceIds])
    .select('t.vendor_charge_id', 't.status', 't.total', 'o.payment_status', 'o.invoice_no', 'o.receipt_number')) as Array<Record<string, unknown>>;
  const chargeIds = new Set(charges.map((c) => String(c.vendor_charge_id)));
  const receipts = new Set(charges.map((c) => c.receipt_number).filter((r) => r !== null));
  const outcomes = (await db('store_webhook_events')
    .where('event_id', 'like', 'evt_bench_%')
    .whereNot('event_id', 'evt_bench_probe')
    .select('outcome')) as Array<{ outcome: string }>;
  const outcome = (name: string) => outcomes.filter((o) => o.outcome === name).length;
  const perSubscription = (await db('store_subscriptions')
    .where('vendor_subscription_id', 'like', 'sub_bench_%')
    .select('vendor_subscription_id', 'bill_count')) as Array<{
    vendor_subscription_id: string;
    bill_count: number;
  }>;
  const wrongCounts = perSubscription.filter((s) => {
    const n = s.vendor_subscription_id === subscriptionId(subscriptions) ? -1 : Number(s.vendor_subscription_id.slice('sub_bench_'.length));
    const invoices = n < 0 ? 1 : Math.floor(RENEWALS / subscriptions) + (n < RENEWALS % subscriptions ? 1 : 0);
    return Number(s.bill_count) !== 1 + invoices;
  }).length;

  const facts = {
    answers2xx: answers.filter((a) => a.status >= 200 && a.status < 300).length,
    answeredDuplicate: answers.filter((a) => (a.body as { duplicate?: boolean }).duplicate === true).length,
    renewalOrders: after.renewalOrders - before.renewalOrders,
    renewalCharges: charges.length,
    distinctInvoices: chargeIds.size,
    paidRenewals: charges.filter((c) => c.payment_status === 'paid' && c.status === 'succeeded' && Number(c.total) === PRICE && c.invoice_no).length,
    distinctReceipts: receipts.size,
    renewedHooks: after.renewedActivities - before.renewedActivities,
    billCountAdded: after.billCount - before.billCount,
    subscriptionsWithWrongBillCount: wrongCounts,
    eventRows: after.events - before.events,
    eventsRenewed: outcome('renewed'),
    eventsDuplicate: outcome('duplicate'),
    stripeRequests: recorder.requests.length,
  };
  expectEqual('2xx answers', facts.answers2xx, WEBHOOKS);
  expectEqual('answers duplicate: true (same event id)', facts.answeredDuplicate, SAME_ID_DUPLICATES);
  expectEqual('renewal orders', facts.renewalOrders, RENEWALS);
  expectEqual('renewal charges under the invoice ids', facts.renewalCharges, RENEWALS);
  expectEqual('distinct invoices renewed', facts.distinctInvoices, RENEWALS);
  expectEqual('paid renewal orders with an invoice number', facts.paidRenewals, RENEWALS);
  expectEqual('distinct receipt numbers', facts.distinctReceipts, RENEWALS);
  expectEqual('store/subscription/renewed (renewed activity entries)', facts.renewedHooks, RENEWALS);
  expectEqual('bill_count added', facts.billCountAdded, RENEWALS);
  expectEqual('subscriptions with a wrong bill_count', facts.subscriptionsWithWrongBillCount, 0);
  expectEqual('webhook event rows', facts.eventRows, RENEWALS + SECOND_EVENT_DUPLICATES);
  expectEqual('events renewed', facts.eventsRenewed, RENEWALS);
  expectEqual('events duplicate', facts.eventsDuplicate, SECOND_EVENT_DUPLICATES);
  expectEqual('requests to Stripe', facts.stripeRequests, 0);
  for (const refused of answers.filter((a) => a.status < 200 || a.status > 299).slice(0, 3)) {
    problems.push(`${refused.delivery.eventId} answered ${refused.status}: ${JSON.stringify(refused.body).slice(0, 200)}`);
  }
  return { facts, problems };
}

// ---------------------------------------------------------------------------------------------------------------
// The run

async function inProcess<T>(store: Store, work: (runtime: HostRuntime) => Promise<T>): Promise<T> {
  const runtime = await boot({ ...readConfig({ ...store.env, PORT: '0', HOST: '127.0.0.1' }), logLevel: 'warn' });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

async function benchDatabase(kind: DatabaseKind) {
  console.log(`\n== ${kind}`);
  const store = await openStore(kind, { name: 'renewals', mariadbState: '/tmp/bench-renewals-mariadb.state' });
  const recorder = await stripeRecorder();
  const stripeEnv = { STRIPE_API_BASE: recorder.url, STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: SECRET };
  Object.assign(store.env, stripeEnv);
  Object.assign(process.env, stripeEnv);
  let server: Awaited<ReturnType<typeof startServer>> | null = null;
  try {
    process.stdout.write(`seeding ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions … `);
    const seedStarted = performance.now();
    const prepared = await inProcess(store, async (runtime) => {
      await seed(runtime, SUBSCRIPTIONS);
      const seconds = (performance.now() - seedStarted) / 1000;
      console.log(`${seconds.toFixed(1)} s`);
      const probed = await probe(runtime);
      console.log(`probe renewal: ${probed.ms} ms, ${probed.statements.length} statements`);
      return { seconds, probed, before: await baseline(runtime.db), databaseVersion: await databaseVersion(runtime.db, kind) };
    });
    recorder.requests.length = 0;

    server = await startServer(store);
    const all = deliveries(SUBSCRIPTIONS);
    process.stdout.write(`sending ${all.length} webhooks, ${CONCURRENCY} at a time … `);
    const serverBefore = cpuMicros(server.child.pid);
    const dbBefore = cpuMicros(store.databasePid);
    const { answers, seconds } = await burst(server.base, all);
    const serverCpu = (cpuMicros(server.child.pid) ?? 0) - (serverBefore ?? 0);
    const dbCpu = store.databasePid ? (cpuMicros(store.databasePid) ?? 0) - (dbBefore ?? 0) : null;
    const perSecond = Math.round((WEBHOOKS / seconds) * 10) / 10;
    const latencies = answers.map((a) => a.ms).sort((a, b) => a - b);
    console.log(`${seconds.toFixed(2)} s: ${perSecond} webhooks/s, p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`);
    await stopProcess(server.child);
    server = null;

    const verification = await inProcess(store, (runtime) => verify(runtime.db, prepared.before, answers, recorder, SUBSCRIPTIONS));
    console.log(`verified: ${JSON.stringify(verification.facts)}`);
    const meetsTarget = kind !== 'mariadb' || perSecond >= TARGET_PER_SECOND;
    return {
      benchmark: 'renewals',
      database: kind,
      date: new Date().toISOString(),
      environment: { ...machine(), databaseVersion: prepared.databaseVersion },
      code: await codeVersion(),
      settings: {
        webhooks: WEBHOOKS,
        duplicates: { sameEventId: SAME_ID_DUPLICATES, secondEventOfPayment: SECOND_EVENT_DUPLICATES },
        concurrency: CONCURRENCY,
        subscriptions: SUBSCRIPTIONS,
        workers: positive(process.env.BENCH_WORKERS, 2),
        target: kind === 'mariadb' ? { webhooksPerSecond: TARGET_PER_SECOND } : null,
      },
      seeding: { subscriptions: SUBSCRIPTIONS, wallSeconds: Math.round(prepared.seconds * 10) / 10 },
      result: {
        seconds: Math.round(seconds * 100) / 100,
        webhooksPerSecond: perSecond,
        latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: percentile(latencies, 100) },
        serverCpuMicrosPerWebhook: Math.round(serverCpu / WEBHOOKS),
        databaseCpuMicrosPerWebhook: dbCpu === null ? null : Math.round(dbCpu / WEBHOOKS),
      },
      probe: { ms: prepared.probed.ms, statementCount: prepared.probed.statements.length, statements: prepared.probed.statements },
      verification,
      pass: !verification.problems.length && meetsTarget,
    };
  } finally {
    if (server) await stopProcess(server.child);
    await recorder.close();
    await store.close();
  }
}

async function run(): Promise<void> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const lines: string[] = [];
  let pass = true;
  for (const kind of DATABASES) {
    if (kind !== 'sqlite' && kind !== 'mariadb') throw new Error(`BENCH_DATABASES: unknown database "${kind as string}" (sqlite, mariadb)`);
    const report = await benchDatabase(kind);
    const file = path.join(RESULTS_DIR, `renewals-${kind}.json`);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    const r = report.result;
    lines.push(
      `${kind}: ${r.webhooksPerSecond} webhooks/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, server ${r.serverCpuMicrosPerWebhook} µs/webhook` +
        (r.databaseCpuMicrosPerWebhook === null ? '' : `, database ${r.databaseCpuMicrosPerWebhook} µs/webhook`) +
        `; ${report.verification.facts.renewalOrders} renewal orders, ${report.verification.facts.renewedHooks} renewed hooks` +
        `; ${report.pass ? 'PASS' : `FAIL${report.verification.problems.length ? `: ${report.verification.problems.join('; ')}` : ' (rate)'}`}`,
      `  written: ${path.relative(process.cwd(), file) || file}`,
    );
    pass &&= report.pass;
  }
  console.log(`\n${lines.join('\n')}`);
  if (!pass) process.exitCode = 1;
}

run().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
