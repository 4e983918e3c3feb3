/**
 * `migrations/20261123000900_shipping_rest_of_world_key.ts`: the unique key that allows one rest-of-world zone. A
 * store that already had several keeps the one the calculator used (first by position, then id).
 */
import { down, up } from '../../migrations/20261123000900_shipping_rest_of_world_key';
import { startTestApp, type TestApp } from '../support/app';

describe('migration: one rest-of-world shipping zone', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('keys the zone the calculator used and makes the other rest-of-world zones plain zones', async () => {
    const db = app.database.db;
    await down(db);
    const zone = (name: string, is_rest_of_world: number, position: number) => ({
      name,
      countries: '[]',
      states: '[]',
      is_rest_of_world,
      position,
      created_at: '2026-11-21 10:00:00',
      updated_at: '2026-11-21 10:00:00',
    });
    await db('store_shipping_zones').insert([zone('World A', 1, 5), zone('Germany', 0, 0), zone('World B', 1, 2), zone('World C', 1, 2)]);
    await up(db);
    const rows = await db('store_shipping_zones').orderBy('id').select('name', 'is_rest_of_world', 'rest_of_world_key');
    expect(rows).toEqual([
      { name: 'World A', is_rest_of_world: 0, rest_of_world_key: null },
      { name: 'Germany', is_rest_of_world: 0, rest_of_world_key: null },
      { name: 'World B', is_rest_of_world: 1, rest_of_world_key: 1 },
      { name: 'World C', is_rest_of_world: 0, rest_of_world_key: null },
    ]);
    // better-sqlite3's error class comes from the first test file's realm, so match the message, not `toThrow`.
    await expect(db('store_shipping_zones').insert({ ...zone('World D', 1, 0), rest_of_world_key: 1 })).rejects.toHaveProperty(
      'message',
      expect.stringMatching(/UNIQUE constraint failed|Duplicate entry/),
    );
  });
});
