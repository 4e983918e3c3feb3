/**
 * Orders written by hand: `POST /orders` and `POST /orders/{order_id}`. Every total is computed here from the lines,
 * the manual discount, the coupons, the shipping entries and the `store/order/tax` filter (`totals.ts`); totals a
 * client sends are accepted by the schema and ignored. Each write is one transaction; hooks fire after the commit.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, lockForUpdate, parseJson, type AfterCommit } from '../../core/db';
import { throwIfAny, fail, type FieldErrors } from '../../core/errors';
import { decimalWithCode } from '../../core/money';
import { toTimestamp } from '../../core/time';
import { gatewayFor } from '../../gateways/registry';
import { recordActivity } from '../activities/service';
import { syncOrderAddress, type AddressRow } from '../customers/addresses';
import { recalculateCustomerStats } from '../customers/ltv';
import { presentCustomer, type CustomerRow } from '../customers/presenter';
import type { CustomerRecord } from '../customers/types';
import { isUniqueViolation } from '../products/validation';
import { getStoreSettings } from '../settings/store-settings';
import { emitOrderEvent } from '../order-records/order-events';
import { markPaidInTransaction } from './payments';
import { holdOrderStock, releaseOrderStock } from './stock-state';
import { presentOrder, type Order, type OrderRow } from '../order-records/presenter';
import { PAYMENT_STATUSES, SETTLED_PAYMENT_STATUSES, paymentStatusOf, type OrderStatus, type PaymentStatus } from './state';
import type { OrderTaxData, OrderTotals } from './totals';
import { priceOrder } from './pricing';
import { resolveCoupons, saveAppliedCoupons, type AppliedCouponEntry, type AppliedRow } from './write-coupons';
import { itemColumns, resolveLines, type LineDraft, type StoredItem } from './write-lines';
import type { CreateOrderBody, UpdateOrderBody } from './write-schemas';
import { CREATE_PAYMENT_STATUSES, readDiscount, readFields, shippingEntries, withWrittenElsewhere, type OrderConfig } from './write-fields';

const ORDERS = 'store_orders';
const ITEMS = 'store_order_items';

/** Order types whose orders belong to a subscription and cannot be edited by hand. */
const SUBSCRIPTION_TYPES = ['subscription', 'renewal'];

async function customerOf(db: Knex.Transaction, customerId: number, errors: FieldErrors): Promise<CustomerRecord | null> {
  const row = (await db('store_customers').where({ id: customerId }).first()) as CustomerRow | undefined;
  if (!row) errors.customer_id = { exists: 'The selected customer id is invalid.' };
  return row ? presentCustomer(row) : null;
}

async function primaryAddresses(db: Knex.Transaction, customerId: number): Promise<AddressRow[]> {
  return (await db('store_customer_addresses').where({ customer_id: customerId, is_primary: 1 }).orderBy('id')) as AddressRow[];
}

/** The order's billing and shipping addresses become the customer's primary ones (a type without one is removed). */
async function copyCustomerAddresses(trx: Knex.Transaction, orderId: number, addresses: AddressRow[], now: string): Promise<void> {
  const types = new Set<string>(addresses.map((address) => address.type));
  const stale = ((await trx('store_order_addresses').where({ order_id: orderId }).select('id', 'type')) as Array<{ id: number | string; type: string }>)
    .filter((row) => !types.has(row.type))
    .map((row) => Number(row.id));
  // By primary key: a DELETE by order_id would take gap locks that deadlock parallel orders' inserts on MySQL.
  if (stale.length) await trx('store_order_addresses').whereIn('id', stale).delete();
  for (const address of addresses) await syncOrderAddress(trx, orderId, address, now);
}

const fulfillmentOf = (lines: LineDraft[]) => (lines.some((line) => line.fulfillment_type === 'physical') ? 'physical' : 'digital');

