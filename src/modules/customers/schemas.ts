import { Type, type TSchema } from '@sinclair/typebox';
import { listQuery } from '../../core/list';
import { pageQuery } from '../../core/page';
import { Cents, Id, ID_DIGITS, IntegerIn, oneOf } from '../../core/schema';
import { CUSTOMER_STATUSES } from './types';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** A positive integer id sent as a number, or as digits (form-encoded bodies carry text). */
export const IdValue = Type.Union([Id(), Type.String({ pattern: ID_DIGITS })], {
  messages: { integer: 'The user id field must be an integer.', regex: 'The user id field must be an integer.' },
});

/** `{customerId}` path parameter. */
export const CustomerParams = Type.Object({ customerId: Id() });
/** `get-stats/{customer}`. */
export const StatsParams = Type.Object({ customer: Id() });

/** The fields shared by create and update (admin), as the spec's create-customer body lists them. */
/** The email's format is checked after trimming (service), so a pasted address with spaces is accepted. */
const email = Type.String({ minLength: 1, maxLength: 255 });

const CustomerFields = {
  email,
  first_name: text(255),
  last_name: text(255),
  full_name: text(255),
  city: text(255),
  state: text(255),
  postcode: text(45),
  country: text(45),
  notes: Type.Optional(Type.String({ maxLength: 65535 })),
  status: Type.Optional(oneOf(CUSTOMER_STATUSES)),
  user_id: Type.Optional(nullable(IdValue)),
  /** `yes` creates a host user for the customer (when the email is not already a user's). */
  wp_user: Type.Optional(Type.Union([Type.String({ maxLength: 10 }), Type.Boolean()])),
  /** Average order value in cents; recomputed from paid orders by `recalculate-ltv`. */
  aov: Type.Optional(Type.Union([Cents(), Type.String({ pattern: '^[0-9]{1,15}$', messages: { regex: 'The aov field must be a whole number of cents.' } })])),
  user_url: Type.Optional(Type.Union([Type.Literal(''), Type.String({ maxLength: 255, format: 'uri' })])),
};

export const CustomerBody = Type.Object(CustomerFields);

export const CustomerUpdateBody = Type.Object({
  ...CustomerFields,
  /** Login of the host user created when `wp_user` is `yes` and none is linked yet. */
  username: Type.Optional(Type.String({ maxLength: 60 })),
  user_nicename: Type.Optional(Type.String({ maxLength: 50, pattern: '^[a-z0-9_-]*$' })),
  display_name: Type.Optional(Type.String({ maxLength: 250 })),
});

/** Portal update: the spec's body (status and notes are accepted but not changed by a customer). */
export const PortalCustomerBody = Type.Object({
  email,
  first_name: text(255),
  last_name: text(255),
  full_name: text(255),
  city: text(255),
  state: text(255),
  postcode: text(45),
  country: text(45),
  notes: Type.Optional(Type.String({ maxLength: 65535 })),
  status: Type.Optional(Type.String({ maxLength: 20 })),
});

export const CUSTOMER_WITH = ['orders', 'labels', 'billing_address', 'shipping_address'] as const;
export const CUSTOMER_DETAIL_WITH = [...CUSTOMER_WITH, 'subscriptions', 'wpUser'] as const;
export const PORTAL_WITH = ['billing_address', 'shipping_address', 'orders'] as const;

const withList = <const T extends string>(values: readonly T[]) =>
  Type.Optional(
    Type.Array(
      Type.Union(
        values.map((v) => Type.Literal(v)),
        { messages: { in: `The with field accepts ${values.join(', ')}.` } },
      ),
      { maxItems: 10 },
    ),
  );

export const CustomerListQuery = listQuery({
  filter_type: Type.Optional(oneOf(['simple', 'advanced'])),
  advanced_filters: Type.Optional(Type.String({ maxLength: 20000 })),
  with: withList(CUSTOMER_WITH),
  /** Columns to return, `select[]=email` or `select[]=id,email`. */
  select: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 30 })),
  /** Customers always included in the answer (whatever the filters), e.g. the current value of a picker. */
  include_ids: Type.Optional(Type.Array(Id(), { maxItems: 200 })),
  active_view: Type.Optional(oneOf(CUSTOMER_STATUSES)),
});

export const CustomerDetailQuery = Type.Object({
  with: withList(CUSTOMER_DETAIL_WITH),
  params: Type.Optional(Type.Object({ customer_only: Type.Optional(Type.String({ maxLength: 10 })) })),
});

export const PortalDetailQuery = Type.Object({
  with: withList(PORTAL_WITH),
});

/** The views of a customer's order list (spec: order list views). */
export const ORDER_VIEWS = [
  'on-hold',
  'paid',
  'completed',
  'processing',
  'canceled',
  'renewal',
  'subscription',
  'onetime',
  'refunded',
  'partially_refunded',
] as const;
export type OrderView = (typeof ORDER_VIEWS)[number];

export const CustomerOrdersQuery = listQuery({
  filter_type: Type.Optional(oneOf(['simple', 'advanced'])),
  advanced_filters: Type.Optional(Type.String({ maxLength: 20000 })),
  active_view: Type.Optional(oneOf(ORDER_VIEWS)),
});

export const PortalOrdersQuery = Type.Object(pageQuery);

export const AdditionalInfoBody = Type.Object({
  labels: Type.Array(Id(), {
    maxItems: 100,
    messages: { required: 'The labels field is required.', array: 'The labels field must be an array.' },
  }),
});

export const BULK_ACTIONS = ['delete_customers', 'change_customer_status'] as const;

export const BulkActionBody = Type.Object({
  action: oneOf(BULK_ACTIONS),
  /** Checked by the handler: a missing selection is the spec's 403, not a validation error. */
  customer_ids: Type.Optional(Type.Array(Id(), { maxItems: 1000 })),
  new_status: Type.Optional(Type.String({ maxLength: 20 })),
});

export const AttachableUsersQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(IntegerIn(1, 100)),
});

export const AttachUserBody = Type.Object({
  user_id: IdValue,
});

/** The spec's own 404 answers, outside the admin envelope: the detail's carries the way back to the list. */
export const CustomerNotFound = Type.Object({ message: Type.Literal('Customer not found') });
export const CustomerDetailNotFound = Type.Object({ message: Type.Literal('Customer not found'), back_text: Type.String(), back_url: Type.String() });
