import { PublicPolicy } from '../../core/policies';
import type { RateLimitRule } from '../../core/ratelimit';
import { Reply, route, type RouteDef } from '../../core/routes';
import type { Ctx } from '../../core/context';
import { cartCookie, cartHashOf, currentCart } from './current';
import { AddItemBody, CartQuery, CouponBody, CouponParams, ItemParams, SetItemBody } from './schemas';
import { addCoupon, addItem, emptyCart, removeCoupon, removeItem, setItemQuantity } from './service';
import type { Cart } from './types';
import { presentCart } from './view';

declare module '../../host/contract' {
  interface OptionMap {
    /** Cart writes per minute per caller (default 120); raised for load tests, where every client comes from one address. */
    cart_write_rate_limit: number;
  }
}

export const DEFAULT_CART_WRITE_LIMIT = 120;

/** Cart writes per caller (the user when logged in, else the IP) per minute: far above any shopper, low enough to stop a script. */
export const CART_WRITE_LIMIT: RateLimitRule = {
  name: 'cart:write',
  points: (ctx) => ctx.host.options.get('cart_write_rate_limit', DEFAULT_CART_WRITE_LIMIT),
  durationSeconds: 60,
  batched: true,
};

type Headers = Record<string, string | string[] | undefined>;

/** The cart as `GET /cart` shows it, with the cookie that hands it to the browser when there is a cart. */
async function answer(ctx: Ctx, cart: Cart | null): Promise<unknown> {
  const view = await presentCart(ctx, cart);
  if (!cart) return view;
  const secure = ctx.host.site.url.startsWith('https:');
  return new Reply(view, 200, { 'Set-Cookie': cartCookie(cart, ctx.clock.now(), secure) });
}

const hashOf = (raw: { headers: Headers }, query: Record<string, unknown>) => cartHashOf(raw.headers, query);

/**
 * The shopper's cart (not in the spec; its conventions): policy PublicPolicy, the checkout envelope
 * (`{status: 'failed', message}`, `{status: 'failed', errors}` with 422 on invalid input). The cart is the one the
 * `fct_cart_hash` cookie or query parameter names, else the logged-in user's open cart. Every write answers the cart
 * like `GET /cart` and sets the cookie; see `service.ts` for which cart a write edits.
 */
export const cartRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/cart',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: CartQuery },
    envelope: 'checkout',
    handler: async (ctx, { query, raw }) => presentCart(ctx, await currentCart(ctx, hashOf(raw, query))),
  }),
  route({
    method: 'DELETE',
    path: '/cart',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: CartQuery },
    envelope: 'checkout',
    rateLimit: CART_WRITE_LIMIT,
    handler: async (ctx, { query, raw }) => answer(ctx, await emptyCart(ctx, hashOf(raw, query))),
  }),
  route({
    method: 'POST',
    path: '/cart/items',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: CartQuery, body: AddItemBody },
    envelope: 'checkout',
    rateLimit: CART_WRITE_LIMIT,
    handler: async (ctx, { query, body, raw }) =>
      answer(ctx, await addItem(ctx, hashOf(raw, query), { variation_id: body.variation_id, quantity: body.quantity ?? 1 })),
  }),
  route({
    method: 'PUT',
    path: '/cart/items/:variation_id',
    policy: PublicPolicy,
    permission: 'public',
    schema: { params: ItemParams, query: CartQuery, body: SetItemBody },
    envelope: 'checkout',
    rateLimit: CART_WRITE_LIMIT,
    handler: async (ctx, { params, query, body, raw }) => answer(ctx, await setItemQuantity(ctx, hashOf(raw, query), params.variation_id, body.quantity)),
  }),
  route({
    method: 'DELETE',
    path: '/cart/items/:variation_id',
    policy: PublicPolicy,
    permission: 'public',
    schema: { params: ItemParams, query: CartQuery },
    envelope: 'checkout',
    rateLimit: CART_WRITE_LIMIT,
    handler: async (ctx, { params, query, raw }) => answer(ctx, await removeItem(ctx, hashOf(raw, query), params.variation_id)),
  }),
  route({
    method: 'POST',
    path: '/cart/coupons',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: CartQuery, body: CouponBody },
    envelope: 'checkout',
    rateLimit: CART_WRITE_LIMIT,
    handler: async (ctx, { query, body, raw }) => answer(ctx, await addCoupon(ctx, hashOf(raw, query), body.code)),
  }),
  route({
    method: 'DELETE',
    path: '/cart/coupons/:code',
    policy: PublicPolicy,
    permission: 'public',
    schema: { params: CouponParams, query: CartQuery },
    envelope: 'checkout',
    rateLimit: CART_WRITE_LIMIT,
    handler: async (ctx, { params, query, raw }) => answer(ctx, await removeCoupon(ctx, hashOf(raw, query), params.code)),
  }),
];
