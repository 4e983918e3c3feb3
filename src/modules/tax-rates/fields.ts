import type { Static } from '@sinclair/typebox';
import { addressRules, countryName, isKnownCountry, normalizeAddressFields, validateAddressFields } from '../../core/address';
import { fail, type FieldErrors } from '../../core/errors';
import { centsToDecimal, parseDecimalToCents } from '../../core/money';
import { MAX_INT } from '../../core/schema';
import { countryGroup, isTaxGroupCode, TAX_GROUP_CODES } from './regions';
import { RATE_TEXT_MAX, type RateBody } from './schemas';

export type RateInput = Static<typeof RateBody>;

/** A rate's columns, validated and normalised. */
export interface RateFields {
  class_id: number;
  country: string;
  state: string;
  postcode: string;
  city: string;
  rate: string;
  name: string;
  group: string;
  priority: number;
  is_compound: 0 | 1;
  /** Four decimals, like `rate`; null: no shipping override. */
  for_shipping: string | null;
  for_order: 0 | 1;
}

/** Percentages are held as integer ten-thousandths: 100% is 1,000,000. */
const PERCENT_DECIMALS = 4;
const MAX_PERCENT = 100 * 10 ** PERCENT_DECIMALS;

/** Throws the first of `errors` as a 422 naming every field. */
export function refuse(errors: FieldErrors): void {
  const first = Object.values(errors)[0];
  if (first) throw fail('validation_error', Object.values(first)[0], { errors });
}

/**
 * A percentage from 0 to 100 with at most four decimals, parsed exactly (`7.25` → `7.2500`); an error naming `field`
 * otherwise.
 */
export function parsePercentage(value: number | string, field: string): { value: string } | { error: Record<string, string> } {
  const name = field.replace(/_/g, ' ');
  const parsed = parseDecimalToCents(value, PERCENT_DECIMALS);
  if (parsed === null) return { error: { numeric: `The ${name} must be a number with at most 4 decimals, such as 7.25.` } };
  if (parsed < 0) return { error: { min: `The ${name} must be at least 0.` } };
  if (parsed > MAX_PERCENT) return { error: { max: `The ${name} must not be greater than 100.` } };
  return { value: centsToDecimal(parsed, PERCENT_DECIMALS) };
}

/** A percentage read back from the DECIMAL column (a number on both databases) in the stored form, `7.2500`. */
export function storedPercentage(value: number): string {
  const parsed = parseDecimalToCents(String(value), PERCENT_DECIMALS);
  if (parsed === null) throw new RangeError(`not a stored percentage: ${value}`);
  return centsToDecimal(parsed, PERCENT_DECIMALS);
}

export const listEntries = (text: string): string[] =>
  text
    .split(/[,;]/)
    .map((entry) => entry.trim())
    .filter(Boolean);

const POSTCODE_CHARS = /^[A-Z0-9][A-Z0-9 -]*$/;

/** An exact postcode: the country's pattern, and the state's prefix when the rate has a state. */
async function postcodeError(country: string, state: string, postcode: string): Promise<string | null> {
  if (!POSTCODE_CHARS.test(postcode)) return `The postcode ${postcode} may only hold letters, digits, spaces and dashes.`;
  const errors = await validateAddressFields({ country, state, postcode });
  const message = errors.postcode?.postcode;
  return message ? message.replace(/^The postcode /, `The postcode ${postcode} `) : null;
}

/**
 * `postcode`: entries separated by `,` or `;`, each an exact postcode, a prefix ending in `*` (`902*`) or a range
 * `A...B` (start not after end). Stored upper-cased, joined with `,`.
 */
export async function normalizePostcodes(country: string, state: string, text: string): Promise<{ value: string } | { error: string }> {
  const entries: string[] = [];
  for (const raw of listEntries(text.toUpperCase())) {
    if (raw.endsWith('*')) {
      const prefix = raw.slice(0, -1).trim();
      if (!POSTCODE_CHARS.test(prefix))
        return { error: `The postcode prefix ${raw} must start with a letter or digit and hold only letters, digits, spaces and dashes.` };
      entries.push(`${prefix}*`);
    } else if (raw.includes('...')) {
      const ends = raw.split('...').map((end) => end.trim());
      if (ends.length !== 2 || !ends[0] || !ends[1]) return { error: `The postcode range ${raw} must be written as start...end.` };
      for (const end of ends) {
        const error = await postcodeError(country, state, end);
        if (error) return { error };
      }
      if (ends[0] > ends[1]) return { error: `The postcode range ${raw} ends before it starts.` };
      entries.push(`${ends[0]}...${ends[1]}`);
    } else {
      const error = await postcodeError(country, state, raw);
      if (error) return { error };
      entries.push(raw);
    }
  }
  return { value: entries.join(',') };
}

