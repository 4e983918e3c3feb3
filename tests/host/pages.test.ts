import { PageError, type PageRequest } from '../../src/host/contract';
import { startTestApp, type TestApp, type TestUser } from '../support/app';

/** What a test page saw of its request, answered as JSON inside the HTML so the test can read it. */
const echo = (request: PageRequest) =>
  `<!doctype html><pre>${JSON.stringify({
    method: request.method,
    path: request.path,
    params: request.params,
    query: request.query,
    form: request.form,
    user: request.user?.login ?? null,
  }).replace(/</g, '\\u003c')}</pre>`;

const seen = (html: string) => JSON.parse(/<pre>(.*)<\/pre>/s.exec(html)![1]) as Record<string, unknown>;

describe('HTML pages (host.pages)', () => {
  let app: TestApp;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    shopper = await app.createUser('shopper');
    const { pages } = app.host;
    pages.register({ path: '/echo/', methods: ['GET', 'POST'], handler: async (request) => ({ html: echo(request) }) });
    pages.register({ path: '/things/:thingId', handler: async (request) => ({ status: 201, html: echo(request) }) });
    pages.register({ path: '/things/special', handler: async () => ({ html: '<p>special</p>' }) });
    pages.register({ path: '/gone', handler: async () => Promise.reject(new PageError(410, 'This <thing> is gone & away.')) });
    pages.register({ path: '/broken', handler: async () => Promise.reject(new Error('secret stack detail')) });
    pages.register({ path: '/elsewhere', handler: async () => ({ status: 303, redirect: '/echo/?from=elsewhere' }) });
    pages.register({
      path: '/loose',
      handler: async () => ({
        html: '<p>loose</p>',
        headers: { 'Content-Security-Policy': "script-src 'unsafe-inline'", 'Cache-Control': 'private, max-age=60' },
      }),
    });
  });
  afterAll(() => app.close());

  describe('GET a page', () => {
    it('answers the handler’s HTML with the security headers, never cached', async () => {
      const res = await app.http.get('/echo/?a=1&b[]=x');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(seen(res.text)).toEqual({ method: 'GET', path: '/echo/', params: {}, query: { a: '1', b: ['x'] }, form: {}, user: null });
    });

    it('matches with or without the trailing slash, and passes path parameters (literal segments win)', async () => {
      expect(seen((await app.http.get('/echo').expect(200)).text).path).toBe('/echo');
      const thing = await app.http.get('/things/a%20b').expect(201);
      expect(seen(thing.text).params).toEqual({ thingId: 'a b' });
      expect((await app.http.get('/things/special').expect(200)).text).toBe('<p>special</p>');
    });

    it('HEAD answers the headers without a body', async () => {
      const res = await app.http.head('/echo/');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toBeUndefined();
    });

    it('a handler may replace Cache-Control but not loosen the security headers', async () => {
      const res = await app.http.get('/loose').expect(200);
      expect(res.headers['cache-control']).toBe('private, max-age=60');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self';/);
    });

    it('a redirect answers its status and Location', async () => {
      const res = await app.http.get('/elsewhere').redirects(0);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/echo/?from=elsewhere');
      expect(res.text).toBe('');
    });
  });

  describe('the cookie session', () => {
    it('a page sees the logged-in user of the session without a nonce; a guest is null', async () => {
      const browser = app.browser();
      expect((await browser.login('shopper', shopper.password)).status).toBe(200);
      expect(seen((await browser.agent.get('/echo/').expect(200)).text).user).toBe('shopper');
      expect(seen((await app.http.get('/echo/').expect(200)).text).user).toBeNull();
    });

    it('an application password does not log a page in (pages are for browsers)', async () => {
      const res = await app.http.get('/echo/').auth('shopper', shopper.appPassword).expect(200);
      expect(seen(res.text).user).toBeNull();
    });
  });

  describe('POST a page', () => {
    it('reads a form body (first value of each field)', async () => {
      const res = await app.http.post('/echo/').type('form').send('token=abc&token=def&name=J%C3%BCrgen').expect(200);
      expect(seen(res.text)).toMatchObject({ method: 'POST', form: { token: 'abc', name: 'Jürgen' } });
    });

    it('a JSON body is not a form: the page sees no fields', async () => {
      const res = await app.http.post('/echo/').send({ token: 'abc' }).expect(200);
      expect(seen(res.text).form).toEqual({});
    });

    it('a body over 64 KB is refused with the error page (413)', async () => {
      const res = await app.http
        .post('/echo/')
        .type('form')
        .send(`token=${'a'.repeat(70_000)}`);
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<h1>Error 413</h1>');
    });

    it('a method the page does not take goes on to the host’s 404', async () => {
      const res = await app.http.post('/things/1').type('form').send('a=1');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } });
    });
  });

  describe('errors', () => {
    it('a PageError is the error page with its status and its message, escaped', async () => {
      const res = await app.http.get('/gone');
      expect(res.status).toBe(410);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'self'/);
      expect(res.text).toContain('<title>Error 410</title>');
      expect(res.text).toContain('<p>This &lt;thing&gt; is gone &amp; away.</p>');
      expect(res.text).not.toContain('<thing>');
    });

    it('any other failure is a 500 error page without its details, and is logged', async () => {
      const res = await app.http.get('/broken');
      expect(res.status).toBe(500);
      expect(res.text).toContain('<p>An internal error occurred.</p>');
      expect(res.text).not.toContain('secret stack detail');
      expect(app.logger.entries.some((e) => e.level === 'error' && e.msg === 'page failed')).toBe(true);
    });

    it('a query string the host refuses is a 400 error page', async () => {
      const res = await app.http.get('/echo/?a=%E0%A4%A');
      expect(res.status).toBe(400);
      expect(res.text).toContain('malformed percent-encoding');
    });

    it('an unknown URL keeps the host’s JSON 404', async () => {
      const res = await app.http.get('/no-such-page/');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } });
    });

    it('error() renders the host’s error page for a plugin that answers one itself', () => {
      const page = app.host.pages.error(404, 'Nothing <here>');
      expect(page).toEqual({ status: 404, html: expect.stringContaining('<p>Nothing &lt;here&gt;</p>') });
    });
  });

  describe('register', () => {
    it('refuses a path twice for the same method, and any path under /wp-json', () => {
      const handler = async () => ({ html: '' });
      expect(() => app.host.pages.register({ path: '/echo', handler })).toThrow('page /echo is registered twice');
      expect(() => app.host.pages.register({ path: '/wp-json/x', handler })).toThrow('page /wp-json/x lies under /wp-json');
    });
  });
});
