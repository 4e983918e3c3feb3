import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertMany } from '../../core/db';
import { fromTimestamp, toTimestamp } from '../../core/time';
import { getPaymentSettings } from '../settings/payment-settings';
import { getStoreSettings } from '../settings/store-settings';
import { addInterval, GRACE_PERIOD_DAYS } from '../subscriptions/lifecycle';
import type { BillingInterval, SubscriptionStatus } from '../subscriptions/types';
import { pick, rngFor, type Rng } from './rng';
import type { SeededCustomer } from './scale';
import { numberReceipts, type ScaleStore } from './scale-orders';
import { orderMode } from './scale-order-shape';

/**
 * The subscriptions part of `seed --scale N`: two subscriptions per seeded customer (N customers → 2×N), each with its
 * first order (type `subscription`) and its renewal orders (type `renewal`, `parent_id` the first order), every order
 * with its item and charge, then the customers' purchase statistics with these orders added. Deterministic per
 * `(seed, customer number)` like the other parts (gateway ids and uuids aside, which are random); written in bulk.
 *
 * Shapes, per subscription: a plan of the catalogue's subscription variations (else built-in plans: monthly, yearly,
 * quarterly, half-yearly, weekly and daily, one with a 14-day trial, one of three installments); Stripe (two in three)
 * or PayPal, with the gateway's subscription, customer and plan ids; a status spread like a live store's (about half
 * active, the rest canceled, expired, failing, expiring, paused, trialing, pending or intended; installment plans that
 * are paid up `completed`); `bill_count` charges, few on average (churn), so ~1.5 renewal orders per subscription.
 * Its dates fit between the customer's sign-up and now: charges one interval apart (`addInterval`), the next charge
 * ahead for running subscriptions, just missed for failing ones, the end in the past for ended ones. In the store
 * currency, and in the store's payment mode but for a few in the other one (`orderMode`, a stream of its own).
 */

export const SUBSCRIPTIONS_PER_CUSTOMER = 2;
/** Customers whose subscriptions one batch carries (1,000 subscriptions, their ~2,500 orders, items and charges). */
const CUSTOMERS_PER_BATCH = 500;
const BATCHES_PER_TRANSACTION = 4;
/** Rows per INSERT statement: well below SQLite's 32,766 bound values at ~30 columns. */
const ROWS_PER_INSERT = 500;
const DAY_MS = 86_400_000;

/** What a subscription sells: a catalogue variation when the store has subscription variations, otherwise a built-in plan. */
interface Plan {
  post_id: number | null;
  variation_id: number | null;
  post_title: string;
  title: string;
  price: number;
  interval: BillingInterval;
  trial_days: number;
  bill_times: number;
  signup_fee: number;
  fulfillment_type: 'digital' | 'physical';
}

const BUILT_IN_PLANS: Plan[] = (
  [
    ['Pro Plan', 'Monthly', 1900, 'monthly', 0, 0, 0, 'digital'],
    ['Pro Plan', 'Yearly', 19000, 'yearly', 0, 0, 0, 'digital'],
    ['Premium Membership', 'Monthly', 1200, 'monthly', 14, 0, 0, 'digital'],
    ['Coffee Club', 'Monthly bag', 2400, 'monthly', 0, 0, 0, 'physical'],
    ['Print Magazine', 'Quarterly', 1500, 'quarterly', 0, 0, 0, 'physical'],
    ['Meal Kit', 'Weekly box', 5900, 'weekly', 0, 0, 0, 'physical'],
    ['Cloud Backup', 'Half-yearly', 4500, 'half_yearly', 0, 0, 0, 'digital'],
    ['Photography Course', '3 installments', 4900, 'monthly', 0, 3, 0, 'digital'],
    ['Studio Software', 'Yearly', 9900, 'yearly', 0, 0, 1500, 'digital'],
    ['Morning Briefing', 'Daily', 99, 'daily', 0, 0, 0, 'digital'],
  ] as const
).map(([post_title, title, price, interval, trial_days, bill_times, signup_fee, fulfillment_type]) => ({
  post_id: null,
  variation_id: null,
  post_title,
  title,
  price,
  interval,
  trial_days,
  bill_times,
  signup_fee,
  fulfillment_type,
}));

const INTERVAL_MS: Record<BillingInterval, number> = {
  daily: DAY_MS,
  weekly: 7 * DAY_MS,
  monthly: 30.44 * DAY_MS,
  quarterly: 91.31 * DAY_MS,
  half_yearly: 182.62 * DAY_MS,
  yearly: 365.25 * DAY_MS,
};

