import type { Knex } from 'knex';
import { parseJson, preparedRows, rawRows } from './db';

/**
 * Rows of several tables read in ONE statement: a `union all` of one branch per table, each row packed with
 * `json_object(...)` (the same function on SQLite and MySQL/MariaDB) as `(kind, owner, data)`. A round trip costs more
 * than these index lookups (on MariaDB ~0.2-0.4 ms of CPU each), so a detail page costs one statement instead of ten.
 *
 * A branch names the table its rows come from (aliased `t`), the kind of each row, the id of the record each row
 * belongs to, and the rest of the statement, in which `IDS` stands for those records (`t.order_id in (IDS)`).
 */
export interface Branch {
  table: string;
  /** SQL for the kind of a row: usually a literal (`'item'`). */
  kind: string;
  /** SQL for the id of the record the row belongs to. */
  owner: string;
  /** What follows `from`. */
  from: string;
}

/** What `IDS` stands for: placeholders for ids, or a subquery that puts ownership into the statement. */
export interface Owners {
  sql: string;
  bindings: readonly number[];
}

export const ownerIds = (ids: readonly number[]): Owners => ({ sql: ids.map(() => '?').join(', '), bindings: ids });

export type Row = Record<string, unknown>;

/** Rows by kind, each with the id of the record it belongs to. */
export type Related<Kind extends string> = Map<Kind, Array<{ owner: number; row: Row }>>;

/** The columns of each table, read from the schema once per database (so a new column shows without code changes). */
const columnCache = new WeakMap<Knex, Map<string, Promise<string[]>>>();

function columnsOf(db: Knex, table: string): Promise<string[]> {
  let tables = columnCache.get(db);
  if (!tables) columnCache.set(db, (tables = new Map()));
  let columns = tables.get(table);
  if (!columns) {
    columns = db(table)
      .columnInfo()
      .then((info) => Object.keys(info).filter((c) => /^\w+$/.test(c)));
    columns.catch(() => tables.delete(table));
    tables.set(table, columns);
  }
  return columns;
}

interface Statement {
  sql: string;
  /** How many times `IDS` occurs: the owners' bindings are repeated that many times. */
  slots: number;
}

async function statementOf(db: Knex, branches: readonly Branch[], owners: Owners): Promise<Statement> {
  const selects = await Promise.all(
    branches.map(async ({ table, kind, owner, from }) => {
      const pairs = (await columnsOf(db, table)).map((c) => `'${c}', t.\`${c}\``).join(', ');
      return `select ${kind} as kind, ${owner} as owner, json_object(${pairs}) as data from ${from}`;
    }),
  );
  let slots = 0;
  const sql = selects.join(' union all ').replace(/IDS/g, () => {
    slots++;
    return owners.sql;
  });
  return { sql, slots };
}

/** Statements of fixed text (prepared ones), built once per database: the text is long and the same every time. */
const statementCache = new WeakMap<Knex, Map<string, Promise<Statement>>>();

function cachedStatementOf(db: Knex, branches: readonly Branch[], owners: Owners): Promise<Statement> {
  let statements = statementCache.get(db);
  if (!statements) statementCache.set(db, (statements = new Map()));
  const key = `${owners.sql}|${branches.map((b) => `${b.kind} ${b.from}`).join('|')}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = statementOf(db, branches, owners);
    statement.catch(() => statements.delete(key));
    statements.set(key, statement);
  }
  return statement;
}

/**
 * Runs the branches for `owners`. `prepared` runs the statement as a server-side prepared statement (`preparedRows`):
 * right for a detail page, whose text is the same on every request (and is built once); a page of n records has a text
 * per n.
 */
export async function relatedRows<Kind extends string>(
  db: Knex,
  branches: readonly Branch[],
  owners: Owners,
  options: { prepared?: boolean } = {},
): Promise<Related<Kind>> {
  const out: Related<Kind> = new Map();
  if (!owners.bindings.length || !branches.length) return out;
  const { sql, slots } = await (options.prepared ? cachedStatementOf : statementOf)(db, branches, owners);
  const bindings: number[] = [];
  for (let i = 0; i < slots; i++) bindings.push(...owners.bindings);
  type Packed = { kind: Kind; owner: number | string; data: unknown };
  const rows = options.prepared ? await preparedRows<Packed>(db, { sql, bindings }) : rawRows<Packed>(db, await db.raw(sql, bindings));
  for (const { kind, owner, data } of rows) {
    let list = out.get(kind);
    if (!list) out.set(kind, (list = []));
    list.push({ owner: Number(owner), row: parseJson<Row>(data, {}) });
  }
  return out;
}

/** Sorts rows by numeric columns, each ascending (`-column` descending). */
export const by =
  (...columns: string[]) =>
  (a: Row, b: Row): number => {
    for (const column of columns) {
      const key = column.replace('-', '');
      const diff = (Number(a[key]) - Number(b[key])) * (column.startsWith('-') ? -1 : 1);
      if (diff) return diff;
    }
    return 0;
  };
