import type { Static } from '@sinclair/typebox';
import { isKnownCountry } from '../../core/address';
import { throwIfAny, type FieldErrors } from '../../core/errors';
import { centsToDecimal, parseDecimalToCents } from '../../core/money';
import { listEntries, normalizePostcodes, normalizeState } from '../tax-rates/fields';
import { INVALID_COUNTRY, type OverrideBody } from './schemas';
import type { OverrideValue } from './types';

/** Rates are percentages with at most 4 decimals, up to 100 %: in ten-thousandths of a percent, 0 … 1,000,000. */
const RATE_DECIMALS = 4;
const MAX_RATE = 100 * 10 ** RATE_DECIMALS;

/** What a save asks for, checked and normalised; the category's name and the database checks come later. */
export interface OverrideInput {
  id: number | null;
  value: Omit<OverrideValue, 'category_name'>;
  /** The tax rate whose shipping override this override replaces (`source_type: shipping`). */
  sourceRateId: number | null;
}

const trimmed = (value: string | null | undefined) => (value ?? '').trim();
const optionalId = (value: number | string | null | undefined) => (value === null || value === undefined || value === '' ? null : Number(value));

/** `7.2500` → `'7.25'`, `50000` → `'5'`: the shortest exact decimal. */
const rateText = (units: number) => centsToDecimal(units, RATE_DECIMALS).replace(/\.?0+$/, '');

/** A percentage given as a number or decimal string, parsed exactly; negatives count as 0, blank as 0. */
function parseRate(input: number | string | null | undefined, errors: FieldErrors): string {
  if (input === null || input === undefined || (typeof input === 'string' && !input.trim())) return '0';
  const units = parseDecimalToCents(input, RATE_DECIMALS);
  if (units === null) {
    errors.rate = { numeric: `The rate field must be a number with at most ${RATE_DECIMALS} decimals.` };
    return '0';
  }
  if (units > MAX_RATE) errors.rate = { max: 'The rate field must not be greater than 100.' };
  return rateText(Math.max(units, 0));
}

/**
 * The body's own rules (the schema has checked each field's shape). The place
 * follows the tax rates' rules: the state as its code where the country lists states, the city a list and the
 * postcode a list of exact postcodes, prefixes (`902*`) and ranges (`90001...90099`), so the tax engine matches
 * overrides exactly as it matches rates. Refused with one 422 naming every failing field.
 */
export async function overrideInput(body: Static<typeof OverrideBody>): Promise<OverrideInput> {
  const errors: FieldErrors = {};
  const country = body.country.trim().toUpperCase();
  const known = isKnownCountry(country);
  if (!known) errors.country = { in: INVALID_COUNTRY };
  let state = trimmed(body.state);
  let postcode = trimmed(body.postcode).toUpperCase();
  if (known) {
    const checkedState = await normalizeState(country, state);
    if ('error' in checkedState) errors.state = { in: checkedState.error };
    else state = checkedState.value;
    const checkedPostcode = await normalizePostcodes(country, errors.state ? '' : state, postcode);
    if ('error' in checkedPostcode) errors.postcode = { postcode: checkedPostcode.error };
    else postcode = checkedPostcode.value;
  }
  const rate = parseRate(body.rate, errors);
  const sourceType = body.source_type || null;
  const sourceRateId = optionalId(body.source_id);
  if (sourceType && sourceRateId === null) errors.source_id = { required: 'The source id field is required when source type is shipping.' };
  if (!sourceType && sourceRateId !== null) errors.source_type = { required: 'The source type field is required when source id is present.' };
  throwIfAny(errors);
  return {
    id: optionalId(body.id),
    sourceRateId,
    value: {
      country,
      state,
      city: listEntries(trimmed(body.city)).join(','),
      postcode,
      category_id: Number(body.category_id),
      tax_label: trimmed(body.tax_label),
      override_state_tax: body.override_state_tax ?? 'no',
      rate,
      class_id: Number(body.class_id ?? 0),
    },
  };
}

/** Two overrides of one category that match the same places for the same class: a save updates the one in place. */
export function sameScope(a: Omit<OverrideValue, 'category_name'>, b: Omit<OverrideValue, 'category_name'>): boolean {
  const key = (v: typeof a) => [v.country, v.state.toUpperCase(), v.city.toLowerCase(), v.postcode.toUpperCase(), v.class_id].join('\u0000');
  return a.category_id === b.category_id && key(a) === key(b);
}
