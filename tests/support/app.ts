import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createHost, type HostRuntime } from '../../src/host/app';
import { MovableClock } from '../../src/host/clock';
import type { HostConfig } from '../../src/host/config';
import type { Host, HostUser, Logger } from '../../src/host/contract';
import { systemCtx, type Ctx } from '../../src/core/context';
import { RateLimits } from '../../src/core/ratelimit';
import { createTestDatabase, type TestDatabase } from './database';

export const BASE = '/wp-json/store/v2';

/** A logger that keeps what it was told, for asserting that failures were logged. */
export class MemoryLogger implements Logger {
  readonly entries: Array<{ level: string; obj: unknown; msg?: string }> = [];
  debug(obj: unknown, msg?: string) {
    this.entries.push({ level: 'debug', obj, msg });
  }
  info(obj: unknown, msg?: string) {
    this.entries.push({ level: 'info', obj, msg });
  }
  warn(obj: unknown, msg?: string) {
    this.entries.push({ level: 'warn', obj, msg });
  }
  error(obj: unknown, msg?: string) {
    this.entries.push({ level: 'error', obj, msg });
  }
}

export interface TestUser {
  user: HostUser;
  password: string;
  appPassword: string;
}

export interface TestApp {
  runtime: HostRuntime;
  host: Host;
  clock: MovableClock;
  logger: MemoryLogger;
  database: TestDatabase;
  http: ReturnType<typeof request>;
  /**
   * Creates a user with the given roles, a login password and an application password. Its email is verified (as for a
   * user an administrator creates) unless `emailVerified: false`: a shopper who signed up and has not confirmed it.
   */
  createUser(login: string, roles?: string[], options?: { emailVerified?: boolean }): Promise<TestUser>;
  /** Requests authenticated with the user's application password. */
  as(user: TestUser): ApiClient;
  /** A service context outside a request: the system (every permission), or acting as `user`. */
  ctx(user?: TestUser): Ctx;
  /** A browser: a cookie jar; `login` fetches a nonce, logs in and keeps the new nonce. */
  browser(): Browser;
  close(): Promise<void>;
}

type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';
export type ApiClient = Record<Method, (path: string) => request.Test>;

export interface Browser {
  agent: TestAgent;
  nonce: string | null;
  fetchNonce(): Promise<string>;
  login(login: string, password: string, remember?: boolean): Promise<request.Response>;
  /** A request carrying the current nonce in `X-WP-Nonce`. */
  call(method: Method, path: string): request.Test;
}

export function testConfig(): HostConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir: path.join(os.tmpdir(), `store-test-${process.pid}`),
    databaseUrl: 'sqlite::memory:',
    smtpUrl: null,
    secret: 'test-secret',
    siteUrl: 'http://store.test',
    logLevel: 'silent',
    workers: 1,
    trustProxy: false,
  };
}

/** Boots the real host and plugin on a fresh database. */
export async function startTestApp(options: { clock?: MovableClock; plugin?: boolean; config?: Partial<HostConfig> } = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const clock = options.clock ?? new MovableClock('2026-11-21T10:00:00Z');
  const logger = new MemoryLogger();
  const runtime = await createHost({ ...testConfig(), ...options.config }, { db: database.db, clock, logger });
  if (options.plugin !== false) await runtime.loadPlugin();
  const http = request(runtime.app);

  const app: TestApp = {
    runtime,
    host: runtime.host,
    clock,
    logger,
    database,
    http,
    async createUser(login, roles = ['customer'], { emailVerified = true } = {}) {
      const password = `${login}-Pass-123`;
      const user = await runtime.host.users.create({ login, email: `${login}@example.com`, password, roles, email_verified: emailVerified });
      const { password: appPassword } = await runtime.host.users.appPasswords.create(user.id, 'tests');
      return { user, password, appPassword };
    },
    as(user) {
      const auth = (test: request.Test) => test.auth(user.user.login, user.appPassword);
      return {
        get: (p) => auth(http.get(p)),
        post: (p) => auth(http.post(p)),
        put: (p) => auth(http.put(p)),
        delete: (p) => auth(http.delete(p)),
        patch: (p) => auth(http.patch(p)),
      };
    },
    ctx(user) {
      return systemCtx(runtime.host, new RateLimits(runtime.host.db), user?.user ?? null);
    },
    browser() {
      const agent = request.agent(runtime.app);
      const browser: Browser = {
        agent,
        nonce: null,
        async fetchNonce() {
          const res = await agent.get('/wp-json/host/v1/nonce').expect(200);
          browser.nonce = res.body.nonce as string;
          return browser.nonce;
        },
        async login(login, password, remember = false) {
          const nonce = browser.nonce ?? (await browser.fetchNonce());
          const res = await agent
            .post(`${BASE}/user/login`)
            .set('X-WP-Nonce', nonce)
            .send({ user_login: login, password, ...(remember ? { remember_me: 'on' } : {}) });
          if (res.status === 200) browser.nonce = res.headers['x-wp-nonce'] as string;
          return res;
        },
        call(method, p) {
          const test = agent[method](p);
          return browser.nonce ? test.set('X-WP-Nonce', browser.nonce) : test;
        },
      };
      return browser;
    },
    async close() {
      await runtime.close();
      await database.drop();
    },
  };
  return app;
}
