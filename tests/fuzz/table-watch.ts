import type { Knex } from 'knex';
import { dialect } from '../../src/core/db';

/**
 * What a refused request may still write, by design (README "Fuzzing"):
 * - `store_rate_limits`: a route's rate limit is counted before its input is validated, and the hourly classes
 *   flush their counters in the background;
 * - `store_idempotency_keys`: an answer below 500 to a request with an `Idempotency-Key` is kept for replays, refusals too.
 */
export const UNCHECKED_TABLES = new Set(['store_rate_limits', 'store_idempotency_keys']);

/** A table whose rows differ: the rows only in the old state, and those only in the new one (as JSON). */
export interface TableChange {
  table: string;
  removed: string[];
  added: string[];
}

/** Every table's rows as sorted JSON lines, so the order the database returns them in does not matter. */
type Rows = Map<string, string[]>;

export async function tableNames(db: Knex): Promise<string[]> {
  const rows =
    dialect(db) === 'mysql'
      ? ((await db.select('table_name as name').from('information_schema.tables').whereRaw('table_schema = database()')) as Array<{ name: string }>)
      : ((await db.select('name').from('sqlite_master').where('type', 'table').andWhereNot('name', 'like', 'sqlite_%')) as Array<{ name: string }>);
  return rows
    .map((row) => row.name)
    .filter((name) => !UNCHECKED_TABLES.has(name))
    .sort();
}

async function readRows(db: Knex, tables: string[]): Promise<Rows> {
  const all = await Promise.all(tables.map(async (table) => ((await db.select('*').from(table)) as unknown[]).map((row) => JSON.stringify(row)).sort()));
  return new Map(tables.map((table, i) => [table, all[i]]));
}

/** MariaDB's server-wide counts of rows written, changed and deleted (by every session, in every table). */
const ROW_WRITE_COUNTERS = ['Handler_write', 'Handler_update', 'Handler_delete'];

/**
 * A number that moves whenever any row is written: SQLite's `total_changes()` of the one connection, or the sum of
 * MariaDB's handler counters (server-wide, so other writers only make it move more often). While it stands still
 * the tables need not be read again.
 */
async function writeCounter(db: Knex): Promise<number> {
  if (dialect(db) === 'sqlite') return Number(((await db.raw('select total_changes() as n')) as Array<{ n: number }>)[0].n);
  const [rows] = (await db.raw(`show global status where variable_name in (${ROW_WRITE_COUNTERS.map(() => '?').join(', ')})`, ROW_WRITE_COUNTERS)) as [
    Array<{ Value: string }>,
  ];
  if (rows.length !== ROW_WRITE_COUNTERS.length) throw new Error(`the database reports ${rows.length} of the counters ${ROW_WRITE_COUNTERS.join(', ')}`);
  return rows.reduce((sum, row) => sum + Number(row.Value), 0);
}

function diff(table: string, before: string[], after: string[]): TableChange | null {
  const old = new Set(before);
  const now = new Set(after);
  const removed = before.filter((row) => !now.has(row));
  const added = after.filter((row) => !old.has(row));
  return removed.length || added.length ? { table, removed, added } : null;
}

/** The store's tables between requests: `changes()` gives what differs since its last call. */
export class TableWatch {
  private constructor(
    private readonly db: Knex,
    private readonly tables: string[],
    private counter: number,
    private rows: Rows,
  ) {}

  static async start(db: Knex, tables: string[]): Promise<TableWatch> {
    const counter = await writeCounter(db);
    return new TableWatch(db, tables, counter, await readRows(db, tables));
  }

  async changes(): Promise<TableChange[]> {
    // Read before the rows: a write in between makes the next call read them again, never miss a change.
    const counter = await writeCounter(this.db);
    if (counter === this.counter) return [];
    const rows = await readRows(this.db, this.tables);
    const changes = this.tables.flatMap((table) => diff(table, this.rows.get(table) ?? [], rows.get(table) ?? []) ?? []);
    this.counter = counter;
    this.rows = rows;
    return changes;
  }
}