async function loadPlans(db: Knex): Promise<Plan[]> {
  const rows = (await db('store_product_variations as v')
    .join('store_products as p', 'p.id', 'v.product_id')
    .where({ 'v.status': 'active', 'v.payment_type': 'subscription' })
    .where('v.price', '>', 0)
    .whereNotNull('v.billing_interval')
    .orderBy('v.id')
    .limit(200)
    .select(
      'v.id',
      'v.product_id',
      'v.title',
      'v.price',
      'v.billing_interval',
      'v.trial_days',
      'v.bill_times',
      'v.signup_fee',
      'p.title as product_title',
      'p.fulfillment_type',
    )) as Array<Record<string, string | number>>;
  const plans = rows
    .filter((row) => Object.hasOwn(INTERVAL_MS, String(row.billing_interval)))
    .map((row) => ({
      post_id: Number(row.product_id),
      variation_id: Number(row.id),
      post_title: String(row.product_title),
      title: String(row.title),
      price: Number(row.price),
      interval: row.billing_interval as BillingInterval,
      trial_days: Number(row.trial_days),
      bill_times: Number(row.bill_times),
      signup_fee: Number(row.signup_fee),
      fulfillment_type: row.fulfillment_type === 'physical' ? ('physical' as const) : ('digital' as const),
    }));
  return plans.length ? plans : BUILT_IN_PLANS;
}

type Row = Record<string, string | number | null>;

/** One generated subscription: its row, its first order and its renewal orders, each order with one item and a charge. */
interface GeneratedSubscription {
  subscription: Row;
  parent: GeneratedOrder;
  renewals: GeneratedOrder[];
  customerId: number;
}

interface GeneratedOrder {
  order: Row;
  item: Row;
  /** Null for an unpaid order. */
  charge: Row | null;
}

const hex = (bytes: number) => crypto.randomBytes(bytes).toString('hex');
const upper = (length: number) => crypto.randomBytes(length).toString('base64url').replace(/[-_]/g, 'X').slice(0, length).toUpperCase();

/** The gateway's ids of one customer and of the plans, as Stripe and PayPal spell them. */
interface GatewayIds {
  customer: Record<'stripe' | 'paypal', string>;
  plan: (plan: Plan, method: 'stripe' | 'paypal') => string;
}

function planId(plan: Plan, method: 'stripe' | 'paypal'): string {
  const digest = crypto.createHash('sha256').update(`${plan.post_title}|${plan.title}|${plan.price}|${plan.interval}`).digest('hex');
  return method === 'stripe' ? `price_${digest.slice(0, 24)}` : `P-${digest.slice(0, 24).toUpperCase()}`;
}

/** A status spread like a live store's; `completed` comes from installment plans that are paid up. */
function pickStatus(rng: Rng): SubscriptionStatus {
  const r = rng();
  if (r < 0.03) return 'pending';
  if (r < 0.04) return 'intended';
  if (r < 0.08) return 'trialing';
  if (r < 0.62) return 'active';
  if (r < 0.66) return 'failing';
  if (r < 0.7) return 'expiring';
  if (r < 0.72) return 'paused';
  if (r < 0.9) return 'canceled';
  return 'expired';
}

const at = (ms: number) => toTimestamp(new Date(Math.floor(ms / 1000) * 1000));
const ms = (timestamp: string) => fromTimestamp(timestamp).getTime();

