import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { dialect, insertMany, rawRows } from '../../core/db';
import { toTimestamp } from '../../core/time';
import { rebuildReports } from '../reports/sync/rebuild';
import { getStoreSettings } from '../settings/store-settings';
import { pick, rngFor, type Rng } from './rng';
import { seedScaleOrderAddresses } from './scale-order-addresses';
import { seedScaleOrders } from './scale-orders';
import { seedScaleSubscriptions } from './scale-subscriptions';
import { seedScaleTaxes } from './scale-taxes';
import { COMPANIES, EMAIL_DOMAINS, NAMES } from './scale-data';
import { between, fillPattern, pickCountry, streetAddress } from './scale-places';

/**
 * The bulk seeder behind `npm run cli -- seed --scale N`: N customers with a primary billing and a primary shipping
 * address each, for benchmarks and trying the admin at a realistic size.
 *
 * - Deterministic: customer number `i` is generated from `(seed, i)` alone (names, email, country, address, status,
 *   statistics), so the same command on the same store writes the same people. Only the `uuid`s are random.
 * - Safe on a store with data: numbering continues after the customers already there, and a generated email that
 *   exists already is skipped (the next number is tried), so running it twice adds N more and never violates the
 *   unique keys. Emails carry their number (`jane.doe1234@example.com`), which keeps them unique and lower-case.
 * - Bulk: rows are inserted `batchSize` customers at a time (their 2 × batchSize addresses with them), each batch in
 *   one transaction; ids of a batch are read back by email, which works on SQLite and MySQL alike.
 *
 * The second part (`scale-orders.ts`) gets the customers written (id, number, created_at) and writes ten orders per
 * customer with `rngFor(seed, 'orders', i)`, then their statistics; the third (`scale-subscriptions.ts`) two
 * subscriptions per customer with their first and renewal orders (`rngFor(seed, 'subscriptions', i)`), and adds
 * those orders to the statistics; the fourth (`scale-taxes.ts`) the order tax records of the paid one-time orders; the
 * fifth (`scale-order-addresses.ts`) the orders' billing and shipping addresses. Last, the report facts and summaries
 * are rebuilt from the orders (`rebuildReports`), since the bulk writes bypass the per-order sync.
 */

export const SCALE_BATCH_SIZE = 500;
/** Insert batches per transaction (5,000 customers and 10,000 addresses with the default batch size). */
const BATCHES_PER_TRANSACTION = 10;
const DEFAULT_SEED = 1;
const SPAN_MS = 3 * 365 * 24 * 60 * 60 * 1000;

export interface ScaleOptions {
  /** Customers to write. */
  customers: number;
  /** Seed of the pseudo-random generator (default 1). */
  seed?: number;
  /**
   * Ten orders and two subscriptions (with their orders) per customer as well (default); `false` writes the customers
   * alone, in seconds (`--customers-only`).
   */
  orders?: boolean;
  /** Customers per insert batch (default 500: 500 customer rows and 1,000 address rows per transaction). */
  batchSize?: number;
  /** Progress lines (e.g. every 10,000 customers) for a long run. */
  progress?: (line: string) => void;
}

/** One customer the seeder wrote, as the later parts (orders) need it. */
export interface SeededCustomer {
  id: number;
  /** The customer's number in the generator (`rngFor(seed, 'customer', index)`). */
  index: number;
  created_at: string;
  country: string;
}

export interface ScalePart {
  name: string;
  /** Rows written per table. */
  rows: Record<string, number>;
  ms: number;
}

export interface ScaleReport {
  seed: number;
  customers: SeededCustomer[];
  /** Generated customers left out because their email already existed. */
  skipped: number;
  parts: ScalePart[];
  ms: number;
}

/** Lower-case ASCII for an email local part: `Müller` → `mueller`, `Åberg` → `aberg`, `de Jong` → `dejong`. */
export function emailWord(name: string): string {
  return name
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z]/g, '');
}

// ---------------------------------------------------------------------------------------------------------------
// One generated customer

interface AddressRow {
  type: 'billing' | 'shipping';
  is_primary: 1;
  primary_slot: 'billing' | 'shipping';
  status: 'active';
  label: string;
  name: string;
  company_name: string;
  address_1: string;
  address_2: string;
  city: string;
  state: string;
  postcode: string;
  country: string;
  phone: string;
  email: string;
  meta: string;
  created_at: string;
  updated_at: string;
}

