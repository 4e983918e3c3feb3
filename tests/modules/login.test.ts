import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('POST /user/login', () => {
  let app: TestApp;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    shopper = await app.createUser('shopper');
  });
  afterAll(() => app.close());

  it('logs in with a valid nonce: 200, the auth cookie and a fresh nonce', async () => {
    const browser = app.browser();
    const guestNonce = await browser.fetchNonce();
    const res = await browser.login('shopper', shopper.password);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { message: 'Login successful', redirect_url: 'http://store.test/account/' } });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/store_session=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Expires=/i);
    expect(res.headers['x-wp-nonce']).toMatch(/^[0-9a-f]{10}$/);
    expect(res.headers['x-wp-nonce']).not.toBe(guestNonce);
    expect(app.host.hooks.did('store/user/logged_in')).toBeGreaterThan(0);
  });

  it('accepts the email address as user_login', async () => {
    const res = await app.browser().login('shopper@example.com', shopper.password);
    expect(res.status).toBe(200);
  });

  it('remember_me=on persists the cookie for 14 days', async () => {
    const res = await app.browser().login('shopper', shopper.password, true);
    expect(res.status).toBe(200);
    const expires = /Expires=([^;]+)/i.exec(String(res.headers['set-cookie']))?.[1];
    expect(expires).toBeDefined();
    const days = (new Date(expires!).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThanOrEqual(14.01);
  });

  it('without a nonce: 403 invalid_nonce, no session', async () => {
    const res = await app.http.post(`${BASE}/user/login`).send({ user_login: 'shopper', password: shopper.password });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: expect.any(String), code: 'invalid_nonce' });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('with a wrong nonce: 403 invalid_nonce', async () => {
    const browser = app.browser();
    await browser.fetchNonce();
    const res = await browser.agent.post(`${BASE}/user/login`).set('X-WP-Nonce', '0123456789').send({ user_login: 'shopper', password: shopper.password });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('invalid_nonce');
  });

  it('with a nonce of another session: 403 invalid_nonce', async () => {
    const other = await app.browser().fetchNonce();
    const browser = app.browser();
    await browser.fetchNonce();
    const res = await browser.agent.post(`${BASE}/user/login`).set('X-WP-Nonce', other).send({ user_login: 'shopper', password: shopper.password });
    expect(res.status).toBe(403);
  });

  it('accepts the nonce in the _wpnonce query parameter', async () => {
    const browser = app.browser();
    const nonce = await browser.fetchNonce();
    const res = await browser.agent.post(`${BASE}/user/login?_wpnonce=${nonce}`).send({ user_login: 'shopper', password: shopper.password });
    expect(res.status).toBe(200);
  });

  it.each([
    ['missing user_login', { password: 'x' }, 'missing_login'],
    ['blank user_login', { user_login: '   ', password: 'x' }, 'missing_login'],
    ['missing password', { user_login: 'shopper' }, 'missing_password'],
    ['empty password', { user_login: 'shopper', password: '' }, 'missing_password'],
  ])('%s: 400 %s', async (_name, body, code) => {
    const browser = app.browser();
    const nonce = await browser.fetchNonce();
    const res = await browser.agent.post(`${BASE}/user/login`).set('X-WP-Nonce', nonce).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, data: { message: expect.any(String), code } });
  });

  it.each([
    ['wrong password', 'shopper', 'nope-nope'],
    ['unknown user', 'nobody', 'whatever'],
  ])('%s: 401 login_failed and no session', async (_name, login, password) => {
    const browser = app.browser();
    await browser.fetchNonce();
    const res = await browser.login(login, password);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, data: { message: expect.any(String), code: 'login_failed' } });
    const me = await browser.call('get', '/wp-json/host/v1/nonce');
    expect(me.status).toBe(200);
  });

  it('the session cookie then authenticates REST calls with the new nonce', async () => {
    const admin = await app.createUser('boss', ['administrator']);
    const browser = app.browser();
    await browser.login('boss', admin.password);
    const res = await browser.call('get', '/wp-json/host/v1/nonce');
    expect(res.status).toBe(200);
    expect(res.body.nonce).toMatch(/^[0-9a-f]{10}$/);
  });

  it('a body that is not JSON: 400 in the login envelope', async () => {
    const browser = app.browser();
    const nonce = await browser.fetchNonce();
    const res = await browser.agent.post(`${BASE}/user/login`).set('X-WP-Nonce', nonce).set('Content-Type', 'application/json').send('{"user_login":');
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.data.code).toBe('rest_invalid_json');
  });

  it('a form-encoded body works like JSON', async () => {
    const browser = app.browser();
    const nonce = await browser.fetchNonce();
    const res = await browser.agent
      .post(`${BASE}/user/login`)
      .set('X-WP-Nonce', nonce)
      .type('form')
      .send(`user_login=shopper&password=${encodeURIComponent(shopper.password)}`);
    expect(res.status).toBe(200);
  });

  it('after 20 failed attempts for one login from one IP: 429', async () => {
    const victim = await app.createUser('victim');
    const browser = app.browser();
    await browser.fetchNonce();
    for (let i = 0; i < 20; i++) expect((await browser.login('victim', 'wrong')).status).toBe(401);
    const blocked = await browser.login('victim', victim.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ message: 'Too many requests. Please try again later.' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});
