import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { toTimestamp } from '../../core/time';
import { getPaymentSettings } from '../settings/payment-settings';
import { getStoreSettings } from '../settings/store-settings';
import type { StoreMode } from '../settings/types';
import { insertMany } from '../../core/db';
import { pick, rngFor } from './rng';
import type { SeededCustomer } from './scale';
import { completionDelay, convertPrice, orderCurrency, orderMode, shopperTime } from './scale-order-shape';
import { inclusiveScaleTax } from './scale-taxes';

/**
 * The orders part of `seed --scale N`: ten orders per seeded customer (N customers → 10×N orders), each with one to
 * three items and its transactions, spread between the customer's sign-up and now (up to three years), then the
 * customers' purchase statistics recomputed from them. Prices include the tax of the customer's country
 * (`scale-taxes.ts`: `tax_behavior` 2, each line's `tax_amount`, the order's `tax_total` and `shipping_tax`).
 * Deterministic per `(seed, customer number)` like the customers part; written in bulk (multi-row INSERTs, several
 * batches per transaction).
 *
 * Shapes: one-time purchases of the catalogue's one-time variations (subscriptions and their orders are the next
 * part's, `scale-subscriptions.ts`); seven in ten are paid
 * (completed when digital, processing when physical), one in ten on hold awaiting payment, one in twenty canceled,
 * the rest refunded in full or in part. Paid orders get receipt and invoice numbers from the store counter, in
 * order of creation date within a batch. As shops see them (`scale-order-shape.ts`): placed at the hours shoppers
 * buy at in their country, most in the store currency and some in EUR, GBP or JPY (prices converted), in the store's
 * payment mode but a few in the other one, completed minutes (digital) or days (physical) after they were placed.
 */

export const ORDERS_PER_CUSTOMER = 10;
/** Customers whose orders one INSERT batch carries (500 customers: 5,000 orders, ~10,000 items). */
const CUSTOMERS_PER_BATCH = 500;
const BATCHES_PER_TRANSACTION = 4;

/** What an order line sells: a catalogue variation when the store has some, otherwise a built-in article. */
interface Article {
  post_id: number | null;
  variation_id: number | null;
  post_title: string;
  title: string;
  unit_price: number;
  fulfillment_type: 'digital' | 'physical';
}

const BUILT_IN_ARTICLES: Article[] = [
  ['Organic Cotton T-Shirt', 'M / Navy', 2400, 'physical'],
  ['Canvas Tote Bag', 'Natural', 1800, 'physical'],
  ['Ceramic Pour-Over Set', 'White', 5400, 'physical'],
  ['Field Notes Journal', 'Pack of 3', 1500, 'physical'],
  ['Merino Beanie', 'Charcoal', 3200, 'physical'],
  ['Photography Masterclass', 'Lifetime access', 9900, 'digital'],
  ['Icon Pack Pro', 'Team license', 4900, 'digital'],
  ['Recipe E-Book', 'PDF + EPUB', 1200, 'digital'],
].map(([post_title, title, unit_price, fulfillment_type]) => ({
  post_id: null,
  variation_id: null,
  post_title: post_title as string,
  title: title as string,
  unit_price: unit_price as number,
  fulfillment_type: fulfillment_type as Article['fulfillment_type'],
}));

async function loadArticles(db: Knex): Promise<Article[]> {
  const rows = (await db('store_product_variations as v')
    .join('store_products as p', 'p.id', 'v.product_id')
    .where('v.status', 'active')
    .where('v.price', '>', 0)
    .whereNot('v.payment_type', 'subscription')
    .orderBy('v.id')
    .limit(200)
    .select('v.id', 'v.product_id', 'v.title', 'v.price', 'p.title as product_title', 'p.fulfillment_type')) as Array<Record<string, string | number>>;
  const articles = rows.map((row) => ({
    post_id: Number(row.product_id),
    variation_id: Number(row.id),
    post_title: String(row.product_title),
    title: String(row.title),
    unit_price: Number(row.price),
    fulfillment_type: row.fulfillment_type === 'digital' ? ('digital' as const) : ('physical' as const),
  }));
  return articles.length ? articles : BUILT_IN_ARTICLES;
}

