import { Type } from '@sinclair/typebox';
import { StoreSettingsPolicy } from '../../src/core/policies';
import { RateLimits } from '../../src/core/ratelimit';
import { mountRoutes, route } from '../../src/core/routes';
import { startTestApp, type TestApp, type TestUser } from '../support/app';

const PROTECTED = '/wp-json/test/v1/settings';
const FORBIDDEN = { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.' };

describe('authentication', () => {
  let app: TestApp;
  let admin: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    mountRoutes(
      app.host,
      'test/v1',
      [
        route({
          method: 'GET',
          path: '/settings',
          policy: StoreSettingsPolicy,
          permission: 'store/settings',
          schema: { query: Type.Object({}) },
          envelope: 'message',
          handler: async (ctx) => ({ user: ctx.user?.login }),
        }),
        route({
          method: 'POST',
          path: '/settings',
          policy: StoreSettingsPolicy,
          permission: 'store/settings',
          envelope: 'message',
          handler: async (ctx) => ({ saved_by: ctx.user?.login }),
        }),
      ],
      { limits: new RateLimits(app.host.db) },
    );
    admin = await app.createUser('admin', ['administrator']);
    shopper = await app.createUser('shopper');
  });
  afterAll(() => app.close());

  describe('application passwords (HTTP Basic)', () => {
    it('the right password: 200 as that user', async () => {
      const res = await app.as(admin).get(PROTECTED);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user: 'admin' });
    });

    it('is accepted with and without the spaces WordPress shows', async () => {
      expect(admin.appPassword).toMatch(/^(\w{4} ){5}\w{4}$/);
      const res = await app.http.get(PROTECTED).auth('admin', admin.appPassword.replace(/ /g, ''));
      expect(res.status).toBe(200);
    });

    it('the email address works as the login', async () => {
      const res = await app.http.get(PROTECTED).auth('admin@example.com', admin.appPassword);
      expect(res.status).toBe(200);
    });

    it.each([
      ['a wrong password', 'admin', 'abcd efgh ijkl mnop qrst uvwx'],
      ['the login password instead', 'admin', 'admin-Pass-123'],
      ['an unknown user', 'ghost', 'abcd efgh ijkl mnop qrst uvwx'],
    ])('%s: 401 rest_forbidden', async (_name, login, password) => {
      const res = await app.http.get(PROTECTED).auth(login, password);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ...FORBIDDEN, data: { status: 401 } });
    });

    it('no credentials at all: 401', async () => {
      const res = await app.http.get(PROTECTED);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ...FORBIDDEN, data: { status: 401 } });
    });

    describe('the Basic header is decoded strictly', () => {
      const encoded = () => Buffer.from(`admin:${admin.appPassword}`).toString('base64');
      const INVALID = {
        code: 'rest_invalid_authorization',
        message: 'The Authorization header is not valid HTTP Basic credentials (base64 of login:password).',
        data: { status: 401 },
      };

      it('valid credentials, written by hand: 200 as that user', async () => {
        const res = await app.http.get(PROTECTED).set('Authorization', `Basic ${encoded()}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ user: 'admin' });
      });

      it.each([
        ['"!!!" appended', (b64: string) => `${b64}!!!`],
        ['" garbage" appended', (b64: string) => `${b64} garbage`],
        ['its padding left out', (b64: string) => b64.replace(/=+$/, '')],
        ['a character outside base64 inside it', (b64: string) => `${b64.slice(0, 8)}*${b64.slice(8)}`],
        ['text that is not UTF-8', () => Buffer.concat([Buffer.from('admin:'), Buffer.from([0xff, 0xfe])]).toString('base64')],
        ['no colon', () => Buffer.from('admin').toString('base64')],
        ['an empty login', () => Buffer.from(':password').toString('base64')],
      ])('%s: 401, never the user the valid part names', async (_what, mangle) => {
        expect(encoded()).toMatch(/=$/);
        const res = await app.http.get(PROTECTED).set('Authorization', `Basic ${mangle(encoded())}`);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(INVALID);
      });
    });

    it('a user without the permission: 403 with the same shape', async () => {
      const res = await app.as(shopper).get(PROTECTED);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ ...FORBIDDEN, data: { status: 403 } });
    });

    it('a store role grants its permissions', async () => {
      const manager = await app.createUser('manager', ['shop_manager']);
      expect((await app.as(manager).get(PROTECTED)).status).toBe(200);
      const clerk = await app.createUser('clerk', ['customer_service']);
      expect((await app.as(clerk).get(PROTECTED)).status).toBe(403);
    });

    it('the store/user/can filter has the last word', async () => {
      const off = app.host.hooks.addFilter('store/user/can', (allowed, { permission }) => (permission === 'store/settings' ? false : allowed));
      try {
        expect((await app.as(admin).get(PROTECTED)).status).toBe(403);
      } finally {
        off();
      }
      expect((await app.as(admin).get(PROTECTED)).status).toBe(200);
    });

    it('a revoked password stops working at once, even after a cached success', async () => {
      const user = await app.host.users.create({ login: 'temp', email: 'temp@example.com', roles: ['administrator'] });
      const { password, record } = await app.host.users.appPasswords.create(user.id, 'temp');
      expect((await app.http.get(PROTECTED).auth('temp', password)).status).toBe(200);
      expect((await app.http.get(PROTECTED).auth('temp', password)).status).toBe(200);
      expect(await app.host.users.appPasswords.revoke(record.id)).toBe(true);
      expect((await app.http.get(PROTECTED).auth('temp', password)).status).toBe(401);
    });

    it('a revocation or role change made by another process applies within a second', async () => {
      const user = await app.host.users.create({ login: 'remote', email: 'remote@example.com', roles: ['administrator'] });
      const { password, record } = await app.host.users.appPasswords.create(user.id, 'remote');
      expect((await app.http.get(PROTECTED).auth('remote', password)).status).toBe(200);
      await app.database
        .db('usermeta')
        .where({ user_id: user.id, meta_key: 'roles' })
        .update({ meta_value: JSON.stringify(['customer']) });
      app.clock.advance(1001);
      expect((await app.http.get(PROTECTED).auth('remote', password)).status).toBe(403);
      await app.database.db('app_passwords').where({ id: record.id }).delete();
      expect((await app.http.get(PROTECTED).auth('remote', password)).status).toBe(403);
      app.clock.advance(1001);
      expect((await app.http.get(PROTECTED).auth('remote', password)).status).toBe(401);
    });

    it('a role change made through this process applies at once', async () => {
      const user = await app.host.users.create({ login: 'demoted', email: 'demoted@example.com', roles: ['administrator'] });
      const { password } = await app.host.users.appPasswords.create(user.id, 'x');
      expect((await app.http.get(PROTECTED).auth('demoted', password)).status).toBe(200);
      await app.host.users.removeRole(user.id, 'administrator');
      expect((await app.http.get(PROTECTED).auth('demoted', password)).status).toBe(403);
    });

    it('stores only a hash and records the last use', async () => {
      const rows = await app.database.db('app_passwords').where({ user_id: admin.user.id });
      expect(rows).toHaveLength(1);
      expect(rows[0].password_hash).toMatch(/^\$scrypt\$/);
      expect(rows[0].password_hash).not.toContain(admin.appPassword.replace(/ /g, ''));
      expect(rows[0].last_used_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    });
  });

  describe('cookie sessions and the REST nonce', () => {
    async function loggedIn() {
      const browser = app.browser();
      expect((await browser.login('admin', admin.password)).status).toBe(200);
      return browser;
    }

    it('cookie + valid nonce: the logged-in user', async () => {
      const browser = await loggedIn();
      const res = await browser.call('get', PROTECTED);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ user: 'admin' });
    });

    it('cookie without a nonce acts as a guest: 401', async () => {
      const browser = await loggedIn();
      const res = await browser.agent.get(PROTECTED);
      expect(res.status).toBe(401);
    });

    it('cookie with a wrong nonce: 403 rest_cookie_invalid_nonce, on reads and writes', async () => {
      const browser = await loggedIn();
      for (const method of ['get', 'post'] as const) {
        const res = await browser.agent[method](PROTECTED).set('X-WP-Nonce', 'deadbeef00');
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: 'rest_cookie_invalid_nonce', message: expect.any(String), data: { status: 403 } });
      }
    });

    it("another session's nonce is refused: 403", async () => {
      const mine = await loggedIn();
      const theirs = await loggedIn();
      const res = await mine.agent.post(PROTECTED).set('X-WP-Nonce', theirs.nonce!);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('rest_cookie_invalid_nonce');
    });

    it('a nonce from the previous 12-hour tick is accepted; an older one is refused', async () => {
      const browser = await loggedIn();
      const start = app.clock.now();
      try {
        app.clock.advance(12 * 3600 * 1000);
        expect((await browser.call('post', PROTECTED)).status).toBe(200);
        app.clock.advance(12 * 3600 * 1000);
        const res = await browser.call('post', PROTECTED);
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('rest_cookie_invalid_nonce');
      } finally {
        app.clock.set(start);
      }
    });

    it('GET /wp-json/host/v1/nonce gives a logged-in browser a fresh nonce without sending one', async () => {
      const browser = await loggedIn();
      const res = await browser.agent.get('/wp-json/host/v1/nonce');
      expect(res.status).toBe(200);
      expect(res.headers['x-wp-nonce']).toBe(res.body.nonce);
      const call = await browser.agent.post(PROTECTED).set('X-WP-Nonce', res.body.nonce);
      expect(call.status).toBe(200);
      expect(call.body).toEqual({ saved_by: 'admin' });
    });

    it('sessions are stored in the database under a hash of their id', async () => {
      const browser = await loggedIn();
      const cookie = /store_session=s%3A([^.;]+)/.exec(String((await browser.agent.get('/wp-json/host/v1/nonce')).headers['set-cookie'] ?? ''));
      const rows = await app.database.db('sessions').select('sid_hash', 'user_id');
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.sid_hash).toMatch(/^[0-9a-f]{64}$/);
      if (cookie) expect(rows.map((r) => r.sid_hash)).not.toContain(cookie[1]);
      expect(rows.some((r) => Number(r.user_id) === admin.user.id)).toBe(true);
    });

    it('logout ends the session', async () => {
      const browser = await loggedIn();
      expect((await browser.call('post', '/wp-json/host/v1/logout')).status).toBe(200);
      const res = await browser.call('get', PROTECTED);
      expect([401, 403]).toContain(res.status);
    });
  });
});
