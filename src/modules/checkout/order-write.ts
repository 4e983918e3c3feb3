/**
 * The rows place-order writes in its one transaction: the order (new, or the cart's unpaid order placed again), its
 * items, addresses, applied coupons, a pending charge, the stock hold, the operation record (how and from where the
 * order came), and the cart moved to `intended`.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertedId, type AfterCommit } from '../../core/db';
import { fail, type FieldErrors } from '../../core/errors';
import { decimalWithCode } from '../../core/money';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import type { PricedCart } from '../cart/pricing';
import { markCartIntended } from '../cart/repo';
import type { Cart } from '../cart/types';
import { presentOrder, type Order, type OrderRow } from '../order-records/presenter';
import { TRANSACTION_STATUS } from '../orders/ledger';
import { emitOrderEvent } from '../order-records/order-events';
import { holdOrderStock, releaseOrderStock } from '../orders/stock-state';
import { saveAppliedCoupons, type AppliedRow } from '../orders/write-coupons';
import { itemColumns } from '../orders/write-lines';
import { totalsColumns } from '../orders/write';
import type { StoreMode } from '../settings/types';
import type { CheckoutCustomer } from './customer';
import { addressValues, type CheckoutAddress, type CheckoutForm } from './form';

const ORDERS = 'store_orders';
const ITEMS = 'store_order_items';
const ORDER_ADDRESSES = 'store_order_addresses';
const TRANSACTIONS = 'store_order_transactions';
const OPERATIONS = 'store_order_operations';

/** What checkout knows when it writes the order. */
export interface OrderDraft {
  cart: Cart;
  form: CheckoutForm;
  priced: PricedCart;
  customer: CheckoutCustomer;
  method: { key: string; title: string };
  mode: StoreMode;
  /** The page the shopper came from (`Referer`). */
  referer: string;
  /** The cart's unpaid order, locked, when the cart is placed again: it is rewritten in place. */
  previous: OrderRow | null;
}

export interface WrittenOrder {
  order: Order;
  charge: { id: number; uuid: string; total: number };
}

function orderColumns(ctx: Ctx, draft: OrderDraft, now: string): Record<string, unknown> {
  const { priced, form, method } = draft;
  const { totals } = priced;
  const shipping =
    priced.shipping.method_id === null
      ? []
      : [{ type: 'shipping_method', rate_name: priced.shipping.title, custom_price: priced.shipping.charge, method_id: priced.shipping.method_id }];
  return {
    customer_id: draft.customer.record.id,
    status: 'on-hold',
    payment_status: 'pending',
    shipping_status: priced.fulfillment === 'physical' ? 'unshipped' : '',
    payment_method: method.key,
    payment_method_title: method.title,
    type: orderType(priced),
    fulfillment_type: priced.fulfillment,
    mode: draft.mode,
    currency: priced.currency,
    ...totalsColumns(totals),
    rate: 1,
    note: form.notes,
    ip_address: ctx.ip,
    config: JSON.stringify({ discount: null, shipping, ...(form.user_tz ? { user_tz: form.user_tz } : {}) }),
    updated_at: now,
  };
}

/** A cart with a subscription makes a `subscription` order (its renewals are `renewal` orders), else a `payment`. */
const orderType = (priced: PricedCart) => (priced.has_subscriptions ? 'subscription' : 'payment');

const idsOf = (rows: Array<{ id: number | string }>) => rows.map((row) => Number(row.id));

/** The order placed again gives back what it held and drops its lines; its coupons are replaced by `saveAppliedCoupons`. */
async function unwindPrevious(trx: Knex.Transaction, ctx: Ctx, orderId: number, afterCommit: AfterCommit): Promise<AppliedRow[]> {
  await releaseOrderStock(trx, ctx, orderId, afterCommit, { holdsOnly: true });
  // Deletes by primary key: a DELETE by order_id would take gap locks that deadlock parallel inserts on MySQL.
  const items = idsOf((await trx(ITEMS).where({ order_id: orderId }).select('id')) as Array<{ id: number }>);
  if (items.length) await trx(ITEMS).whereIn('id', items).delete();
  return (await trx('store_applied_coupons').where({ order_id: orderId }).orderBy('id')) as AppliedRow[];
}

async function writeAddresses(trx: Knex.Transaction, orderId: number, form: CheckoutForm, now: string): Promise<void> {
  const wanted = new Map<string, CheckoutAddress>([['billing', form.billing]]);
  if (form.shipping) wanted.set('shipping', form.shipping);
  const existing = (await trx(ORDER_ADDRESSES).where({ order_id: orderId }).select('id', 'type')) as Array<{ id: number | string; type: string }>;
  const stale = idsOf(existing.filter((row) => !wanted.has(row.type)));
  if (stale.length) await trx(ORDER_ADDRESSES).whereIn('id', stale).delete();
  for (const [type, address] of wanted) {
    const row = existing.find((r) => r.type === type);
    if (row) await trx(ORDER_ADDRESSES).where({ id: row.id }).update(addressValues(address, now));
    else await trx(ORDER_ADDRESSES).insert({ order_id: orderId, type, ...addressValues(address, now), created_at: now });
  }
}

