/**
 * Checkout under load (issue 10, "Speed"): `POST /checkout/place-order` end to end with cash on delivery, from
 * anonymous shoppers with distinct carts, on SQLite and MariaDB:
 *
 *   POST /wp-json/store/v2/checkout/place-order   16 connections; target ≥ 100 orders/s, p99 < 300 ms, no errors
 *
 *   npm run bench:checkout           (builds, then runs dist/bench/checkout.js)
 *
 * The store, the seeding, the server (`WORKERS` processes), the load, CPU per request, the statements one order runs
 * with their plans (`queries` in the results: the statement count is the queries per order) and the environment
 * variables are those of `bench/harness.ts`. The store is seeded with `seed --scale N --customers-only` (customers
 * and their addresses, no orders); MariaDB runs with `MARIADB_STATE=/tmp/bench-checkout-mariadb.state`.
 *
 * Set-up, through the admin API where one exists: a physical product with two variations whose stock is managed
 * (1,000,000 units each), a US shipping zone with a flat-rate method, a 10% coupon without a use limit, cash on
 * delivery enabled, and the place-order rate limit raised through its setting (`checkout_rate_limit`: every
 * request comes from 127.0.0.1, which the spec's 5 per minute would refuse). Then `CARTS` guest carts are written
 * straight to the carts table (as `POST /cart/items` leaves them: one of each variation, every other cart with the
 * coupon), so the load measures place-order alone. Each request places the next cart (its `fct_cart_hash` cookie)
 * for a new guest email; running out of carts makes the run invalid.
 *
 * After the load `verify` checks every order checkout wrote: two items, totals that add up (items − coupon +
 * shipping), one pending charge of the total, a billing address, its cart completed, the coupon's use count equal to
 * the orders that applied it, and the stock on hold equal to the units ordered (stock itself untouched).
 */
import type { Knex } from 'knex';
import { newCartHash } from '../src/modules/cart/repo';
import { toTimestamp } from '../src/core/time';
import { API, count, main, type BenchRequest, type BenchStore, type Benchmark, type Endpoint, type Prepared, type Verification } from './harness';

/** Carts written before the load: more than 16 connections can place at several hundred orders a second for 3 × 12 s. */
const CARTS = 40_000;
const STOCK = 1_000_000;
const SHIPPING = 500;
const PRICES = [4900, 2500];
const COUPON = 'BENCH10';

export interface CheckoutData {
  customers: number;
  carts: number;
  variationIds: number[];
  shippingMethodId: number;
  couponId: number;
}

interface CheckoutSettings {
  carts: number;
  stockPerVariation: number;
  rateLimitSetting: number;
}

const ids = (rows: Array<{ id: number | string }>) => rows.map((row) => Number(row.id));