/** One subscription of a customer, with its orders. Pure apart from the random ids. */
function generateSubscription(
  rng: Rng,
  customer: SeededCustomer,
  plans: Plan[],
  ids: GatewayIds,
  now: number,
  { currency, mode }: ScaleStore,
): GeneratedSubscription {
  const plan = pick(rng, plans);
  const method = rng() < 2 / 3 ? ('stripe' as const) : ('paypal' as const);
  const created = ms(customer.created_at);
  const interval = INTERVAL_MS[plan.interval];
  const trial = plan.trial_days * DAY_MS;
  let status = pickStatus(rng);
  if (status === 'trialing' && !trial) status = 'active';
  // Charges so far: one, plus a few more for those that stayed (geometric, mean ~1.5 more).
  const wanted = 1 + Math.floor(-Math.log(1 - rng()) * 2);

  /** The last charge somewhere in [lo, hi], and as many charges before it (up to `wanted`) as fit after the sign-up. */
  let lastCharge = 0;
  let charges = 0;
  const place = (lo: number, hi: number): boolean => {
    const from = Math.max(lo, created + trial);
    if (from > hi) return false;
    lastCharge = from + rng() * (hi - from);
    charges = Math.max(1, Math.min(wanted, 1 + Math.floor((lastCharge - trial - created) / interval), plan.bill_times || Infinity));
    while (charges > 1 && ms(addInterval(at(lastCharge), plan.interval, -(charges - 1))) - trial < created) charges--;
    return true;
  };
  const ended = () => {
    if (status === 'expired' && place(now - 365 * DAY_MS, now - 1.1 * interval)) return;
    status = 'canceled';
    if (!place(now - 365 * DAY_MS, now)) status = 'pending';
  };
  // Within 0.9 of an interval of now, the next charge (a calendar interval on) is still ahead, even after a short month.
  const placeRunning = () => {
    if (!place(now - 0.9 * interval, now)) status = trial ? 'trialing' : 'pending';
  };
  if (status === 'active' || status === 'expiring' || status === 'paused') {
    placeRunning();
  } else if (status === 'failing') {
    // The charge due a moment ago failed: the next date has passed, not yet by the grace period (see the expiry sweep).
    const due = now - 3_600_000 - rng() * (Math.min(3, GRACE_PERIOD_DAYS[plan.interval]) * DAY_MS - 3_600_000);
    const charged = ms(addInterval(at(due), plan.interval, -1));
    if (!place(charged, charged)) {
      status = 'active';
      placeRunning();
    }
  } else if (status === 'canceled' || status === 'expired') {
    ended();
  }
  if (charges && plan.bill_times && charges >= plan.bill_times) status = 'completed';

  // The checkout: before the first recurring charge by the trial, or a moment ago for those not started.
  const last = at(lastCharge);
  const first = charges ? addInterval(last, plan.interval, -(charges - 1)) : null;
  const start = first ? ms(first) - trial : Math.max(created, now - rng() * (status === 'trialing' ? trial : 2 * DAY_MS));
  const next = charges ? addInterval(last, plan.interval) : null;
  const trialEnds = trial ? at(start + trial) : null;
  const billed = status !== 'pending' && status !== 'intended';
  const vendorSubscription = method === 'stripe' ? `sub_${hex(12)}` : `I-${upper(12)}`;

  const order = (time: string, type: 'subscription' | 'renewal', total: number, paid: boolean, cartIndex = 0): GeneratedOrder => {
    const physical = plan.fulfillment_type === 'physical';
    const completed = paid && !physical;
    return {
      order: {
        uuid: crypto.randomUUID().replace(/-/g, ''),
        customer_id: customer.id,
        receipt_number: null,
        invoice_no: '',
        status: !paid ? 'on-hold' : completed ? 'completed' : 'processing',
        payment_status: paid ? 'paid' : 'pending',
        shipping_status: physical ? 'unshipped' : '',
        payment_method: method,
        payment_method_title: method === 'stripe' ? 'Card' : 'PayPal',
        type,
        fulfillment_type: plan.fulfillment_type,
        mode,
        currency,
        subtotal: total,
        total_amount: total,
        total_paid: paid ? total : 0,
        note: '',
        completed_at: completed ? time : null,
        config: '{}',
        created_at: time,
        updated_at: time,
      },
      item: {
        post_id: plan.post_id,
        variation_id: plan.variation_id,
        fulfillment_type: plan.fulfillment_type,
        payment_type: 'subscription',
        post_title: plan.post_title,
        title: plan.title,
        cart_index: cartIndex,
        quantity: 1,
        unit_price: total,
        subtotal: total,
        line_total: total,
        other_info: '{}',
        line_meta: '{}',
        created_at: time,
        updated_at: time,
      },
      charge:
        paid && total > 0
          ? {
              uuid: crypto.randomUUID().replace(/-/g, ''),
              order_type: type,
              transaction_type: 'charge',
              vendor_charge_id: method === 'stripe' ? `ch_${hex(12)}` : upper(17),
              payment_method: method,
              payment_mode: mode,
              status: 'succeeded',
              currency,
              total,
              meta: '{}',
              created_at: time,
              updated_at: time,
            }
          : null,
    };
  };

  // With a trial the first order takes the signup fee and every recurring charge is a renewal; without, it takes the first.
  const startAt = at(start);
  const parent = order(startAt, 'subscription', plan.signup_fee + (trial ? 0 : plan.price), billed);
  const renewalTimes = first ? Array.from({ length: trial ? charges : charges - 1 }, (_, i) => addInterval(first, plan.interval, trial ? i : i + 1)) : [];
  const renewals = renewalTimes.map((time) => order(time, 'renewal', plan.price, true));

  const running = status === 'active' || status === 'failing' || status === 'expiring' || status === 'trialing';
  const canceledAt = status === 'canceled' || status === 'expiring' ? at(lastCharge + rng() * (Math.min(now, ms(next ?? last)) - lastCharge)) : null;
  const lastTime = renewalTimes.at(-1) ?? startAt;
  const updatedAt = [canceledAt, status === 'expired' ? next : null, lastTime]
    .filter((t): t is string => t !== null && ms(t) <= now)
    .sort()
    .at(-1)!;
  return {
    customerId: customer.id,
    parent,
    renewals,
    subscription: {
      uuid: crypto.randomUUID(),
      customer_id: customer.id,
      parent_order_id: null,
      product_id: plan.post_id,
      variation_id: plan.variation_id,
      item_name: `${plan.post_title} - ${plan.title}`,
      quantity: 1,
      status,
      collection_method: 'automatic',
      current_payment_method: method,
      vendor_subscription_id: vendorSubscription,
      vendor_customer_id: ids.customer[method],
      vendor_plan_id: ids.plan(plan, method),
      billing_interval: plan.interval,
      currency,
      recurring_amount: plan.price,
      recurring_tax_total: 0,
      signup_fee: plan.signup_fee,
      trial_days: plan.trial_days,
      bill_times: plan.bill_times,
      bill_count: charges,
      next_billing_date: status === 'trialing' ? trialEnds : running || status === 'expired' ? next : null,
      trial_ends_at: trialEnds,
      canceled_at: canceledAt,
      expire_at: status === 'expiring' || status === 'expired' ? next : null,
      config: '{}',
      created_at: startAt,
      updated_at: updatedAt,
    },
  };
}

