/**
 * The cart API's writes. Each is one transaction that locks the cart row, so parallel edits of one cart apply one
 * after another and none is lost.
 *
 * Which cart a write edits (`targetCart`): the cart the request names (cookie or query) while it is unexpired, not
 * another user's and not closed; for a logged-in user with a guest cart, the guest cart is adopted (it becomes
 * theirs), or merged into the user's own open cart when they already have one (quantities add up, coupon codes
 * join, the guest cart is deleted); otherwise the user's open cart; otherwise a new cart.
 *
 * Stages: only a `draft` cart is edited. An `intended` cart whose order is still unpaid goes back to `draft` when
 * edited (its order is left for the unpaid-order expiry to cancel). A closed cart (`completed`, or `intended` with
 * an order that was paid meanwhile) is never edited: a write starts a new cart.
 */
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { REJECTION_MESSAGES } from '../coupons/calculator';
import { findCouponsByCodes } from '../coupons/service';
import { customerIdOf } from '../customers/owner';
import { presentCustomer, type CustomerRow } from '../customers/presenter';
import type { CustomerRecord } from '../customers/types';
import { cartVariations, heldByOrder, UNPAID_STATUSES } from './catalog';
import { insufficientStock, notPurchasable, UNKNOWN_VARIATION, unknownCoupon } from './messages';
import { quoteCart } from './pricing';
import { deleteCart, findCartByHash, findCartById, findOpenCartOfUser, insertCart, reopenCart, updateCart } from './repo';
import type { Cart, CartData } from './types';

type Db = Knex | Knex.Transaction;

/** A guest's cart lives a week after its last change; a logged-in shopper's a month (it follows them across devices). */
export const GUEST_CART_TTL_DAYS = 7;
export const USER_CART_TTL_DAYS = 30;
/** The most units of one variation a cart holds. */
export const MAX_QUANTITY = 10_000;

const DAY_MS = 24 * 60 * 60 * 1000;

export function cartExpiry(now: Date, userId: number | null): string {
  return toTimestamp(new Date(now.getTime() + (userId === null ? GUEST_CART_TTL_DAYS : USER_CART_TTL_DAYS) * DAY_MS));
}

/** The logged-in caller's customer record (for per-customer coupon limits); null for a guest or a user who never bought. */
export async function callerCustomer(ctx: Ctx, db: Db): Promise<CustomerRecord | null> {
  if (!ctx.user) return null;
  const id = await customerIdOf(db, { user_id: ctx.user.id, email: ctx.user.email });
  const row = id === null ? undefined : ((await db('store_customers').where({ id }).first()) as CustomerRow | undefined);
  return row ? presentCustomer(row) : null;
}

/** Completed, or waiting for an order that has been paid (or authorised) meanwhile: never edited again. */
async function isClosed(db: Db, cart: Cart): Promise<boolean> {
  if (cart.stage === 'completed') return true;
  if (cart.stage !== 'intended' || cart.order_id === null) return false;
  const order = (await db('store_orders').where({ id: cart.order_id }).first('payment_status')) as { payment_status: string } | undefined;
  return !!order && !UNPAID_STATUSES.includes(order.payment_status);
}

function mergedData(into: CartData, from: CartData): CartData {
  const items = into.items.map((item) => ({ ...item }));
  for (const item of from.items) {
    const same = items.find((existing) => existing.variation_id === item.variation_id);
    if (same) same.quantity = Math.min(MAX_QUANTITY, same.quantity + item.quantity);
    else items.push({ ...item });
  }
  const codes = new Set(into.coupons.map((code) => code.toLowerCase()));
  return { items, coupons: [...into.coupons, ...from.coupons.filter((code) => !codes.has(code.toLowerCase()))] };
}

/** The cart a write edits, locked (see the top of this file); null when there is none and `create` is false. */
async function targetCart(ctx: Ctx, trx: Knex.Transaction, hash: string | undefined, create: boolean): Promise<Cart | null> {
  const now = ctx.clock.now();
  const stamp = toTimestamp(now);
  const userId = ctx.user?.id ?? null;
  const usable = async (found: Cart | null): Promise<Cart | null> => {
    const cart = found && (await findCartById(trx, found.id, true));
    if (!cart || cart.expires_at <= stamp || (cart.user_id !== null && cart.user_id !== userId)) return null;
    return (await isClosed(trx, cart)) ? null : cart;
  };

  const named = hash ? await usable(await findCartByHash(trx, hash)) : null;
  let target = named;
  if (userId !== null && named?.user_id !== userId) {
    const mine = await usable(await findOpenCartOfUser(trx, userId, stamp));
    if (named && mine) {
      await updateCart(trx, mine.id, { data: mergedData(mine.data, named.data), expires_at: cartExpiry(now, userId), now: stamp });
      await deleteCart(trx, named.id);
      target = mine;
    } else if (named) {
      await updateCart(trx, named.id, { user_id: userId, expires_at: cartExpiry(now, userId), now: stamp });
    } else {
      target = mine;
    }
  }
  if (target) return findCartById(trx, target.id, true);
  if (!create) return null;
  return insertCart(trx, { user_id: userId, customer_id: null, now: stamp, expires_at: cartExpiry(now, userId) });
}

/**
 * The caller's cart for a write: the current one (adopted or merged for a logged-in user), else a new one. It is
 * returned in the stage it is in (`draft` or `intended`); a closed cart is never returned.
 */
export function ensureCart(ctx: Ctx, hash: string | undefined): Promise<Cart> {
  return transaction(ctx, async (trx) => (await targetCart(ctx, trx, hash, true)) as Cart);
}

type Edit = (trx: Knex.Transaction, data: CartData, cart: Cart) => Promise<CartData>;