interface GeneratedOrder {
  order: Record<string, string | number | null>;
  items: Array<Record<string, string | number | null>>;
  /** Transactions without `order_id` (set once the order's id is known). */
  transactions: Array<Record<string, string | number | null>>;
  customerId: number;
}

/** The store's currency and payment mode, which most seeded orders take. */
export interface ScaleStore {
  currency: string;
  mode: StoreMode;
}

/** The ten orders of one seeded customer, oldest first. Pure apart from the random uuids. */
function generateOrders(seed: number, customer: SeededCustomer, articles: Article[], now: Date, store: ScaleStore): GeneratedOrder[] {
  const rng = rngFor(seed, 'orders', customer.index);
  const shape = rngFor(seed, 'order-shape', customer.index);
  const from = Date.parse(`${customer.created_at.replace(' ', 'T')}Z`);
  const room = Math.max(1, now.getTime() - from);
  const times = Array.from({ length: ORDERS_PER_CUSTOMER }, () => from + Math.floor(rng() * room))
    .map((time) => shopperTime(shape, time, customer.country, from, now.getTime()))
    .sort((a, b) => a - b);
  return times.map((time) => {
    const created = toTimestamp(new Date(time));
    const currency = orderCurrency(shape, store.currency);
    const mode = orderMode(shape, store.mode);
    const price = (amount: number) => convertPrice(amount, store.currency, currency);
    const lines = 1 + Math.floor(rng() * rng() * 3);
    const items = Array.from({ length: lines }, (_, cart_index) => {
      const article = pick(rng, articles);
      const unit_price = price(article.unit_price);
      const quantity = rng() < 0.8 ? 1 : 2 + Math.floor(rng() * 3);
      const subtotal = unit_price * quantity;
      return { article, unit_price, cart_index, quantity, subtotal };
    });
    const subtotal = items.reduce((sum, item) => sum + item.subtotal, 0);
    const physical = items.some((item) => item.article.fulfillment_type === 'physical');
    const shipping_total = physical ? price(pick(rng, [0, 490, 990])) : 0;
    // One order in eight used a 10% coupon-style discount on the first line.
    const discount = rng() < 0.125 ? Math.round(items[0].subtotal / 10) : 0;
    const total_amount = subtotal - discount + shipping_total;
    const lineTaxes = items.map((item) => inclusiveScaleTax(item.subtotal - (item.cart_index === 0 ? discount : 0), customer.country));
    const tax_total = lineTaxes.reduce((sum, tax) => sum + tax, 0);
    const shipping_tax = inclusiveScaleTax(shipping_total, customer.country);
    const r = rng();
    const outcome = r < 0.7 ? 'paid' : r < 0.8 ? 'on-hold' : r < 0.85 ? 'canceled' : r < 0.93 ? 'refunded' : 'partially-refunded';
    const paid = outcome === 'paid' || outcome === 'refunded' || outcome === 'partially-refunded';
    const total_refund =
      outcome === 'refunded' ? total_amount : outcome === 'partially-refunded' ? Math.max(1, Math.floor(total_amount * (0.1 + rng() * 0.5))) : 0;
    const refundedAt = total_refund ? toTimestamp(new Date(Math.min(now.getTime(), time + Math.floor(rng() * 30 * 86_400_000)))) : null;
    const fulfillment_type = physical ? 'physical' : 'digital';
    const shipped = outcome === 'on-hold' ? 'on-hold' : outcome === 'canceled' ? 'canceled' : physical && rng() < 0.1 ? 'processing' : 'completed';
    // A physical order placed lately may not have arrived yet; a digital one completes within minutes.
    const completion = time + completionDelay(shape, physical);
    const status = shipped === 'completed' && physical && completion > now.getTime() ? 'processing' : shipped;
    const completedAt = status === 'completed' ? toTimestamp(new Date(Math.min(now.getTime(), completion))) : null;
    const payment_method = pick(rng, ['stripe', 'stripe', 'stripe', 'paypal', 'bank_transfer', 'cod']);
    const order = {
      uuid: crypto.randomUUID().replace(/-/g, ''),
      parent_id: null,
      customer_id: customer.id,
      receipt_number: null,
      invoice_no: '',
      status,
      payment_status: paid ? outcome : outcome === 'canceled' ? 'failed' : 'pending',
      shipping_status: physical && status === 'completed' ? 'delivered' : physical ? 'unshipped' : '',
      payment_method,
      payment_method_title:
        payment_method === 'stripe' ? 'Card' : payment_method === 'paypal' ? 'PayPal' : payment_method === 'cod' ? 'Cash on delivery' : 'Bank transfer',
      type: 'payment',
      fulfillment_type,
      mode,
      currency,
      subtotal,
      manual_discount_total: 0,
      coupon_discount_total: discount,
      shipping_total,
      tax_total,
      shipping_tax,
      tax_behavior: tax_total + shipping_tax > 0 ? 2 : 0,
      total_amount,
      total_paid: paid ? total_amount : 0,
      total_refund,
      note: '',
      ip_address: `203.0.113.${1 + Math.floor(rng() * 254)}`,
      completed_at: completedAt,
      refunded_at: refundedAt,
      config: '{}',
      created_at: created,
      updated_at: [created, completedAt, refundedAt].reduce<string>((latest, at) => (at !== null && at > latest ? at : latest), created),
    };
    const orderItems = items.map(({ article, unit_price, cart_index, quantity, subtotal: line }) => {
      const lineDiscount = cart_index === 0 ? discount : 0;
      return {
        tax_amount: lineTaxes[cart_index],
        post_id: article.post_id,
        variation_id: article.variation_id,
        fulfillment_type: article.fulfillment_type,
        payment_type: 'onetime',
        post_title: article.post_title,
        title: article.title,
        cart_index,
        quantity,
        unit_price,
        subtotal: line,
        discount_total: lineDiscount,
        line_total: line - lineDiscount,
        other_info: '{}',
        line_meta: '{}',
        created_at: created,
        updated_at: created,
      };
    });
    const transaction = (type: 'charge' | 'refund', total: number, at: string) => ({
      uuid: crypto.randomUUID().replace(/-/g, ''),
      order_type: order.type,
      transaction_type: type,
      vendor_charge_id: payment_method === 'stripe' ? `ch_${crypto.randomBytes(12).toString('hex')}` : '',
      payment_method,
      payment_mode: mode,
      status: type === 'charge' ? 'succeeded' : 'refunded',
      currency,
      total,
      meta: '{}',
      created_at: at,
      updated_at: at,
    });
    const transactions = paid ? [transaction('charge', total_amount, created)] : [];
    if (total_refund && refundedAt) transactions.push(transaction('refund', total_refund, refundedAt));
    return { order, items: orderItems, transactions, customerId: customer.id };
  });
}