/**
 * The charge the payment settles. Placed again, the order keeps a pending charge no gateway has seen (with a new uuid
 * when the amount changed: gateways key idempotent requests on it); a pending charge a gateway already knows stays as
 * it is, since that payment may still complete, and a new one is added.
 */
async function writeCharge(trx: Knex.Transaction, orderId: number, draft: OrderDraft, now: string): Promise<WrittenOrder['charge']> {
  const total = draft.priced.totals.total_amount;
  const columns = {
    order_type: orderType(draft.priced),
    payment_method: draft.method.key,
    payment_mode: draft.mode,
    currency: draft.priced.currency,
    total,
    updated_at: now,
  };
  if (draft.previous) {
    const reusable = (await trx(TRANSACTIONS)
      .where({ order_id: orderId, transaction_type: 'charge', status: TRANSACTION_STATUS.pending, vendor_charge_id: '' })
      .orderBy('id', 'desc')
      .first('id', 'uuid', 'total')) as { id: number | string; uuid: string; total: number | string } | undefined;
    if (reusable) {
      const uuid = Number(reusable.total) === total ? reusable.uuid : crypto.randomUUID();
      await trx(TRANSACTIONS)
        .where({ id: reusable.id })
        .update({ ...columns, uuid });
      return { id: Number(reusable.id), uuid, total };
    }
  }
  const uuid = crypto.randomUUID();
  const id = insertedId(
    await trx(TRANSACTIONS).insert({
      ...columns,
      uuid,
      order_id: orderId,
      transaction_type: 'charge',
      vendor_charge_id: '',
      status: TRANSACTION_STATUS.pending,
      rate: 1,
      meta: '{}',
      created_at: now,
    }),
  );
  return { id, uuid, total };
}

async function writeOperation(trx: Knex.Transaction, orderId: number, draft: OrderDraft, now: string): Promise<void> {
  const values = {
    created_via: 'checkout',
    cart_hash: draft.cart.cart_hash,
    ...draft.form.utm,
    refer_url: draft.referer.slice(0, 2048),
    updated_at: now,
  };
  const updated = draft.previous ? await trx(OPERATIONS).where({ order_id: orderId }).update(values) : 0;
  if (!updated) await trx(OPERATIONS).insert({ order_id: orderId, ...values, meta: '{}', created_at: now });
}

/** A coupon used up by a parallel order since the cart was priced: the cart's coupon fails as on the cart. */
function couponErrors(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.values(errors).map((rule, index) => [`coupons.${index}`, rule]));
}

/**
 * Writes the order inside the caller's transaction. Not enough stock for a line is the 422 `invalid_state` of the
 * stock hold; a coupon used up meanwhile is a 422 on `coupons`. Hooks fire after the commit.
 */
export async function writeOrder(trx: Knex.Transaction, ctx: Ctx, draft: OrderDraft, afterCommit: AfterCommit): Promise<WrittenOrder> {
  const now = toTimestamp(ctx.clock.now());
  const columns = orderColumns(ctx, draft, now);
  let orderId: number;
  let stored: AppliedRow[] = [];
  if (draft.previous) {
    orderId = Number(draft.previous.id);
    stored = await unwindPrevious(trx, ctx, orderId, afterCommit);
    await trx(ORDERS).where({ id: orderId }).update(columns);
  } else {
    orderId = insertedId(await trx(ORDERS).insert({ ...columns, uuid: crypto.randomUUID(), created_at: now }));
  }

  const { priced } = draft;
  const items = priced.lines.map((line, i) => ({ ...itemColumns(line, priced.totals.lines[i], orderId, 1, now), created_at: now }));
  if (items.length) await trx(ITEMS).insert(items);
  await writeAddresses(trx, orderId, draft.form, now);
  const charge = await writeCharge(trx, orderId, draft, now);
  await writeOperation(trx, orderId, draft, now);
  await markCartIntended(trx, draft.cart.id, orderId, draft.customer.record.id, now);

  const total = decimalWithCode(priced.totals.total_amount, priced.currency);
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: orderId,
      title: draft.previous ? 'Order placed again at checkout' : 'Order placed at checkout',
      content: `${priced.lines.length} item(s), total ${total}, payment by ${draft.method.title}.`,
      status: 'success',
    },
    afterCommit,
  );
  // Last, the rows every checkout of the same products and coupon updates (a variation's stock, a coupon's use count):
  // their locks are held until the commit, so taking them at the end keeps parallel checkouts from queueing on them
  // for the whole transaction. Variations before coupons, in every checkout, so two cannot deadlock.
  await holdOrderStock(trx, ctx, orderId);
  const couponProblems = await saveAppliedCoupons(
    trx,
    { id: orderId, customer_id: draft.customer.record.id },
    priced.totals.coupons,
    priced.coupons,
    priced.entries,
    stored,
    now,
  );
  if (Object.keys(couponProblems).length) {
    const errors = couponErrors(couponProblems);
    throw fail('validation_error', Object.values(Object.values(errors)[0])[0], { errors });
  }
  await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
  const order = presentOrder((await trx(ORDERS).where({ id: orderId }).first()) as OrderRow);
  if (draft.previous) {
    const previous = presentOrder(draft.previous);
    afterCommit(() => ctx.hooks.doAction('store/order/updated', order, previous));
  } else {
    afterCommit(() => ctx.hooks.doAction('store/order/created', order));
  }
  return { order, charge };
}
