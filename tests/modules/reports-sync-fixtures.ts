import type { Knex } from 'knex';
import { summaryColumns } from '../../src/modules/reports/facts/contributions';
import { rebuildReports } from '../../src/modules/reports/sync/rebuild';
import { verifyReports } from '../../src/modules/reports/sync/verify';
import { FAMILIES, type FamilyName } from '../../src/modules/reports/types';
import type { TestApp } from '../support/app';

type Rows = Array<Record<string, unknown>>;

/** Every row of the report facts, lines and the four summary tables, in primary-key order. */
export async function reportTables(db: Knex): Promise<Record<string, Rows>> {
  const tables: Record<string, Rows> = {
    facts: (await db('store_report_orders').orderBy('order_id')) as Rows,
    lines: (await db('store_report_order_lines').orderBy(['order_id', 'product_id', 'variation_id'])) as Rows,
  };
  for (const family of Object.keys(FAMILIES) as FamilyName[]) {
    tables[family] = (await db(FAMILIES[family].table).orderBy(summaryColumns(family).key)) as Rows;
  }
  return tables;
}

/**
 * The stored facts and summaries, as the order changes left them, equal what `rebuildReports` computes from the
 * orders: row by row, exactly (the tables are snapshotted, rebuilt and read again); `verifyReports` agrees.
 */
export async function expectRebuildAgrees(app: TestApp, step = ''): Promise<void> {
  const incremental = await reportTables(app.host.db);
  expect((await verifyReports(app.ctx())).differences).toEqual([]);
  await rebuildReports(app.ctx());
  const rebuilt = await reportTables(app.host.db);
  for (const table of Object.keys(rebuilt)) expect({ step, table, rows: incremental[table] }).toEqual({ step, table, rows: rebuilt[table] });
}

/** A small seeded generator (mulberry32): the same sequence of order changes on every run. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  return { next, int, pick };
}