/** The subscriptions of one seeded customer, oldest first. */
function generateFor(seed: number, customer: SeededCustomer, plans: Plan[], now: number, store: ScaleStore): GeneratedSubscription[] {
  const rng = rngFor(seed, 'subscriptions', customer.index);
  const shape = rngFor(seed, 'subscription-shape', customer.index);
  const ids: GatewayIds = { customer: { stripe: `cus_${hex(7)}`, paypal: upper(13) }, plan: planId };
  return Array.from({ length: SUBSCRIPTIONS_PER_CUSTOMER }, () =>
    generateSubscription(rng, customer, plans, ids, now, { currency: store.currency, mode: orderMode(shape, store.mode) }),
  ).sort((a, b) => String(a.subscription.created_at).localeCompare(String(b.subscription.created_at)));
}

async function insertInChunks(trx: Knex.Transaction, table: string, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insertMany(trx, table, rows.slice(i, i + ROWS_PER_INSERT));
}

/** Ids of rows just written, by their uuid. */
async function idsByUuid(trx: Knex.Transaction, table: string, uuids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < uuids.length; i += 1000) {
    const rows = (await trx(table)
      .whereIn('uuid', uuids.slice(i, i + 1000))
      .select('id', 'uuid')) as Array<{ id: number; uuid: string }>;
    for (const row of rows) out.set(row.uuid, Number(row.id));
  }
  return out;
}

/** First orders, then the subscriptions (pointing at them), then the renewals (pointing at both), then items and charges. */
async function insertSubscriptions(trx: Knex.Transaction, generated: GeneratedSubscription[]): Promise<Record<string, number>> {
  const uuid = (row: Row) => String(row.uuid);
  await insertInChunks(
    trx,
    'store_orders',
    generated.map((g) => ({ ...g.parent.order, parent_id: null })),
  );
  const parentIds = await idsByUuid(
    trx,
    'store_orders',
    generated.map((g) => uuid(g.parent.order)),
  );
  for (const g of generated) g.subscription.parent_order_id = parentIds.get(uuid(g.parent.order))!;
  await insertInChunks(
    trx,
    'store_subscriptions',
    generated.map((g) => g.subscription),
  );
  const subscriptionIds = await idsByUuid(
    trx,
    'store_subscriptions',
    generated.map((g) => uuid(g.subscription)),
  );
  const renewals = generated.flatMap((g) =>
    g.renewals.map((r) => ({
      ...r,
      order: { ...r.order, parent_id: g.subscription.parent_order_id, config: JSON.stringify({ subscription_id: subscriptionIds.get(uuid(g.subscription)) }) },
    })),
  );
  await insertInChunks(
    trx,
    'store_orders',
    renewals.map((r) => r.order),
  );
  const renewalIds = await idsByUuid(
    trx,
    'store_orders',
    renewals.map((r) => uuid(r.order)),
  );
  const parents = generated.map((g) => ({ ...g.parent, id: parentIds.get(uuid(g.parent.order))!, subscriptionId: null }));
  const children = generated.flatMap((g) =>
    g.renewals.map((r) => ({ ...r, id: renewalIds.get(uuid(r.order))!, subscriptionId: subscriptionIds.get(uuid(g.subscription))! })),
  );
  const orders = [...parents, ...children];
  await insertInChunks(
    trx,
    'store_order_items',
    orders.map((o) => ({ ...o.item, order_id: o.id })),
  );
  const charges = orders.flatMap((o) => (o.charge ? [{ ...o.charge, order_id: o.id, subscription_id: o.subscriptionId }] : []));
  await insertInChunks(trx, 'store_order_transactions', charges);
  return {
    store_subscriptions: generated.length,
    store_orders: orders.length,
    store_order_items: orders.length,
    store_order_transactions: charges.length,
  };
}

