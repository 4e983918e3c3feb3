import type { Knex } from 'knex';
import type { Connection, ExecuteValues, RowDataPacket } from 'mysql2';

export type Dialect = 'sqlite' | 'mysql';

export function dialect(db: Knex | Knex.Transaction): Dialect {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

/**
 * Escapes LIKE wildcards so search text matches literally. The escape character is `!`, not a backslash:
 * a backslash inside a SQL string literal means different things to SQLite and MySQL.
 */
export function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** `column LIKE %text%` with wildcards in the text taken literally, on both dialects. */
export function whereContains(query: Knex.QueryBuilder, column: string, text: string): Knex.QueryBuilder {
  return query.whereRaw(`?? like ? escape '!'`, [column, `%${escapeLike(text)}%`]);
}

/** The id of a row just inserted (`[id]` on SQLite, `[insertId]` on MySQL). */
export function insertedId(result: unknown): number {
  const first = Array.isArray(result) ? result[0] : result;
  return Number(typeof first === 'object' && first !== null ? (first as { id?: number }).id : first);
}

/** Rows of `knex.raw` (SQLite returns rows, mysql2 `[rows, fields]`). */
export function rawRows<T>(db: Knex | Knex.Transaction, result: unknown): T[] {
  return (dialect(db) === 'mysql' ? (result as [T[]])[0] : result) as T[];
}

/** A pooled mysql2 connection as knex hands it out. */
type MysqlConnection = Connection & { __knexUid?: string; __knexTxId?: string };

/**
 * The rows of a hot read whose SQL text is fixed (values are bindings: a query, or its native SQL and bindings), as a
 * server-side prepared statement on MySQL/MariaDB: mysql2's `execute` keeps each statement prepared per connection, so
 * the server parses the text once per connection instead of on every request. It runs where knex would run it: on the
 * transaction's connection when `db` is a transaction, else on a connection from knex's pool, released after. The rows
 * have the types of knex's path (the connection settings in host/database.ts apply to both protocols). On SQLite it is
 * knex's own path (statements are prepared once per connection there already, see host/database.ts).
 *
 * Not for SQL whose text varies with the input (a list of n placeholders): every distinct text stays prepared on each
 * connection until mysql2's per-connection cache (`maxPreparedStatements`) evicts it.
 */
export async function preparedRows<T>(db: Knex | Knex.Transaction, query: Knex.QueryBuilder | Knex.Raw | Knex.SqlNative): Promise<T[]> {
  const { sql, bindings } = 'toSQL' in query ? query.toSQL().toNative() : query;
  if (dialect(db) === 'sqlite') return (await db.raw(sql, bindings as Knex.RawBinding[])) as T[];
  // A finished transaction has handed its connection back to the pool: knex refuses such queries too.
  if (db.isTransaction && (db as Knex.Transaction).isCompleted()) throw new Error(`Transaction query already complete: ${sql}`);
  const client = db.client as Knex.Client;
  const connection = (await client.acquireConnection()) as MysqlConnection;
  const { __knexUid, __knexTxId } = connection;
  try {
    client.emit('query', { sql, bindings, method: 'raw', __knexUid, __knexTxId });
    return await new Promise<T[]>((resolve, reject) => {
      connection.execute<RowDataPacket[]>(sql, bindings as ExecuteValues, (error, rows) => (error ? reject(error) : resolve(rows as T[])));
    });
  } catch (error) {
    client.emit('query-error', error, { sql, bindings, __knexUid, __knexTxId });
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** JSON columns: SQLite gives text, MySQL may give an object. */
export function parseJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined || value === '') return fallback;
  if (typeof value !== 'string') return value as T;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

/** A day bucket `YYYY-MM-DD` of a timestamp column, for GROUP BY. */
export function dayBucket(db: Knex | Knex.Transaction, column: string): Knex.Raw {
  return dialect(db) === 'mysql' ? db.raw(`DATE_FORMAT(??, '%Y-%m-%d')`, [column]) : db.raw(`strftime('%Y-%m-%d', ??)`, [column]);
}

/** Row locks where the database has them (MySQL); SQLite serialises writers on its single connection. */
export function lockForUpdate(query: Knex.QueryBuilder, db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return dialect(db) === 'mysql' ? query.forUpdate() : query;
}

/** Shared row locks (MySQL): the rows cannot change or go until the transaction ends, while other readers may share them. */
export function lockForShare(query: Knex.QueryBuilder, db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return dialect(db) === 'mysql' ? query.forShare() : query;
}

export type AfterCommit = (callback: () => void | Promise<void>) => void;

/** Errors after which the whole transaction may simply run again: it was rolled back as a deadlock victim, or waited too long. */
const LOCK_CONFLICTS = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'SQLITE_BUSY']);

/** A duplicate key on either database (another transaction wrote the same unique value first). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && LOCK_CONFLICTS.has(code);
}

/**
 * Runs `work` (a whole transaction) again, a few times after a short random pause, when it lost a lock conflict. Only
 * for work that writes nothing outside its transaction before it commits.
 */
export async function retryOnLockConflict<T>(work: () => Promise<T>, tries = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= tries || !isLockConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 5 + Math.random() * 20));
    }
  }
}

/**
 * Runs `work` in one transaction; callbacks registered with `afterCommit` run only once it has committed
 * (hooks fire after commit). A failing callback is logged by its caller's hook bus, never undoing the commit.
 */
export async function withTx<T>(
  db: Knex,
  work: (trx: Knex.Transaction, afterCommit: AfterCommit) => Promise<T>,
  onCallbackError: (error: unknown) => void = () => undefined,
): Promise<T> {
  const callbacks: Array<() => void | Promise<void>> = [];
  const result = await db.transaction((trx) => work(trx, (callback) => callbacks.push(callback)));
  for (const callback of callbacks) {
    try {
      await callback();
    } catch (error) {
      onCallbackError(error);
    }
  }
  return result;
}

/**
 * One multi-row `INSERT ... VALUES (...), (...)`. knex's own multi-row insert on SQLite is `INSERT ... SELECT ...
 * UNION ALL SELECT ...`, which SQLite caps at 500 terms; plain VALUES lists work on both databases (SQLite allows
 * 32,766 bound values per statement, MySQL 65,535: a batch of 1,000 address rows binds 19,000).
 */
export async function insertMany(trx: Knex.Transaction, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0]);
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const bindings: unknown[] = [table, ...columns];
  for (const row of rows) for (const column of columns) bindings.push(row[column] ?? null);
  await trx.raw(`insert into ?? (${columns.map(() => '??').join(', ')}) values ${rows.map(() => tuple).join(', ')}`, bindings as Knex.RawBinding[]);
}

/** The transaction `db` is, or undefined for the pool: what the `via` parameters (options, settings) take. */
export const transactionOf = (db: Knex | Knex.Transaction): Knex.Transaction | undefined => (db.isTransaction ? (db as Knex.Transaction) : undefined);
