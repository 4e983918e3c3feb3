import { Type, type Static } from '@sinclair/typebox';
import { listQuery } from '../../core/list';
import { clamped } from '../../core/page';
import { Id, oneOf } from '../../core/schema';

/** The spec's `active_view` values (one status each), plus `all`: every subscription, `completed` ones included. */
export const SUBSCRIPTION_LIST_VIEWS = ['active', 'pending', 'intended', 'paused', 'trialing', 'canceled', 'failing', 'expiring', 'expired', 'all'] as const;
export type SubscriptionListView = (typeof SUBSCRIPTION_LIST_VIEWS)[number];

/** Relations `with[]` may load on the list, in one statement for the whole page (those of the detail). */
export const SUBSCRIPTION_LIST_WITH = ['customer', 'order', 'billing_address', 'shipping_address', 'labels', 'activities', 'related_orders'] as const;
export type SubscriptionRelation = (typeof SUBSCRIPTION_LIST_WITH)[number];

/**
 * Named query scopes (`scopes[]=installments`): `installments` (a finite plan, `bill_times` > 0), `unlimited` (billed
 * until canceled), `automatic` (collected by the gateway), `with_vendor_id` (the gateway's id is known).
 */
export const SUBSCRIPTION_SCOPES = ['installments', 'unlimited', 'automatic', 'with_vendor_id'] as const;
export type SubscriptionScope = (typeof SUBSCRIPTION_SCOPES)[number];

const accepts = <const T extends string>(field: string, values: readonly T[], maxItems: number) =>
  Type.Optional(
    Type.Array(
      Type.Union(
        values.map((v) => Type.Literal(v)),
        { messages: { in: `The ${field} field accepts ${values.join(', ')}.` } },
      ),
      { maxItems },
    ),
  );

export const SubscriptionListQuery = listQuery({
  active_view: Type.Optional(oneOf(SUBSCRIPTION_LIST_VIEWS)),
  filter_type: Type.Optional(oneOf(['simple', 'advanced'])),
  advanced_filters: Type.Optional(Type.String({ maxLength: 20000 })),
  with: accepts('with', SUBSCRIPTION_LIST_WITH, 20),
  /** Fields to return, `select[]=status` or `select[]=id,status,next_billing_date`. */
  select: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 40 })),
  scopes: accepts('scopes', SUBSCRIPTION_SCOPES, 10),
  /** Subscriptions always included in the answer whatever the filters (e.g. the current value of a picker). */
  include_ids: Type.Optional(Type.Array(Id(), { maxItems: 200 })),
  /** `limit` + `offset` address rows directly instead of `page` + `per_page` (clamped like them). */
  limit: Type.Optional(clamped()),
  offset: Type.Optional(clamped()),
});
export type SubscriptionListInput = Static<typeof SubscriptionListQuery>;

/** `{subscriptionOrderId}`: the subscription's id (the spec's name for it). */
export const SubscriptionParams = Type.Object({ subscriptionOrderId: Id() });

/** The spec's 404 of the detail: its own flat shape, with the way back to the list. */
export const SubscriptionNotFound = Type.Object({ message: Type.Literal('Subscription not found'), action_text: Type.String(), action_url: Type.String() });