/** Adds the paid orders written to their customers' purchase statistics (count, lifetime value, first and last purchase). */
async function addToStatistics(trx: Knex.Transaction, generated: GeneratedSubscription[]): Promise<void> {
  const added = new Map<number, { count: number; total: number; value: Record<string, number>; first: string; last: string }>();
  for (const g of generated) {
    for (const { order } of [g.parent, ...g.renewals]) {
      // A purchase is a paid order, a free one (a trial's first order) too, as `computeCustomerStats` counts.
      if (order.payment_status !== 'paid') continue;
      const time = String(order.created_at);
      const currency = String(order.currency);
      const entry = added.get(g.customerId) ?? { count: 0, total: 0, value: {}, first: time, last: time };
      entry.count += 1;
      entry.total += Number(order.total_paid);
      entry.value[currency] = (entry.value[currency] ?? 0) + Number(order.total_paid);
      entry.first = time < entry.first ? time : entry.first;
      entry.last = time > entry.last ? time : entry.last;
      added.set(g.customerId, entry);
    }
  }
  if (!added.size) return;
  const rows = (await trx('store_customers')
    .whereIn('id', [...added.keys()])
    .select('id', 'purchase_count', 'ltv', 'purchase_value', 'first_purchase_date', 'last_purchase_date')) as Array<Record<string, string | number | null>>;
  for (const row of rows) {
    const more = added.get(Number(row.id))!;
    const count = Number(row.purchase_count) + more.count;
    const ltv = Number(row.ltv) + more.total;
    const value = JSON.parse(String(row.purchase_value || '{}')) as Record<string, number>;
    for (const [currency, amount] of Object.entries(more.value)) value[currency] = (value[currency] ?? 0) + amount;
    const first = row.first_purchase_date === null || more.first < String(row.first_purchase_date) ? more.first : String(row.first_purchase_date);
    const last = row.last_purchase_date === null || more.last > String(row.last_purchase_date) ? more.last : String(row.last_purchase_date);
    await trx('store_customers')
      .where({ id: row.id })
      .update({
        purchase_count: count,
        ltv,
        aov: Math.round(ltv / count),
        purchase_value: JSON.stringify(value),
        first_purchase_date: first,
        last_purchase_date: last,
      });
  }
}

/** Writes two subscriptions per customer with their orders, items and charges, and the statistics; returns row counts. */
export async function seedScaleSubscriptions(
  ctx: Ctx,
  customers: SeededCustomer[],
  seed: number,
  options: { progress?: (line: string) => void } = {},
): Promise<Record<string, number>> {
  const db = ctx.db;
  const now = ctx.clock.now().getTime();
  const settings = await getStoreSettings(ctx.host);
  const store: ScaleStore = { currency: settings.currency, mode: (await getPaymentSettings(ctx.host)).mode };
  const plans = await loadPlans(db);
  const counts: Record<string, number> = { store_subscriptions: 0, store_orders: 0, store_order_items: 0, store_order_transactions: 0 };
  let done = 0;
  let nextReport = 100_000;
  while (done < customers.length) {
    await db.transaction(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && done < customers.length; b++) {
        const batch = customers.slice(done, done + CUSTOMERS_PER_BATCH);
        const generated = batch.flatMap((customer) => generateFor(seed, customer, plans, now, store));
        await numberReceipts(
          trx,
          generated.flatMap((g) => [g.parent, ...g.renewals]),
          settings.invoice_prefix,
        );
        const written = await insertSubscriptions(trx, generated);
        await addToStatistics(trx, generated);
        for (const [table, n] of Object.entries(written)) counts[table] += n;
        done += batch.length;
      }
    });
    if (options.progress && counts.store_subscriptions >= nextReport && done < customers.length) {
      options.progress(`${counts.store_subscriptions.toLocaleString('en-US')} subscriptions …`);
      nextReport = (Math.floor(counts.store_subscriptions / 100_000) + 1) * 100_000;
    }
  }
  return counts;
}
