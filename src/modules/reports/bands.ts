import { minorUnits } from '../../core/money';

/**
 * The histogram bands of the distribution reports, fixed so the summaries can count orders per band: order value
 * (gross, in whole units of the order's currency), items per order and time to completion.
 */

interface Band {
  band: number;
  label: string;
}

/** Lower bounds in whole currency units; the last band is open-ended. */
const VALUE_BOUNDS = [0, 10, 25, 50, 100, 250, 500, 1000];

export const VALUE_BANDS: Band[] = VALUE_BOUNDS.map((low, band) => ({
  band,
  label: band + 1 < VALUE_BOUNDS.length ? `${low}-${VALUE_BOUNDS[band + 1]}` : `${low}+`,
}));

export function valueBand(gross: number, currency: string): number {
  const unit = 10 ** minorUnits(currency);
  let band = 0;
  while (band + 1 < VALUE_BOUNDS.length && gross >= VALUE_BOUNDS[band + 1] * unit) band += 1;
  return band;
}

export const ITEM_BANDS: Band[] = ['0', '1', '2', '3', '4', '5', '6-10', '11+'].map((label, band) => ({ band, label }));

export function itemBand(items: number): number {
  if (items <= 5) return Math.max(0, items);
  return items <= 10 ? 6 : 7;
}

const HOUR = 3600;
const DAY = 24 * HOUR;
/** Upper bounds in seconds of bands 1-5; band 0 is "not completed", band 6 is two weeks or more. */
const COMPLETION_BOUNDS = [HOUR, DAY, 3 * DAY, 7 * DAY, 14 * DAY];

export const COMPLETION_BANDS: Band[] = ['not completed', 'under 1 hour', '1-24 hours', '1-3 days', '3-7 days', '7-14 days', '14+ days'].map((label, band) => ({
  band,
  label,
}));

export function completionBand(seconds: number | null): number {
  if (seconds === null) return 0;
  const index = COMPLETION_BOUNDS.findIndex((bound) => seconds < bound);
  return index === -1 ? COMPLETION_BOUNDS.length + 1 : index + 1;
}
