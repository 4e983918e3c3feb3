import { minorUnits, mulDivRound } from '../../core/money';
import type { StoreMode } from '../settings/types';
import type { Rng } from './rng';

/**
 * What makes the scale seeder's orders look like a live store's to the reports: the currency an order was paid in,
 * its payment mode, the local time of day shoppers buy at, and how long an order took to complete. Drawn from a
 * stream of their own (`rngFor(seed, 'order-shape', customer number)`), so the amounts, statuses and dates the
 * order parts drew before stay what they were.
 */

/** Share of orders in another currency than the store's, by currency (the rest are in the store currency). */
const FOREIGN_CURRENCIES: ReadonlyArray<readonly [string, number]> = [
  ['EUR', 0.07],
  ['GBP', 0.05],
  ['JPY', 0.03],
];

/** Share of orders in the other payment mode than the store's (test orders of a live store, or the reverse). */
export const OTHER_MODE_SHARE = 0.03;

/** Units of a currency one US dollar buys, in millionths (fixed rates: seeded prices stay the same from run to run). */
const MICROS_PER_USD: Record<string, number> = {
  USD: 1_000_000,
  EUR: 920_000,
  GBP: 790_000,
  JPY: 150_000_000,
  CAD: 1_370_000,
  AUD: 1_520_000,
  SEK: 10_500_000,
};

/** Standard-time offset from UTC of each seeded country's main zone, hours (shoppers' local time of day). */
const UTC_OFFSET_HOURS: Record<string, number> = { US: -6, CA: -5, GB: 0, DE: 1, FR: 1, NL: 1, ES: 1, IT: 1, SE: 1, AU: 10 };

/** Relative share of orders placed in each local hour 0–23: quiet at night, a lunch bump, the peak in the evening. */
const HOUR_WEIGHTS = [3, 2, 1, 1, 1, 1, 2, 4, 6, 8, 9, 10, 12, 11, 9, 9, 10, 11, 13, 15, 16, 14, 10, 5];
const HOUR_TOTAL = HOUR_WEIGHTS.reduce((sum, w) => sum + w, 0);

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The currency of one order: the store's for most, else one of the foreign ones (never the store's own twice). */
export function orderCurrency(rng: Rng, storeCurrency: string): string {
  let r = rng();
  for (const [currency, share] of FOREIGN_CURRENCIES) {
    if (r < share) return currency === storeCurrency ? storeCurrency : currency;
    r -= share;
  }
  return storeCurrency;
}

/** The payment mode of one order (or subscription): the store's, except `OTHER_MODE_SHARE` of them. */
export function orderMode(rng: Rng, storeMode: StoreMode): StoreMode {
  if (rng() >= OTHER_MODE_SHARE) return storeMode;
  return storeMode === 'live' ? 'test' : 'live';
}

/**
 * A price in the store currency (minor units) as the same price in `to`, at the fixed rates above, rounded to ten
 * minor units (¥3,600, €22.10); a currency without a rate is taken at par with the dollar.
 */
export function convertPrice(amount: number, from: string, to: string): number {
  if (from === to || amount === 0) return amount;
  const num = (MICROS_PER_USD[to] ?? 1_000_000) * 10 ** minorUnits(to);
  const den = (MICROS_PER_USD[from] ?? 1_000_000) * 10 ** minorUnits(from);
  return Math.max(10, mulDivRound(amount, num, den * 10) * 10);
}

function localHour(rng: Rng): number {
  let r = rng() * HOUR_TOTAL;
  for (let hour = 0; hour < 24; hour++) {
    r -= HOUR_WEIGHTS[hour];
    if (r < 0) return hour;
  }
  return 23;
}

/**
 * `time` moved within its day to an hour a shopper in `country` would buy at (by the local-hour curve), at a random
 * minute and second; when that would fall outside `[earliest, latest]` the time stays as it was.
 */
export function shopperTime(rng: Rng, time: number, country: string, earliest: number, latest: number): number {
  const offset = (UTC_OFFSET_HOURS[country] ?? 0) * HOUR_MS;
  const localDay = Math.floor((time + offset) / DAY_MS) * DAY_MS;
  const moved = localDay - offset + localHour(rng) * HOUR_MS + Math.floor(rng() * HOUR_MS);
  return moved >= earliest && moved <= latest ? moved : time;
}

/**
 * How long after its creation an order completed, ms: digital orders within minutes to a few hours (the payment
 * confirmed, the download sent), physical ones after one to ten days (packed, shipped, delivered).
 */
export function completionDelay(rng: Rng, physical: boolean): number {
  if (!physical) return Math.floor(-Math.log(1 - rng()) * 40 * 60_000);
  return DAY_MS + Math.floor(rng() * 9 * DAY_MS);
}
