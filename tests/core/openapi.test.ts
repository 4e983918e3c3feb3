/**
 * The OpenAPI 3.1 document, generated from the mounted route declarations (src/core/openapi) and served at
 * `GET /wp-json/store/v2/openapi.json`; `npm run openapi` (scripts/openapi.ts) commits it as openapi.json.
 *
 * - It is a valid OpenAPI 3.1 document, its schemas are plain JSON Schema 2020-12, and it holds exactly the routes of
 *   the discovery index.
 * - The committed openapi.json is what the app serves now: changing a route without `npm run openapi` fails here.
 * - Routes mounted through `mountRoutes` with a registry are documented without further wiring, variants included,
 *   and the query forms it documents are the ones the API accepts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, type OpenApiDocument } from '../../src/core/openapi/document';
import { openApiRoute } from '../../src/core/openapi/route';
import { CustomerFrontendPolicy, CustomerPolicy, OrderPolicy, PublicPolicy } from '../../src/core/policies';
import { RateLimits } from '../../src/core/ratelimit';
import { mountRoutes, route, RouteRegistry } from '../../src/core/routes';
import { generateOpenApi, OPENAPI_FILE, renderOpenApi } from '../../scripts/openapi';
import { BASE, startTestApp, type TestApp } from '../support/app';

const repoRoot = path.resolve(__dirname, '../..');
const TEST_NS = '/wp-json/test/v1';

type Operation = {
  operationId: string;
  description: string;
  'x-policy': string | string[];
  'x-permission': string | string[];
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ name?: string; in?: string; required?: boolean; style?: string; explode?: boolean; schema?: unknown; $ref?: string }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, { $ref: string }>;
};
type Response = { description: string; content?: Record<string, { schema?: unknown }> };

/** The JSON schema of an operation's answer with `status`, through its `components.responses` entry. */
function responseSchema(doc: OpenApiDocument, op: Operation, status: number): unknown {
  const answer = op.responses[status] as { $ref?: string } & Response;
  const response = answer.$ref ? (doc.components.responses[answer.$ref.replace('#/components/responses/', '')] as Response) : answer;
  return response.content?.['application/json'].schema;
}

const operations = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${p}`, op: op as Operation })));

/** Validates with @seriousme/openapi-schema-validator, which is ESM only: in a child Node process. */
function validateOpenApi(document: unknown): { valid: boolean; version: string; errors: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, input: JSON.stringify(document) });
  return JSON.parse(out.toString('utf8'));
}

/** Compiles every schema of the document with Ajv's strict JSON Schema 2020-12 mode (unknown keywords and types fail). */
function compileSchemas(document: OpenApiDocument): number {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const components = 'https://openapi.test/components';
  const resolved = (schema: unknown) => JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\//g, `"${components}#/$defs/`)) as object;
  ajv.addSchema({ $id: components, $defs: resolved(document.components.schemas) });
  const schemas = [
    ...Object.values(document.components.schemas),
    ...operations(document).flatMap(({ op }) => (op.parameters ?? []).flatMap((parameter) => parameter.schema ?? [])),
    ...Object.values(document.components.responses).flatMap((response) =>
      Object.values((response as Response).content ?? {}).flatMap((media) => media.schema ?? []),
    ),
  ];
  const distinct = new Set(schemas.map((schema) => JSON.stringify(resolved(schema))));
  for (const schema of distinct) ajv.compile(JSON.parse(schema) as object);
  return distinct.size;
}

