import { Type, type TSchema } from '@sinclair/typebox';
import { listQuery } from '../../core/list';
import { Cents, Id, IntegerIn, MAX_INT, oneOf } from '../../core/schema';
import { COUPON_STATUSES, COUPON_TYPES } from './types';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** Cents: up to 9,999,999,999.99. */
export const MAX_CENTS = 999_999_999_999;
const productIds = Type.Array(Id(), { maxItems: 1000 });

/**
 * The writable fields of a coupon. Rules that depend on other fields (the amount for each type, dates in order,
 * products that exist and are not both included and excluded, the code's format after trimming and its
 * uniqueness) are checked by the service on the merged record.
 */
export const CouponBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 100 }),
  title: Type.Optional(Type.String({ maxLength: 255 })),
  type: oneOf(COUPON_TYPES),
  /** Cents (fixed), a percentage with up to 2 decimals (percentage), 0 (free_shipping); a number or a decimal string. */
  amount: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 30 })])),
  status: Type.Optional(oneOf(COUPON_STATUSES)),
  starts_at: Type.Optional(nullable(Type.String({ maxLength: 30 }))),
  ends_at: Type.Optional(nullable(Type.String({ maxLength: 30 }))),
  min_purchase_amount: Type.Optional(nullable(Cents(MAX_CENTS))),
  max_discount_amount: Type.Optional(nullable(IntegerIn(1, MAX_CENTS))),
  max_uses: Type.Optional(nullable(IntegerIn(1, MAX_INT))),
  max_per_customer: Type.Optional(nullable(IntegerIn(1, MAX_INT))),
  included_products: Type.Optional(productIds),
  excluded_products: Type.Optional(productIds),
  stackable: Type.Optional(
    Type.Union([Type.Literal(0), Type.Literal(1)], { messages: { in: 'The stackable field must be 0 or 1.', numeric: 'The stackable field must be 0 or 1.' } }),
  ),
  priority: Type.Optional(IntegerIn(0, 1000000)),
  notes: Type.Optional(Type.String({ maxLength: 100 })),
});

export const CouponPatch = Type.Partial(CouponBody);

export const CouponListQuery = listQuery({
  status: Type.Optional(oneOf(COUPON_STATUSES)),
  type: Type.Optional(oneOf(COUPON_TYPES)),
});
