/** The carts table: the only SQL on carts. Callers pass the transaction when inside one. */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { insertedId, lockForUpdate, parseJson } from '../../core/db';
import type { Cart, CartData, CartStage, CheckoutData } from './types';

const CARTS = 'store_carts';

type Db = Knex | Knex.Transaction;

interface CartRow {
  id: number | string;
  cart_hash: string;
  user_id: number | string | null;
  customer_id: number | string | null;
  order_id: number | string | null;
  stage: string;
  cart_data: string | null;
  checkout_data: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

const idOrNull = (value: number | string | null) => (value === null ? null : Number(value));

function toCart(row: CartRow): Cart {
  const data = parseJson<Partial<CartData>>(row.cart_data, {});
  return {
    id: Number(row.id),
    cart_hash: row.cart_hash,
    user_id: idOrNull(row.user_id),
    customer_id: idOrNull(row.customer_id),
    order_id: idOrNull(row.order_id),
    stage: row.stage as CartStage,
    data: { items: data.items ?? [], coupons: data.coupons ?? [] },
    checkout: parseJson<CheckoutData>(row.checkout_data, {}),
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A new random cart hash: 32 hex characters, unguessable. */
export function newCartHash(): string {
  return crypto.randomBytes(16).toString('hex');
}

export async function findCartByHash(db: Db, hash: string): Promise<Cart | null> {
  const row = (await db(CARTS).where({ cart_hash: hash }).first()) as CartRow | undefined;
  return row ? toCart(row) : null;
}

export async function findCartById(db: Db, id: number, lock = false): Promise<Cart | null> {
  const query = db(CARTS).where({ id });
  const row = (await (lock ? lockForUpdate(query, db) : query).first()) as CartRow | undefined;
  return row ? toCart(row) : null;
}

/** The user's newest unexpired cart still being shopped or waiting for payment: a logged-in cart follows its user. */
export async function findOpenCartOfUser(db: Db, userId: number, now: string): Promise<Cart | null> {
  const row = (await db(CARTS)
    .where({ user_id: userId })
    .whereIn('stage', ['draft', 'intended'])
    .where('expires_at', '>', now)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .first()) as CartRow | undefined;
  return row ? toCart(row) : null;
}

export async function insertCart(db: Db, fields: { user_id: number | null; customer_id: number | null; now: string; expires_at: string }): Promise<Cart> {
  const hash = newCartHash();
  const empty: CartData = { items: [], coupons: [] };
  const id = insertedId(
    await db(CARTS).insert({
      cart_hash: hash,
      user_id: fields.user_id,
      customer_id: fields.customer_id,
      stage: 'draft',
      cart_data: JSON.stringify(empty),
      checkout_data: JSON.stringify({}),
      expires_at: fields.expires_at,
      created_at: fields.now,
      updated_at: fields.now,
    }),
  );
  return (await findCartById(db, id)) as Cart;
}

export async function updateCart(
  db: Db,
  id: number,
  patch: { data?: CartData; checkout?: CheckoutData; user_id?: number | null; customer_id?: number | null; expires_at?: string; now: string },
): Promise<void> {
  await db(CARTS)
    .where({ id })
    .update({
      ...(patch.data ? { cart_data: JSON.stringify(patch.data) } : {}),
      ...(patch.checkout ? { checkout_data: JSON.stringify(patch.checkout) } : {}),
      ...(patch.user_id !== undefined ? { user_id: patch.user_id } : {}),
      ...(patch.customer_id !== undefined ? { customer_id: patch.customer_id } : {}),
      ...(patch.expires_at ? { expires_at: patch.expires_at } : {}),
      updated_at: patch.now,
    });
}

/** Checkout placed the cart's order: the cart waits for its payment. */
export async function markCartIntended(trx: Knex.Transaction, cartId: number, orderId: number, customerId: number, now: string): Promise<void> {
  await trx(CARTS).where({ id: cartId }).update({ stage: 'intended', order_id: orderId, customer_id: customerId, updated_at: now });
}

/** The order of a cart was paid (or placed offline): the cart is done and a new one starts. */
export async function completeCartOfOrder(trx: Knex.Transaction, orderId: number, now: string): Promise<void> {
  await trx(CARTS).where({ order_id: orderId }).whereNot('stage', 'completed').update({ stage: 'completed', updated_at: now });
}

/** Deletes carts that expired before `now` and never became an order; returns how many. */
export async function deleteExpiredCarts(db: Db, now: string, limit: number): Promise<number> {
  const ids = ((await db(CARTS).where('expires_at', '<=', now).whereNull('order_id').orderBy('id').limit(limit).select('id')) as Array<{ id: number }>).map(
    (row) => Number(row.id),
  );
  if (!ids.length) return 0;
  return db(CARTS).whereIn('id', ids).delete();
}

/**
 * An edited cart is shopped again: back to `draft`, still tied to the unpaid order checkout placed for it, so placing
 * it again rewrites that order (its stock hold and coupon uses move with it) instead of leaving a second one holding
 * stock until it expires.
 */
export async function reopenCart(trx: Knex.Transaction, id: number, now: string): Promise<void> {
  await trx(CARTS).where({ id }).update({ stage: 'draft', updated_at: now });
}

/** The cart's order was canceled (it expired unpaid): the shopper keeps the cart, untied from that order. */
export async function releaseCartOfOrder(trx: Knex.Transaction, orderId: number, now: string): Promise<void> {
  await trx(CARTS).where({ order_id: orderId }).whereNot('stage', 'completed').update({ stage: 'draft', order_id: null, updated_at: now });
}

export async function deleteCart(db: Db, id: number): Promise<void> {
  await db(CARTS).where({ id }).delete();
}