/** Paid orders get the next receipt numbers (by creation date) and `<prefix><number>` invoice numbers. */
export async function numberReceipts(trx: Knex.Transaction, orders: Array<Pick<GeneratedOrder, 'order'>>, prefix: string): Promise<void> {
  const paid = orders.filter((o) => Number(o.order.total_paid) > 0).sort((a, b) => String(a.order.created_at).localeCompare(String(b.order.created_at)));
  if (!paid.length) return;
  await trx('store_counters').where({ name: 'receipt' }).increment('value', paid.length);
  const { value } = (await trx('store_counters').where({ name: 'receipt' }).first('value')) as { value: number | string };
  let next = Number(value) - paid.length + 1;
  for (const o of paid) {
    o.order.receipt_number = next;
    o.order.invoice_no = `${prefix}${next}`;
    next += 1;
  }
}

async function insertOrders(trx: Knex.Transaction, orders: GeneratedOrder[]): Promise<{ items: number; transactions: number }> {
  for (let i = 0; i < orders.length; i += 1000)
    await insertMany(
      trx,
      'store_orders',
      orders.slice(i, i + 1000).map((o) => o.order),
    );
  const idOf = new Map<string, number>();
  for (let i = 0; i < orders.length; i += 1000) {
    const uuids = orders.slice(i, i + 1000).map((o) => String(o.order.uuid));
    const rows = (await trx('store_orders').whereIn('uuid', uuids).select('id', 'uuid')) as Array<{ id: number; uuid: string }>;
    for (const row of rows) idOf.set(row.uuid, Number(row.id));
  }
  const items = orders.flatMap((o) => o.items.map((item) => ({ ...item, order_id: idOf.get(String(o.order.uuid))! })));
  const transactions = orders.flatMap((o) => o.transactions.map((t) => ({ ...t, order_id: idOf.get(String(o.order.uuid))! })));
  for (let i = 0; i < items.length; i += 1000) await insertMany(trx, 'store_order_items', items.slice(i, i + 1000));
  for (let i = 0; i < transactions.length; i += 1000) await insertMany(trx, 'store_order_transactions', transactions.slice(i, i + 1000));
  return { items: items.length, transactions: transactions.length };
}

