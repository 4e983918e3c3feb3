import { Type } from '@sinclair/typebox';
import { PublicPolicy } from '../../core/policies';
import type { RateLimitRule } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';
import { cartHashOf } from '../cart/current';
import { login } from './login';
import { orderInfo } from './order-info';
import { placeOrder } from './place-order';
import { LoginBody, OrderInfoQuery, PlaceOrderBody, PlaceOrderQuery, SummaryQuery } from './schemas';
import { checkoutSummary } from './summary';

declare module '../../host/contract' {
  interface OptionMap {
    /** Place-order requests per 60 s per IP or user (default 5, the spec's limit); raised for load benchmarks. */
    checkout_rate_limit: number;
  }
}

/** The spec's checkout rate: 5 place-order requests per 60 seconds per IP (guests) or user, counted in the database. */
export const PLACE_ORDER_LIMIT: RateLimitRule = {
  name: 'place-order',
  points: async (ctx) => {
    const points = await ctx.host.options.get('checkout_rate_limit', 5);
    return Number.isSafeInteger(points) && (points as number) > 0 ? (points as number) : 5;
  },
  durationSeconds: 60,
};

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));

export const checkoutRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/user/login',
    policy: PublicPolicy,
    permission: 'public',
    schema: { body: LoginBody },
    envelope: 'login',
    handler: (ctx, { body }) => login(ctx, body),
  }),
  route({
    method: 'POST',
    path: '/checkout/place-order',
    policy: PublicPolicy,
    permission: 'public',
    schema: { body: PlaceOrderBody, query: PlaceOrderQuery },
    envelope: 'checkout',
    rateLimit: PLACE_ORDER_LIMIT,
    answers: {
      422: {
        description: 'A product in the cart cannot be bought (out of stock, not for sale, a subscription): `{message}`.',
        schema: Type.Object({ message: Type.String() }),
      },
      502: {
        description: 'The payment gateway did not start the payment; the order stays pending and placing the cart again reuses it.',
        schema: Type.Object({ status: Type.Literal('failed'), message: Type.String() }),
      },
    },
    handler: (ctx, { body, query, raw }) => placeOrder(ctx, { body, cartHash: cartHashOf(raw.headers, query), referer: headerText(raw.headers.referer) }),
  }),
  route({
    method: 'GET',
    path: '/checkout/get-checkout-summary-view',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: SummaryQuery },
    envelope: 'checkout',
    handler: (ctx, { query, raw }) => checkoutSummary(ctx, { shippingMethodId: query.shipping_method_id, cartHash: cartHashOf(raw.headers, query) }),
  }),
  route({
    method: 'GET',
    path: '/checkout/get-order-info',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: OrderInfoQuery },
    envelope: 'checkout',
    handler: (ctx, { query }) => orderInfo(ctx, query.method),
  }),
];
