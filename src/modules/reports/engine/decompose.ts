import type { Grain } from '../types';
import { slotFrom, slotOf, slotStart } from './slots';

export type Sign = 1 | -1;

/**
 * A part of an interval, added or subtracted: a run of whole summary slots (inclusive), or seconds `[from, to)`
 * read from the facts.
 */
export type Piece = { kind: 'slots'; grain: Grain; first: number; last: number; sign: Sign } | { kind: 'live'; from: number; to: number; sign: Sign };

/** The slot boundaries at or before and at or after an instant (the same when it is one). */
function around(grain: Grain, seconds: number): [number, number] {
  return [slotStart(grain, slotOf(grain, seconds)), slotStart(grain, slotFrom(grain, seconds))];
}

/**
 * Writes `[from, to)` (epoch seconds) as whole slots of the coarsest grain that pays off plus corrections at both
 * ends, recursively in the finer grains, and what no grain covers as live pieces. Each end goes to the nearest slot
 * boundary: inside the interval the gap is added, beyond it the overshoot is subtracted, so a local month in
 * Berlin (`[Feb 28 23:00, Mar 31 22:00)` UTC) is the UTC month of March plus one hour minus two. A grain is used
 * only when its corrections are shorter than the interval itself. The signed pieces sum to the interval exactly.
 */
export function decompose(from: number, to: number, grains: readonly Grain[], sign: Sign = 1): Piece[] {
  if (from >= to) return [];
  const [grain, ...finer] = grains;
  if (!grain) return [{ kind: 'live', from, to, sign }];
  const [startBefore, startAfter] = around(grain, from);
  const [endBefore, endAfter] = around(grain, to);
  let best: { start: number; end: number; cost: number } | null = null;
  for (const start of [startAfter, startBefore]) {
    for (const end of [endBefore, endAfter]) {
      const cost = Math.abs(start - from) + Math.abs(end - to);
      if (start < end && cost < to - from && (!best || cost < best.cost)) best = { start, end, cost };
    }
  }
  if (!best) return decompose(from, to, finer, sign);
  const { start, end } = best;
  const flip = (sign * -1) as Sign;
  return [
    ...(start > from ? decompose(from, start, finer, sign) : decompose(start, from, finer, flip)),
    { kind: 'slots', grain, first: slotOf(grain, start), last: slotOf(grain, end) - 1, sign },
    ...(end < to ? decompose(end, to, finer, sign) : decompose(to, end, finer, flip)),
  ];
}