export interface GeneratedCustomer {
  index: number;
  customer: Record<string, string | number | null>;
  addresses: AddressRow[];
}

function emailOf(rng: Rng, first: string, last: string, index: number): string {
  const f = emailWord(first) || 'customer';
  const l = emailWord(last) || 'store';
  const local = pick(rng, [`${f}.${l}`, `${f}.${l}`, `${f}${l}`, `${f[0]}${l}`, `${l}.${f}`, `${f}_${l}`, `${f}`]);
  // The number ends the local part (names have no digits), so emails of different numbers never collide.
  return `${local}${index}@${pick(rng, EMAIL_DOMAINS)}`;
}

/**
 * Customer number `index`, created at `createdAt`, as rows ready to insert (`customer_id` of the addresses is set
 * once the customer's id is known). Pure: the same seed and number always give the same person.
 */
export function generateCustomer(seed: number, index: number, createdAt: Date, now: Date, currency: string): GeneratedCustomer {
  const rng = rngFor(seed, 'customer', index);
  const country = pickCountry(rng);
  const names = NAMES[pick(rng, country.names)];
  const first_name = pick(rng, names.first);
  const last_name = pick(rng, names.last);
  const email = emailOf(rng, first_name, last_name, index);
  const home = streetAddress(rng, country);
  const postcode = fillPattern(rng, home.city.postcode);
  const phone = `${home.city.phone}${fillPattern(rng, '#### ###').slice(0, 8)}`.trim();

  const created = toTimestamp(createdAt);
  // Three in ten were edited later (within 90 days of signing up).
  const edited = rng() < 0.3 ? Math.floor(rng() * 90 * 86_400_000) : 0;
  const updatedAt = new Date(Math.min(now.getTime(), createdAt.getTime() + edited));
  const updated = toTimestamp(updatedAt);

  // Most customers never bought anything yet (the orders part computes real statistics); a quarter have some.
  let purchase_count = 0;
  let ltv = 0;
  let aov = 0;
  let first_purchase_date: string | null = null;
  let last_purchase_date: string | null = null;
  if (rng() < 0.25) {
    purchase_count = 1 + Math.floor(-Math.log(1 - rng()) * 2.5);
    aov = between(rng, 1200, 18000);
    ltv = aov * purchase_count;
    const room = now.getTime() - createdAt.getTime();
    const first = createdAt.getTime() + Math.floor(rng() * room * 0.5);
    const last = purchase_count === 1 ? first : first + Math.floor(rng() * (now.getTime() - first));
    first_purchase_date = toTimestamp(new Date(first));
    last_purchase_date = toTimestamp(new Date(last));
  }
  const r = rng();
  const status = r < 0.9 ? 'active' : r < 0.97 ? 'inactive' : 'archived';

  const name = `${first_name} ${last_name}`;
  const base = { status: 'active' as const, is_primary: 1 as const, name, email, meta: '{}', created_at: created, updated_at: created };
  const billing: AddressRow = {
    ...base,
    type: 'billing',
    primary_slot: 'billing',
    label: 'Home',
    company_name: '',
    address_1: home.address_1,
    address_2: home.address_2,
    city: home.city.city,
    state: home.city.state,
    postcode,
    country: country.code,
    phone,
  };
  // One in five ships somewhere else (mostly to work), in the same country.
  let shipping: AddressRow = { ...billing, type: 'shipping', primary_slot: 'shipping' };
  if (rng() < 0.2) {
    const work = streetAddress(rng, country);
    shipping = {
      ...shipping,
      label: 'Work',
      company_name: pick(rng, COMPANIES),
      address_1: work.address_1,
      address_2: work.address_2,
      city: work.city.city,
      state: work.city.state,
      postcode: fillPattern(rng, work.city.postcode),
    };
  }

  return {
    index,
    customer: {
      user_id: null,
      contact_id: null,
      email,
      first_name,
      last_name,
      status,
      purchase_value: ltv ? JSON.stringify({ [currency]: ltv }) : '{}',
      purchase_count,
      ltv,
      first_purchase_date,
      last_purchase_date,
      aov,
      notes: '',
      uuid: crypto.randomUUID(),
      country: country.code,
      city: billing.city,
      state: billing.state,
      postcode: billing.postcode,
      created_at: created,
      updated_at: updated,
    },
    addresses: [billing, shipping],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Bulk writing

async function existingEmails(db: Knex | Knex.Transaction, emails: string[]): Promise<Set<string>> {
  const rows = (await db('store_customers').whereIn('email', emails).select('email')) as Array<{ email: string }>;
  return new Set(rows.map((row) => row.email.toLowerCase()));
}

/**
 * SQLite's default page cache is 2 MB; with random keys (email, uuid) most index inserts would then miss it. For the
 * run, the seeder's connection gets up to 256 MB (taken only as needed); the old size comes back after.
 */
async function largerSqliteCache(db: Knex): Promise<() => Promise<void>> {
  if (dialect(db) !== 'sqlite') return async () => undefined;
  const rows = rawRows<{ cache_size: number }>(db, await db.raw('pragma cache_size'));
  const previous = Math.trunc(Number(rows[0]?.cache_size ?? -2000));
  await db.raw('pragma cache_size = -262144');
  return async () => {
    await db.raw(`pragma cache_size = ${previous}`);
  };
}

/** Inserts one batch of generated customers that are not in the store yet, then their addresses. */
async function insertBatch(trx: Knex.Transaction, batch: GeneratedCustomer[]): Promise<{ written: SeededCustomer[]; skipped: number; addresses: number }> {
  const emails = batch.map((g) => g.customer.email as string);
  const taken = await existingEmails(trx, emails);
  const fresh = taken.size ? batch.filter((g) => !taken.has(g.customer.email as string)) : batch;
  if (!fresh.length) return { written: [], skipped: batch.length, addresses: 0 };
  await insertMany(
    trx,
    'store_customers',
    fresh.map((g) => g.customer),
  );
  const rows = (await trx('store_customers')
    .whereIn(
      'email',
      fresh.map((g) => g.customer.email as string),
    )
    .select('id', 'email')) as Array<{ id: number; email: string }>;
  const idOf = new Map(rows.map((row) => [row.email.toLowerCase(), Number(row.id)]));
  const addressRows = fresh.flatMap((g) => g.addresses.map((a) => ({ ...a, customer_id: idOf.get(g.customer.email as string)! })));
  await insertMany(trx, 'store_customer_addresses', addressRows);
  const written = fresh.map((g) => ({
    id: idOf.get(g.customer.email as string)!,
    index: g.index,
    created_at: g.customer.created_at as string,
    country: g.customer.country as string,
  }));
  return { written, skipped: batch.length - fresh.length, addresses: addressRows.length };
}

/**
 * Writes `count` customers and their two primary addresses; returns what it wrote. Each INSERT carries one batch
 * (500 customers, then their 1,000 addresses); a transaction carries `BATCHES_PER_TRANSACTION` batches, because
 * with random index keys a commit rewrites most touched index pages, so fewer, larger commits write far less.
 */
export async function seedScaleCustomers(
  ctx: Ctx,
  count: number,
  seed: number,
  options: { batchSize?: number; progress?: (line: string) => void } = {},
): Promise<{ customers: SeededCustomer[]; skipped: number; addresses: number }> {
  const db = ctx.db;
  const batchSize = Math.max(1, options.batchSize ?? SCALE_BATCH_SIZE);
  const now = ctx.clock.now();
  const start = now.getTime() - SPAN_MS;
  const { currency } = await getStoreSettings(ctx.host);
  const counted = (await db('store_customers').count({ n: '*' }).first()) as { n: number | string };
  // Numbering continues after the customers already in the store.
  let index = Number(counted.n);
  let skipped = 0;
  let addresses = 0;
  const written: SeededCustomer[] = [];
  let nextReport = 10_000;

  /** The next batch of generated customers; sign-up times rise with the position in this run, over three years. */
  const generate = (): GeneratedCustomer[] => {
    const want = Math.min(batchSize, count - written.length);
    const batch: GeneratedCustomer[] = [];
    for (let k = 0; k < want; k++, index++) {
      const position = written.length + k;
      const at = new Date(start + Math.floor(((position + rngFor(seed, 'created', index)()) / count) * SPAN_MS));
      batch.push(generateCustomer(seed, index, at, now, currency));
    }
    return batch;
  };

  while (written.length < count) {
    await db.transaction(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && written.length < count; b++) {
        const result = await insertBatch(trx, generate());
        written.push(...result.written);
        skipped += result.skipped;
        addresses += result.addresses;
      }
    });
    if (options.progress && written.length >= nextReport && written.length < count) {
      options.progress(`${written.length.toLocaleString('en-US')} customers …`);
      nextReport = (Math.floor(written.length / 10_000) + 1) * 10_000;
    }
  }
  return { customers: written, skipped, addresses };
}

