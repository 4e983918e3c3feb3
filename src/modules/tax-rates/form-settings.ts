import { countryGroup, type TaxGroupCode } from './regions';

/** A field of the rate form a country or region's rates never need. */
export type RateFormField = 'state' | 'city' | 'postcode' | 'is_compound' | 'for_order';

export interface RateFormSettings {
  hidden: RateFormField[];
}

/** A national VAT or GST: one rate per class for the whole country, neither compounding nor replacing. */
const NATIONAL: RateFormSettings = { hidden: ['state', 'city', 'postcode', 'is_compound', 'for_order'] };

const BY_COUNTRY: Partial<Record<string, RateFormSettings>> = {
  US: { hidden: ['is_compound'] },
  CA: { hidden: ['city', 'postcode'] },
  GB: NATIONAL,
  AU: NATIONAL,
  NZ: NATIONAL,
};

const BY_REGION: Partial<Record<TaxGroupCode, RateFormSettings>> = {
  EU: NATIONAL,
  EUR: NATIONAL,
};

/** The rate form's configuration for a country: its own, else its region's, else null. */
export function rateFormSettings(country: string): RateFormSettings | null {
  const group = countryGroup(country);
  const settings = BY_COUNTRY[country] ?? (group ? BY_REGION[group] : undefined);
  return settings ? { hidden: [...settings.hidden] } : null;
}
