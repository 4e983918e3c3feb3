import { Type } from '@sinclair/typebox';
import { Id, ID_DIGITS, IntegerIn, MAX_ID, MAX_INT } from '../../core/schema';

/** The spec's limit on a tax rate's text fields (the columns are VARCHAR(45)). */
export const RATE_TEXT_MAX = 45;

const CLASS_ID_MESSAGE = 'The class id must be 0 (no class) or the id of a tax class.';
const PRIORITY_MESSAGE = 'The priority field must be an integer of at least 1.';

/** Nullable text of at most 45 characters; null is taken as empty. */
const text = () => Type.Optional(Type.Union([Type.String({ maxLength: RATE_TEXT_MAX }), Type.Null()]));

/** A percentage as a number or a decimal string (parsed exactly by the service); null where the field may be cleared. */
const percentage = (field: string) =>
  Type.Union([Type.String({ maxLength: RATE_TEXT_MAX }), Type.Number(), Type.Null()], {
    messages: { numeric: `The ${field} field must be a number.`, string: `The ${field} field must be a number.` },
  });

/** 0 or 1, also as '0' or '1'. */
const flag = (field: string) =>
  Type.Optional(
    Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal('0'), Type.Literal('1'), Type.Null()], {
      messages: { in: `The ${field} field must be 0 or 1.`, numeric: `The ${field} field must be 0 or 1.`, string: `The ${field} field must be 0 or 1.` },
    }),
  );

/** `POST /tax/country/rate` and `PUT /tax/country/rate/{id}`. */
export const RateBody = Type.Object(
  {
    class_id: Type.Union([IntegerIn(0, MAX_ID), Type.String({ pattern: '^(0|[1-9][0-9]{0,9})$' }), Type.Null()], {
      messages: {
        required: 'Tax class is required',
        integer: CLASS_ID_MESSAGE,
        min: CLASS_ID_MESSAGE,
        max: CLASS_ID_MESSAGE,
        regex: CLASS_ID_MESSAGE,
        string: CLASS_ID_MESSAGE,
      },
    }),
    country: text(),
    state: text(),
    postcode: text(),
    city: text(),
    rate: Type.Optional(percentage('rate')),
    name: text(),
    group: text(),
    priority: Type.Optional(
      Type.Union([IntegerIn(1, MAX_INT), Type.String({ pattern: '^[1-9][0-9]{0,9}$' }), Type.Null()], {
        messages: { integer: PRIORITY_MESSAGE, min: PRIORITY_MESSAGE, regex: PRIORITY_MESSAGE, string: PRIORITY_MESSAGE },
      }),
    ),
    is_compound: flag('is compound'),
    for_shipping: Type.Optional(percentage('for shipping')),
    for_order: flag('for order'),
  },
  { additionalProperties: false },
);

/** `{country_code}`: any case; checked by the service ('Invalid country code'). */
export const CountryParams = Type.Object({ country_code: Type.String() });

export const CountryRatesQuery = Type.Object({
  class_id: Type.Optional(IntegerIn(0, MAX_ID, { messages: { integer: CLASS_ID_MESSAGE, min: CLASS_ID_MESSAGE } })),
});

export const CountryStatusBody = Type.Object(
  {
    enabled: Type.Union([Type.Literal(1), Type.Literal(0), Type.Literal('1'), Type.Literal('0')], {
      messages: { in: 'The enabled field must be 1 or 0.', numeric: 'The enabled field must be 1 or 0.', string: 'The enabled field must be 1 or 0.' },
    }),
  },
  { additionalProperties: false },
);

export const ShippingOverrideBody = Type.Object(
  {
    id: Type.Union([Id(), Type.String({ pattern: ID_DIGITS })], {
      messages: { integer: 'The id must be the id of a tax rate.', min: 'The id must be the id of a tax rate.', regex: 'The id must be the id of a tax rate.' },
    }),
    override_tax_rate: Type.Union([Type.String({ maxLength: RATE_TEXT_MAX }), Type.Number()], {
      messages: { numeric: 'The override tax rate field must be a number.', string: 'The override tax rate field must be a number.' },
    }),
  },
  { additionalProperties: false },
);