/** The customers' purchase statistics from the orders just written (the same rules as `recalculateCustomerStats`). */
async function updateStatistics(trx: Knex.Transaction, orders: GeneratedOrder[]): Promise<void> {
  const stats = new Map<number, { count: number; ltv: number; value: Record<string, number>; first: string | null; last: string | null }>();
  for (const { order, customerId } of orders) {
    const entry = stats.get(customerId) ?? { count: 0, ltv: 0, value: {}, first: null, last: null };
    if (Number(order.total_paid) > 0) {
      const at = String(order.created_at);
      const kept = Number(order.total_paid) - Number(order.total_refund);
      const currency = String(order.currency);
      entry.count += 1;
      entry.ltv += kept;
      entry.value[currency] = (entry.value[currency] ?? 0) + kept;
      entry.first = entry.first === null || at < entry.first ? at : entry.first;
      entry.last = entry.last === null || at > entry.last ? at : entry.last;
    }
    stats.set(customerId, entry);
  }
  for (const [id, s] of stats) {
    await trx('store_customers')
      .where({ id })
      .update({
        purchase_count: s.count,
        ltv: s.ltv,
        aov: s.count ? Math.round(s.ltv / s.count) : 0,
        purchase_value: JSON.stringify(s.value),
        first_purchase_date: s.first,
        last_purchase_date: s.last,
      });
  }
}

/** Writes ten orders per customer (with items and transactions) and the customers' statistics; returns row counts. */
export async function seedScaleOrders(
  ctx: Ctx,
  customers: SeededCustomer[],
  seed: number,
  options: { progress?: (line: string) => void } = {},
): Promise<Record<string, number>> {
  const db = ctx.db;
  const now = ctx.clock.now();
  const settings = await getStoreSettings(ctx.host);
  const store: ScaleStore = { currency: settings.currency, mode: (await getPaymentSettings(ctx.host)).mode };
  const articles = await loadArticles(db);
  const counts = { store_orders: 0, store_order_items: 0, store_order_transactions: 0 };
  let done = 0;
  let nextReport = 100_000;
  while (done < customers.length) {
    await db.transaction(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && done < customers.length; b++) {
        const batch = customers.slice(done, done + CUSTOMERS_PER_BATCH);
        const orders = batch.flatMap((customer) => generateOrders(seed, customer, articles, now, store));
        await numberReceipts(trx, orders, settings.invoice_prefix);
        const written = await insertOrders(trx, orders);
        await updateStatistics(trx, orders);
        counts.store_orders += orders.length;
        counts.store_order_items += written.items;
        counts.store_order_transactions += written.transactions;
        done += batch.length;
      }
    });
    if (options.progress && counts.store_orders >= nextReport && done < customers.length) {
      options.progress(`${counts.store_orders.toLocaleString('en-US')} orders …`);
      nextReport = (Math.floor(counts.store_orders / 100_000) + 1) * 100_000;
    }
  }
  return counts;
}
