import { Type } from '@sinclair/typebox';
import { Id, ID_DIGITS, ID_DIGITS_OR_BLANK, oneOf } from '../../core/schema';

export const BULK_ACTIONS = ['delete_orders', 'change_shipping_status', 'change_order_status', 'capture_payments', 'change_payment_status'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** A positive integer id sent as a number, or as digits (form-encoded bodies carry text); `blank` also lets '' and null through. */
const id = (name: string, blank = false) =>
  Type.Union([Id(), Type.String({ pattern: blank ? ID_DIGITS_OR_BLANK : ID_DIGITS }), ...(blank ? [Type.Null()] : [])], {
    messages: {
      integer: `The ${name} must be a positive integer.`,
      regex: `The ${name} must be a positive integer.`,
      min: `The ${name} must be a positive integer.`,
    },
  });

/** `{order_id}` path parameter. */
export const OrderIdParams = Type.Object({ order_id: Id() });

/** `{order}` path parameter (`generate-missing-licenses`). */
export const OrderParams = Type.Object({ order: Id() });

/** `POST /orders/do-bulk-action`. `new_status` is checked against the action's status list by the service. */
export const BulkActionBody = Type.Object({
  action: Type.Union(
    BULK_ACTIONS.map((a) => Type.Literal(a)),
    { messages: { in: `The action must be one of: ${BULK_ACTIONS.join(', ')}.` } },
  ),
  order_ids: Type.Array(id('order id'), { minItems: 1, maxItems: 1000, messages: { min: 'Please select at least one order.' } }),
  new_status: Type.Optional(Type.String({ maxLength: 50 })),
  manage_stock: Type.Optional(
    Type.Union([Type.Boolean(), oneOf(['true', 'false', '1', '0', 'yes', 'no', ''])], {
      messages: { boolean: 'The manage stock field must be true or false.', in: 'The manage stock field must be true or false.' },
    }),
  ),
});

/** `POST /orders/{order_id}/change-customer`: a missing id is the spec's 423, so the service checks presence. */
export const ChangeCustomerBody = Type.Object({
  customer_id: Type.Optional(id('customer id', true)),
});

/** `POST /orders/{order_id}/update-address-id`. */
export const UpdateAddressIdBody = Type.Object({
  address_id: id('address id'),
  address_type: Type.Optional(oneOf(['billing', 'shipping'])),
});