/** A physical order starts `unshipped`; a digital one has no shipping status; a status already moved on is kept. */
function shippingStatusFor(fulfillment: 'physical' | 'digital', current = ''): string {
  if (fulfillment === 'physical') return current || 'unshipped';
  return current === 'unshipped' ? '' : current;
}

/** The order columns the totals set. */
export function totalsColumns(totals: OrderTotals) {
  return {
    subtotal: totals.subtotal,
    discount_tax: 0,
    manual_discount_total: totals.manual_discount_total,
    coupon_discount_total: totals.coupon_discount_total,
    shipping_total: totals.shipping_total,
    shipping_tax: totals.shipping_tax,
    tax_total: totals.tax_total,
    tax_behavior: totals.tax_behavior,
    tax_data: totals.tax_rates.length ? JSON.stringify({ rates: totals.tax_rates, tax_country: totals.tax_country } satisfies OrderTaxData) : null,
    total_amount: totals.total_amount,
  };
}

/** Updates the lines that replace stored items and inserts the new ones (one statement). */
async function writeItems(trx: Knex.Transaction, orderId: number, lines: LineDraft[], totals: OrderTotals, rate: number, now: string): Promise<void> {
  const inserts: Array<Record<string, unknown>> = [];
  for (const [i, line] of lines.entries()) {
    const columns = itemColumns(line, totals.lines[i], orderId, rate, now);
    if (line.itemId === null) inserts.push({ ...columns, created_at: now });
    else await trx(ITEMS).where({ id: line.itemId, order_id: orderId }).update(columns);
  }
  if (inserts.length) await trx(ITEMS).insert(inserts);
}

async function readOrder(trx: Knex.Transaction, orderId: number): Promise<Order> {
  return presentOrder((await trx(ORDERS).where({ id: orderId }).first()) as OrderRow);
}

/** `POST /orders`: the order, its items, coupons and addresses; an order created paid goes through the payments ledger. */
export async function createOrder(ctx: Ctx, body: CreateOrderBody): Promise<{ order_id: number; uuid: string }> {
  const settings = await getStoreSettings(ctx.host);
  return transaction(ctx, async (trx, afterCommit) => {
    const errors: FieldErrors = {};
    const fields = readFields(body, CREATE_PAYMENT_STATUSES, errors);
    const { discount, stored: storedDiscount } = readDiscount(body.discount, errors);
    const customer = await customerOf(trx, body.customer_id, errors);
    const uuid = body.uuid?.trim() || crypto.randomUUID();
    if (body.uuid !== undefined && (await trx(ORDERS).where({ uuid }).first('id'))) errors.uuid = { unique: 'The uuid has already been taken.' };
    const { lines, errors: lineErrors } = await resolveLines(trx, body.order_items, null, []);
    const entries = body.applied_coupon ?? [];
    const coupons = await resolveCoupons(trx, entries, [], body.customer_id, ctx.clock.now());
    throwIfAny({ ...errors, ...lineErrors, ...coupons.errors });

    const shipping = shippingEntries(body.shipping ?? []);
    const currency = fields.currency ?? settings.currency;
    const addresses = await primaryAddresses(trx, body.customer_id);
    const totals = await priceOrder(ctx, trx, {
      lines,
      coupons,
      discount,
      shipping: shipping.map((entry) => entry.custom_price),
      customer: customer as CustomerRecord,
      addresses,
      currency,
      orderId: null,
    });

    const now = toTimestamp(ctx.clock.now());
    const status = fields.status ?? 'on-hold';
    const fulfillment = fulfillmentOf(lines);
    const method = fields.payment_method ?? '';
    const rate = fields.rate ?? 1;
    const config: OrderConfig = { discount: storedDiscount, shipping, ...(fields.user_tz ? { user_tz: fields.user_tz } : {}) };
    let orderId: number;
    try {
      orderId = insertedId(
        await trx(ORDERS).insert({
          uuid,
          customer_id: body.customer_id,
          invoice_no: fields.invoice_no ?? '',
          status,
          payment_status: fields.payment_status === 'failed' ? 'failed' : 'pending',
          shipping_status: shippingStatusFor(fulfillment),
          payment_method: method,
          payment_method_title: fields.payment_method_title || (method ? gatewayFor(ctx, method).title : ''),
          type: fields.type ?? 'payment',
          fulfillment_type: fulfillment,
          currency,
          ...totalsColumns(totals),
          rate,
          note: fields.note ?? '',
          ip_address: fields.ip_address ?? ctx.ip,
          completed_at: fields.completed_at ?? (status === 'completed' ? now : null),
          refunded_at: fields.refunded_at ?? null,
          config: JSON.stringify(config),
          created_at: now,
          updated_at: now,
        }),
      );
    } catch (error) {
      if (isUniqueViolation(error, ORDERS, 'uuid'))
        throw fail('validation_error', 'The uuid has already been taken.', { errors: { uuid: { unique: 'The uuid has already been taken.' } } });
      throw error;
    }

    await writeItems(trx, orderId, lines, totals, rate, now);
    throwIfAny(await saveAppliedCoupons(trx, { id: orderId, customer_id: body.customer_id }, totals.coupons, coupons, entries, [], now));
    await copyCustomerAddresses(trx, orderId, addresses, now);
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: orderId,
        title: 'Order created',
        content: `Order created with ${lines.length} item(s), total ${decimalWithCode(totals.total_amount, currency)}.`,
        status: 'success',
      },
      afterCommit,
    );

    let created: Order | null = null;
    afterCommit(() => {
      if (created) ctx.hooks.doAction('store/order/created', created);
    });
    if (fields.payment_status === 'paid') {
      await markPaidInTransaction(ctx, trx, afterCommit, orderId, { payment_method: method || undefined, transaction_type: 'charge' });
    }
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
    created = await readOrder(trx, orderId);
    return { order_id: orderId, uuid };
  });
}

