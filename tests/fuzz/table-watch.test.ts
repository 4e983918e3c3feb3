import { startTestApp, type TestApp } from '../support/app';
import { tableNames, TableWatch, UNCHECKED_TABLES } from './table-watch';

describe('TableWatch (what the fuzzer holds a refused request to: it changed nothing)', () => {
  let app: TestApp;
  let watch: TableWatch;
  const db = () => app.host.db;

  beforeAll(async () => {
    app = await startTestApp();
    watch = await TableWatch.start(db(), await tableNames(db()));
  });
  afterAll(() => app.close());

  it('watches every table of the store but the two written by design', async () => {
    const tables = await tableNames(db());
    expect(tables).toEqual(expect.arrayContaining(['store_customers', 'store_orders', 'users', 'sessions', 'options']));
    expect(tables).not.toEqual(expect.arrayContaining([...UNCHECKED_TABLES]));
  });

  it('names the rows a write changed, once', async () => {
    await app.createUser('watched');
    const changes = await watch.changes();
    expect(changes.map((change) => change.table)).toEqual(['app_passwords', 'usermeta', 'users']);
    expect(changes[2]).toEqual({ table: 'users', removed: [], added: [expect.stringContaining('"login":"watched"')] });
    expect(await watch.changes()).toEqual([]);
  });

  it('sees an update that keeps the row count', async () => {
    await db()('users').where({ login: 'watched' }).update({ display_name: 'Renamed' });
    expect(await watch.changes()).toEqual([
      { table: 'users', removed: [expect.not.stringContaining('Renamed')], added: [expect.stringContaining('"display_name":"Renamed"')] },
    ]);
  });

  it('ignores the rate-limit counters and idempotency keys', async () => {
    await db()('store_rate_limits').insert({ key: 'fuzz', points: 1, expire: null });
    expect(await watch.changes()).toEqual([]);
  });
});
