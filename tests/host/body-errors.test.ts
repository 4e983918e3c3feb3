import zlib from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type request from 'supertest';
import type { Envelope } from '../../src/core/envelopes';
import { PublicPolicy } from '../../src/core/policies';
import { RateLimits } from '../../src/core/ratelimit';
import { mountRoutes, route } from '../../src/core/routes';
import { inputErrorOf } from '../../src/host/request-input';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const TEST_NS = '/wp-json/test/v1';

/** The body of a refusal in each envelope (src/core/envelopes.ts). */
function inEnvelope(envelope: Envelope, status: number, code: string, message: string): unknown {
  switch (envelope) {
    case 'message':
      return { message };
    case 'checkout':
      return { status: 'failed', message };
    case 'admin':
      return { code: status, message, data: {} };
    case 'login':
      return { success: false, data: { message, code } };
    case 'legacy':
      return { success: false, error: { code, message } };
    case 'role':
      return { message, errors: [{ code: status, message }] };
  }
}

const NOT_DECOMPRESSIBLE = 'The request body could not be decompressed as its Content-Encoding says.';
const UNSUPPORTED_ENCODING = 'The Content-Encoding of the request body is not supported: use gzip, deflate, br or none.';
const BAD_ESCAPE = 'The URL or form body has a malformed percent-encoding (a % not followed by UTF-8 hex).';
/** Node 22.15+ decompresses zstd; older versions refuse the encoding. */
const ZSTD: [number, string] = 'createZstdDecompress' in zlib ? [400, NOT_DECOMPRESSIBLE] : [415, UNSUPPORTED_ENCODING];

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('requests the HTTP layer cannot read', () => {
  let app: TestApp;
  let admin: TestUser;
  let loginNonce: string;
  let loginAgent: ReturnType<TestApp['browser']>['agent'];

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    const echo = (envelope: Envelope) =>
      route({
        method: 'POST',
        path: `/${envelope}`,
        policy: PublicPolicy,
        permission: 'public',
        schema: { body: Type.Object({ title: Type.Optional(Type.String()) }) },
        envelope,
        handler: async (_ctx, { body }) => ({ received: body }),
      });
    mountRoutes(app.host, 'test/v1', [echo('checkout'), echo('legacy')], { limits: new RateLimits(app.host.db) });
    const browser = app.browser();
    loginNonce = await browser.fetchNonce();
    loginAgent = browser.agent;
  });
  afterAll(() => app.close());

  /** One route per envelope: the store's own where it has one, test routes for the other two. */
  const routes: Array<[Envelope, string, () => request.Test]> = [
    ['message', 'POST /labels', () => app.as(admin).post(`${BASE}/labels`)],
    ['admin', 'POST /customers', () => app.as(admin).post(`${BASE}/customers`)],
    ['login', 'POST /user/login', () => loginAgent.post(`${BASE}/user/login`).set('X-WP-Nonce', loginNonce)],
    ['checkout', 'POST (checkout envelope)', () => app.http.post(`${TEST_NS}/checkout`)],
    ['legacy', 'POST (legacy envelope)', () => app.http.post(`${TEST_NS}/legacy`)],
    ['role', 'POST /roles', () => app.as(admin).post(`${BASE}/roles`)],
  ];

  const send = (test: request.Test, headers: Record<string, string>, body: Buffer | string) =>
    test
      .set({ 'Content-Type': 'application/json', ...headers })
      .serialize((b: unknown) => b as string)
      .send(body as string);

  const stored = async () => ({
    labels: Number((await app.host.db('store_labels').count({ n: '*' }).first())?.n),
    customers: Number((await app.host.db('store_customers').count({ n: '*' }).first())?.n),
    roles: Number((await app.host.db('store_roles').count({ n: '*' }).first())?.n),
  });

  const plain = json({ title: 'Gift', email: 'gift@example.com', user_login: 'admin', password: 'x' });
  const gzipped = zlib.gzipSync(plain);

  describe.each(routes)('%s: %s', (envelope, _name, start) => {
    it.each([
      ['an unknown Content-Encoding (x-foo)', 415, { 'Content-Encoding': 'x-foo' }, plain, 'rest_invalid_request', UNSUPPORTED_ENCODING],
      ['a list of encodings (gzip, x-foo)', 415, { 'Content-Encoding': 'gzip, x-foo' }, gzipped, 'rest_invalid_request', UNSUPPORTED_ENCODING],
      ['zstd', ZSTD[0], { 'Content-Encoding': 'zstd' }, plain, 'rest_invalid_request', ZSTD[1]],
      ['a plain body labelled gzip', 400, { 'Content-Encoding': 'gzip' }, plain, 'rest_invalid_request', NOT_DECOMPRESSIBLE],
      ['a plain body labelled deflate', 400, { 'Content-Encoding': 'deflate' }, plain, 'rest_invalid_request', NOT_DECOMPRESSIBLE],
      ['a plain body labelled br', 400, { 'Content-Encoding': 'br' }, plain, 'rest_invalid_request', NOT_DECOMPRESSIBLE],
      ['a truncated gzip body', 400, { 'Content-Encoding': 'gzip' }, gzipped.subarray(0, 12), 'rest_invalid_request', NOT_DECOMPRESSIBLE],
      [
        'a body that is not UTF-8 (charset=latin1)',
        415,
        { 'Content-Type': 'application/json; charset=latin1' },
        plain,
        'rest_invalid_request',
        'The request body must be UTF-8 (send charset=utf-8 or no charset).',
      ],
      [
        'a multipart body',
        415,
        { 'Content-Type': 'multipart/form-data; boundary=x' },
        '--x--',
        'rest_invalid_request',
        'Multipart bodies are not supported: send JSON or a form-encoded body.',
      ],
      ['a body that is not JSON', 400, {}, '{"title":', 'rest_invalid_json', 'The request body is not valid JSON.'],
      ['JSON nested 33 deep', 400, {}, nested(33), 'rest_invalid_request', 'The request body is nested more than 32 levels deep.'],
      ['a form body with a malformed escape', 400, { 'Content-Type': 'application/x-www-form-urlencoded' }, 'title=100%', 'rest_invalid_request', BAD_ESCAPE],
      [
        'a body over 2 MB',
        413,
        {},
        Buffer.alloc(2 * 1024 * 1024 + 1, 0x20),
        'rest_request_too_large',
        'The request body is too large (at most 2 MB, after decompression).',
      ],
      [
        'a small gzip body over 2 MB once decompressed',
        413,
        { 'Content-Encoding': 'gzip' },
        zlib.gzipSync(Buffer.alloc(3 * 1024 * 1024, 0x20)),
        'rest_request_too_large',
        'The request body is too large (at most 2 MB, after decompression).',
      ],
    ] as const)('%s: %d in the envelope, nothing stored', async (_what, status, headers, body, code, message) => {
      const before = await stored();
      const res = await send(start(), headers, body);
      expect(res.status).toBe(status);
      expect(res.body).toEqual(inEnvelope(envelope, status, code, message));
      expect(await stored()).toEqual(before);
    });
  });

  describe('bodies it can read', () => {
    it('a gzip-compressed JSON body is decompressed', async () => {
      const res = await send(app.as(admin).post(`${BASE}/labels`), { 'Content-Encoding': 'gzip' }, zlib.gzipSync(json({ title: 'Zipped' })));
      expect(res.status).toBe(200);
      expect(res.body.label.title).toBe('Zipped');
    });

    it('JSON nested 32 deep is read (and then validated)', async () => {
      const res = await send(app.http.post(`${TEST_NS}/checkout`), {}, `{"title":${nested(31)}}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'failed', errors: { title: { string: 'The title field must be a string.' } } });
    });

    it('a form body may nest brackets 31 deep (32 levels with the body); 32 brackets is refused', async () => {
      const form = (depth: number) =>
        send(app.http.post(`${TEST_NS}/checkout`), { 'Content-Type': 'application/x-www-form-urlencoded' }, `title${'[a]'.repeat(depth)}=x`);
      expect((await form(31)).body).toEqual({ status: 'failed', errors: { title: { string: 'The title field must be a string.' } } });
      const res = await form(32);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'failed', message: 'The form body nests brackets more than 31 deep.' });
    });

    it('a form body of more than 10,000 parameters is refused rather than cut', async () => {
      const body = Array.from({ length: 10_001 }, (_, i) => `p${i}=1`).join('&');
      const res = await send(app.http.post(`${TEST_NS}/legacy`), { 'Content-Type': 'application/x-www-form-urlencoded' }, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: { code: 'rest_invalid_request', message: 'The form body has more than 10000 parameters.' } });
    });
  });

  describe('Idempotency-Key with a body nested 10,000 deep', () => {
    it('is refused with 400 before the key is hashed; nothing is stored, and the key replays the refusal', async () => {
      const before = await stored();
      const post = () => send(app.as(admin).post(`${BASE}/labels`).set('Idempotency-Key', 'deep-1'), {}, `{"title":${nested(10_000)}}`);
      const res = await post();
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'The request body is nested more than 32 levels deep.' });
      expect(await stored()).toEqual(before);
      const again = await post();
      expect(again.status).toBe(400);
      expect(again.headers['idempotent-replayed']).toBe('true');
    });
  });

  describe('query strings and paths', () => {
    it.each([
      ['a malformed escape', '?search=%E0%A4%A', BAD_ESCAPE],
      ['a lone %', '?search=100%', BAD_ESCAPE],
      ['brackets nested 6 deep', '?a[b][c][d][e][f][g]=1', 'The query string nests brackets more than 5 deep.'],
      ['more than 1,000 parameters', `?${Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&')}`, 'The query string has more than 1000 parameters.'],
      [
        'an array of more than 500 elements',
        `?a[]=${Array.from({ length: 501 }, () => '1').join('&a[]=')}`,
        'The query string has an array of more than 500 elements.',
      ],
      ['an array index past 500', '?include_ids[501]=1', 'The query string has an array of more than 500 elements.'],
    ])('%s: 400 in the route envelope (message and admin)', async (_what, query, message) => {
      const labels = await app.as(admin).get(`${BASE}/labels${query}`);
      expect(labels.status).toBe(400);
      expect(labels.body).toEqual({ message });
      const customers = await app.as(admin).get(`${BASE}/customers${query}`);
      expect(customers.status).toBe(400);
      expect(customers.body).toEqual({ code: 400, message, data: {} });
    });

    it('a query string within the limits is read as sent', async () => {
      const res = await app.as(admin).get(`${BASE}/labels?search=${encodeURIComponent('100% ünïcode')}&a[b][c][d][e][f]=1`);
      expect(res.status).toBe(200);
    });

    it.each([
      ['GET /labels/%E0%A4%A', () => app.as(admin).get(`${BASE}/labels/%E0%A4%A`), { message: BAD_ESCAPE }],
      ['GET /customers/%ZZ', () => app.as(admin).get(`${BASE}/customers/%ZZ`), { code: 400, message: BAD_ESCAPE, data: {} }],
      ['DELETE /labels/%C0', () => app.as(admin).delete(`${BASE}/labels/%C0`), { message: BAD_ESCAPE }],
    ])('a malformed path segment, %s: 400 in the route envelope', async (_name, call, body) => {
      const res = await call();
      expect(res.status).toBe(400);
      expect(res.body).toEqual(body);
    });

    it('an unknown route stays 404 rest_no_route whatever its encoding', async () => {
      const res = await app.as(admin).post(`${BASE}/nowhere`).set('Content-Encoding', 'x-foo').send({ a: 1 });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('rest_no_route');
    });

    it('no refusal reaches the error log (they are the client’s, not the server’s)', () => {
      expect(app.logger.entries.filter((e) => e.level === 'error')).toEqual([]);
    });
  });
});

