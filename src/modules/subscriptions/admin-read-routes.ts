import type { Host } from '../../host/contract';
import { OrderPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { Reply, route, type RouteDef } from '../../core/routes';
import { SubscriptionListQuery, SubscriptionNotFound, SubscriptionParams } from './admin-read-schemas';
import { subscriptionDetail } from './detail';
import { listSubscriptions } from './list';

/** The spec's hourly `list` class (API callers; dashboard sessions exempt). */
const LIST = hourlyClass('subscriptions', 'list', 'subscriptions/view');

/** The dashboard address of the subscription list: where the detail's 404 leads back to. */
export function adminSubscriptionsUrl(host: Host): string {
  return `${host.site.url.replace(/\/+$/, '')}/wp-admin/admin.php?page=store#/subscriptions`;
}

/** Spec: `GET /subscriptions` and `GET /subscriptions/{subscriptionOrderId}`. */
export const subscriptionReadRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/subscriptions',
    policy: OrderPolicy,
    permission: 'subscriptions/view',
    schema: { query: SubscriptionListQuery },
    envelope: 'message',
    rateLimit: LIST,
    handler: async (ctx, { query }) => ({ data: await listSubscriptions(ctx, query) }),
  }),
  route({
    method: 'GET',
    path: '/subscriptions/:subscriptionOrderId',
    policy: OrderPolicy,
    permission: 'subscriptions/view',
    schema: { params: SubscriptionParams },
    envelope: 'message',
    rateLimit: LIST,
    answers: { 404: { description: 'No such subscription: the flat shape with the way back to the list.', schema: SubscriptionNotFound } },
    handler: async (ctx, { params }) => {
      const detail = await subscriptionDetail(ctx, params.subscriptionOrderId);
      if (!detail)
        return new Reply({ message: 'Subscription not found', action_text: 'Back to Subscriptions', action_url: adminSubscriptionsUrl(ctx.host) }, 404);
      return detail;
    },
  }),
];
