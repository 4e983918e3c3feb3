import type { Knex } from 'knex';
import { FAMILIES, type FamilyName, type Grain, type ReportFilters } from '../types';
import type { Piece, Sign } from './decompose';
import { anyOf, whereDimensions } from './sql';

export type SlotPiece = Extract<Piece, { kind: 'slots' }> & { bucket: number };
/** Where a row's sums go: each bucket it counts for, added or subtracted. */
export type Targets = Array<[bucket: number, sign: Sign]>;

/** The slot ranges to read: the pieces' runs merged where they overlap or touch. */
function mergedRuns(pieces: SlotPiece[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const { first, last } of [...pieces].sort((a, b) => a.first - b.first)) {
    const previous = runs[runs.length - 1];
    if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else runs.push([first, last]);
  }
  return runs;
}

/** Per slot, the buckets it counts for (neighbouring buckets may share a slot, with opposite signs). */
function slotTargets(pieces: SlotPiece[]): Map<number, Targets> {
  const targets = new Map<number, Targets>();
  for (const piece of pieces) {
    for (let slot = piece.first; slot <= piece.last; slot += 1) {
      const list = targets.get(slot) ?? [];
      list.push([piece.bucket, piece.sign]);
      targets.set(slot, list);
    }
  }
  return targets;
}

/**
 * One grain's summary rows over the pieces, summed per slot and dimension values, each with the buckets its slot
 * counts for. One query: a `slot BETWEEN` range per run, each with the primary key's prefix `(grain, mode,
 * currency)` so that every run is an index range.
 */
export async function readSlots(
  db: Knex,
  family: FamilyName,
  filters: ReportFilters,
  grain: Grain,
  pieces: SlotPiece[],
  dims: string[],
): Promise<Array<{ row: Record<string, unknown>; targets: Targets }>> {
  const { table, metrics } = FAMILIES[family];
  const ranges = anyOf(
    mergedRuns(pieces).map(([first, last]) => ({
      sql: 'grain = ? AND mode = ? AND currency = ? AND slot BETWEEN ? AND ?',
      bindings: [grain, filters.mode, filters.currency, first, last],
    })),
  );
  const query = db(table)
    .select('slot', ...dims, ...metrics.map((metric) => db.raw('SUM(??) AS ??', [metric, metric])))
    .whereRaw(ranges.sql, ranges.bindings);
  const rows: Record<string, unknown>[] = await whereDimensions(query, filters, '').groupBy('slot', ...dims);
  const targets = slotTargets(pieces);
  return rows.map((row) => ({ row, targets: targets.get(Number(row.slot)) ?? [] }));
}
