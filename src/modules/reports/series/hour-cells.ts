import type { Knex } from 'knex';
import { dialect } from '../../../core/db';
import { fromSeconds, toSeconds } from '../engine/slots';
import { anyOf, whereDimensions } from '../engine/sql';
import type { Interval, ReportFilters } from '../types';
import { offsetPeriods, type OffsetPeriod } from './offset-periods';

/**
 * Orders and gross revenue per hour of the local week (cell `day*24 + hour`, day 0 Monday) over an interval, in a
 * zone. While the zone's offset is a whole number of hours, every UTC hour slot of `store_report_sales` lies in
 * one local hour, `(slot + offset hours + 72) mod 168` (the epoch began on a Thursday, day 3); the rest (offsets
 * like +05:30, edges of such periods, and anything limited to variations) is read from the facts, each order put
 * in its cell by its own `created_at`.
 */

export const WEEK_CELLS = 168;
const HOUR = 3600;
/** Hours from the start of a Monday to the epoch (1970-01-01 was a Thursday). */
const EPOCH_WEEK_HOURS = 72;

export interface CellMetrics {
  orders: number;
  gross: number;
}

interface SlotRun {
  first: number;
  last: number;
  shift: number;
}

/** A cell's sums read by one query. */
type CellRow = CellMetrics & { cell: number };

/** The hours of the interval covered by summary slots, and the stretches read from the facts. */
function plan(periods: OffsetPeriod[], useSlots: boolean): { slots: SlotRun[]; live: OffsetPeriod[] } {
  const slots: SlotRun[] = [];
  const live: OffsetPeriod[] = [];
  for (const period of periods) {
    const first = Math.ceil(period.from / HOUR);
    const last = Math.floor(period.to / HOUR) - 1;
    if (!useSlots || period.offset % HOUR !== 0 || first > last) {
      live.push(period);
      continue;
    }
    if (period.from < first * HOUR) live.push({ ...period, to: first * HOUR });
    slots.push({ first, last, shift: period.offset / HOUR + EPOCH_WEEK_HOURS });
    if ((last + 1) * HOUR < period.to) live.push({ ...period, from: (last + 1) * HOUR });
  }
  return { slots, live: live.sort((a, b) => a.from - b.from) };
}

/** The run holding `slot`; `runs` are sorted and disjoint. */
function runOf(runs: SlotRun[], slot: number): SlotRun {
  let low = 0;
  let high = runs.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (runs[middle].first <= slot) low = middle;
    else high = middle - 1;
  }
  return runs[low];
}

/** Adjacent runs (the periods either side of a DST change) as one slot range: one index range read in order. */
function adjacentMerged(runs: SlotRun[]): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && last[1] + 1 === run.first) last[1] = run.last;
    else merged.push([run.first, run.last]);
  }
  return merged;
}

/** Summed per slot in index order (cheaper than grouping by the cell expression, which sorts every row), then placed in cells. */
async function readSlots(db: Knex, filters: ReportFilters, runs: SlotRun[]): Promise<CellRow[]> {
  const ranges = anyOf(
    adjacentMerged(runs).map(([first, last]) => ({
      sql: 'grain = ? AND mode = ? AND currency = ? AND slot BETWEEN ? AND ?',
      bindings: ['h', filters.mode, filters.currency, first, last],
    })),
  );
  const query = db('store_report_sales').select('slot', db.raw('SUM(orders) AS orders'), db.raw('SUM(gross) AS gross')).whereRaw(ranges.sql, ranges.bindings);
  const rows: Record<string, unknown>[] = await whereDimensions(query, filters, '').groupBy('slot');
  return rows.map((row) => {
    const slot = Number(row.slot);
    return { cell: (slot + runOf(runs, slot).shift) % WEEK_CELLS, orders: Number(row.orders ?? 0), gross: Number(row.gross ?? 0) };
  });
}

/** Seconds since the epoch of a stored UTC `DATETIME`, and integer division, in the database's own SQL. */
const SQL = {
  sqlite: { epoch: 'unixepoch(o.created_at)', div: '/' },
  mysql: { epoch: "TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', o.created_at)", div: 'DIV' },
};

async function readFacts(db: Knex, filters: ReportFilters, runs: OffsetPeriod[]): Promise<CellRow[]> {
  const { epoch, div } = SQL[dialect(db)];
  const ranges = anyOf(
    runs.map((run) => ({
      sql: 'o.mode = ? AND o.currency = ? AND o.created_at >= ? AND o.created_at < ?',
      bindings: [filters.mode, filters.currency, fromSeconds(run.from), fromSeconds(run.to)],
    })),
  );
  const offset = `CASE ${runs.map(() => 'WHEN o.created_at < ? THEN ?').join(' ')} END`;
  const query = db({ o: 'store_report_orders' })
    .select(
      db.raw(
        `((${epoch} + ${offset}) ${div} ${HOUR} + ${EPOCH_WEEK_HOURS}) % ${WEEK_CELLS} AS cell`,
        runs.flatMap((run) => [fromSeconds(run.to), run.offset]),
      ),
      db.raw('COUNT(*) AS orders'),
      db.raw('SUM(o.gross) AS gross'),
    )
    .whereRaw(ranges.sql, ranges.bindings);
  if (filters.variationIds.length) {
    query.whereIn('o.order_id', db('store_report_order_lines').select('order_id').whereIn('variation_id', filters.variationIds));
  }
  const rows: Record<string, unknown>[] = await whereDimensions(query, filters, 'o.').groupBy('cell');
  return rows.map((row) => ({ cell: Number(row.cell), orders: Number(row.orders ?? 0), gross: Number(row.gross ?? 0) }));
}

/** The instants of the first and last counted order of the mode and currency (two index lookups), or null. */
async function orderSpan(db: Knex, filters: ReportFilters): Promise<{ first: number; last: number } | null> {
  const edge = (direction: 'asc' | 'desc') =>
    db('store_report_orders').where({ mode: filters.mode, currency: filters.currency }).orderBy('created_at', direction).first('created_at') as Promise<
      { created_at: string } | undefined
    >;
  const [first, last] = await Promise.all([edge('asc'), edge('desc')]);
  return first && last ? { first: toSeconds(first.created_at), last: toSeconds(last.created_at) } : null;
}

/** Orders and gross revenue per cell of the local week over the interval (UTC, half-open) in `tz`; 168 cells. */
export async function hourCells(db: Knex, filters: ReportFilters, interval: Interval, tz: string): Promise<CellMetrics[]> {
  const cells = Array.from({ length: WEEK_CELLS }, (): CellMetrics => ({ orders: 0, gross: 0 }));
  const span = await orderSpan(db, filters);
  if (!span) return cells;
  // Only the whole UTC hours holding orders: a zone's offsets are probed once a day, and an "all time" range may span decades.
  const from = Math.max(toSeconds(interval.from), Math.floor(span.first / HOUR) * HOUR);
  const to = Math.min(toSeconds(interval.to), (Math.floor(span.last / HOUR) + 1) * HOUR);
  const { slots, live } = plan(offsetPeriods(tz, from, to), !filters.variationIds.length);
  const reads: Promise<CellRow[]>[] = [];
  if (slots.length) reads.push(readSlots(db, filters, slots));
  if (live.length) reads.push(readFacts(db, filters, live));
  for (const row of (await Promise.all(reads)).flat()) {
    cells[row.cell].orders += row.orders;
    cells[row.cell].gross += row.gross;
  }
  return cells;
}
