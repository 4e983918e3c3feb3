import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Type } from '@sinclair/typebox';
import { createHost, type HostRuntime } from '../../src/host/app';
import { MovableClock } from '../../src/host/clock';
import { openDatabase } from '../../src/host/database';
import { StoreSettingsPolicy } from '../../src/core/policies';
import { RateLimits } from '../../src/core/ratelimit';
import { mountRoutes, route } from '../../src/core/routes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { BASE, MemoryLogger, testConfig } from '../support/app';

/** Two app processes (two hosts, two connection pools) on one database, as behind a load balancer or across a restart. */
describe('cookie sessions across processes and restarts', () => {
  let database: TestDatabase;
  let url: string;
  const clock = new MovableClock('2026-11-21T10:00:00Z');

  async function startProcess(): Promise<HostRuntime> {
    const db = await openDatabase(url);
    const runtime = await createHost(testConfig(), { db, clock, logger: new MemoryLogger() });
    await runtime.loadPlugin();
    mountRoutes(
      runtime.host,
      'test/v1',
      [
        route({
          method: 'GET',
          path: '/me',
          policy: StoreSettingsPolicy,
          permission: 'store/settings',
          schema: { query: Type.Object({}) },
          envelope: 'message',
          handler: async (ctx) => ({ login: ctx.user?.login }),
        }),
      ],
      { limits: new RateLimits(runtime.host.db) },
    );
    return runtime;
  }

  beforeAll(async () => {
    if (process.env.TEST_DATABASE_URL) {
      database = await createTestDatabase();
      url = database.url;
    } else {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'store-sessions-')), 'store.sqlite');
      url = `sqlite://${file}`;
      database = { db: await openDatabase(url), url, drop: async () => fs.rmSync(path.dirname(file), { recursive: true, force: true }) };
      await database.db.destroy();
    }
  });
  afterAll(() => database.drop());

  it('a session made by one process is honoured by another and after a restart', async () => {
    const first = await startProcess();
    const second = await startProcess();
    try {
      await first.host.users.create({ login: 'owner', email: 'owner@example.com', password: 'Owner-Pass-1', roles: ['administrator'] });
      const nonceRes = await request(first.app).get('/wp-json/host/v1/nonce');
      const guestCookie = nonceRes.headers['set-cookie'] as unknown as string[];
      const login = await request(first.app)
        .post(`${BASE}/user/login`)
        .set('Cookie', guestCookie.map((c) => c.split(';')[0]).join('; '))
        .set('X-WP-Nonce', nonceRes.body.nonce)
        .send({ user_login: 'owner', password: 'Owner-Pass-1' });
      expect(login.status).toBe(200);
      const cookie = (login.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
      const nonce = login.headers['x-wp-nonce'] as string;

      const onSecond = await request(second.app).get('/wp-json/test/v1/me').set('Cookie', cookie).set('X-WP-Nonce', nonce);
      expect(onSecond.status).toBe(200);
      expect(onSecond.body).toEqual({ login: 'owner' });

      await first.close();
      await first.db.destroy();
      const restarted = await startProcess();
      try {
        const afterRestart = await request(restarted.app).get('/wp-json/test/v1/me').set('Cookie', cookie).set('X-WP-Nonce', nonce);
        expect(afterRestart.status).toBe(200);
      } finally {
        await restarted.close();
        await restarted.db.destroy();
      }
    } finally {
      await second.close();
      await second.db.destroy();
    }
  });
});
