import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { summaryColumns } from '../facts/contributions';
import { SummaryTotals, type SummaryEntry } from '../facts/totals';
import { FACT_COLUMNS, FACTS_TABLE, LINE_COLUMNS, LINES_TABLE } from '../facts/stored';
import { FAMILIES, type FamilyName } from '../types';
import { factBatches } from './rebuild';

/**
 * `reports verify`: the facts and summaries recomputed in memory from the orders (as the rebuild would write them)
 * and compared, row by row, with the stored tables. Read-only.
 */

type Row = Record<string, unknown>;
type Progress = (done: number, total: number) => void;

export interface VerifyResult {
  orders: number;
  facts: number;
  /** Rows that differ, one line each (at most `MAX_LISTED`); `differenceCount` counts them all. */
  differences: string[];
  differenceCount: number;
}

const MAX_LISTED = 50;

const show = (value: unknown) => (value === null || value === undefined ? 'null' : String(value));

/** Differences between expected and stored rows matched by key; `null` on a side means the row is missing there. */
function compareRows(what: string, expected: Map<string, Row>, stored: Map<string, Row>, columns: string[], report: (line: string) => void): void {
  for (const [key, row] of expected) {
    const found = stored.get(key);
    if (!found) report(`${what} ${key}: missing`);
    else {
      const changed = columns.filter((column) => show(row[column]) !== show(found[column]));
      if (changed.length)
        report(`${what} ${key}: ${changed.map((column) => `${column} stored ${show(found[column])}, expected ${show(row[column])}`).join('; ')}`);
    }
  }
  for (const key of stored.keys()) if (!expected.has(key)) report(`${what} ${key}: not expected`);
}

function inRange(query: Knex.QueryBuilder, after: number, upTo: number | null): Knex.QueryBuilder {
  query.where('order_id', '>', after);
  return upTo === null ? query : query.where('order_id', '<=', upTo);
}

export async function verifyReports(ctx: Ctx, options: { progress?: Progress } = {}): Promise<VerifyResult> {
  const db = ctx.db;
  const result: VerifyResult = { orders: 0, facts: 0, differences: [], differenceCount: 0 };
  const report = (line: string) => {
    result.differenceCount += 1;
    if (result.differences.length < MAX_LISTED) result.differences.push(line);
  };
  const totals = new SummaryTotals();
  for await (const batch of factBatches(db, options.progress)) {
    result.orders += batch.orders;
    result.facts += batch.facts.length;
    totals.addAll(batch.facts, batch.lines);
    const storedFacts = (await inRange(db(FACTS_TABLE), batch.after, batch.upTo)) as Row[];
    const storedLines = (await inRange(db(LINES_TABLE), batch.after, batch.upTo)) as Row[];
    const lineKey = (line: Row) => `${line.order_id}/${line.product_id}/${line.variation_id}`;
    compareRows(
      'fact',
      new Map(batch.facts.map((fact) => [String(fact.order_id), { ...fact }])),
      new Map(storedFacts.map((fact) => [String(fact.order_id), fact])),
      FACT_COLUMNS,
      report,
    );
    compareRows(
      'line',
      new Map(batch.lines.map((line) => [lineKey({ ...line }), { ...line }])),
      new Map(storedLines.map((line) => [lineKey(line), line])),
      LINE_COLUMNS,
      report,
    );
  }
  for (const family of Object.keys(FAMILIES) as FamilyName[]) {
    const { key, metrics } = summaryColumns(family);
    const keyOf = (row: Row) => JSON.stringify(key.map((column) => row[column]));
    const asRow = (entry: SummaryEntry): Row =>
      Object.fromEntries([...key.map((column, i) => [column, entry.key[i]]), ...metrics.map((column, i) => [column, entry.metrics[i]])]);
    const expected = new Map(
      totals
        .entries(family)
        .map((entry) => asRow(entry))
        .map((row) => [keyOf(row), row]),
    );
    const stored = new Map(((await db(FAMILIES[family].table)) as Row[]).map((row) => [keyOf(row), row]));
    compareRows(family, expected, stored, [...key, ...metrics], report);
  }
  return result;
}