/** The state's code where the country lists its states (a name is taken too: `California` → `CA`); the text otherwise. */
export async function normalizeState(country: string, text: string): Promise<{ value: string } | { error: string }> {
  if (!text) return { value: '' };
  const states = (await addressRules(country))?.states ?? [];
  if (!states.length) return { value: text };
  const { state } = await normalizeAddressFields({ country, state: text });
  if (!states.some((option) => option.value === state)) return { error: `The state ${text} is not one of the states of ${countryName(country)}.` };
  return { value: state };
}

const trimmed = (value: string | null | undefined): string => (value ?? '').trim();
const toFlag = (value: 0 | 1 | '0' | '1' | null | undefined): 0 | 1 => (value === 1 || value === '1' ? 1 : 0);

/**
 * Validates and normalises a rate's body: on create over the defaults, on update over `previous` (a field left out
 * keeps its value, except that a new country clears the state, postcode, city and group not sent; null clears a field
 * to its default). Every failing field is named in one 422.
 */
export async function resolveRateFields(input: RateInput, previous: RateFields | null): Promise<RateFields> {
  const errors: FieldErrors = {};
  const given = <K extends keyof RateInput>(key: K): boolean => input[key] !== undefined;

  if (input.class_id === null) errors.class_id = { required: 'Tax class is required' };
  const classId = Number(input.class_id ?? 0);

  const country = trimmed(given('country') ? input.country : previous?.country).toUpperCase();
  const knownCountry = isKnownCountry(country);
  if (!country) errors.country = { required: 'The country field is required.' };
  else if (!knownCountry) errors.country = { in: 'The country must be an ISO 3166-1 alpha-2 code, such as US.' };

  // The location fields describe places in the previous country: a country change clears those not sent.
  const place = previous?.country === country ? previous : null;
  let state = trimmed(given('state') ? input.state : place?.state);
  let postcode = trimmed(given('postcode') ? input.postcode : place?.postcode);
  if (knownCountry) {
    const checkedState = await normalizeState(country, state);
    if ('error' in checkedState) errors.state = { in: checkedState.error };
    else if (checkedState.value.length > RATE_TEXT_MAX) errors.state = { max: `The state field must not be greater than ${RATE_TEXT_MAX} characters.` };
    else state = checkedState.value;
    const checkedPostcode = await normalizePostcodes(country, errors.state ? '' : state, postcode);
    if ('error' in checkedPostcode) errors.postcode = { postcode: checkedPostcode.error };
    else postcode = checkedPostcode.value;
  }

  let rate = previous?.rate ?? '0.0000';
  if (given('rate')) {
    const parsed = input.rate === null || input.rate === undefined ? { value: '0.0000' } : parsePercentage(input.rate, 'rate');
    if ('error' in parsed) errors.rate = parsed.error;
    else rate = parsed.value;
  }

  let forShipping = previous?.for_shipping ?? null;
  if (given('for_shipping')) {
    const parsed = input.for_shipping === null || input.for_shipping === undefined ? { value: null } : parsePercentage(input.for_shipping, 'for_shipping');
    if ('error' in parsed) errors.for_shipping = parsed.error;
    else forShipping = parsed.value;
  }

  let group = trimmed(input.group).toUpperCase();
  if (group && !isTaxGroupCode(group)) errors.group = { in: `The group must be one of ${TAX_GROUP_CODES.join(', ')}.` };
  if (!given('group') && place) group = place.group;
  if (!group) group = countryGroup(country) ?? '';

  let priority = previous?.priority ?? 1;
  if (given('priority')) {
    priority = Number(input.priority ?? 1);
    if (priority > MAX_INT) errors.priority = { max: `The priority field must not be greater than ${MAX_INT}.` };
  }

  refuse(errors);
  return {
    class_id: classId,
    country,
    state,
    postcode,
    city: listEntries(given('city') ? trimmed(input.city) : (place?.city ?? '')).join(','),
    rate,
    name: given('name') ? trimmed(input.name) : (previous?.name ?? ''),
    group,
    priority,
    is_compound: given('is_compound') ? toFlag(input.is_compound) : (previous?.is_compound ?? 0),
    for_shipping: forShipping,
    for_order: given('for_order') ? toFlag(input.for_order) : (previous?.for_order ?? 0),
  };
}
