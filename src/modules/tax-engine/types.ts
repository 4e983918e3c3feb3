import type { TaxRounding } from '../settings/types';

/** A place a rate or an override is for, within its country: empty fields match any destination. */
export interface TaxPlace {
  state: string;
  /** Cities separated by `,` or `;`. */
  city: string;
  /** Entries separated by `,` or `;`: exact, a prefix ending in `*`, or a range `A...B`. */
  postcode: string;
}

/** A `store_tax_rates` row as the engine reads it. */
export interface EngineRate extends TaxPlace {
  id: number;
  /** 0: no class (applies to every class). */
  class_id: number;
  country: string;
  /** Percentage, at most 4 decimals: `"7.2500"`. */
  rate: string;
  name: string;
  priority: number;
  is_compound: 0 | 1;
  /** The percentage shipping is taxed at instead of `rate`; null: `rate`. */
  for_shipping: string | null;
  /** 1: a rate for a state, city or postcode replaces the country-only rates instead of adding to them. */
  for_order: 0 | 1;
}

/** A product-category override (a `store_meta` row's `meta_value`, with the row id). */
export interface EngineOverride extends TaxPlace {
  id: number;
  country: string;
  category_id: number;
  category_name: string;
  tax_label: string;
  /** `yes`: the override's rate replaces every matched rate; `no`: only the country-only ones. */
  override_state_tax: 'yes' | 'no';
  /** Percentage decimal string. */
  rate: string;
  /** Non-zero: lines of the category are taxed as this class instead (the rate is then not used). */
  class_id: number;
}

export interface TaxClassRef {
  id: number;
  slug: string;
}

/** One line to tax: `amount` is what is left after the discounts (cents, or any currency's minor units). */
export interface TaxLine {
  cart_index: number;
  amount: number;
  /** A class slug; null or `''` is `standard`, `tax_exempt` pays no tax, an unknown slug is `standard`. */
  tax_class: string | null;
  category_ids: number[];
}

/** Everything the calculator needs; rates and overrides are already matched to the destination. */
export interface TaxCalculationInput {
  prices_include_tax: boolean;
  rounding: TaxRounding;
  /** The destination's country (ISO2), reported as `tax_country`. */
  country: string;
  classes: TaxClassRef[];
  lines: TaxLine[];
  shipping: { amount: number; tax_class: string };
  /** Rates matched to the destination (`matchRates`). */
  rates: EngineRate[];
  /** Overrides matched to the destination, most specific first (`matchOverrides`). */
  overrides: EngineOverride[];
}