/**
 * Applies `edit` to the caller's cart in one transaction holding the cart's row lock; an `intended` cart goes back to
 * `draft`. The new contents are saved and the cart's life starts again. Null when there was no cart and `create` is
 * false.
 */
async function editCart(ctx: Ctx, hash: string | undefined, edit: Edit, create = true): Promise<Cart | null> {
  return transaction(ctx, async (trx) => {
    const cart = await targetCart(ctx, trx, hash, create);
    if (!cart) return null;
    const now = ctx.clock.now();
    const stamp = toTimestamp(now);
    if (cart.stage === 'intended') await reopenCart(trx, cart.id, stamp);
    const data = await edit(trx, cart.data, { ...cart, stage: 'draft' });
    await updateCart(trx, cart.id, { data, expires_at: cartExpiry(now, cart.user_id), now: stamp });
    return findCartById(trx, cart.id);
  });
}

/** Refuses `quantity` units of a variation: unknown or never on sale (a field error), no longer on sale, or short of stock. */
async function checkQuantity(trx: Knex.Transaction, cart: Cart, variationId: number, quantity: number, inCart: boolean): Promise<void> {
  // Units the cart's own unpaid order holds are the cart's: placing it again moves that hold, it does not add one.
  const variation = (await cartVariations(trx, [variationId], await heldByOrder(trx, cart.order_id))).get(variationId);
  if (!variation || (!variation.purchasable && !inCart)) throw invalid('variation_id', 'exists', UNKNOWN_VARIATION);
  if (!variation.purchasable) throw fail('invalid_state', notPurchasable(variation.label), { status: 422 });
  if (quantity > MAX_QUANTITY) throw invalid('quantity', 'max', `The quantity field must not be greater than ${MAX_QUANTITY}.`);
  if (variation.available !== null && quantity > variation.available) throw fail('invalid_state', insufficientStock(variation.label), { status: 422 });
}

const notInCart = () => fail('not_found', 'This product is not in the cart.');

/** `POST /cart/items`: adds units of a variation (to those already in the cart). */
export function addItem(ctx: Ctx, hash: string | undefined, input: { variation_id: number; quantity: number }): Promise<Cart> {
  return editCart(ctx, hash, async (trx, data, cart) => {
    const existing = data.items.find((item) => item.variation_id === input.variation_id);
    const quantity = (existing?.quantity ?? 0) + input.quantity;
    await checkQuantity(trx, cart, input.variation_id, quantity, !!existing);
    const items = existing
      ? data.items.map((item) => (item === existing ? { ...item, quantity } : item))
      : [...data.items, { variation_id: input.variation_id, quantity }];
    return { ...data, items };
  }) as Promise<Cart>;
}

/** `PUT /cart/items/{variation_id}`: sets the quantity of a line in the cart; 0 removes it. */
export function setItemQuantity(ctx: Ctx, hash: string | undefined, variationId: number, quantity: number): Promise<Cart> {
  return editCart(ctx, hash, async (trx, data, cart) => {
    if (!data.items.some((item) => item.variation_id === variationId)) throw notInCart();
    if (quantity === 0) return { ...data, items: data.items.filter((item) => item.variation_id !== variationId) };
    await checkQuantity(trx, cart, variationId, quantity, true);
    return { ...data, items: data.items.map((item) => (item.variation_id === variationId ? { ...item, quantity } : item)) };
  }) as Promise<Cart>;
}

/** `DELETE /cart/items/{variation_id}`. */
export function removeItem(ctx: Ctx, hash: string | undefined, variationId: number): Promise<Cart> {
  return setItemQuantity(ctx, hash, variationId, 0);
}

/**
 * `POST /cart/coupons`: applies a coupon by code. Refused (422 on `code`) when the code is unknown, already applied,
 * or when the coupon calculator refuses it or, because of it, a coupon that applied until now (with its message).
 */
export function addCoupon(ctx: Ctx, hash: string | undefined, rawCode: string): Promise<Cart> {
  const code = rawCode.trim();
  return editCart(ctx, hash, async (trx, data, cart) => {
    const [coupon] = await findCouponsByCodes(trx, [code], ctx.clock.now());
    if (!coupon) throw invalid('code', 'exists', unknownCoupon(code));
    if (data.coupons.some((applied) => applied.toLowerCase() === coupon.code.toLowerCase())) throw invalid('code', 'duplicate', REJECTION_MESSAGES.duplicate);
    const next = { ...data, coupons: [...data.coupons, coupon.code] };
    const customer = await callerCustomer(ctx, trx);
    const before = await quoteCart(ctx, trx, cart, { customer });
    const after = await quoteCart(ctx, trx, { ...cart, data: next }, { customer });
    const refused = after.coupons.find((quoted, i) => quoted.problem && (i === data.coupons.length || !before.coupons[i].problem));
    if (refused?.problem) throw invalid('code', refused.problem.rule, refused.problem.message);
    return next;
  }) as Promise<Cart>;
}

/** `DELETE /cart/coupons/{code}` (any letter case). */
export function removeCoupon(ctx: Ctx, hash: string | undefined, code: string): Promise<Cart> {
  return editCart(ctx, hash, async (_trx, data) => {
    const key = code.trim().toLowerCase();
    if (!data.coupons.some((applied) => applied.toLowerCase() === key)) throw fail('not_found', 'This coupon is not applied to the cart.');
    return { ...data, coupons: data.coupons.filter((applied) => applied.toLowerCase() !== key) };
  }) as Promise<Cart>;
}

/** `DELETE /cart`: empties the caller's cart (items and coupons); no cart is created for it. */
export function emptyCart(ctx: Ctx, hash: string | undefined): Promise<Cart | null> {
  return editCart(ctx, hash, async () => ({ items: [], coupons: [] }), false);
}
