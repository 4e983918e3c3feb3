import { BASE, startTestApp, type TestApp } from '../support/app';

const NO_ROUTE = { code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } };

describe('REST router', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  describe('GET /wp-json/', () => {
    it('lists the namespaces and every route with its methods', async () => {
      const res = await app.http.get('/wp-json/');
      expect(res.status).toBe(200);
      expect(res.body.namespaces).toEqual(expect.arrayContaining(['host/v1', 'store/v2', 'store/v1']));
      expect(res.body.routes['/store/v2/user/login']).toEqual({
        namespace: 'store/v2',
        methods: ['POST'],
        endpoints: [{ methods: ['POST'], args: expect.objectContaining({ user_login: expect.objectContaining({ type: 'string', required: false }) }) }],
      });
      expect(res.body.authentication).toHaveProperty('application-passwords');
    });
  });

  describe('GET /wp-json/store/v2', () => {
    it("lists the plugin's routes with methods and argument schemas", async () => {
      const res = await app.http.get('/wp-json/store/v2');
      expect(res.status).toBe(200);
      expect(res.body.namespace).toBe('store/v2');
      expect(Object.keys(res.body.routes)).toContain('/store/v2/user/login');
      expect(res.body.routes['/store/v2/user/login'].endpoints[0].args).toEqual({
        user_login: { type: 'string', required: false },
        password: { type: 'string', required: false },
        remember_me: { type: 'string', required: false },
      });
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['an unknown path', 'get', `${BASE}/nothing-here`],
      ['a known path with another method', 'get', `${BASE}/user/login`],
      ['an unknown namespace', 'get', '/wp-json/other/v9/things'],
      ['a path outside /wp-json', 'get', '/favicon.ico'],
      ['a deeper path than any route', 'post', `${BASE}/user/login/extra`],
      ['an empty segment where a route has a parameter', 'get', `${BASE}/customer-profile/subscriptions//get-or-create-plan`],
      ['an empty segment before a literal', 'get', `${BASE}/customers//orders`],
    ] as const)('%s: 404 rest_no_route', async (_name, method, path) => {
      const res = await app.http[method](path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NO_ROUTE);
    });
  });

  describe('the deprecated store/v1 alias', () => {
    it('serves the same routes with a Deprecation header', async () => {
      const res = await app.http.post('/wp-json/store/v1/user/login').send({});
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('invalid_nonce');
      expect(res.headers.deprecation).toBe('true');
      expect(res.headers.link).toContain('/wp-json/store/v2');
    });

    it('v2 answers carry no Deprecation header', async () => {
      const res = await app.http.post(`${BASE}/user/login`).send({});
      expect(res.headers.deprecation).toBeUndefined();
    });
  });

  it('registering the same method and path twice throws', () => {
    const endpoint = { method: 'GET' as const, path: '/dup', handler: async () => ({ body: {} }) };
    app.host.router.register('dup/v1', endpoint);
    expect(() => app.host.router.register('dup/v1', endpoint)).toThrow(/registered twice/);
  });
});
