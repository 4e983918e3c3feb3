import { fromTimestamp, toTimestamp } from '../../../core/time';
import type { Grain } from '../types';

/**
 * Slot numbers of the summary grains and their instants, in whole seconds since the epoch (UTC): `m` is
 * `year*12 + month-1` of the calendar month, `d` whole days, `h` whole hours.
 */

const SECONDS = { d: 86_400, h: 3_600 } as const;

export function toSeconds(timestamp: string): number {
  return fromTimestamp(timestamp).getTime() / 1000;
}

export function fromSeconds(seconds: number): string {
  return toTimestamp(new Date(seconds * 1000));
}

/** The slot holding the instant. */
export function slotOf(grain: Grain, seconds: number): number {
  if (grain !== 'm') return Math.floor(seconds / SECONDS[grain]);
  const date = new Date(seconds * 1000);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

/** The instant a slot starts. */
export function slotStart(grain: Grain, slot: number): number {
  if (grain !== 'm') return slot * SECONDS[grain];
  const year = Math.floor(slot / 12);
  const date = new Date(Date.UTC(2000, slot - year * 12, 1));
  date.setUTCFullYear(year);
  return date.getTime() / 1000;
}

/** The first slot starting at or after the instant. */
export function slotFrom(grain: Grain, seconds: number): number {
  const slot = slotOf(grain, seconds);
  return slotStart(grain, slot) === seconds ? slot : slot + 1;
}
