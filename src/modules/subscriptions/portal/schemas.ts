import { Type } from '@sinclair/typebox';
import { pageQuery } from '../../../core/page';
import { Cents, oneOf } from '../../../core/schema';
import { BILLING_INTERVALS } from '../types';

/** `{subscription_uuid}`: any text here; a value that is not alphanumeric with dashes is simply not found (404). */
export const PortalSubscriptionParams = Type.Object({ subscription_uuid: Type.String() });

export const PortalListQuery = Type.Object(pageQuery);

/** A gateway's reference of a payment method or subscription (`pm_…`, `I-…`): an id, never card data. */
const reference = () =>
  Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '^[A-Za-z0-9_.:-]+$',
    messages: { regex: 'A payment method id may only contain letters, digits, dashes, underscores, dots and colons.' },
  });

/** A payment method kind (`card`, `paypal`, `sepa_debit`) or a gateway key. */
const methodType = () =>
  Type.String({
    minLength: 1,
    maxLength: 50,
    pattern: '^[a-z0-9_]+$',
    messages: { regex: 'The payment method type must be a lowercase name such as card or paypal.' },
  });

const token = () => Type.String({ minLength: 1, maxLength: 2000 });

export const UpdatePaymentMethodBody = Type.Object({ payment_method_id: reference(), payment_method_type: methodType() });

export const PlanBody = Type.Object({
  plan_id: Type.Optional(Type.String({ maxLength: 45 })),
  amount: Cents(),
  billing_cycle: oneOf(BILLING_INTERVALS),
});

export const SwitchPaymentMethodBody = Type.Object({ new_payment_method_id: reference(), payment_method_type: methodType() });

export const ConfirmSwitchBody = Type.Object({ confirmation_token: token() });

/** The token comes in the body, or in the query of the detail view's `reactivate_url`. */
export const ConfirmReactivationBody = Type.Object({ reactivation_token: Type.Optional(token()) });
export const ConfirmReactivationQuery = Type.Object({ reactivation_token: Type.Optional(token()) });

export const CancelAutoRenewBody = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 500 })),
  cancel_at_period_end: Type.Optional(Type.Boolean()),
});
