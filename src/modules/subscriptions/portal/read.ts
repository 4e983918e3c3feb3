import type { Ctx } from '../../../core/context';
import { pageOf, paginate, readPage, type Page } from '../../../core/page';
import { customerIdOf, ownedBy } from '../../customers/owner';
import { presentOrderAddress } from '../../order-records/presenter';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import { canUpdatePaymentMethod } from './payment-method';
import { gatewayTitle, switchableMethods } from './methods';
import { ownSubscription } from './own';
import { reactivateUrl } from './reactivation';
import { presentPortalDetail, presentPortalSummary, type PortalSummary } from './views';

/** Checkouts that were never paid: not the customer's subscriptions yet (spec). */
const HIDDEN = ['pending', 'intended'];

export const PORTAL_PAGE = { default: 10, max: 200 };

/** An empty page of the requested size: the list's answer to a caller who is not logged in (spec). */
export function emptyPortalPage(query: { page?: unknown; per_page?: unknown }): Page<PortalSummary> {
  const { page, perPage } = readPage(query, PORTAL_PAGE);
  return pageOf([], 0, page, perPage);
}

/** `GET /customer-profile/subscriptions`: the caller's subscriptions, newest first, with their parent order's uuid. */
export async function portalSubscriptionPage(ctx: Ctx, query: { page?: unknown; per_page?: unknown }): Promise<Page<PortalSummary>> {
  const { page, perPage } = readPage(query, PORTAL_PAGE);
  const customerId = await customerIdOf(ctx.db, ctx.scope!);
  if (customerId === null) return pageOf([], 0, page, perPage);
  const rows = ownedBy(ctx.db('store_subscriptions as s'), customerId, 's.customer_id')
    .whereNotIn('s.status', HIDDEN)
    .leftJoin('store_orders as o', 'o.id', 's.parent_order_id')
    .select('s.*', 'o.uuid as order_uuid')
    .orderBy('s.id', 'desc');
  const result = await paginate<SubscriptionRow>(rows, page, perPage);
  return { ...result, data: result.data.map((row) => presentPortalSummary(presentSubscription(row), (row.order_uuid as string | null) ?? null)) };
}

/** `GET /customer-profile/subscriptions/{uuid}`: the portal detail view of one of the caller's subscriptions. */
export async function portalSubscriptionDetail(ctx: Ctx, uuid: string) {
  const subscription = await ownSubscription(ctx, uuid);
  const [order, billing] = await Promise.all([
    subscription.parent_order_id === null ? undefined : ctx.db('store_orders').where({ id: subscription.parent_order_id }).first('uuid'),
    subscription.parent_order_id === null
      ? undefined
      : ctx.db('store_order_addresses').where({ order_id: subscription.parent_order_id, type: 'billing' }).first(),
  ]);
  return presentPortalDetail(subscription, {
    orderUuid: (order as { uuid: string } | undefined)?.uuid ?? null,
    paymentMethodTitle: gatewayTitle(ctx, subscription.current_payment_method),
    billingAddresses: billing ? [await presentOrderAddress(billing as Record<string, unknown>)] : [],
    switchable: await switchableMethods(ctx, subscription),
    canUpdatePaymentMethod: canUpdatePaymentMethod(subscription),
    reactivateUrl: reactivateUrl(ctx, subscription),
  });
}
