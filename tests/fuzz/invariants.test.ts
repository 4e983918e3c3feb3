import { violations, type Observation } from './invariants';
import { fuzzTargets, type DiscoveryIndex, type OpenApiDocument } from './route-targets';

/** The fuzzer's oracle on hand-made answers: each invariant flags what breaks it, and only that. */
describe('the fuzzer invariants', () => {
  const index: DiscoveryIndex = {
    namespaces: ['shop/v2', 'shop/v1', 'host/v1'],
    routes: {
      '/shop/v2/things/(?P<id>[\\d]+)': { namespace: 'shop/v2', endpoints: [{ methods: ['PUT'] }] },
      '/shop/v1/things/(?P<id>[\\d]+)': { namespace: 'shop/v1', endpoints: [{ methods: ['PUT'] }] },
      '/host/v1/nonce': { namespace: 'host/v1', endpoints: [{ methods: ['GET'] }] },
    },
  };
  const document: OpenApiDocument = {
    servers: [{ url: '/wp-json/shop/v2' }],
    paths: {
      '/things/{id}': {
        put: {
          security: [{ applicationPassword: [] }],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/PutThingBody' } } } },
          responses: { '200': { $ref: '#/components/responses/Success' }, '422': { $ref: '#/components/responses/ValidationFailedAdmin' } },
        },
      },
    },
    components: {
      schemas: {
        PutThingBody: { type: 'object', required: ['title'], properties: { title: { type: 'string', maxLength: 10 } } },
        AdminValidationError: {
          type: 'object',
          required: ['code', 'message', 'data'],
          properties: { code: { const: 422 }, message: { type: 'string' }, data: { type: 'object' } },
        },
      },
      responses: { ValidationFailedAdmin: { content: { 'application/json': { schema: { $ref: '#/components/schemas/AdminValidationError' } } } } },
    },
  };
  const [thing, nonce] = fuzzTargets(index, { 'shop/v2': document });
  const request = { method: 'PUT', path: '/wp-json/shop/v2/things/1', headers: {}, body: Buffer.from('{"title":"x"}') };
  const observe = (status: number, body: unknown, over: Partial<Observation> = {}): Observation => ({
    target: thing,
    request,
    response: { status, headers: {}, text: typeof body === 'string' ? body : JSON.stringify(body) },
    changed: [],
    logged: [],
    credentials: { state: 'valid', how: 'admin' },
    ...over,
  });
  const kinds = (observation: Observation) => violations(observation).map((v) => v.kind);

  it('reads the targets from the discovery index and the OpenAPI document', () => {
    expect(thing).toMatchObject({
      method: 'PUT',
      namespace: 'shop/v2',
      aliases: ['shop/v1'],
      path: '/things/:id',
      params: ['id'],
      input: { params: { properties: { id: { type: 'integer' } } }, body: { required: ['title'] } },
      errors: { names: ['AdminValidationError'] },
      anonymous: false,
    });
    expect(nonce).toMatchObject({ method: 'GET', namespace: 'host/v1', path: '/nonce', input: null, anonymous: true });
  });

  it('passes a refusal in a documented error body, and the host answers any route may give', () => {
    expect(kinds(observe(422, { code: 422, message: 'The title field is required.', data: { title: { required: 'x' } } }))).toEqual([]);
    expect(kinds(observe(404, { code: 'rest_no_route', message: 'No route.', data: { status: 404 } }))).toEqual([]);
    expect(kinds(observe(401, { code: 'rest_forbidden', message: 'No.', data: { status: 401 } }))).toEqual([]);
    expect(kinds(observe(429, { message: 'Too many requests. Please try again later.' }))).toEqual([]);
    expect(kinds(observe(200, { anything: true }))).toEqual([]);
  });

  it('flags a refusal in another envelope, or not JSON', () => {
    expect(kinds(observe(422, { message: 'The title field is required.' }))).toEqual(['envelope']);
    expect(kinds(observe(401, { code: 'rest_forbidden', message: 'No.', data: { status: 403 } }))).toEqual(['envelope']);
    expect(kinds(observe(400, 'Bad Request'))).toEqual(['envelope']);
    expect(kinds(observe(404, { message: 'Not found' }, { target: nonce }))).toEqual(['envelope']);
  });

  it('flags any 5xx, keyed by the error the server logged', () => {
    const [violation] = violations(observe(500, { message: 'An internal error occurred.' }, { logged: ['TypeError: x is undefined (at src/a.ts:3)'] }));
    expect(violation).toMatchObject({ kind: 'server-error', key: '500: TypeError: x is undefined (at src/a.ts:3)' });
    expect(kinds(observe(503, ''))).toEqual(['server-error']);
  });

  it('flags stack traces, file paths, SQL text and driver codes the request did not carry', () => {
    expect(kinds(observe(200, { message: 'Error\n    at run (/work/main/src/a.ts:3:5)' }))).toEqual(['leak', 'leak']);
    expect(kinds(observe(200, { message: 'select `id` from `store_orders` where 1' }))).toEqual(['leak']);
    expect(kinds(observe(422, { code: 422, message: 'SQLITE_CONSTRAINT', data: {} }))).toEqual(['leak']);
    expect(kinds(observe(422, { code: 422, message: 'ER_DUP_ENTRY', data: {} }))).toEqual(['leak']);
    expect(kinds(observe(200, { title: 'select 1 from dual' }, { request: { ...request, body: Buffer.from('{"title":"select 1 from dual"}') } }))).toEqual([]);
    expect(kinds(observe(200, { message: 'The selected status is invalid.' }))).toEqual([]);
    expect(kinds(observe(200, { title: 'file:///etc/passwd' }))).toEqual([]);
    expect(kinds(observe(422, { code: 422, message: 'Select a shipping method from the list.', data: {} }))).toEqual([]);
    expect(kinds(observe(500, { message: 'insert into `store_orders` (`id`) values (1)' }))).toEqual(['server-error', 'leak']);
  });

  it('flags a refusal that changed a table, keyed by the columns it changed; not a success that did', () => {
    const changed = [{ table: 'store_orders', removed: ['{"id":1,"status":"paid","note":""}'], added: ['{"id":1,"status":"refunded","note":""}', '{"id":2}'] }];
    const [violation] = violations(observe(422, { code: 422, message: 'Invalid.', data: {} }, { changed }));
    expect(violation).toMatchObject({ kind: 'state-changed', key: 'state-changed: store_orders (rows added), store_orders.status' });
    expect(kinds(observe(200, {}, { changed }))).toEqual([]);
  });

  it('flags an answer to broken credentials on a route that needs valid ones', () => {
    const broken = { state: 'none' as const, how: 'admin, base64-garbage-appended' };
    const [violation] = violations(observe(200, {}, { credentials: broken }));
    expect(violation).toMatchObject({ kind: 'auth-bypass', key: 'auth-bypass: base64-garbage-appended' });
    expect(kinds(observe(401, { code: 'rest_forbidden', message: 'No.', data: { status: 401 } }, { credentials: broken }))).toEqual([]);
    expect(kinds(observe(200, {}, { credentials: { state: 'unclear', how: 'admin, lowercase-scheme' } }))).toEqual([]);
    expect(kinds(observe(200, {}, { target: nonce, credentials: { state: 'none', how: 'anonymous' } }))).toEqual([]);
  });

  it('flags a request that got no answer', () => {
    expect(kinds(observe(0, '', { response: { error: 'socket hang up' } }))).toEqual(['no-answer']);
  });
});
