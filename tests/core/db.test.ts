import { dialect, escapeLike, insertedId, parseJson, whereContains, withTx } from '../../src/core/db';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('core/db helpers', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.db.schema.createTable('things', (t) => {
      t.increments('id');
      t.string('name', 100).notNullable();
      t.text('meta');
    });
  });
  afterAll(() => database.drop());

  it('names the dialect', () => {
    expect(dialect(database.db)).toBe(process.env.TEST_DATABASE_URL ? 'mysql' : 'sqlite');
  });

  it('insertedId reads the id the same way on both dialects', async () => {
    const id = insertedId(await database.db('things').insert({ name: 'first', meta: JSON.stringify({ a: 1 }) }));
    expect(id).toBeGreaterThan(0);
    const row = await database.db('things').where({ id }).first();
    expect(row.name).toBe('first');
    expect(parseJson(row.meta, {})).toEqual({ a: 1 });
  });

  it.each([
    ['plain', 'plain'],
    ['100%', '100!%'],
    ['a_b', 'a!_b'],
    ['wow!', 'wow!!'],
    ['back\\slash', 'back\\slash'],
  ])('escapeLike(%j) = %j', (input, expected) => {
    expect(escapeLike(input)).toBe(expected);
  });

  it('whereContains takes %, _ and quotes literally', async () => {
    await database
      .db('things')
      .insert([{ name: '100% cotton' }, { name: '1000 cotton' }, { name: "O'Brien_x" }, { name: 'OXBrienYx' }, { name: 'C:\\dir' }, { name: 'Hey!' }]);
    const names = async (text: string) =>
      (await whereContains(database.db('things').select('name'), 'name', text).orderBy('id')).map((r: { name: string }) => r.name);
    expect(await names('100%')).toEqual(['100% cotton']);
    expect(await names("O'Brien_")).toEqual(["O'Brien_x"]);
    expect(await names('C:\\d')).toEqual(['C:\\dir']);
    expect(await names('y!')).toEqual(['Hey!']);
  });

  it.each([
    [null, []],
    ['', []],
    ['[1,2]', [1, 2]],
    [{ already: 'object' }, { already: 'object' }],
    ['{broken', []],
  ])('parseJson(%j)', (input, expected) => {
    expect(parseJson(input, [])).toEqual(expected);
  });

  describe('withTx', () => {
    it('runs afterCommit callbacks only after the commit, in order', async () => {
      const seen: string[] = [];
      await withTx(database.db, async (trx, afterCommit) => {
        await trx('things').insert({ name: 'tx-1' });
        afterCommit(() => {
          seen.push('first');
        });
        afterCommit(async () => {
          const row = await database.db('things').where({ name: 'tx-1' }).first();
          seen.push(row ? 'visible' : 'missing');
        });
        seen.push('in transaction');
      });
      expect(seen).toEqual(['in transaction', 'first', 'visible']);
    });

    it('on rollback nothing is written and no callback runs', async () => {
      const seen: string[] = [];
      await expect(
        withTx(database.db, async (trx, afterCommit) => {
          await trx('things').insert({ name: 'tx-2' });
          afterCommit(() => {
            seen.push('ran');
          });
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(seen).toEqual([]);
      expect(await database.db('things').where({ name: 'tx-2' }).first()).toBeUndefined();
    });

    it('a failing callback is reported and does not undo the commit or stop the others', async () => {
      const errors: unknown[] = [];
      const seen: string[] = [];
      const result = await withTx(
        database.db,
        async (trx, afterCommit) => {
          await trx('things').insert({ name: 'tx-3' });
          afterCommit(() => {
            throw new Error('listener broke');
          });
          afterCommit(() => {
            seen.push('second ran');
          });
          return 'done';
        },
        (error) => errors.push(error),
      );
      expect(result).toBe('done');
      expect(seen).toEqual(['second ran']);
      expect(errors).toHaveLength(1);
      expect(await database.db('things').where({ name: 'tx-3' }).first()).toBeDefined();
    });
  });
});
