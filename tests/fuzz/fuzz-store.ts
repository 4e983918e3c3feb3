import type { AddressInfo } from 'node:net';
import { DEMO_CUSTOMER_PASSWORD } from '../../src/modules/demo/seed';
import { BASE, startTestApp, type TestApp } from '../support/app';
import { send } from './http-client';
import type { Credentials } from './credentials';
import { fuzzTargets, type DiscoveryIndex, type FuzzTarget, type OpenApiDocument } from './route-targets';
import { tableNames } from './table-watch';

/** The store the fuzzer runs against: the demo store and a few orders, served on a loopback port. */
export interface FuzzStore {
  app: TestApp;
  port: number;
  targets: FuzzTarget[];
  creds: Credentials;
  tables: string[];
  /** Logs the cookie shopper in again: a fuzzed request may have logged it out or changed its password. */
  renewCookieSession(): Promise<void>;
  /** A cheap GET that must answer 200. */
  isUp(): Promise<boolean>;
  close(): Promise<void>;
}

const COOKIE_SHOPPER = 'oliver';
const APP_SHOPPER = 'jane';
/** Generous hourly budgets, so a few thousand requests reach the handlers instead of a 429. */
const BUDGETS = { list: 1_000_000, create: 1_000_000, update: 1_000_000, cancel: 1_000_000, delete: 1_000_000 };

function cookieOf(setCookie: string[] | undefined): string | null {
  const first = setCookie?.find((line) => line.startsWith('store_session='));
  return first ? first.split(';')[0] : null;
}

async function cookieLogin(port: number, login: string, password: string): Promise<Credentials['cookie'] | null> {
  const nonce = await send(port, { method: 'GET', path: '/wp-json/host/v1/nonce', headers: {} });
  const guestCookie = cookieOf(nonce.headers['set-cookie']);
  if (nonce.status !== 200 || !guestCookie) return null;
  const body = Buffer.from(JSON.stringify({ user_login: login, password }));
  const res = await send(port, {
    method: 'POST',
    path: `${BASE}/user/login`,
    headers: { Cookie: guestCookie, 'X-WP-Nonce': String(JSON.parse(nonce.text).nonce), 'Content-Type': 'application/json' },
    body,
  });
  const cookie = cookieOf(res.headers['set-cookie']);
  const next = res.headers['x-wp-nonce'];
  return res.status === 200 && cookie && typeof next === 'string' ? { cookie, nonce: next } : null;
}

export async function startFuzzStore(): Promise<FuzzStore> {
  const app = await startTestApp();
  const admin = await app.createUser('fuzz-admin', ['administrator']);
  await app.host.commands.get('seed')!.run({ demo: true });
  await app.host.options.set('hourly_request_limits', BUDGETS);
  const users = app.host.users;
  const appShopper = (await users.findByLogin(APP_SHOPPER))!;
  const cookieShopper = (await users.findByLogin(COOKIE_SHOPPER))!;
  const { password: shopperPassword } = await users.appPasswords.create(appShopper.id, 'fuzz');

  const customers = (await app.host.db('store_customers').select('id').orderBy('id')) as Array<{ id: number }>;
  const variations = (await app.host.db('store_product_variations').select('id').orderBy('id').limit(3)) as Array<{ id: number }>;
  for (const [i, customer] of customers.entries()) {
    const res = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({ customer_id: customer.id, order_items: [{ variation_id: variations[i % variations.length].id, quantity: 1 }] });
    if (res.status !== 200) throw new Error(`the fuzz store could not create an order: ${res.status} ${JSON.stringify(res.body)}`);
  }

  const server = await app.runtime.listen();
  const port = (server.address() as AddressInfo).port;
  const getJson = async (path: string) => JSON.parse((await send(port, { method: 'GET', path, headers: {} })).text) as unknown;
  const index = (await getJson('/wp-json/')) as DiscoveryIndex;
  const documents: Record<string, OpenApiDocument> = {};
  for (const namespace of index.namespaces) {
    if (!index.routes[`/${namespace}/openapi.json`]) continue;
    const document = (await getJson(`/wp-json/${namespace}/openapi.json`)) as OpenApiDocument;
    // An alias (`store/v1`) serves the document of the namespace it stands for, whose server URL it names.
    if (document.servers[0]?.url === `/wp-json/${namespace}`) documents[namespace] = document;
  }
  const targets = fuzzTargets(index, documents);

  const creds: Credentials = {
    admin: { login: admin.user.login, password: admin.appPassword },
    shopper: { login: APP_SHOPPER, password: shopperPassword },
    cookie: { cookie: '', nonce: '' },
  };
  const store: FuzzStore = {
    app,
    port,
    targets,
    creds,
    tables: await tableNames(app.host.db),
    async renewCookieSession() {
      let session = await cookieLogin(port, COOKIE_SHOPPER, DEMO_CUSTOMER_PASSWORD);
      if (!session) {
        await users.update(cookieShopper.id, { password: DEMO_CUSTOMER_PASSWORD });
        session = await cookieLogin(port, COOKIE_SHOPPER, DEMO_CUSTOMER_PASSWORD);
      }
      if (!session) throw new Error(`the cookie shopper "${COOKIE_SHOPPER}" could not log in`);
      creds.cookie = session;
    },
    async isUp() {
      return (await send(port, { method: 'GET', path: '/wp-json/', headers: {} }).catch(() => ({ status: 0 }))).status === 200;
    },
    close: () => app.close(),
  };
  // An application password records its first use (then at most hourly, and the test clock stands still): done here,
  // so no fuzzed refusal is blamed for it.
  const shopperAuth = `Basic ${Buffer.from(`${APP_SHOPPER}:${shopperPassword}`).toString('base64')}`;
  await send(port, { method: 'GET', path: `${BASE}/customer-profile`, headers: { Authorization: shopperAuth } });
  await store.renewCookieSession();
  return store;
}