describe('GET /wp-json/store/v2/openapi.json', () => {
  let app: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    app = await startTestApp();
    document = (await app.http.get(`${BASE}/openapi.json`).expect(200)).body;
  });
  afterAll(() => app.close());

  it('answers the document to anyone, as JSON cacheable for five minutes', async () => {
    const res = await app.http.get(`${BASE}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Store REST API', version: app.host.manifest.version },
      servers: [{ url: '/wp-json/store/v2' }],
    });
    expect(res.body).toEqual(document);
  });

  it('is a valid OpenAPI 3.1 document (and the validator does reject a broken one)', () => {
    expect(validateOpenApi(document)).toEqual({ valid: true, version: '3.1', errors: null });
    const broken = { ...document, paths: { '/x': { get: { responses: { 200: {} } } } } };
    expect(validateOpenApi(broken).valid).toBe(false);
  });

  it('has only plain JSON Schema 2020-12 schemas: no TypeBox artefacts, no validator-only keywords', () => {
    expect(compileSchemas(document)).toBeGreaterThan(50);
    expect(JSON.stringify(document)).not.toMatch(/"messages":\{"(in|required|regex)"/);
    expect(() => compileSchemas({ ...document, components: { ...document.components, schemas: { Bad: { type: 'string', messages: { in: 'x' } } } } })).toThrow(
      /unknown keyword: "messages"/,
    );
  });

  it('has exactly the routes and methods of the discovery index, itself included', async () => {
    const index = await app.http.get('/wp-json/store/v2').expect(200);
    const indexed = Object.entries(index.body.routes as Record<string, { methods: string[] }>).flatMap(([key, r]) =>
      r.methods.map((method) => `${method} ${key.slice('/store/v2'.length).replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}')}`),
    );
    expect(indexed).toContain('GET /openapi.json');
    expect(new Set(indexed).size).toBe(indexed.length);
    expect(
      operations(document)
        .map((o) => o.key)
        .sort(),
    ).toEqual([...indexed].sort());
  });

  it('describes access and errors of each route: policy, permission, security, error envelopes', () => {
    const ops = Object.fromEntries(operations(document).map(({ key, op }) => [key, op]));
    expect(ops['GET /labels']).toMatchObject({
      operationId: 'getLabels',
      'x-policy': 'AdminPolicy',
      'x-permission': 'labels/view',
      security: [{ applicationPassword: [] }, { cookieSession: [], restNonce: [] }],
      description: 'Access: permission `labels/view` (`AdminPolicy`). Errors: `{message}`.',
    });
    expect(Object.keys(ops['GET /labels'].responses)).toEqual(['200', '400', '401', '403', '422', '429', '500']);
    expect(responseSchema(document, ops['GET /labels'], 422)).toEqual({ $ref: '#/components/schemas/MessageValidationError' });
    expect(responseSchema(document, ops['GET /labels'], 401)).toEqual({
      anyOf: [{ $ref: '#/components/schemas/RestError' }, { $ref: '#/components/schemas/MessageError' }],
    });

    expect(ops['PUT /labels/{id}']).toMatchObject({
      'x-permission': 'labels/manage',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }, { $ref: '#/components/parameters/IdempotencyKey' }],
      requestBody: {
        required: false,
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/PutLabelsByIdBody' } },
          'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/PutLabelsByIdBody' } },
        },
      },
    });
    expect(Object.keys(ops['PUT /labels/{id}'].responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500']);
    expect(document.components.schemas.PostLabelsBody).toMatchObject({
      type: 'object',
      required: ['title'],
      properties: { title: { type: 'string', maxLength: 100 } },
    });

    expect(ops['GET /openapi.json']).toMatchObject({ 'x-policy': 'PublicPolicy', 'x-permission': 'public', security: [] });
    expect(ops['GET /customers/{customerId}']).toMatchObject({
      'x-policy': ['CustomerPolicy', 'CustomerFrontendPolicy'],
      'x-permission': ['customers/view', 'authenticated'],
    });
    expect(responseSchema(document, ops['GET /customers/{customerId}'], 404)).toEqual({
      anyOf: [
        { $ref: '#/components/schemas/AdminError' },
        { $ref: '#/components/schemas/MessageError' },
        { $ref: '#/components/schemas/GetCustomersByCustomerId404Answer' },
      ],
    });
    expect(document.components.schemas.GetCustomersByCustomerId404Answer).toMatchObject({ required: ['message', 'back_text', 'back_url'] });

    for (const [key, op] of Object.entries(ops)) {
      const permissions = ([] as string[]).concat(op['x-permission']);
      for (const permission of permissions)
        expect({ key, description: op.description }).toEqual({ key, description: expect.stringContaining(`\`${permission}\``) });
      const isPublic = permissions.every((p) => p === 'public');
      expect({ key, security: op.security.length === 0 }).toEqual({ key, security: isPublic });
    }
  });

  it('names the cookie the login really sets in its cookie security scheme', async () => {
    const user = await app.createUser('cookie-scheme');
    const res = await app.browser().login(user.user.login, user.password);
    expect(res.status).toBe(200);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookies.map((c) => c.split('=')[0])).toContain(document.components.securitySchemes.cookieSession.name);
  });

  it(`the committed ${OPENAPI_FILE} is what the app serves now (run npm run openapi after changing routes)`, async () => {
    const committed = fs.readFileSync(path.join(repoRoot, OPENAPI_FILE), 'utf8');
    const generated = await generateOpenApi();
    expect(generated).toBe(renderOpenApi(document));
    expect(committed).toBe(generated);
  });
});

