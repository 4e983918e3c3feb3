import type { RateFormSettings } from './form-settings';

/** A tax rate as the API shows it. */
export interface TaxRate {
  id: number;
  /** 0: no class (applies to every class). */
  class_id: number;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** The state code; empty for the whole country. */
  state: string;
  /** Entries separated by `,`: exact postcodes, prefixes ending in `*`, ranges `A...B`; empty for any. */
  postcode: string;
  /** Cities separated by `,`; empty for any. */
  city: string;
  /** The percentage with four decimals, e.g. `7.2500`. */
  rate: string;
  name: string;
  /** The region group code (`EU`, `EUR`, `NA`, …). */
  group: string;
  priority: number;
  is_compound: 0 | 1;
  /** The percentage that taxes shipping instead of `rate`; null: shipping is taxed at `rate`. */
  for_shipping: number | null;
  /** 1: this (more specific) rate replaces the country-wide rates instead of adding to them. */
  for_order: 0 | 1;
  /** The state's name (`California`), else the stored code; empty without a state. */
  formatted_state: string;
  created_at: string;
  updated_at: string;
}

/** A rate with its class, as create and update answer it. */
export interface TaxRateWithClass extends TaxRate {
  tax_class: { id: number; title: string } | null;
}

export interface TaxRateRow {
  id: number | string;
  class_id: number | string;
  country: string;
  state: string;
  postcode: string;
  city: string;
  rate: string;
  name: string;
  group: string;
  priority: number | string;
  is_compound: number | string;
  for_shipping: number | string | null;
  for_order: number | string;
  created_at: string;
  updated_at: string;
}

/** One country of `GET /tax/rates`. */
export interface CountryRatesSummary {
  country_code: string;
  country_name: string;
  rates: Array<Pick<TaxRate, 'class_id' | 'name' | 'rate' | 'for_shipping'>>;
  total_rates: number;
}

/** One region of `GET /tax/rates`. */
export interface RegionRates {
  group_name: string;
  group_code: string;
  countries: CountryRatesSummary[];
  total_countries: number;
}

/** `GET /tax/rates/country/rates/{country_code}`. */
export interface CountryRates {
  tax_rates: TaxRate[];
  settings: RateFormSettings | null;
  tax_enabled: boolean;
}

/** What `POST /tax/country-status/{country_code}` changed: the countries (every EU member for `EU`) and the flag. */
export interface CountryStatusChange {
  code: string;
  countries: string[];
  enabled: 0 | 1;
}
