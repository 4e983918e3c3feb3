import { Type } from '@sinclair/typebox';
import { Id, ID_DIGITS_OR_BLANK } from '../../core/schema';
import { CHARGE_TYPES } from './ledger';

/** `{order}` path parameter of mark-as-paid. */
export const MarkPaidParams = Type.Object({ order: Id() });

/** `{order_id}` path parameter of refund. */
export const RefundParams = Type.Object({ order_id: Id() });

/** Spec: all optional. `payment_method` defaults to the order's, then `offline`; `transaction_type` to `charge`. */
export const MarkPaidBody = Type.Object({
  payment_method: Type.Optional(Type.String({ maxLength: 50, pattern: '^[A-Za-z0-9_-]*$' })),
  vendor_charge_id: Type.Optional(Type.String({ maxLength: 191 })),
  transaction_type: Type.Optional(
    Type.Union(
      CHARGE_TYPES.map((t) => Type.Literal(t)),
      { messages: { in: `The transaction type must be one of: ${CHARGE_TYPES.join(', ')}.` } },
    ),
  ),
  mark_paid_note: Type.Optional(Type.String({ maxLength: 5000 })),
});

/**
 * `refund_info`: the required checks ('Transaction ID is required', 'Refund amount is required') and the exact
 * decimal parsing of `amount` are done by the service, so a missing `refund_info` answers the spec's message.
 * Ids and amounts may come as text (form-encoded bodies).
 */
export const RefundBody = Type.Object({
  refund_info: Type.Optional(
    Type.Object({
      transaction_id: Type.Optional(
        Type.Union([Id(), Type.String({ pattern: ID_DIGITS_OR_BLANK })], {
          messages: {
            integer: 'The transaction ID must be an integer.',
            regex: 'The transaction ID must be an integer.',
            min: 'The transaction ID must be an integer.',
          },
        }),
      ),
      amount: Type.Optional(
        Type.Union([Type.Number(), Type.String({ maxLength: 32 })], { messages: { numeric: 'The refund amount must be a decimal amount, e.g. 12.50.' } }),
      ),
      cancelSubscription: Type.Optional(Type.Union([Type.String({ maxLength: 10 }), Type.Boolean()])),
    }),
  ),
});

const RefundPart = Type.Object({ status: Type.String(), message: Type.Optional(Type.String()) });
/** The refund's answer, also when the gateway refused it or did not answer (502). */
export const RefundAnswer = Type.Object({ fluent_cart_refund: RefundPart, gateway_refund: RefundPart, subscription_cancel: RefundPart });
