import type { Ctx } from '../../../core/context';
import { FAMILIES, type Aggregate, type AggregateQuery, type AggregateRow, type FamilyName, type Grain } from '../types';
import { decompose } from './decompose';
import { readLive, type LivePiece } from './read-live';
import { readSlots, type SlotPiece } from './read-slots';
import { toSeconds } from './slots';

/** Dimensions stored as numbers; the others are text. */
const NUMERIC_DIMENSIONS = new Set(['first_order', 'product_id', 'variation_id', 'value_band', 'item_band', 'completion_band']);

/**
 * Sums a family's metrics per bucket and per value of the `groupBy` dimensions. Each bucket is written as signed
 * runs of whole UTC months, days and hours (as far as the family keeps them, see `decompose`) read from the summary
 * tables, one query per grain, and the remainder read from the facts, one query; with `variationIds` everything is
 * read from the facts, since the summaries do not know which orders contain a variation. Rows come in bucket
 * order; a bucket and group without orders has no row.
 */
export const aggregate: Aggregate = async <F extends FamilyName>(ctx: Ctx, query: AggregateQuery<F>): Promise<AggregateRow<F>[]> => {
  const family = FAMILIES[query.family];
  const grains: readonly Grain[] = query.filters.variationIds.length ? [] : family.grains;
  const dims = [...new Set<string>(query.groupBy ?? [])];
  const slots = new Map<Grain, SlotPiece[]>();
  const live: LivePiece[] = [];
  query.buckets.forEach((interval, bucket) => {
    for (const piece of decompose(toSeconds(interval.from), toSeconds(interval.to), grains)) {
      if (piece.kind === 'live') {
        live.push({ ...piece, bucket });
        continue;
      }
      const placed = slots.get(piece.grain) ?? [];
      placed.push({ ...piece, bucket });
      slots.set(piece.grain, placed);
    }
  });

  const reads = [...slots].map(([grain, pieces]) => readSlots(ctx.db, query.family, query.filters, grain, pieces, dims));
  if (live.length) reads.push(readLive(ctx.db, query.family, query.filters, live, dims));
  const results = await Promise.all(reads);

  const folded = new Map<string, AggregateRow<F>>();
  for (const { row, targets } of results.flat()) {
    const values = dims.map((dimension) => (NUMERIC_DIMENSIONS.has(dimension) ? Number(row[dimension]) : String(row[dimension])));
    for (const [bucket, sign] of targets) {
      const key = JSON.stringify([bucket, values]);
      let target = folded.get(key);
      if (!target) {
        target = {
          bucket,
          dims: Object.fromEntries(dims.map((dimension, index) => [dimension, values[index]])),
          metrics: Object.fromEntries(family.metrics.map((metric) => [metric, 0])),
        } as AggregateRow<F>;
        folded.set(key, target);
      }
      const metrics = target.metrics as Record<string, number>;
      for (const metric of family.metrics) metrics[metric] += sign * Number(row[metric] ?? 0);
    }
  }
  // A group whose additions and subtractions cancel out has no orders in the bucket.
  return [...folded.values()].filter((row) => (row.metrics as Record<string, number>).orders !== 0).sort((a, b) => a.bucket - b.bucket);
};
