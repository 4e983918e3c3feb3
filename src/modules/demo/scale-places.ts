import { pick, type Rng } from './rng';
import { COUNTRIES, type City, type CountryData } from './scale-data';

/** Places for the scale seeder: a country by its share of customers, a street address in it, a postcode of its format. */

export function between(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

const TOTAL_WEIGHT = COUNTRIES.reduce((sum, c) => sum + c.weight, 0);

export function pickCountry(rng: Rng): CountryData {
  let r = rng() * TOTAL_WEIGHT;
  for (const country of COUNTRIES) {
    r -= country.weight;
    if (r < 0) return country;
  }
  return COUNTRIES[0];
}

/** `#` a digit, `@` a capital letter, anything else as is. */
export function fillPattern(rng: Rng, pattern: string): string {
  return pattern.replace(/[#@]/g, (c) => (c === '#' ? String(between(rng, 0, 9)) : String.fromCharCode(65 + between(rng, 0, 25))));
}

export function streetAddress(rng: Rng, country: CountryData): { address_1: string; address_2: string; city: City } {
  const number = between(rng, 1, rng() < 0.8 ? 199 : 2400);
  const street = pick(rng, country.streets);
  const city = pick(rng, country.cities);
  const address_2 = rng() < 0.15 ? (country.numberFirst ? `Apt ${between(rng, 1, 40)}` : `${between(rng, 1, 6)}. OG`) : '';
  return { address_1: country.numberFirst ? `${number} ${street}` : `${street} ${number}`, address_2, city };
}
