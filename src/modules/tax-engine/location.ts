/**
 * Whether a rate or an override is for a destination. Country: equal (upper case). State: empty matches any, else
 * equal to the destination's state code (case-insensitive). City: empty matches any, else a list separated by `,` or
 * `;`, compared trimmed and case-insensitively. Postcode: empty matches any, else a list of entries separated by `,`
 * or `;`, compared upper case without spaces: exact, a prefix ending in `*`, or a range `A...B` (numeric when both
 * ends are digits of one length: the postcode must then be digits of that length; else lexical).
 */
import type { TaxAddress } from '../orders/totals';
import type { EngineOverride, EngineRate, TaxPlace } from './types';

const LIST_SEPARATOR = /[,;]/;
const DIGITS = /^\d+$/;

const upper = (value: string) => value.trim().toUpperCase();
const compactPostcode = (value: string) => value.replace(/\s+/g, '').toUpperCase();
const entries = (list: string, normalize: (value: string) => string) =>
  list
    .split(LIST_SEPARATOR)
    .map(normalize)
    .filter((entry) => entry !== '');

function inRange(postcode: string, from: string, to: string): boolean {
  // Digits of one length compare as numbers, which is how strings of equal length compare; a postcode of another
  // length is outside such a range (9001 is not in 90001...90999, though it sorts between them).
  if (DIGITS.test(from) && DIGITS.test(to) && from.length === to.length && !(DIGITS.test(postcode) && postcode.length === from.length)) return false;
  return postcode >= from && postcode <= to;
}

function postcodeEntryMatches(entry: string, postcode: string): boolean {
  if (entry.endsWith('*')) return postcode.startsWith(entry.slice(0, -1));
  const range = entry.indexOf('...');
  if (range > 0) return inRange(postcode, entry.slice(0, range), entry.slice(range + 3));
  return entry === postcode;
}

export function postcodeMatches(list: string, postcode: string): boolean {
  const wanted = entries(list, compactPostcode);
  if (!wanted.length) return true;
  const actual = compactPostcode(postcode);
  return actual !== '' && wanted.some((entry) => postcodeEntryMatches(entry, actual));
}

export function cityMatches(list: string, city: string): boolean {
  const wanted = entries(list, upper);
  return !wanted.length || wanted.includes(upper(city));
}

export function placeMatches(place: TaxPlace, destination: TaxAddress): boolean {
  const state = upper(place.state);
  return (
    (state === '' || state === upper(destination.state)) && cityMatches(place.city, destination.city) && postcodeMatches(place.postcode, destination.postcode)
  );
}

/** A place for the whole country (no state, city or postcode). */
export const isCountryWide = (place: TaxPlace) => !place.state.trim() && !place.city.trim() && !place.postcode.trim();

/** How precisely a place names its area: a postcode beats a city, which beats a state. */
const specificity = (place: TaxPlace) => (place.postcode.trim() ? 4 : 0) + (place.city.trim() ? 2 : 0) + (place.state.trim() ? 1 : 0);

const inCountry = (country: string, destination: TaxAddress) => upper(country) === upper(destination.country);

/** The rates for the destination, by priority then id. */
export function matchRates(rates: EngineRate[], destination: TaxAddress): EngineRate[] {
  return rates.filter((rate) => inCountry(rate.country, destination) && placeMatches(rate, destination)).sort((a, b) => a.priority - b.priority || a.id - b.id);
}

/** The overrides for the destination, the most specific first, then by id. */
export function matchOverrides(overrides: EngineOverride[], destination: TaxAddress): EngineOverride[] {
  return overrides
    .filter((override) => inCountry(override.country, destination) && placeMatches(override, destination))
    .sort((a, b) => specificity(b) - specificity(a) || a.id - b.id);
}
