import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { ConfigError } from './config';

export type Dialect = 'sqlite' | 'mysql';

interface ParsedUrl {
  dialect: Dialect;
  connection: Knex.Config['connection'];
  filename?: string;
}

function parseDatabaseUrl(url: string): ParsedUrl {
  if (url === 'sqlite::memory:' || url === 'sqlite://:memory:') return { dialect: 'sqlite', connection: { filename: ':memory:' } };
  if (url.startsWith('sqlite://')) {
    const filename = url.slice('sqlite://'.length);
    if (!filename) throw new ConfigError('DATABASE_URL: a sqlite URL needs a file path, e.g. sqlite:///var/lib/store/store.sqlite');
    return { dialect: 'sqlite', connection: { filename }, filename };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL (expected mysql://user:pass@host:port/db or sqlite:///path/file.sqlite)');
  }
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:') {
    throw new ConfigError(`DATABASE_URL: unsupported database "${parsed.protocol.replace(':', '')}" (use mysql:// or sqlite://)`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database) throw new ConfigError('DATABASE_URL: the mysql URL must name a database, e.g. mysql://user:pass@127.0.0.1:3306/store');
  return {
    dialect: 'mysql',
    connection: {
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 3306,
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database,
      charset: 'utf8mb4',
      timezone: 'Z',
      dateStrings: true,
      decimalNumbers: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      connectTimeout: 5000,
      // `execute` (core/db.ts preparedRows) keeps statements prepared per connection; the hot reads use a few dozen
      // texts. MariaDB caps prepared statements server-wide (max_prepared_stmt_count, 16,382 by default): 10 pooled
      // connections per process at 128 each leave room for many processes.
      maxPreparedStatements: 128,
    },
  };
}

interface SqliteConnection {
  pragma(sql: string): unknown;
  prepare(sql: string): unknown;
}

const STATEMENT_CACHE_SIZE = 1000;

/**
 * knex prepares every query anew; compiling the SQL costs more than running it on small lookups. The same SQL
 * text gets the same prepared statement back (better-sqlite3 statements are reusable; knex runs them to
 * completion synchronously and never streams here, and SQLite re-prepares them itself after a schema change).
 * Transactions begin IMMEDIATE (see below).
 */
function cachePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (text: string) => {
    // knex opens transactions DEFERRED; one that reads and then writes fails at once with SQLITE_BUSY when another
    // process (WORKERS > 1) writes meanwhile. IMMEDIATE takes the write lock up front and waits busy_timeout for it.
    const sql = text === 'BEGIN;' ? 'BEGIN IMMEDIATE;' : text;
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    }
    return statement;
  };
}

export function dialectOf(db: Knex): Dialect {
  return db.client.config.client === 'mysql2' ? 'mysql' : 'sqlite';
}

/** Creates the knex instance for a DATABASE_URL and checks that the database answers. */
export async function openDatabase(url: string): Promise<Knex> {
  const parsed = parseDatabaseUrl(url);
  if (parsed.filename) fs.mkdirSync(path.dirname(path.resolve(parsed.filename)), { recursive: true });
  const db =
    parsed.dialect === 'sqlite'
      ? knex({
          client: 'better-sqlite3',
          connection: parsed.connection,
          useNullAsDefault: true,
          pool: {
            min: 1,
            max: 1,
            afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
              conn.pragma('journal_mode = WAL');
              conn.pragma('busy_timeout = 5000');
              conn.pragma('foreign_keys = ON');
              conn.pragma('synchronous = NORMAL');
              cachePreparedStatements(conn);
              done(null, conn);
            },
          },
        })
      : knex({
          client: 'mysql2',
          connection: parsed.connection,
          pool: { min: 0, max: 10 },
          // Connection failures surface as thrown errors, reported once by the caller; knex would also print them.
          log: { error: () => undefined },
        });
  try {
    await db.raw('select 1');
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw new ConfigError(`cannot reach the database (${describeDbError(error)})`);
  }
  return db;
}

function describeDbError(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ER_ACCESS_DENIED_ERROR') return 'access denied for that user and password';
  if (e.code === 'ER_BAD_DB_ERROR') return 'the database does not exist';
  if (e.code === 'ENOTFOUND') return 'host not found';
  if (e.code === 'ETIMEDOUT') return 'connection timed out';
  return e.code ?? e.message?.split('\n')[0] ?? 'unknown error';
}
