/** `total / count` rounded half up in integer arithmetic (cents, seconds); 0 when there is nothing to divide by. */
export function roundedAverage(total: number, count: number): number {
  return count ? Math.floor((2 * total + count) / (2 * count)) : 0;
}

/** `part` as a percentage of `whole`, rounded half up to 2 decimals; 0 of nothing is 0. */
export function percentOf(part: number, whole: number): number {
  return whole ? roundedAverage(part * 10_000, whole) / 100 : 0;
}
