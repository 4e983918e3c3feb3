import { Type } from '@sinclair/typebox';
import { Cents, Id, IntegerIn, oneOf } from '../../core/schema';
import { CHARGE_TYPES, SHIPPING_METHOD_STATUSES } from './types';

/** The largest amount a shipping field accepts: 100,000,000.00 in cents. */
export const MAX_SHIPPING_CENTS = 10_000_000_000;
const MAX_POSITION = 1_000_000;

const flag = Type.Union([Type.Literal(0), Type.Literal(1)], {
  messages: { in: 'The is rest of world field must be 0 or 1.', numeric: 'The is rest of world field must be 0 or 1.' },
});
const cents = () => Cents(MAX_SHIPPING_CENTS);
const position = IntegerIn(0, MAX_POSITION);

export const ZoneBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 191 }),
    countries: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z]{2}$', messages: { regex: 'The countries must be ISO 3166-1 alpha-2 codes such as US.' } }), {
        maxItems: 250,
      }),
    ),
    states: Type.Optional(
      Type.Array(
        Type.String({ pattern: '^[A-Za-z]{2}:[A-Za-z0-9-]{1,10}$', messages: { regex: 'The states must be written as country:state, such as US:CA.' } }),
        {
          maxItems: 1000,
        },
      ),
    ),
    is_rest_of_world: Type.Optional(flag),
    position: Type.Optional(position),
  },
  { additionalProperties: false },
);

export const ZonePatch = Type.Partial(ZoneBody, { additionalProperties: false });

export const MethodBody = Type.Object(
  {
    zone_id: Id(),
    title: Type.String({ minLength: 1, maxLength: 191 }),
    charge_type: oneOf(CHARGE_TYPES),
    charge_amount: Type.Optional(cents()),
    free_above: Type.Optional(Type.Union([cents(), Type.Null()])),
    status: Type.Optional(oneOf(SHIPPING_METHOD_STATUSES)),
    position: Type.Optional(position),
  },
  { additionalProperties: false },
);

export const MethodPatch = Type.Partial(MethodBody, { additionalProperties: false });

export const MethodListQuery = Type.Object({
  zone_id: Type.Optional(Id()),
  status: Type.Optional(oneOf(SHIPPING_METHOD_STATUSES)),
});
