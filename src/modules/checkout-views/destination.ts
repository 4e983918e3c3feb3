import { getTimezone } from 'countries-and-timezones';
import { addressRules, normalizeAddressFields } from '../../core/address';
import { invalid } from '../../core/errors';
import { isTimeZone } from '../../core/time';

/** The spec's answer when neither `country_code` nor `timezone` names a country. */
export const COUNTRY_REQUIRED = 'Country code is required';

export interface CountryQuery {
  country_code?: string;
  timezone?: string;
}

export interface DestinationQuery extends CountryQuery {
  state?: string;
}

/** Where the checkout ships to: an ISO 3166-1 alpha-2 code and, when the country lists states, one of their codes. */
export interface Destination {
  country: string;
  state: string;
}

/** The country of an IANA time zone (its first country: `Europe/Berlin` → DE); null for zones of no country (`UTC`). */
function countryOfZone(timezone: string): string | null {
  // The library knows zones by their exact names; Intl also accepts other spellings and aliases and names them canonically.
  // The library looks names up in a plain object: `constructor` or `toString` would find Object's own members.
  const known = (name: string) => {
    const zone = getTimezone(name);
    return zone && Array.isArray(zone.countries) ? zone : null;
  };
  const zone = known(timezone) ?? (isTimeZone(timezone) ? known(new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone) : null);
  if (!zone) throw invalid('timezone', 'timezone', 'The timezone must be an IANA time zone such as Europe/Berlin.');
  return zone.countries[0] ?? null;
}

/**
 * The country a checkout view is for: `country_code` when sent (it wins over `timezone`), else the country of
 * `timezone`; null when neither names one. An unknown code or time zone is a 422.
 */
export async function countryOf(query: CountryQuery): Promise<string | null> {
  const code = query.country_code?.trim() ?? '';
  if (code) {
    const rules = await addressRules(code);
    if (!rules) throw invalid('country_code', 'country', 'The country code must be an ISO 3166-1 alpha-2 code such as US.');
    return rules.country_code;
  }
  const timezone = query.timezone?.trim() ?? '';
  return timezone ? countryOfZone(timezone) : null;
}

/**
 * The destination a query names, the state as its code (`California` → `CA`); null without a country. A state the
 * country does not list is a 422; a country without a state list keeps what was sent (no zone can list its states).
 */
export async function destinationOf(query: DestinationQuery): Promise<Destination | null> {
  const country = await countryOf(query);
  if (!country) return null;
  const { state } = await normalizeAddressFields({ country, state: query.state ?? '' });
  const states = (await addressRules(country))?.states ?? [];
  if (state && states.length && !states.some((option) => option.value === state)) {
    throw invalid('state', 'in', `The state must be one of the state codes of ${country}, such as ${states[0].value}.`);
  }
  return { country, state };
}
