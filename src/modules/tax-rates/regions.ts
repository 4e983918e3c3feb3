import { countries as countryData, type TCountryCode } from 'countries-list';

/** The region groups of the rates page, in the order `GET /tax/rates` lists them. */
export const TAX_GROUPS = [
  { code: 'EU', name: 'EU' },
  { code: 'EUR', name: 'Europe' },
  { code: 'NA', name: 'North America' },
  { code: 'SA', name: 'South America' },
  { code: 'AS', name: 'Asia' },
  { code: 'AF', name: 'Africa' },
  { code: 'OC', name: 'Oceania' },
  { code: 'AN', name: 'Antarctica' },
] as const;

export type TaxGroupCode = (typeof TAX_GROUPS)[number]['code'];

export const TAX_GROUP_CODES: readonly TaxGroupCode[] = TAX_GROUPS.map((group) => group.code);

/** The 27 member states of the European Union (ISO 3166-1 alpha-2). */
// prettier-ignore
export const EU_MEMBERS: readonly string[] = [
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU',
  'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
];

const GROUP_NAMES = new Map<string, string>(TAX_GROUPS.map((group) => [group.code, group.name]));

export const isTaxGroupCode = (code: string): code is TaxGroupCode => GROUP_NAMES.has(code);

export const taxGroupName = (code: TaxGroupCode): string => GROUP_NAMES.get(code) ?? code;

/**
 * A country's group: `EU` for the Union's members, otherwise its continent from countries-list, where the
 * continent code `EU` means Europe and becomes the group `EUR`. Null for a code the data does not know.
 */
export function countryGroup(country: string): TaxGroupCode | null {
  if (EU_MEMBERS.includes(country)) return 'EU';
  const continent = Object.hasOwn(countryData, country) ? countryData[country as TCountryCode].continent : null;
  if (!continent) return null;
  return continent === 'EU' ? 'EUR' : continent;
}
