import { Type, type Static } from '@sinclair/typebox';
import { listQuery } from '../../core/list';
import { clamped } from '../../core/page';
import { Id, oneOf } from '../../core/schema';

/** The order list views of the spec ("Order and payment status values"). */
export const ORDER_LIST_VIEWS = [
  'on-hold',
  'paid',
  'completed',
  'processing',
  'renewal',
  'subscription',
  'onetime',
  'refunded',
  'partially_refunded',
  'upgraded_to',
  'upgraded_from',
] as const;
export type OrderListView = (typeof ORDER_LIST_VIEWS)[number];

/** Relations `with[]` may load on the list, one query each for the whole page. */
export const ORDER_LIST_WITH = [
  'customer',
  'order_items',
  'transactions',
  'billing_address',
  'shipping_address',
  'labels',
  'applied_coupons',
  'order_operation',
  'subscriptions',
] as const;
export type OrderRelation = (typeof ORDER_LIST_WITH)[number];

/**
 * Named query scopes (`scopes[]=live`): `live` and `test` orders by payment mode, `parents` leaves renewals and other
 * child orders out, `purchases` keeps orders that took money (paid, partially paid, (partially) refunded).
 */
export const ORDER_SCOPES = ['live', 'test', 'parents', 'purchases'] as const;
export type OrderScope = (typeof ORDER_SCOPES)[number];

const statusList = Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 20 }));

const withList = Type.Optional(
  Type.Array(
    Type.Union(
      ORDER_LIST_WITH.map((v) => Type.Literal(v)),
      { messages: { in: `The with field accepts ${ORDER_LIST_WITH.join(', ')}.` } },
    ),
    { maxItems: 20 },
  ),
);

export const OrderListQuery = listQuery({
  active_view: Type.Optional(oneOf(ORDER_LIST_VIEWS)),
  payment_statuses: statusList,
  order_statuses: statusList,
  shipping_statuses: statusList,
  filter_type: Type.Optional(oneOf(['simple', 'advanced'])),
  advanced_filters: Type.Optional(Type.String({ maxLength: 20000 })),
  with: withList,
  /** Columns to return, `select[]=invoice_no` or `select[]=id,invoice_no,total_amount`. */
  select: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 40 })),
  scopes: Type.Optional(
    Type.Array(
      Type.Union(
        ORDER_SCOPES.map((v) => Type.Literal(v)),
        { messages: { in: `The scopes field accepts ${ORDER_SCOPES.join(', ')}.` } },
      ),
      { maxItems: 10 },
    ),
  ),
  /** Orders always included in the answer whatever the filters (e.g. the current value of a picker). */
  include_ids: Type.Optional(Type.Array(Id(), { maxItems: 200 })),
  /** `limit` + `offset` address rows directly instead of `page` + `per_page` (clamped like them). */
  limit: Type.Optional(clamped()),
  offset: Type.Optional(clamped()),
});
export type OrderListInput = Static<typeof OrderListQuery>;

/** `{order_id}` path parameter. */
export const OrderParams = Type.Object({ order_id: Id() });