/** A progress line every 250,000 orders the report rebuild has read. */
function rebuildProgress(progress: ScaleOptions['progress']): ((done: number, total: number) => void) | undefined {
  if (!progress) return undefined;
  let next = 250_000;
  return (done, total) => {
    if (done < next || done >= total) return;
    progress(`reports: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} orders …`);
    next = (Math.floor(done / 250_000) + 1) * 250_000;
  };
}

/**
 * `seed --scale N`: the customers, then unless `orders` is false their orders (ten each), subscriptions (two each),
 * tax records and order addresses, and the report facts rebuilt.
 */
export async function seedScale(ctx: Ctx, options: ScaleOptions): Promise<ScaleReport> {
  const seed = options.seed ?? DEFAULT_SEED;
  const started = Date.now();
  const parts: ScalePart[] = [];

  const restoreCache = await largerSqliteCache(ctx.db);
  try {
    const customersStarted = Date.now();
    const customers = await seedScaleCustomers(ctx, options.customers, seed, options);
    parts.push({
      name: 'customers',
      rows: { store_customers: customers.customers.length, store_customer_addresses: customers.addresses },
      ms: Date.now() - customersStarted,
    });
    if (options.orders !== false) {
      const ordersStarted = Date.now();
      const orders = await seedScaleOrders(ctx, customers.customers, seed, options);
      parts.push({ name: 'orders', rows: orders, ms: Date.now() - ordersStarted });
      const subscriptionsStarted = Date.now();
      const subscriptions = await seedScaleSubscriptions(ctx, customers.customers, seed, options);
      parts.push({ name: 'subscriptions', rows: subscriptions, ms: Date.now() - subscriptionsStarted });
      const taxesStarted = Date.now();
      const taxes = await seedScaleTaxes(ctx, customers.customers, options);
      parts.push({ name: 'taxes', rows: taxes, ms: Date.now() - taxesStarted });
      const addressesStarted = Date.now();
      const addresses = await seedScaleOrderAddresses(ctx, customers.customers, seed, options);
      parts.push({ name: 'order addresses', rows: addresses, ms: Date.now() - addressesStarted });
      const reportsStarted = Date.now();
      const reports = await rebuildReports(ctx, { progress: rebuildProgress(options.progress) });
      parts.push({ name: 'reports', rows: { store_report_orders: reports.facts }, ms: Date.now() - reportsStarted });
    }
    return { seed, customers: customers.customers, skipped: customers.skipped, parts, ms: Date.now() - started };
  } finally {
    await restoreCache();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The lines `seed --scale` prints: what each part wrote and how long it took. */
export function describeScaleReport(report: ScaleReport): string[] {
  const n = (value: number) => value.toLocaleString('en-US');
  let low = Infinity;
  let high = -Infinity;
  for (const { id } of report.customers) {
    low = Math.min(low, id);
    high = Math.max(high, id);
  }
  const lines = report.parts.map((part) => {
    const rows = Object.entries(part.rows)
      .map(([table, count]) => `${n(count)} ${table}`)
      .join(', ');
    const perSecond = Object.values(part.rows).reduce((a, b) => a + b, 0) / Math.max(part.ms / 1000, 0.001);
    return `  ${part.name}: ${rows} in ${seconds(part.ms)} (${n(Math.round(perSecond))} rows/s)`;
  });
  return [
    `Scale seed (seed ${report.seed}): ${n(report.customers.length)} customers in ${seconds(report.ms)}` +
      (report.customers.length ? `, ids ${low}–${high}` : '') +
      (report.skipped ? `; ${n(report.skipped)} generated emails already existed and were skipped` : '') +
      '.',
    ...lines,
  ];
}