/**
 * The payment status after an update: once money moved the ledger decides (a higher total makes a paid order
 * partially paid); before that the body may set `pending` or `failed`. `paid` is not set here: it goes through the
 * ledger afterwards.
 */
function paymentStatusAfter(before: OrderRow, total: number, requested: PaymentStatus | undefined): PaymentStatus {
  const current = String(before.payment_status) as PaymentStatus;
  const paid = Number(before.total_paid);
  const refunded = Number(before.total_refund);
  if (paid > 0 || refunded > 0) return paymentStatusOf(total, paid, refunded, current);
  const settled = (SETTLED_PAYMENT_STATUSES as readonly string[]).includes(current);
  return !settled && (requested === 'pending' || requested === 'failed') ? requested : current;
}

function storedEntries(rows: AppliedRow[]): AppliedCouponEntry[] {
  return rows
    .filter((row) => row.coupon_id !== null)
    .map((row) => ({
      coupon_id: Number(row.coupon_id),
      code: row.code,
      discounted_amount: Number(row.discounted_amount ?? 0),
      stackable: Number(row.stackable) ? 1 : 0,
    }));
}

/** `POST /orders/{order_id}`: replaces what the body sends (items, discount, shipping, coupons), recomputes every total. */
export async function updateOrder(ctx: Ctx, orderId: number, body: UpdateOrderBody): Promise<Order> {
  return transaction(ctx, async (trx, afterCommit) => {
    const before = (await lockForUpdate(trx(ORDERS).where({ id: orderId }), trx).first()) as OrderRow | undefined;
    if (!before) throw fail('not_found', 'Order not found');
    if (SUBSCRIPTION_TYPES.includes(String(before.type))) throw fail('invalid_state', 'Subscription Order cannot be edited', { status: 400 });
    if (body.status === 'completed') throw fail('invalid_state', 'Completed status can not be updated', { status: 400 });

    const errors: FieldErrors = {};
    const fields = readFields(body, [...PAYMENT_STATUSES], errors);
    const config = withWrittenElsewhere(parseJson<OrderConfig>(before.config, {}), before);
    const { discount, stored: storedDiscount } = body.discount !== undefined ? readDiscount(body.discount, errors) : readDiscount(config.discount, {});
    const customer = await customerOf(trx, body.customer_id, errors);
    const storedItems = (await trx(ITEMS)
      .where({ order_id: orderId })
      .orderBy([{ column: 'cart_index' }, { column: 'id' }])) as StoredItem[];
    const { lines, errors: lineErrors } = await resolveLines(trx, body.order_items, storedItems, body.deletedItems ?? []);
    const storedCoupons = (await trx('store_applied_coupons').where({ order_id: orderId }).orderBy('id')) as AppliedRow[];
    const entries = body.applied_coupon !== undefined ? (body.applied_coupon ?? []) : storedEntries(storedCoupons);
    const coupons = await resolveCoupons(trx, entries, storedCoupons, body.customer_id, ctx.clock.now());
    throwIfAny({ ...errors, ...lineErrors, ...coupons.errors });

    const now = toTimestamp(ctx.clock.now());
    const previousCustomerId = before.customer_id === null ? null : Number(before.customer_id);
    const customerChanged = previousCustomerId !== body.customer_id;
    const addresses = customerChanged
      ? await primaryAddresses(trx, body.customer_id)
      : ((await trx('store_order_addresses').where({ order_id: orderId })) as Array<Record<string, unknown>>);
    const shipping = body.shipping !== undefined ? shippingEntries(body.shipping ?? []) : (config.shipping ?? []);
    const currency = fields.currency ?? String(before.currency);
    const totals = await priceOrder(ctx, trx, {
      lines,
      coupons,
      discount,
      shipping: shipping.map((entry) => entry.custom_price),
      customer: customer as CustomerRecord,
      addresses,
      currency,
      orderId,
    });

    const status = fields.status ?? (String(before.status) as OrderStatus);
    // A checkout's stock hold follows the lines as edited (released, then held again), and ends with a cancel.
    const held = before.stock_state === 'held';
    if (held) await releaseOrderStock(trx, ctx, orderId, afterCommit, { holdsOnly: true });
    const keptIds = new Set(lines.flatMap((line) => (line.itemId === null ? [] : [line.itemId])));
    const removed = storedItems.map((row) => Number(row.id)).filter((id) => !keptIds.has(id));
    if (removed.length) await trx(ITEMS).whereIn('id', removed).delete();
    const rate = fields.rate ?? Number(before.rate);
    await writeItems(trx, orderId, lines, totals, rate, now);
    if (held && status !== 'canceled') await holdOrderStock(trx, ctx, orderId);

    const fulfillment = fulfillmentOf(lines);
    const paymentStatus = paymentStatusAfter(before, totals.total_amount, fields.payment_status);
    const method = fields.payment_method ?? String(before.payment_method ?? '');
    const previousShipping = String(before.shipping_status ?? '');
    const shippingStatus = shippingStatusFor(fulfillment, previousShipping);
    const nextConfig: OrderConfig = { ...config, discount: storedDiscount, shipping, ...(fields.user_tz !== undefined ? { user_tz: fields.user_tz } : {}) };
    await trx(ORDERS)
      .where({ id: orderId })
      .update({
        customer_id: body.customer_id,
        status,
        payment_status: paymentStatus,
        fulfillment_type: fulfillment,
        shipping_status: shippingStatus,
        currency,
        rate,
        ...totalsColumns(totals),
        config: JSON.stringify(nextConfig),
        updated_at: now,
        ...(fields.type !== undefined ? { type: fields.type } : {}),
        ...(fields.invoice_no !== undefined ? { invoice_no: fields.invoice_no } : {}),
        ...(fields.payment_method !== undefined ? { payment_method: method } : {}),
        ...(fields.payment_method_title !== undefined || fields.payment_method !== undefined
          ? { payment_method_title: fields.payment_method_title || (method ? gatewayFor(ctx, method).title : '') }
          : {}),
        ...(fields.note !== undefined ? { note: fields.note } : {}),
        ...(fields.ip_address !== undefined ? { ip_address: fields.ip_address } : {}),
        ...(fields.completed_at !== undefined ? { completed_at: fields.completed_at } : {}),
        ...(fields.refunded_at !== undefined ? { refunded_at: fields.refunded_at } : {}),
      });
    throwIfAny(await saveAppliedCoupons(trx, { id: orderId, customer_id: body.customer_id }, totals.coupons, coupons, entries, storedCoupons, now));
    if (customerChanged) {
      await copyCustomerAddresses(trx, orderId, addresses as AddressRow[], now);
      if (previousCustomerId !== null) await recalculateCustomerStats(trx, previousCustomerId);
    }
    if (customerChanged || paymentStatus !== before.payment_status) await recalculateCustomerStats(trx, body.customer_id);

    const previous = presentOrder(before);
    const summary: UpdateSummary = {
      status,
      paymentStatus,
      total: totals.total_amount,
      currency,
      customerId: body.customer_id,
      removed: removed.length,
      lines,
    };
    await logUpdate(trx, ctx, afterCommit, previous, summary);
    if (shippingStatus !== previousShipping) {
      const row = (await trx(ORDERS).where({ id: orderId }).first()) as OrderRow;
      await emitOrderEvent(ctx, trx, { type: 'shipping_status_changed', order: row, previous: previousShipping });
    }
    let order: Order | null = null;
    afterCommit(() => {
      if (order) fireUpdateHooks(ctx, order, previous, summary);
    });
    if (fields.payment_status === 'paid' && !(SETTLED_PAYMENT_STATUSES as readonly string[]).includes(paymentStatus)) {
      await markPaidInTransaction(ctx, trx, afterCommit, orderId, { payment_method: method || undefined, transaction_type: 'charge' });
    }
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
    order = await readOrder(trx, orderId);
    return order;
  });
}

