import type { Knex } from 'knex';
import { dialect } from '../../../core/db';
import { chunks } from '../facts/load';
import { summaryColumns } from '../facts/contributions';
import { BOUND_VALUES } from '../facts/stored';
import type { SummaryEntry, SummaryTotals } from '../facts/totals';
import { FAMILIES, type FamilyName } from '../types';

/**
 * Writes summary rows: the sync's changes (one multi-row upsert per family that adds each change to its row or
 * creates the row, in key order, then the rows whose order count fell to 0 deleted), and the rebuild's new rows.
 */

/** Keys per delete statement. */
const KEYS_PER_DELETE = 500;

/** One multi-row insert of the entries; `add` adds them to the rows already there (an upsert). */
function insertSql(trx: Knex.Transaction, table: string, key: string[], metrics: string[], rows: number, add: boolean): string {
  const columns = [...key, ...metrics];
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const insert = `insert into ${table} (${columns.join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')}`;
  if (!add) return insert;
  if (dialect(trx) === 'mysql') return `${insert} on duplicate key update ${metrics.map((m) => `${m} = ${m} + values(${m})`).join(', ')}`;
  return `${insert} on conflict (${key.join(', ')}) do update set ${metrics.map((m) => `${m} = ${m} + excluded.${m}`).join(', ')}`;
}

/** Writes summary entries in statements of at most `BOUND_VALUES` values: new rows (the rebuild), or added to the stored ones. */
export async function writeSummaries(trx: Knex.Transaction, family: FamilyName, entries: SummaryEntry[], add: boolean): Promise<void> {
  const { key, metrics } = summaryColumns(family);
  for (const chunk of chunks(entries, Math.floor(BOUND_VALUES / (key.length + metrics.length)))) {
    const bindings = chunk.flatMap((entry) => [...entry.key, ...entry.metrics]);
    await trx.raw(insertSql(trx, FAMILIES[family].table, key, metrics, chunk.length, add), bindings);
  }
}

/** Deletes the rows of the keys whose count went down, if it is 0 now (exact keys: row locks only on MySQL). */
async function deleteEmpty(trx: Knex.Transaction, family: FamilyName, entries: SummaryEntry[]): Promise<void> {
  const { key } = summaryColumns(family);
  for (const chunk of chunks(entries, KEYS_PER_DELETE)) {
    await trx(FAMILIES[family].table)
      .where('orders', 0)
      .where((where) => {
        for (const entry of chunk) where.orWhere(Object.fromEntries(key.map((column, i) => [column, entry.key[i]])));
      })
      .delete();
  }
}

export async function applySummaryChanges(trx: Knex.Transaction, totals: SummaryTotals): Promise<void> {
  for (const family of Object.keys(FAMILIES) as FamilyName[]) {
    const entries = totals.entries(family);
    if (!entries.length) continue;
    await writeSummaries(trx, family, entries, true);
    const orders = summaryColumns(family).metrics.indexOf('orders');
    const shrunk = entries.filter((entry) => entry.metrics[orders] < 0);
    if (shrunk.length) await deleteEmpty(trx, family, shrunk);
  }
}