async function expectOk(api: BenchStore['api'], request: BenchRequest): Promise<Record<string, unknown>> {
  const { status, body } = await api(request);
  if (status !== 200) throw new Error(`${request.method} ${request.path} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body as Record<string, unknown>;
}

async function catalogue({ runtime, api }: BenchStore): Promise<number[]> {
  await expectOk(api, {
    method: 'POST',
    path: `${API}/products`,
    body: {
      title: 'Checkout Bench Hoodie',
      status: 'publish',
      fulfillment_type: 'physical',
      variations: PRICES.map((price, i) => ({ title: `Size ${i + 1}`, sku: `CHECKOUT-BENCH-${i + 1}`, price, manage_stock: 1, stock_quantity: STOCK })),
    },
  });
  return ids(
    (await runtime
      .db('store_product_variations')
      .whereIn(
        'sku',
        PRICES.map((_, i) => `CHECKOUT-BENCH-${i + 1}`),
      )
      .orderBy('id')
      .select('id')) as Array<{ id: number }>,
  );
}

async function shippingMethod({ runtime, api }: BenchStore): Promise<number> {
  await expectOk(api, { method: 'POST', path: `${API}/shipping/zones`, body: { name: 'Bench US', countries: ['US'] } });
  const zone = (await runtime.db('store_shipping_zones').where({ name: 'Bench US' }).first('id')) as { id: number };
  await expectOk(api, {
    method: 'POST',
    path: `${API}/shipping/methods`,
    body: { zone_id: Number(zone.id), title: 'Bench flat rate', charge_type: 'flat_rate', charge_amount: SHIPPING },
  });
  const method = (await runtime.db('store_shipping_methods').where({ title: 'Bench flat rate' }).first('id')) as { id: number };
  return Number(method.id);
}

/** Guest carts as the cart API leaves them, written in batches; returns their hashes. */
async function writeCarts(db: Knex, variationIds: number[], now: Date): Promise<string[]> {
  const stamp = toTimestamp(now);
  const expires = toTimestamp(new Date(now.getTime() + 7 * 24 * 3600 * 1000));
  const hashes: string[] = [];
  for (let start = 0; start < CARTS; start += 500) {
    const rows = [];
    for (let i = start; i < Math.min(CARTS, start + 500); i++) {
      const hash = newCartHash();
      hashes.push(hash);
      const data = { items: variationIds.map((variation_id) => ({ variation_id, quantity: 1 })), coupons: i % 2 === 0 ? [COUPON] : [] };
      rows.push({
        cart_hash: hash,
        stage: 'draft',
        cart_data: JSON.stringify(data),
        checkout_data: '{}',
        expires_at: expires,
        created_at: stamp,
        updated_at: stamp,
      });
    }
    await db('store_carts').insert(rows);
  }
  return hashes;
}

async function prepare(store: BenchStore): Promise<Prepared<CheckoutData>> {
  const { runtime, api } = store;
  const { db } = runtime;
  const variationIds = await catalogue(store);
  const shippingMethodId = await shippingMethod(store);
  await expectOk(api, {
    method: 'POST',
    path: `${API}/coupons`,
    body: { code: COUPON, title: 'Bench 10%', type: 'percentage', amount: 10, status: 'active', stackable: 1 },
  });
  const coupon = (await db('store_coupons').where({ code: COUPON }).first('id')) as { id: number };
  await expectOk(api, { method: 'PUT', path: `${API}/settings/payment-methods`, body: { gateways: { cod: { enabled: true } } } });
  await runtime.host.options.set('checkout_rate_limit', 1_000_000_000);
  const hashes = await writeCarts(db, variationIds, runtime.host.clock.now());

  let next = 0;
  const placeOrder = (): BenchRequest => {
    const n = next++;
    return {
      method: 'POST',
      path: `${API}/checkout/place-order`,
      headers: { cookie: `fct_cart_hash=${hashes[Math.min(n, hashes.length - 1)]}` },
      body: {
        billing_email: `shopper-${n}@bench.example`,
        billing_first_name: 'Bench',
        billing_last_name: `Shopper ${n}`,
        billing_address_1: '1 Market Street',
        billing_city: 'San Francisco',
        billing_state: 'CA',
        billing_postcode: '94105',
        billing_country: 'US',
        fc_selected_shipping_method: shippingMethodId,
        payment_method: 'cod',
      },
    };
  };

  const endpoints: Endpoint[] = [
    {
      name: 'place-order',
      path: `${API}/checkout/place-order`,
      target: { requestsPerSecond: 100, p99Ms: 300 },
      anonymous: true,
      next: placeOrder,
      check: (body) => {
        const answer = body as { status?: string; redirect_url?: string };
        return answer.status === 'success' && /\/receipt\/\?order_hash=/.test(answer.redirect_url ?? '') ? null : 'expected a placed order';
      },
      problem: () => (next > hashes.length ? `ran out of carts (${hashes.length}); later requests repeated the last one` : null),
    },
  ];
  return {
    endpoints,
    data: { customers: await count(db, 'store_customers'), carts: hashes.length, variationIds, shippingMethodId, couponId: Number(coupon.id) },
    note: `${hashes.length.toLocaleString('en-US')} guest carts (variations ${variationIds.join(' and ')}, coupon ${COUPON} on every other), shipping method ${shippingMethodId}`,
  };
}

const one = async (query: Knex.QueryBuilder): Promise<number> => Number(((await query.first()) as { n: number | string | null } | undefined)?.n ?? 0);

/** Every order checkout wrote, checked against its items, charge, address, cart, the coupon and the stock. */
async function verify(db: Knex, data: CheckoutData): Promise<Verification> {
  const orders = () => db('store_orders as o').join('store_order_operations as op', 'op.order_id', 'o.id').where('op.created_via', 'checkout');
  const placed = await one(orders().count({ n: '*' }));
  const problems: string[] = [];
  const check = async (what: string, query: Knex.QueryBuilder) => {
    const bad = await one(query.count({ n: '*' }));
    if (bad) problems.push(`${bad} order(s): ${what}`);
  };
  const itemCount = db('store_order_items as i').whereRaw('i.order_id = o.id').count('*');
  const itemSum = db('store_order_items as i').whereRaw('i.order_id = o.id').sum('i.subtotal');
  await check('not two items', orders().whereRaw('(?) <> 2', [itemCount]));
  await check('subtotal is not the sum of its items', orders().whereRaw('o.subtotal <> (?)', [itemSum]));
  await check(
    'total is not subtotal − coupon + shipping',
    orders().whereRaw('o.total_amount <> o.subtotal - o.coupon_discount_total - o.manual_discount_total + o.shipping_total + o.tax_total'),
  );
  await check('shipping is not the flat rate', orders().whereNot('o.shipping_total', SHIPPING));
  await check(
    'not on hold with payment pending',
    orders().where((q) => q.whereNot('o.status', 'on-hold').orWhereNot('o.payment_status', 'pending')),
  );
  await check(
    'no single pending charge of the total',
    orders().whereRaw('(?) <> 1', [
      db('store_order_transactions as t')
        .whereRaw('t.order_id = o.id')
        .where({ 't.status': 'pending', 't.transaction_type': 'charge' })
        .whereRaw('t.total = o.total_amount')
        .count('*'),
    ]),
  );
  await check(
    'no billing address',
    orders().whereNotExists(db('store_order_addresses as a').whereRaw('a.order_id = o.id').where('a.type', 'billing').select('a.id')),
  );
  await check('stock not held', orders().whereNot('o.stock_state', 'held'));
  const completedCarts = await one(db('store_carts').where('stage', 'completed').whereNotNull('order_id').count({ n: '*' }));
  if (completedCarts !== placed) problems.push(`${completedCarts} completed carts for ${placed} orders`);
  const applied = await one(db('store_applied_coupons').where('coupon_id', data.couponId).count({ n: '*' }));
  const uses = await one(db('store_coupons').where('id', data.couponId).select('use_count as n'));
  if (applied !== uses) problems.push(`coupon use_count ${uses} for ${applied} orders that applied it`);
  const ordered = await one(orders().join('store_order_items as i', 'i.order_id', 'o.id').sum({ n: 'i.quantity' }));
  const held = await one(db('store_product_variations').whereIn('id', data.variationIds).sum({ n: 'stock_on_hold' }));
  const stock = await one(db('store_product_variations').whereIn('id', data.variationIds).sum({ n: 'stock_quantity' }));
  if (held !== ordered) problems.push(`${held} units on hold for ${ordered} units ordered`);
  if (stock !== STOCK * data.variationIds.length) problems.push(`stock changed to ${stock}`);
  return { facts: { orders: placed, completedCarts, couponUses: uses, unitsOnHold: held }, problems };
}

const checkoutBenchmark: Benchmark<CheckoutData, CheckoutSettings> = {
  name: 'checkout',
  mariadbState: '/tmp/bench-checkout-mariadb.state',
  seeds: 'customers (no orders)',
  seedFlags: ['--customers-only'],
  settings: { carts: CARTS, stockPerVariation: STOCK, rateLimitSetting: 1_000_000_000 },
  prepare,
  summary: (data) => `${data.customers.toLocaleString('en-US')} customers, ${data.carts.toLocaleString('en-US')} guest carts`,
  verify,
};

if (require.main === module) main(checkoutBenchmark);