interface UpdateSummary {
  status: string;
  paymentStatus: string;
  total: number;
  currency: string;
  customerId: number;
  removed: number;
  lines: LineDraft[];
}

async function logUpdate(trx: Knex.Transaction, ctx: Ctx, afterCommit: AfterCommit, previous: Order, summary: UpdateSummary): Promise<void> {
  const added = summary.lines.filter((line) => line.itemId === null).length;
  const changes = [
    `${summary.lines.length - added} item(s) kept, ${added} added, ${summary.removed} removed`,
    previous.total_amount !== summary.total
      ? `total ${decimalWithCode(previous.total_amount, previous.currency)} → ${decimalWithCode(summary.total, summary.currency)}`
      : '',
    previous.status !== summary.status ? `status ${previous.status} → ${summary.status}` : '',
    previous.payment_status !== summary.paymentStatus ? `payment status ${previous.payment_status} → ${summary.paymentStatus}` : '',
    previous.customer_id !== summary.customerId ? `customer #${previous.customer_id ?? '-'} → #${summary.customerId}` : '',
  ].filter(Boolean);
  await recordActivity(trx, ctx, { object_type: 'order', object_id: previous.id, title: 'Order updated', content: `${changes.join('; ')}.` }, afterCommit);
}

/** The hooks of the update's own changes (a payment recorded after it fires its own). */
function fireUpdateHooks(ctx: Ctx, order: Order, previous: Order, summary: UpdateSummary): void {
  ctx.hooks.doAction('store/order/updated', order, previous);
  if (summary.status !== previous.status) {
    ctx.hooks.doAction('store/order/status_changed', order, previous.status);
    if (summary.status === 'canceled') ctx.hooks.doAction('store/order/canceled', order, previous.status);
  }
  if (summary.paymentStatus !== previous.payment_status) ctx.hooks.doAction('store/order/payment_status_changed', order, previous.payment_status);
  if (summary.customerId !== previous.customer_id) ctx.hooks.doAction('store/order/customer_changed', order, previous.customer_id);
}
