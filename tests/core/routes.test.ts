import { Type } from '@sinclair/typebox';
import type { Envelope } from '../../src/core/envelopes';
import { fail } from '../../src/core/errors';
import { CustomerFrontendPolicy, CustomerPolicy, OrderPolicy, PublicPolicy, type Policy } from '../../src/core/policies';
import { RateLimits } from '../../src/core/ratelimit';
import { mountRoutes, Reply, route, type RouteDef } from '../../src/core/routes';
import { startTestApp, type TestApp, type TestUser } from '../support/app';

const NS = '/wp-json/test/v1';

function echo(envelope: Envelope, path: string): RouteDef {
  return route({
    method: 'POST',
    path,
    policy: PublicPolicy,
    permission: 'public',
    schema: {
      body: Type.Object({
        email: Type.String({ format: 'email', maxLength: 255 }),
        label: Type.Optional(Type.String({ maxLength: 15 })),
        refund_info: Type.Optional(Type.Object({ amount: Type.String({ messages: { required: 'Refund amount is required' } }) })),
      }),
    },
    envelope,
    handler: async (_ctx, { body }) => ({ received: body }),
  });
}

describe('route declarations', () => {
  let app: TestApp;
  let admin: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    shopper = await app.createUser('shopper');
    mountRoutes(
      app.host,
      'test/v1',
      [
        echo('message', '/message'),
        echo('checkout', '/checkout'),
        echo('admin', '/admin'),
        echo('login', '/login'),
        echo('legacy', '/legacy'),
        echo('role', '/role'),
        route({
          method: 'GET',
          path: '/items/:id',
          policy: PublicPolicy,
          permission: 'public',
          schema: { params: Type.Object({ id: Type.Integer({ minimum: 1 }) }), query: Type.Object({ with: Type.Optional(Type.Array(Type.String())) }) },
          envelope: 'message',
          handler: async (_ctx, { params, query }) => ({ id: params.id, with: query.with ?? [] }),
        }),
        route({
          method: 'GET',
          path: '/items/special',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'message',
          handler: async () => ({ special: true }),
        }),
        route({
          method: 'GET',
          path: '/boom',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'admin',
          handler: async () => {
            throw new Error('SELECT * FROM secret_table at /srv/app/src/x.ts:12');
          },
        }),
        route({
          method: 'POST',
          path: '/paid',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'message',
          handler: async () => {
            throw fail('locked', 'Order has already been paid');
          },
        }),
        route({
          method: 'POST',
          path: '/created',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'message',
          handler: async () => new Reply({ ok: true }, 202, { 'X-Extra': 'yes' }),
        }),
        route({
          method: 'GET',
          path: '/customers/:customerId',
          policy: CustomerPolicy,
          permission: 'customers/view',
          envelope: 'admin',
          handler: async () => ({ variant: 'admin' }),
        }),
        route({
          method: 'GET',
          path: '/customers/:customerId',
          policy: CustomerFrontendPolicy,
          permission: 'authenticated',
          envelope: 'message',
          handler: async (ctx) => ({ variant: 'portal', scope: ctx.scope }),
        }),
        route({
          method: 'GET',
          path: '/limited',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'checkout',
          rateLimit: { name: 'test-limited', points: 3, durationSeconds: 60 },
          handler: async () => ({ ok: true }),
        }),
      ],
      { limits: new RateLimits(app.host.db) },
    );
  });
  afterAll(() => app.close());

  describe('fail closed at start-up', () => {
    const base = { method: 'GET' as const, path: '/x', envelope: 'message' as const, handler: async () => ({}) };
    const mount = (def: Partial<RouteDef>) => () =>
      mountRoutes(app.host, 'closed/v1', [{ ...base, ...def } as RouteDef], { limits: new RateLimits(app.host.db) });

    it.each([
      ['no policy', { permission: 'orders/view' }, /has no policy/],
      [
        'an unknown policy object',
        { policy: { name: 'Mine', requires: 'public', authorize: () => ({ allow: true }) } as Policy, permission: 'public' },
        /has no policy/,
      ],
      ['a permission policy without a permission', { policy: OrderPolicy }, /must name a permission/],
      ['a permission policy with public', { policy: OrderPolicy, permission: 'public' }, /must name a permission/],
      ['an unknown permission', { policy: OrderPolicy, permission: 'orders/fly' }, /unknown permission/],
      ['a public policy without saying so', { policy: PublicPolicy }, /must declare permission 'public'/],
      ['the portal policy without authenticated', { policy: CustomerFrontendPolicy, permission: 'customers/view' }, /must declare permission 'authenticated'/],
      ['no envelope', { policy: PublicPolicy, permission: 'public', envelope: undefined }, /has no envelope/],
    ] as Array<[string, Partial<RouteDef>, RegExp]>)('%s throws', (_name, def, message) => {
      expect(mount(def)).toThrow(message);
    });
  });

  describe('validation errors, in each envelope', () => {
    it.each([
      ['message', { message: 'The email field is required.', errors: { email: { required: 'The email field is required.' } } }],
      ['checkout', { status: 'failed', errors: { email: { required: 'The email field is required.' } } }],
      ['admin', { code: 422, message: 'The email field is required.', data: { email: { required: 'The email field is required.' } } }],
      [
        'login',
        {
          success: false,
          data: { message: 'The email field is required.', code: 'validation_error', errors: { email: { required: 'The email field is required.' } } },
        },
      ],
      [
        'legacy',
        {
          success: false,
          error: { code: 'validation_error', message: 'The email field is required.', errors: { email: { required: 'The email field is required.' } } },
        },
      ],
      ['role', { message: 'The email field is required.', errors: { email: { required: 'The email field is required.' } } }],
    ])('%s: 422', async (envelope, body) => {
      const res = await app.http.post(`${NS}/${envelope}`).send({});
      expect(res.status).toBe(422);
      expect(res.body).toEqual(body);
    });

    it('names every failing field with its rule, nested fields with dots, custom messages from the schema', async () => {
      const res = await app.http.post(`${NS}/message`).send({ email: 'not-an-email', label: 'x'.repeat(16), refund_info: {} });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        email: { email: 'The email field must be a valid email address.' },
        label: { max: 'The label field must not be greater than 15 characters.' },
        'refund_info.amount': { required: 'Refund amount is required' },
      });
    });

    it('bodies are not coerced: a number where a string is expected is refused', async () => {
      const res = await app.http.post(`${NS}/message`).send({ email: 5 });
      expect(res.status).toBe(422);
      expect(res.body.errors.email).toEqual({ string: 'The email field must be a string.' });
    });

    it('query and path parameters are coerced', async () => {
      const res = await app.http.get(`${NS}/items/42?with[]=orders&with[]=labels`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: 42, with: ['orders', 'labels'] });
      const single = await app.http.get(`${NS}/items/42?with=orders`);
      expect(single.body.with).toEqual(['orders']);
    });

    it('a non-numeric id parameter is a 422, not a crash', async () => {
      const res = await app.http.get(`${NS}/items/abc`);
      expect(res.status).toBe(422);
      expect(res.body.errors.id).toEqual({ integer: 'The id field must be an integer.' });
    });

    it('a literal segment wins over a parameter whatever the registration order', async () => {
      const res = await app.http.get(`${NS}/items/special`);
      expect(res.body).toEqual({ special: true });
    });

    it('a body that is not JSON: 400 in the envelope, nothing run', async () => {
      const res = await app.http.post(`${NS}/checkout`).set('Content-Type', 'application/json').send('{nope');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'failed', message: 'The request body is not valid JSON.' });
    });
  });

  describe('errors and replies', () => {
    it('an uncaught error: 500 with a generic message; the detail is only logged', async () => {
      const res = await app.http.get(`${NS}/boom`);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 500, message: 'An internal error occurred.', data: {} });
      expect(JSON.stringify(res.body)).not.toMatch(/secret_table|\/srv|\.ts/);
      expect(app.logger.entries.some((e) => e.level === 'error' && String((e.obj as { err?: Error }).err?.message).includes('secret_table'))).toBe(true);
    });

    it('a service error carries its status and message', async () => {
      const res = await app.http.post(`${NS}/paid`);
      expect(res.status).toBe(423);
      expect(res.body).toEqual({ message: 'Order has already been paid' });
    });

    it('a Reply sets status and headers', async () => {
      const res = await app.http.post(`${NS}/created`);
      expect(res.status).toBe(202);
      expect(res.headers['x-extra']).toBe('yes');
    });
  });

  describe('shared admin/portal paths (DESIGN §9)', () => {
    it('a caller with the admin permission gets the admin variant', async () => {
      const res = await app.as(admin).get(`${NS}/customers/1`);
      expect(res.body).toEqual({ variant: 'admin' });
    });

    it('a logged-in caller without it gets the portal variant with an ownership scope', async () => {
      const res = await app.as(shopper).get(`${NS}/customers/1`);
      expect(res.body).toEqual({ variant: 'portal', scope: { user_id: shopper.user.id, email: 'shopper@example.com' } });
    });

    it('anonymous: 401', async () => {
      const res = await app.http.get(`${NS}/customers/1`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('rest_forbidden');
    });
  });

  describe('rate limits kept in the database', () => {
    it('the 4th request in the window: 429 with the spec message, counted in store_rate_limits', async () => {
      for (let i = 0; i < 3; i++) expect((await app.http.get(`${NS}/limited`)).status).toBe(200);
      const res = await app.http.get(`${NS}/limited`);
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ message: 'Too many requests. Please try again later.' });
      const rows = await app.database.db('store_rate_limits').where('key', 'like', 'test-limited:%');
      expect(rows).toHaveLength(1);
    });

    it('parallel requests cannot overspend the budget', async () => {
      const limits = new RateLimits(app.host.db);
      const rule = { name: 'parallel', points: 5, durationSeconds: 60 };
      const ctx = { user: null, ip: '10.0.0.9' } as Parameters<RateLimits['consume']>[0];
      const results = await Promise.allSettled(Array.from({ length: 12 }, () => limits.consume(ctx, rule)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    });
  });
});
