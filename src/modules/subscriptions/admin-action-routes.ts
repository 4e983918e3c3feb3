import { OrderPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';
import { cancelOrderSubscription } from './actions/cancel';
import { earlyPaymentLink } from './actions/early-payment';
import { fetchOrderSubscription } from './actions/fetch';
import { subscriptionOfOrder } from './actions/lookup';
import { CancelBody, OrderSubscriptionParams, VendorIdsBody } from './actions/schemas';
import { updateVendorIds, verifyVendorIds } from './actions/vendor-ids';

/** The spec's hourly classes (API callers; dashboard sessions holding the permission are exempt). */
const CANCEL = hourlyClass('subscriptions', 'cancel', 'subscriptions/manage');
const UPDATE = hourlyClass('subscriptions', 'update', 'subscriptions/manage');
const CREATE = hourlyClass('subscriptions', 'create', 'subscriptions/manage');
const FETCH = hourlyClass('subscriptions', 'update', 'subscriptions/view');

const BASE = '/orders/:order/subscriptions/:subscription';
const params = OrderSubscriptionParams;

/** `reactivate`, `pause` and `resume`: the spec's constant answer, once the subscription is known to be the order's. */
const notAvailable = (action: string) =>
  route({
    method: 'PUT',
    path: `${BASE}/${action}`,
    policy: OrderPolicy,
    permission: 'subscriptions/manage',
    schema: { params },
    envelope: 'message',
    rateLimit: UPDATE,
    handler: async (ctx, { params: p }) => {
      await subscriptionOfOrder(ctx.db, p.order, p.subscription);
      return { message: 'Not available yet' };
    },
  });

/** Spec: "Subscriptions, administrative", the routes under `/orders/{order}/subscriptions/{subscription}`. */
export const subscriptionActionRoutes: RouteDef[] = [
  route({
    method: 'PUT',
    path: `${BASE}/cancel`,
    policy: OrderPolicy,
    permission: 'subscriptions/manage',
    schema: { params, body: CancelBody },
    envelope: 'message',
    rateLimit: CANCEL,
    handler: (ctx, { params: p, body }) => cancelOrderSubscription(ctx, p.order, p.subscription, body),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/fetch`,
    policy: OrderPolicy,
    permission: 'subscriptions/view',
    schema: { params },
    envelope: 'message',
    rateLimit: FETCH,
    handler: (ctx, { params: p }) => fetchOrderSubscription(ctx, p.order, p.subscription),
  }),
  route({
    method: 'PUT',
    path: `${BASE}/vendor-ids`,
    policy: OrderPolicy,
    permission: 'subscriptions/manage',
    schema: { params, body: VendorIdsBody },
    envelope: 'message',
    rateLimit: UPDATE,
    handler: (ctx, { params: p, body }) => updateVendorIds(ctx, p.order, p.subscription, body),
  }),
  route({
    method: 'POST',
    path: `${BASE}/verify-vendor-ids`,
    policy: OrderPolicy,
    permission: 'subscriptions/manage',
    schema: { params, body: VendorIdsBody },
    envelope: 'message',
    rateLimit: UPDATE,
    handler: (ctx, { params: p, body }) => verifyVendorIds(ctx, p.order, p.subscription, body),
  }),
  route({
    method: 'POST',
    path: `${BASE}/early-payment-link`,
    policy: OrderPolicy,
    permission: 'subscriptions/manage',
    schema: { params },
    envelope: 'message',
    rateLimit: CREATE,
    handler: (ctx, { params: p }) => earlyPaymentLink(ctx, p.order, p.subscription),
  }),
  notAvailable('reactivate'),
  notAvailable('pause'),
  notAvailable('resume'),
];
