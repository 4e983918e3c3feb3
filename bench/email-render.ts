/**
 * Email render micro-benchmark: the warm render of `order_paid_customer` (the order receipt email) for a paid order
 * with 5 lines and a billing address, in-process on an in-memory SQLite store: `renderNotification` as the send job
 * calls it (settings read through the options cache, subject smartcodes filled, the MJML body compiled once per
 * process and filled by eta, the plain-text part derived). The email's data is built once (`buildEmailData`); the
 * database reads it makes are the job's, not the render's.
 *
 *   npm run bench:email-render      (builds, then runs dist/bench/email-render.js)
 *
 * Runs `BENCH_WARMUP` renders (default 2,000), then `BENCH_ITERATIONS` timed ones (default 20,000), each timed on its
 * own. Prints the first (cold) render, the mean and p99 per render and PASS/FAIL against the 1 ms target (both the mean
 * and the p99 must be under it), writes `bench/results/email-render.json`, and exits 1 on FAIL.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemCtx } from '../src/core/context';
import { RateLimits } from '../src/core/ratelimit';
import { toTimestamp } from '../src/core/time';
import { boot } from '../src/host/bootstrap';
import type { HostConfig } from '../src/host/config';
import type { Host } from '../src/host/contract';
import { findPackageRoot } from '../src/host/paths';
import { buildEmailData, renderNotification } from '../src/modules/email-notification/render';
import { machine } from './harness';

const TARGET_MS = 1;
const LINES = 5;
const WARMUP = positive(process.env.BENCH_WARMUP, 2_000);
const ITERATIONS = positive(process.env.BENCH_ITERATIONS, 20_000);

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** A paid order of a customer with a billing address: 5 lines, a card charge. */
async function seedOrder(host: Host): Promise<number> {
  const { db } = host;
  const now = toTimestamp(host.clock.now());
  const stamps = { created_at: now, updated_at: now };
  const [customerId] = await db('store_customers').insert({
    email: 'jane@example.com',
    first_name: 'Jane',
    last_name: 'Doe',
    uuid: crypto.randomUUID(),
    ...stamps,
  });
  const prices = [2499, 1299, 4500, 899, 12000];
  const subtotal = prices.reduce((sum, price, i) => sum + price * (i + 1), 0);
  const [orderId] = await db('store_orders').insert({
    uuid: crypto.randomUUID(),
    customer_id: customerId,
    receipt_number: 1,
    invoice_no: 'INV-1',
    status: 'processing',
    payment_status: 'paid',
    payment_method: 'stripe',
    payment_method_title: 'Card',
    currency: 'USD',
    subtotal,
    shipping_total: 500,
    tax_total: 1234,
    total_amount: subtotal + 1734,
    total_paid: subtotal + 1734,
    ...stamps,
  });
  await db('store_order_items').insert(
    prices.map((price, i) => ({
      order_id: orderId,
      cart_index: i,
      post_title: `Product ${i + 1}`,
      title: `Variation ${i + 1}`,
      quantity: i + 1,
      unit_price: price,
      subtotal: price * (i + 1),
      line_total: price * (i + 1),
      ...stamps,
    })),
  );
  await db('store_order_addresses').insert({
    order_id: orderId,
    type: 'billing',
    name: 'Jane Doe',
    email: 'jane@example.com',
    address_1: '1 Main St',
    city: 'Los Angeles',
    state: 'CA',
    postcode: '90001',
    country: 'US',
    ...stamps,
  });
  await db('store_order_transactions').insert({
    uuid: crypto.randomUUID(),
    order_id: orderId,
    transaction_type: 'charge',
    payment_method: 'stripe',
    card_last_4: '4242',
    card_brand: 'visa',
    status: 'succeeded',
    currency: 'USD',
    total: subtotal + 1734,
    ...stamps,
  });
  return Number(orderId);
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-email-render-'));
  const config: HostConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: 'sqlite::memory:',
    smtpUrl: null,
    secret: 'bench-secret',
    siteUrl: 'http://store.test',
    logLevel: 'silent',
    workers: 1,
    trustProxy: false,
  };
  const runtime = await boot(config);
  try {
    const { host } = runtime;
    const ctx = systemCtx(host, new RateLimits(host.db));
    const orderId = await seedOrder(host);
    const data = await buildEmailData(ctx, host.db, { notification: 'order_paid_customer', object_type: 'order', object_id: orderId, event_key: 'paid' });
    if (!data) throw new Error('the seeded order has no email data');
    const render = () => renderNotification(ctx, host.db, 'order_paid_customer', data);

    const coldStart = process.hrtime.bigint();
    const first = await render();
    const coldMs = Number(process.hrtime.bigint() - coldStart) / 1e6;
    for (let i = 0; i < WARMUP; i++) await render();
    const times = new Float64Array(ITERATIONS);
    let email = first;
    for (let i = 0; i < ITERATIONS; i++) {
      const start = process.hrtime.bigint();
      email = await render();
      times[i] = Number(process.hrtime.bigint() - start) / 1e6;
    }
    if (email.html !== first.html || !email.text.includes('Product 5 – Variation 5 | 5 | $600.00'))
      throw new Error('the warm render differs from the first one');

    const sorted = times.slice().sort();
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    const round = (ms: number) => Math.round(ms * 10_000) / 10_000;
    const pass = mean < TARGET_MS && at(0.99) < TARGET_MS;
    const report = {
      benchmark: 'email-render',
      date: new Date().toISOString(),
      environment: machine(),
      settings: { notification: 'order_paid_customer', lines: LINES, warmup: WARMUP, iterations: ITERATIONS, targetMs: TARGET_MS },
      result: {
        coldMs: round(coldMs),
        meanMs: round(mean),
        p50Ms: round(at(0.5)),
        p99Ms: round(at(0.99)),
        maxMs: round(sorted[sorted.length - 1]),
        htmlBytes: Buffer.byteLength(email.html),
        textBytes: Buffer.byteLength(email.text),
      },
      pass,
    };
    const dir = path.join(findPackageRoot(__dirname), 'bench', 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'email-render.json');
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    const r = report.result;
    console.log(
      [
        `order_paid_customer, ${LINES} lines: first render ${r.coldMs.toFixed(1)} ms (MJML compile), then mean ${r.meanMs.toFixed(4)} ms  p50 ${r.p50Ms.toFixed(4)} ms  p99 ${r.p99Ms.toFixed(4)} ms  ${pass ? 'PASS' : 'FAIL'}`,
        `target: mean and p99 < ${TARGET_MS} ms per warm render (${r.htmlBytes} bytes of HTML, ${r.textBytes} of text)`,
        `written: ${path.relative(process.cwd(), file) || file}`,
      ].join('\n'),
    );
    if (!pass) process.exitCode = 1;
  } finally {
    await runtime.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
