/**
 * `TRUST_PROXY` is Express's `trust proxy`: off by default, so `X-Forwarded-For` is ignored and every limit keys on the
 * socket's address; behind a reverse proxy it names the proxies whose `X-Forwarded-For` tells the client's address.
 * Shown with the login limiter (20 failed attempts per IP and login in 15 minutes).
 */
import { ConfigError, readConfig } from '../../src/host/config';
import { BASE, startTestApp, type Browser, type TestApp } from '../support/app';

const ATTEMPTS = 20;

/** A failed login for an unknown name, as sent through a proxy that reports `forwardedFor`. */
function failedLogin(browser: Browser, forwardedFor: string) {
  return browser.call('post', `${BASE}/user/login`).set('X-Forwarded-For', forwardedFor).send({ user_login: 'nobody', password: 'wrong' });
}

async function exhaustFrom(browser: Browser, forwardedFor: string): Promise<void> {
  await browser.fetchNonce();
  for (let i = 0; i < ATTEMPTS; i++) expect((await failedLogin(browser, forwardedFor)).status).toBe(401);
  const blocked = await failedLogin(browser, forwardedFor);
  expect(blocked.status).toBe(429);
  expect(blocked.body).toEqual({ message: 'Too many requests. Please try again later.' });
}

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8, 192.168.1.1, fd00::/8, 172.16.0.0/255.240.0.0', ['loopback', '10.0.0.0/8', '192.168.1.1', 'fd00::/8', '172.16.0.0/255.240.0.0']],
  ])('%p is read as %p', (value, expected) => {
    expect(readConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['yes', 'loopback,proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/8', '-1'])('%p is a readable ConfigError', (value) => {
    expect(() => readConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => readConfig({ TRUST_PROXY: value })).toThrow(/^TRUST_PROXY must be true, false, a hop count, or comma-separated IP addresses/);
  });
});

describe('POST /user/login behind a proxy', () => {
  describe('TRUST_PROXY unset', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp();
    });
    afterAll(() => app.close());

    it('ignores X-Forwarded-For: the limiter counts the socket address, so another forwarded address is refused too', async () => {
      const browser = app.browser();
      await exhaustFrom(browser, '203.0.113.1');
      expect((await failedLogin(browser, '198.51.100.2')).status).toBe(429);
    });
  });

  describe('TRUST_PROXY=loopback', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp({ config: { trustProxy: readConfig({ TRUST_PROXY: 'loopback' }).trustProxy } });
    });
    afterAll(() => app.close());

    it('keys the limiter on the forwarded client address: another client behind the same proxy still gets through', async () => {
      const browser = app.browser();
      await exhaustFrom(browser, '203.0.113.1');
      const other = await failedLogin(browser, '198.51.100.2');
      expect(other.status).toBe(401);
      expect(other.body).toMatchObject({ success: false });
    });

    it('trusts only the loopback proxy: an address the client prepends to X-Forwarded-For does not escape its limit', async () => {
      const browser = app.browser();
      await exhaustFrom(browser, '203.0.113.7');
      expect((await failedLogin(browser, '198.51.100.9, 203.0.113.7')).status).toBe(429);
    });
  });
});
