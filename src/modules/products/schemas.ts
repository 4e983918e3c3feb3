import { Type } from '@sinclair/typebox';
import { listQuery } from '../../core/list';
import { Cents, Id, IntegerIn, MAX_INT, oneOf } from '../../core/schema';
import { BILLING_INTERVALS, FULFILLMENT_TYPES, PAYMENT_TYPE_INPUTS, PRODUCT_STATUSES, VARIATION_STATUSES } from './types';

/** Slugs are ASCII so that their uniqueness is the same under SQLite's binary and MySQL's case/accent-insensitive collations. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
const slug = (maxLength: number) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: SLUG_PATTERN,
    messages: { regex: 'The slug may only contain lowercase letters, numbers and single hyphens.' },
  });

/** Money: integer cents, never a float. */
const cents = () => Cents();
const nullableCents = () => Type.Union([cents(), Type.Null()]);

const VariationFields = {
  title: Type.String({ minLength: 1, maxLength: 255 }),
  sku: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  price: cents(),
  compare_price: Type.Optional(nullableCents()),
  cost: Type.Optional(nullableCents()),
  manage_stock: Type.Optional(
    Type.Union([Type.Boolean({ messages: { boolean: 'The manage stock field must be true, false, 0 or 1.' } }), Type.Literal(0), Type.Literal(1)]),
  ),
  stock_quantity: Type.Optional(IntegerIn(0, MAX_INT)),
  payment_type: Type.Optional(oneOf(PAYMENT_TYPE_INPUTS)),
  billing_interval: Type.Optional(Type.Union([oneOf(BILLING_INTERVALS), Type.Null()])),
  trial_days: Type.Optional(IntegerIn(0, 365)),
  bill_times: Type.Optional(IntegerIn(0, MAX_INT)),
  signup_fee: Type.Optional(cents()),
  tax_class: Type.Optional(
    Type.Union([
      Type.String({ maxLength: 50, pattern: '^[a-z0-9_-]*$', messages: { regex: 'The tax class must be a slug (lowercase letters, numbers, - and _).' } }),
      Type.Null(),
    ]),
  ),
  shipping_class: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])),
  position: Type.Optional(IntegerIn(0, MAX_INT)),
  status: Type.Optional(oneOf(VARIATION_STATUSES)),
};

export const VariationBody = Type.Object(VariationFields);
export const VariationPatch = Type.Partial(VariationBody);

const categoryIds = () => Type.Array(Id(), { maxItems: 100 });

export const ProductBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 255 }),
  slug: Type.Optional(slug(191)),
  status: Type.Optional(oneOf(PRODUCT_STATUSES)),
  description: Type.Optional(Type.String()),
  fulfillment_type: Type.Optional(oneOf(FULFILLMENT_TYPES)),
  category_ids: Type.Optional(categoryIds()),
  variations: Type.Array(VariationBody, {
    minItems: 1,
    maxItems: 100,
    messages: { required: 'The variations field is required.', min: 'A product needs at least one variation.' },
  }),
});

export const ProductPatch = Type.Object({
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  slug: Type.Optional(slug(191)),
  status: Type.Optional(oneOf(PRODUCT_STATUSES)),
  description: Type.Optional(Type.String()),
  fulfillment_type: Type.Optional(oneOf(FULFILLMENT_TYPES)),
  category_ids: Type.Optional(categoryIds()),
});

export const ProductListQuery = listQuery({
  status: Type.Optional(oneOf(PRODUCT_STATUSES)),
  fulfillment_type: Type.Optional(oneOf(FULFILLMENT_TYPES)),
  payment_type: Type.Optional(oneOf(PAYMENT_TYPE_INPUTS)),
  category_id: Type.Optional(Id()),
});

export const VariationParams = Type.Object({ id: Id(), variation_id: Id() });

export const CategoryBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 191 }),
  slug: Type.Optional(slug(191)),
  parent_id: Type.Optional(Type.Union([Id(), Type.Null()])),
});

export const CategoryPatch = Type.Partial(CategoryBody);