describe('documenting routes mounted with a registry', () => {
  let app: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    app = await startTestApp();
    const registry = new RouteRegistry();
    mountRoutes(
      app.host,
      'test/v1',
      [
        route({
          method: 'GET',
          path: '/items',
          policy: PublicPolicy,
          permission: 'public',
          schema: {
            query: Type.Object({
              with: Type.Optional(Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')]), { messages: { in: 'a or b' } })),
              params: Type.Optional(Type.Object({ only: Type.Optional(Type.String()) })),
              page: Type.Integer({ minimum: 1 }),
            }),
          },
          envelope: 'checkout',
          handler: async (_ctx, { query }) => ({ query }),
        }),
        route({
          method: 'GET',
          path: '/people/:personId',
          policy: CustomerPolicy,
          permission: 'customers/view',
          schema: { params: Type.Object({ personId: Type.Integer({ minimum: 1 }) }), query: Type.Object({ full: Type.Optional(Type.Boolean()) }) },
          envelope: 'admin',
          handler: async () => ({ variant: 'admin' }),
        }),
        route({
          method: 'GET',
          path: '/people/:personId',
          policy: CustomerFrontendPolicy,
          permission: 'authenticated',
          schema: { params: Type.Object({ personId: Type.Integer({ minimum: 1 }) }) },
          envelope: 'message',
          handler: async () => ({ variant: 'portal' }),
        }),
        route({
          method: 'GET',
          path: '/people/:personId',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'message',
          handler: async () => ({ variant: 'anonymous' }),
        }),
        route({
          method: 'POST',
          path: '/orders',
          policy: OrderPolicy,
          permission: ['orders/create', 'orders/manage'],
          schema: { body: Type.Object({ note: Type.String() }) },
          envelope: 'legacy',
          handler: async () => ({ ok: true }),
        }),
      ],
      { limits: new RateLimits(app.host.db), registry },
    );
    mountRoutes(app.host, 'test/v1', [openApiRoute(registry, 'test/v1')], { limits: new RateLimits(app.host.db), registry });
    document = (await app.http.get(`${TEST_NS}/openapi.json`).expect(200)).body;
  });
  afterAll(() => app.close());

  it('documents every route of every mountRoutes call, in path order, and only that namespace', () => {
    expect(document.servers).toEqual([{ url: '/wp-json/test/v1' }]);
    expect(operations(document).map((o) => o.key)).toEqual(['GET /items', 'GET /openapi.json', 'POST /orders', 'GET /people/{personId}']);
    expect(validateOpenApi(document).valid).toBe(true);
    compileSchemas(document);
  });

  it('documents query arrays as `name[]` and objects as deepObject, which is how the API parses them', async () => {
    const [op] = operations(document).filter((o) => o.key === 'GET /items');
    expect(op.op.parameters).toEqual([
      {
        name: 'with[]',
        in: 'query',
        required: false,
        style: 'form',
        explode: true,
        schema: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'a', type: 'string' },
              { const: 'b', type: 'string' },
            ],
          },
        },
      },
      {
        name: 'params',
        in: 'query',
        required: false,
        style: 'deepObject',
        explode: true,
        schema: { type: 'object', properties: { only: { type: 'string' } } },
      },
      { name: 'page', in: 'query', required: true, style: 'form', explode: true, schema: { type: 'integer', minimum: 1 } },
    ]);
    // Serialised as OpenAPI says for those styles: form+explode repeats the name, deepObject writes name[key].
    const res = await app.http.get(`${TEST_NS}/items?with[]=a&with[]=b&params[only]=yes&page=2`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ query: { with: ['a', 'b'], params: { only: 'yes' }, page: 2 } });
  });

  it('makes one operation of the variants of a path, in the order they are tried', () => {
    const [{ op }] = operations(document).filter((o) => o.key === 'GET /people/{personId}');
    expect(op['x-policy']).toEqual(['CustomerPolicy', 'CustomerFrontendPolicy', 'PublicPolicy']);
    expect(op['x-permission']).toEqual(['customers/view', 'authenticated', 'public']);
    // A public variant answers anonymous callers, so the credentials are optional.
    expect(op.security).toEqual([{}, { applicationPassword: [] }, { cookieSession: [], restNonce: [] }]);
    expect(op.description).toBe(
      [
        'Variants, tried in order (the first whose policy admits the caller answers):',
        '',
        '1. permission `customers/view` (`CustomerPolicy`); errors: `{code, message, data}`',
        '2. `authenticated`, any logged-in user (`CustomerFrontendPolicy`); errors: `{message}`',
        '3. `public`, no login needed (`PublicPolicy`); errors: `{message}`',
      ].join('\n'),
    );
    expect(op.parameters).toEqual([
      { name: 'personId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
      { name: 'full', in: 'query', required: false, style: 'form', explode: true, schema: { type: 'boolean' } },
    ]);
  });

  it('lists a route with several permissions as any of them, with its body required when it has required fields', () => {
    const [{ op }] = operations(document).filter((o) => o.key === 'POST /orders');
    expect(op['x-permission']).toEqual(['orders/create', 'orders/manage']);
    expect(op.description).toBe(
      'Access: any of the permissions `orders/create`, `orders/manage` (`OrderPolicy`). Errors: `{success: false, error: {code, message}}`.',
    );
    expect(op.requestBody?.required).toBe(true);
    expect(responseSchema(document, op, 422)).toEqual({ $ref: '#/components/schemas/LegacyValidationError' });
  });

  it('refuses a TypeBox type that has no JSON Schema form, naming the route and field', () => {
    const def = route({
      method: 'POST',
      path: '/dated',
      policy: PublicPolicy,
      permission: 'public',
      schema: { body: Type.Object({ when: Type.Date() }) },
      envelope: 'message',
      handler: async () => ({}),
    });
    expect(() => buildOpenApiDocument('x/v1', [def], { title: 't', version: '1', description: '' })).toThrow(
      'POST /dated body.when: "Date" is not a JSON Schema type',
    );
  });
});
