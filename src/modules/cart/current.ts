import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Ctx } from '../../core/context';
import { toTimestamp } from '../../core/time';
import { findCartByHash, findOpenCartOfUser } from './repo';
import type { Cart } from './types';

/** The cookie that carries a shopper's cart (reference §3): readable by the checkout script, so not HttpOnly. */
export const CART_COOKIE = 'fct_cart_hash';

const HASH = /^[0-9a-f]{32}$/;

/** The cart hash a request names: the `fct_cart_hash` query parameter ("instant" carts), else the cookie. */
export function cartHashOf(headers: Record<string, string | string[] | undefined>, query: Record<string, unknown>): string | undefined {
  const fromQuery = query[CART_COOKIE];
  if (typeof fromQuery === 'string' && HASH.test(fromQuery)) return fromQuery;
  const header = headers.cookie;
  const fromCookie = typeof header === 'string' ? parseCookies(header)[CART_COOKIE] : undefined;
  return fromCookie && HASH.test(fromCookie) ? fromCookie : undefined;
}

/** The `Set-Cookie` value that hands a cart to the browser until the cart expires. */
export function cartCookie(cart: Cart, now: Date, secure: boolean): string {
  const maxAge = Math.max(0, Math.floor((Date.parse(`${cart.expires_at.replace(' ', 'T')}Z`) - now.getTime()) / 1000));
  return serializeCookie(CART_COOKIE, cart.cart_hash, { path: '/', sameSite: 'lax', maxAge, secure });
}

/**
 * The caller's cart, without creating one: the named cart (query or cookie) when it exists and has not expired, else
 * the logged-in user's open cart (a cart follows its user across devices). A cart owned by another user is not
 * the caller's.
 */
export async function currentCart(ctx: Ctx, hash: string | undefined): Promise<Cart | null> {
  const now = toTimestamp(ctx.clock.now());
  if (hash) {
    const cart = await findCartByHash(ctx.db, hash);
    const foreign = cart?.user_id != null && cart.user_id !== ctx.user?.id;
    if (cart && cart.expires_at > now && !foreign) return cart;
  }
  return ctx.user ? findOpenCartOfUser(ctx.db, ctx.user.id, now) : null;
}
