/** How a product-category tax override is stored: a `store_meta` row with these keys, `object_id` = the category. */
export const OVERRIDE_OBJECT_TYPE = 'tax_override';
export const OVERRIDE_META_KEY = 'product_category_override';

export const OVERRIDE_STATE_TAX = ['yes', 'no'] as const;
export type OverrideStateTax = (typeof OVERRIDE_STATE_TAX)[number];

/** The JSON `meta_value` of an override row: the one shape every reader and writer of overrides uses. */
export interface OverrideValue {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** The state's code where the country lists states (`CA`), else as entered; '' = the whole country. */
  state: string;
  /** '' = any city. */
  city: string;
  /** '' = any postcode. */
  postcode: string;
  category_id: number;
  /** A copy of the category's name, kept in step when the category is renamed. */
  category_name: string;
  tax_label: string;
  /** 'yes': the rate also replaces the state, city and postcode rates, not only the country's. */
  override_state_tax: OverrideStateTax;
  /** A percentage as a plain decimal string, 0 … 100 with at most 4 decimals (`'5'`, `'7.25'`). */
  rate: string;
  /** 0 = none: the `rate` applies; otherwise the category is taxed as that class. */
  class_id: number;
}

/** An override as the API shows it. */
export interface TaxOverride {
  id: number;
  object_type: typeof OVERRIDE_OBJECT_TYPE;
  object_id: number;
  meta_key: typeof OVERRIDE_META_KEY;
  meta_value: OverrideValue;
  class_id: number;
  /** The class's title; '' for class 0. */
  class_label: string;
  created_at: string;
  updated_at: string;
}
