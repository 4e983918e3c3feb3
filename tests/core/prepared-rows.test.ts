import type { Knex } from 'knex';
import { dialect, preparedRows } from '../../src/core/db';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * `preparedRows`: hot reads as server-side prepared statements on MySQL/MariaDB (mysql2 `execute`), knex's own path on
 * SQLite. Runs on both databases (TEST_DATABASE_URL for MariaDB).
 */
describe('preparedRows', () => {
  let database: TestDatabase;
  let db: Knex;
  const mysql = () => dialect(db) === 'mysql';

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.db;
    await db.schema.createTable('samples', (t) => {
      t.increments('id');
      t.integer('count').notNullable();
      t.bigInteger('cents').nullable();
      t.decimal('rate', 18, 6).notNullable().defaultTo(1);
      t.dateTime('at').nullable();
      t.string('name', 100).notNullable();
      t.text('meta');
      t.boolean('flag').notNullable().defaultTo(false);
    });
    await db('samples').insert([
      { count: 1, cents: 1099511627776, rate: '1.250000', at: '2026-11-21 10:00:00', name: 'Zoë "quoted"', meta: '{"a":[1,2]}', flag: true },
      { count: 2, cents: null, rate: '0.000001', at: null, name: '', meta: null, flag: false },
      { count: 3, cents: -5, rate: '123456789.5', at: '1999-01-02 03:04:05', name: 'x', meta: '', flag: false },
    ]);
  });
  afterAll(() => database.drop());

  const plain = (rows: unknown[]) => rows.map((row) => ({ ...(row as object) }));

  it('answers the rows of the knex path, with the same JS types (integers, big integers, decimals, dates, text, null)', async () => {
    const query = () => db('samples').select('*').where('count', '>=', 1).orderBy('id');
    const expected = plain(await query());
    expect(expected).toHaveLength(3);
    expect(plain(await preparedRows(db, query()))).toStrictEqual(expected);
    expect(expected[0]).toMatchObject({ count: 1, cents: 1099511627776, rate: 1.25, at: '2026-11-21 10:00:00', name: 'Zoë "quoted"', meta: '{"a":[1,2]}' });
    const aggregate = () => db('samples').count({ n: '*' }).sum({ total: 'cents' }).max({ latest: 'at' });
    expect(plain(await preparedRows(db, aggregate()))).toStrictEqual(plain(await aggregate()));
  });

  it('takes a raw query, or native SQL with its bindings', async () => {
    const raw = db.raw('select name from samples where id = ? or count = ? order by id', [1, 3]);
    const native = raw.toSQL().toNative();
    expect(plain(await preparedRows(db, raw))).toStrictEqual([{ name: 'Zoë "quoted"' }, { name: 'x' }]);
    expect(plain(await preparedRows(db, native))).toStrictEqual([{ name: 'Zoë "quoted"' }, { name: 'x' }]);
  });

  it("runs inside a transaction on the transaction's connection, and refuses once it is finished", async () => {
    let finished: Knex.Transaction | null = null;
    let seen: string[] = [];
    await expect(
      db.transaction(async (trx) => {
        await trx('samples').insert({ count: 40, name: 'uncommitted' });
        seen = (await preparedRows<{ name: string }>(trx, trx('samples').where('count', 40).select('name'))).map((r) => r.name);
        finished = trx;
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(seen).toEqual(['uncommitted']);
    expect(await db('samples').where('count', 40)).toEqual([]);
    await expect(preparedRows(finished!, finished!('samples').select('id'))).rejects.toThrow(/Transaction query already complete/);
  });

  it('keeps the statement prepared: the database parses its text once per connection', async () => {
    const sql = `select id from samples where count = ? /* reuse ${Date.now()} */`;
    if (mysql()) {
      await db.transaction(async (trx) => {
        const counters = async () =>
          Object.fromEntries(
            ((await trx.raw(`show session status like 'Com_stmt_%'`)) as [Array<{ Variable_name: string; Value: string }>])[0].map((r) => [
              r.Variable_name,
              Number(r.Value),
            ]),
          );
        const before = await counters();
        for (const count of [1, 2, 3]) expect(await preparedRows(trx, { sql, bindings: [count] })).toHaveLength(1);
        const after = await counters();
        expect(after.Com_stmt_prepare - before.Com_stmt_prepare).toBe(1);
        expect(after.Com_stmt_execute - before.Com_stmt_execute).toBe(3);
      });
    } else {
      // SQLite: one connection, whose prepare() hands back the same better-sqlite3 statement for the same text.
      const connection = (await db.client.acquireConnection()) as { prepare(sql: string): unknown };
      try {
        expect(connection.prepare(sql)).toBe(connection.prepare(sql));
      } finally {
        await db.client.releaseConnection(connection);
      }
      expect(await preparedRows(db, { sql, bindings: [2] })).toHaveLength(1);
    }
  });

  it('reports the statement as a knex query event (what the benchmark and debug logs read)', async () => {
    const seen: Array<{ sql: string; bindings: unknown }> = [];
    const listener = (query: { sql: string; bindings: unknown }) => seen.push({ sql: query.sql, bindings: query.bindings });
    db.on('query', listener);
    try {
      await preparedRows(db, db('samples').where('id', 2).select('name'));
    } finally {
      db.off('query', listener);
    }
    expect(seen).toEqual([{ sql: 'select `name` from `samples` where `id` = ?', bindings: [2] }]);
  });

  it('a failing statement rejects and hands its connection back (more failures than the pool has connections)', async () => {
    // (`toHaveProperty`, not `toThrow`: better-sqlite3's errors may come from another test file's realm)
    for (let i = 0; i < 12; i++)
      await expect(preparedRows(db, { sql: 'select no_such_column from samples', bindings: [] })).rejects.toHaveProperty(
        'message',
        expect.stringMatching(/no_such_column/),
      );
    await expect(preparedRows(db, { sql: 'select ? as v', bindings: [undefined as unknown as number] })).rejects.toThrow(/undefined/i);
    expect(plain(await preparedRows(db, { sql: 'select count(*) as n from samples', bindings: [] }))).toEqual([{ n: 3 }]);
  });
});