describe('inputErrorOf: which errors of the HTTP layer are the client’s', () => {
  const httpError = (status: number, type: string | undefined, expose = status < 500) =>
    Object.assign(new Error('x'), { status, statusCode: status, type, expose });

  it.each([
    ['request.aborted', 400, 'The request was aborted before its body arrived.'],
    ['request.size.invalid', 400, 'The request body is not as long as its Content-Length says.'],
    ['charset.unsupported', 415, 'The request body must be UTF-8 (send charset=utf-8 or no charset).'],
  ])('%s (not reachable through a well-formed HTTP exchange): %d', (type, status, message) => {
    expect(inputErrorOf(httpError(status, type))).toEqual({ status, code: 'rest_invalid_request', message });
  });

  it('any other exposed 4xx keeps its own status and message (stream.encoding.set, parameters.too.many, entity.verify.failed)', () => {
    expect(inputErrorOf(Object.assign(httpError(403, 'entity.verify.failed'), { message: 'Signature mismatch' }))).toEqual({
      status: 403,
      code: 'rest_invalid_request',
      message: 'Signature mismatch',
    });
  });

  it('a URIError from percent-decoding is a 400', () => {
    expect(inputErrorOf(new URIError('URI malformed'))?.status).toBe(400);
  });

  it.each([
    ['a 5xx', httpError(500, 'stream.not.readable')],
    ['a 4xx that is not exposed', httpError(400, 'x', false)],
    ['a plain error', new Error('boom')],
    ['not an error', 'boom'],
  ])('%s is the server’s: null (answered 500)', (_what, error) => {
    expect(inputErrorOf(error)).toBeNull();
  });
});
