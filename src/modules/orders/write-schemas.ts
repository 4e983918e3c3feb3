import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Cents, Id, IntegerIn, MAX_INT } from '../../core/schema';

/**
 * Bodies of `POST /orders`, `POST /orders/{order_id}` and `POST /orders/calculate-shipping` (spec: "Create-order body",
 * the update row, "Discount object", "Shipping entry", the applied-coupon object, Limits). Objects are open: the spec
 * says any other create field is accepted, and editors send back the items they were shown. Values that depend on
 * the database or on other fields (allowed statuses, the discount's type and value, dates, time zones) are checked by
 * the service.
 */

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const text = (maxLength: number) => Type.String({ maxLength });
const id = () => Id();
const open = { additionalProperties: true } as const;

/** Bounds that keep every sum of an order a safe integer (250 lines × 10,000 × 9,999,999.99 < 2^53). */
export const LIMITS = { items: 250, quantity: 10_000, unitPrice: 999_999_999, shippingEntries: 50, cents: 999_999_999_999 } as const;
const cents = (maximum: number = LIMITS.cents) => Cents(maximum);

/**
 * One order line. `variation_id` names the variation; without it `id` does (as in calculate-shipping). On update, an
 * item carrying both is the stored item `id` replaced with what is sent. `unit_price` (or `price`) overrides the
 * variation's price, in cents.
 */
export const OrderItemInput = Type.Object(
  {
    id: Type.Optional(id()),
    variation_id: Type.Optional(id()),
    quantity: IntegerIn(1, LIMITS.quantity),
    unit_price: Type.Optional(cents(LIMITS.unitPrice)),
    price: Type.Optional(cents(LIMITS.unitPrice)),
  },
  open,
);
export type OrderItemInput = Static<typeof OrderItemInput>;

/** Spec "Discount object": `type` is `fixed` (cents; `amount` is accepted too) or `percentage` (up to 2 decimals). */
export const DiscountInput = Type.Object(
  {
    type: Type.Optional(text(100)),
    label: Type.Optional(nullable(text(100))),
    reason: Type.Optional(nullable(text(100))),
    action: Type.Optional(nullable(text(100))),
    value: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 30 })], { messages: { numeric: 'The value field must be a number.' } })),
  },
  open,
);
export type DiscountInput = Static<typeof DiscountInput>;

/** Spec "Shipping entry". */
export const ShippingEntryInput = Type.Object(
  {
    type: Type.Optional(text(100)),
    rate_name: Type.Optional(text(100)),
    custom_price: cents(LIMITS.unitPrice),
  },
  open,
);
export type ShippingEntryInput = Static<typeof ShippingEntryInput>;

/** The spec's applied-coupon object. The coupon is looked up by `code`; its discount is computed, never taken from here. */
export const AppliedCouponInput = Type.Object(
  {
    coupon_id: id(),
    code: Type.String({ minLength: 1, maxLength: 100 }),
    amount: Type.Optional(Type.Number()),
    discounted_amount: cents(),
    discount: Type.Optional(Type.Number()),
    stackable: Type.Union([Type.Literal(0), Type.Literal(1)], {
      messages: { in: 'The stackable field must be 0 or 1.', numeric: 'The stackable field must be 0 or 1.' },
    }),
    priority: Type.Optional(IntegerIn(-MAX_INT - 1, MAX_INT)),
    max_uses: Type.Optional(nullable(IntegerIn(0, MAX_INT))),
    use_count: Type.Optional(IntegerIn(0, MAX_INT)),
    max_per_customer: Type.Optional(nullable(IntegerIn(1, MAX_INT))),
    min_purchase_amount: Type.Optional(nullable(cents())),
    max_discount_amount: Type.Optional(nullable(cents())),
    notes: Type.Optional(nullable(text(100))),
  },
  open,
);

const money = () => Type.Optional(Type.Number());

const OrderFields = {
  customer_id: id(),
  order_items: Type.Array(OrderItemInput, {
    minItems: 1,
    maxItems: LIMITS.items,
    messages: { min: 'The order items field must have at least one item.' },
  }),
  status: Type.Optional(text(50)),
  invoice_no: Type.Optional(nullable(text(100))),
  fulfillment_type: Type.Optional(text(50)),
  type: Type.Optional(text(50)),
  payment_method: Type.Optional(nullable(text(50))),
  payment_method_title: Type.Optional(nullable(text(50))),
  payment_status: Type.Optional(text(50)),
  currency: Type.Optional(Type.String({ minLength: 1, maxLength: 10 })),
  subtotal: money(),
  discount_tax: money(),
  manual_discount_total: money(),
  coupon_discount_total: money(),
  shipping_tax: money(),
  shipping_total: money(),
  tax_total: money(),
  total_amount: money(),
  rate: Type.Optional(Type.Number({ minimum: 0.000001, maximum: 1_000_000_000 })),
  note: Type.Optional(nullable(text(5000))),
  uuid: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  ip_address: Type.Optional(nullable(text(100))),
  completed_at: Type.Optional(nullable(text(100))),
  refunded_at: Type.Optional(nullable(text(100))),
  user_tz: Type.Optional(nullable(text(50))),
  discount: Type.Optional(nullable(DiscountInput)),
  shipping: Type.Optional(nullable(Type.Array(ShippingEntryInput, { maxItems: LIMITS.shippingEntries }))),
  applied_coupon: Type.Optional(nullable(Type.Array(AppliedCouponInput, { maxItems: 20 }))),
  trigger: Type.Optional(Type.String()),
};

export const CreateOrderBody = Type.Object(OrderFields, open);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

/** The update accepts the create fields plus `deletedItems`, `total_paid` and `couponCalculation` (both ignored: the server computes them). */
export const UpdateOrderBody = Type.Object(
  {
    ...OrderFields,
    total_paid: money(),
    deletedItems: Type.Optional(Type.Array(id(), { maxItems: LIMITS.items })),
    couponCalculation: Type.Optional(Type.Unknown()),
  },
  open,
);
export type UpdateOrderBody = Static<typeof UpdateOrderBody>;

export const OrderIdParams = Type.Object({ order_id: id() });

export const CalculateShippingBody = Type.Object(
  {
    order_items: Type.Array(Type.Object({ id: id(), quantity: IntegerIn(1, LIMITS.quantity) }, open), {
      minItems: 1,
      maxItems: LIMITS.items,
      messages: { min: 'The order items field must have at least one item.' },
    }),
    shipping_id: id(),
  },
  open,
);
export type CalculateShippingBody = Static<typeof CalculateShippingBody>;
