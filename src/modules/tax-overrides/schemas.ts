import { Type } from '@sinclair/typebox';
import { Id, ID_DIGITS, ID_DIGITS_OR_BLANK, IntegerIn, MAX_ID, oneOf } from '../../core/schema';
import { OVERRIDE_STATE_TAX } from './types';

/** The longest text a location field or the tax label takes: the tax rates' text limit. */
export const MAX_OVERRIDE_TEXT = 45;

export const INVALID_COUNTRY = 'Invalid country code';

const text = () => Type.Optional(Type.Union([Type.String({ maxLength: MAX_OVERRIDE_TEXT }), Type.Null()]));

/** An id sent as a number or as digits (form-encoded bodies carry text); `blank` also lets '' and null through (no id). */
const idValue = (name: string, blank = false) => {
  const message = `The ${name} field must be a positive integer.`;
  return Type.Union([Id(), Type.String({ pattern: blank ? ID_DIGITS_OR_BLANK : ID_DIGITS }), ...(blank ? [Type.Null()] : [])], {
    messages: { integer: message, regex: message, min: message },
  });
};

/** `{country_code}` path parameter: any case; whether the code exists is the service's check (same message). */
export const CountryParams = Type.Object({
  country_code: Type.String({ pattern: '^[A-Za-z]{2}$', messages: { regex: INVALID_COUNTRY } }),
});

export const OverrideBody = Type.Object({
  id: Type.Optional(idValue('id', true)),
  country: Type.String({ minLength: 1, maxLength: MAX_OVERRIDE_TEXT }),
  category_id: idValue('category id'),
  state: text(),
  city: text(),
  postcode: text(),
  tax_label: text(),
  override_state_tax: Type.Optional(oneOf(OVERRIDE_STATE_TAX)),
  /** A percentage, as a number or a decimal string; parsed exactly by the service. */
  rate: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 32 }), Type.Null()], { messages: { numeric: 'The rate field must be a number.' } })),
  class_id: Type.Optional(
    Type.Union([IntegerIn(0, MAX_ID), Type.String({ pattern: '^(0|[1-9][0-9]{0,9})$' })], {
      messages: {
        integer: 'The class id field must be an integer.',
        regex: 'The class id field must be an integer.',
        min: 'The class id field must be at least 0.',
      },
    }),
  ),
  source_type: Type.Optional(Type.Union([Type.Literal('shipping'), Type.Literal(''), Type.Null()], { messages: { in: 'The source type must be shipping.' } })),
  source_id: Type.Optional(idValue('source id', true)),
});
