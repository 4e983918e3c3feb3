import { Type } from '@sinclair/typebox';
import { Id } from '../../../core/schema';

/** `{order}` and `{subscription}`: the subscription must belong to the order (its `parent_order_id`). */
export const OrderSubscriptionParams = Type.Object({ order: Id(), subscription: Id() });

/** Required, checked by the service so that a missing or blank reason answers the spec's message. */
export const CancelBody = Type.Object({
  cancel_reason: Type.Optional(Type.String({ maxLength: 255, description: 'Why the subscription is canceled (required).' })),
});

const vendorId = (what: string) =>
  Type.Optional(
    Type.String({
      description: `${what}: at most 45 characters of letters, digits, '.', '_' and '-'; omitted = unchanged, '' = cleared.`,
    }),
  );

/**
 * Only the types here: the length and character rules are checked by the service after the site's opt-in switch, so
 * a site with vendor-id editing off answers 403 whatever the body.
 */
export const VendorIdsBody = Type.Object({
  vendor_subscription_id: vendorId('The gateway subscription id'),
  vendor_customer_id: vendorId('The gateway customer id'),
});
