import { Type } from '@sinclair/typebox';
import { fail } from '../../src/core/errors';
import { KEY_IN_PROGRESS_MESSAGE, KEY_INVALID_MESSAGE, KEY_REUSED_MESSAGE } from '../../src/core/idempotency';
import { OrderPolicy, PublicPolicy } from '../../src/core/policies';
import { RateLimits } from '../../src/core/ratelimit';
import { mountRoutes, Reply, route } from '../../src/core/routes';
import { startTestApp, type TestApp, type TestUser } from '../support/app';

const NS = '/wp-json/idem/v1';
const HOUR = 60 * 60 * 1000;

/** Idempotency-Key on mutating routes: replays, conflicts, errors, expiry, pruning and parallel requests. */
describe('Idempotency-Key', () => {
  let app: TestApp;
  let admin: TestUser;
  let other: TestUser;
  let runs = 0;
  let failuresLeft = 0;
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    other = await app.createUser('other', ['administrator']);
    const body = Type.Object({ amount: Type.Integer(), note: Type.Optional(Type.String()) });
    mountRoutes(
      app.host,
      'idem/v1',
      [
        route({
          method: 'POST',
          path: '/effects',
          policy: OrderPolicy,
          permission: 'orders/manage',
          schema: { body },
          envelope: 'message',
          handler: async (_ctx, { body: input }) => {
            runs++;
            await gate;
            return new Reply({ message: 'Effect applied', run: runs, amount: input.amount }, 201, { 'X-Effect': String(runs) });
          },
        }),
        route({
          method: 'PUT',
          path: '/effects/:id',
          policy: OrderPolicy,
          permission: 'orders/manage',
          schema: { params: Type.Object({ id: Type.Integer({ minimum: 1 }) }) },
          envelope: 'message',
          handler: async () => ({ message: 'Updated', run: ++runs }),
        }),
        route({
          method: 'POST',
          path: '/refused',
          policy: OrderPolicy,
          permission: 'orders/manage',
          envelope: 'message',
          handler: async () => {
            runs++;
            throw fail('locked', 'Order has already been paid');
          },
        }),
        route({
          method: 'POST',
          path: '/flaky',
          policy: OrderPolicy,
          permission: 'orders/manage',
          envelope: 'message',
          handler: async () => {
            runs++;
            if (failuresLeft-- > 0) throw new Error('database went away');
            return { message: 'Worked', run: runs };
          },
        }),
        route({
          method: 'POST',
          path: '/limited',
          policy: OrderPolicy,
          permission: 'orders/manage',
          envelope: 'message',
          handler: async () => {
            runs++;
            throw fail('rate_limited', undefined, { headers: { 'Retry-After': '60' } });
          },
        }),
        route({
          method: 'GET',
          path: '/effects',
          policy: OrderPolicy,
          permission: 'orders/view',
          envelope: 'message',
          handler: async () => ({ run: ++runs }),
        }),
        route({
          method: 'POST',
          path: '/public',
          policy: PublicPolicy,
          permission: 'public',
          envelope: 'message',
          handler: async () => ({ run: ++runs }),
        }),
      ],
      { limits: new RateLimits(app.host.db) },
    );
  });
  afterAll(() => app.close());

  beforeEach(() => {
    runs = 0;
    failuresLeft = 0;
    gate = Promise.resolve();
  });

  let n = 0;
  const newKey = () => `key-${++n}-${Date.now()}`;
  const post = (path: string, key: string | null, body: unknown, user = admin) => {
    const test = app.as(user).post(`${NS}${path}`);
    return (key === null ? test : test.set('Idempotency-Key', key)).send(body as object);
  };
  const stored = () => app.host.db('store_idempotency_keys');

  it('runs every request that carries no key', async () => {
    await post('/effects', null, { amount: 1 }).expect(201);
    await post('/effects', null, { amount: 1 }).expect(201);
    expect(runs).toBe(2);
  });

  it('replays the first response (status, body, headers) for the same key and body, without running again', async () => {
    const key = newKey();
    const first = await post('/effects', key, { amount: 5, note: 'a' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ message: 'Effect applied', run: 1, amount: 5 });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Same fields in another order: the same request.
    const again = await post('/effects', key, { note: 'a', amount: 5 });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-effect']).toBe('1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
    const row = await stored().where({ idempotency_key: key }).first();
    expect(row).toMatchObject({ user_id: admin.user.id, status: 'completed', response_status: 201, created_at: '2026-11-21 10:00:00' });
    expect(row.request_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 409 for the same key with another body or another route, and changes nothing', async () => {
    const key = newKey();
    await post('/effects', key, { amount: 5 }).expect(201);
    const other = await post('/effects', key, { amount: 6 });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ message: KEY_REUSED_MESSAGE });
    const put = await app.as(admin).put(`${NS}/effects/3`).set('Idempotency-Key', key).send({ amount: 5 });
    expect(put.status).toBe(409);
    expect(runs).toBe(1);
    // The first request is still replayed afterwards.
    const replay = await post('/effects', key, { amount: 5 });
    expect(replay.body).toEqual({ message: 'Effect applied', run: 1, amount: 5 });
  });

  it('keeps keys per user: another user may use the same key', async () => {
    const key = newKey();
    await post('/effects', key, { amount: 1 }).expect(201);
    const theirs = await post('/effects', key, { amount: 2 }, other);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(runs).toBe(2);
  });

  it('compares keys case-sensitively on every database', async () => {
    await post('/effects', 'Case-Key', { amount: 1 }).expect(201);
    const lower = await post('/effects', 'case-key', { amount: 2 });
    expect(lower.status).toBe(201);
    expect(lower.headers['idempotent-replayed']).toBeUndefined();
    expect(runs).toBe(2);
  });

  it('accepts keys of up to 255 printable characters and refuses longer, empty or control-character ones with 422', async () => {
    await post('/effects', 'k'.repeat(255), { amount: 1 }).expect(201);
    const long = await post('/effects', 'k'.repeat(256), { amount: 1 });
    expect(long.status).toBe(422);
    expect(long.body).toEqual({ message: KEY_INVALID_MESSAGE, errors: { 'Idempotency-Key': { max: KEY_INVALID_MESSAGE } } });
    const control = await post('/effects', 'tab\there', { amount: 1 });
    expect(control.status).toBe(422);
    expect(control.body.errors).toEqual({ 'Idempotency-Key': { regex: KEY_INVALID_MESSAGE } });
    const empty = await post('/effects', '', { amount: 1 });
    expect(empty.status).toBe(422);
    expect(runs).toBe(1);
  });

  it('answers 409 while the first request with the key is still running, then replays it', async () => {
    const key = newKey();
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const first = post('/effects', key, { amount: 7 }).then((res) => res);
    while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await post('/effects', key, { amount: 7 });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ message: KEY_IN_PROGRESS_MESSAGE });
    open();
    expect((await first).status).toBe(201);
    const third = await post('/effects', key, { amount: 7 });
    expect(third.status).toBe(201);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('replays error answers below 500 as they were', async () => {
    const key = newKey();
    const first = await post('/refused', key, {});
    expect(first.status).toBe(423);
    expect(first.body).toEqual({ message: 'Order has already been paid' });
    const again = await post('/refused', key, {});
    expect(again.status).toBe(423);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('releases the key after a 5xx or a 429, so a retry runs', async () => {
    const key = newKey();
    failuresLeft = 1;
    const failed = await post('/flaky', key, {});
    expect(failed.status).toBe(500);
    expect(await stored().where({ idempotency_key: key }).first()).toBeUndefined();
    const retried = await post('/flaky', key, {});
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ message: 'Worked', run: 2 });
    expect(retried.headers['idempotent-replayed']).toBeUndefined();

    const limitedKey = newKey();
    const limited = await post('/limited', limitedKey, {});
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    await post('/limited', limitedKey, {}).expect(429);
    expect(runs).toBe(4);
  });

  it('ignores the header on reads and for callers without a user', async () => {
    const key = newKey();
    await app.as(admin).get(`${NS}/effects`).set('Idempotency-Key', key).expect(200);
    await app.as(admin).get(`${NS}/effects`).set('Idempotency-Key', key).expect(200);
    await app.http.post(`${NS}/public`).set('Idempotency-Key', key).send({}).expect(200);
    await app.http.post(`${NS}/public`).set('Idempotency-Key', key).send({}).expect(200);
    expect(runs).toBe(4);
    expect(await stored().where({ idempotency_key: key }).first()).toBeUndefined();
  });

  it('still refuses callers without the permission before looking at the key', async () => {
    const clerk = await app.createUser('idem-clerk', ['customer']);
    const res = await post('/effects', newKey(), { amount: 1 }, clerk);
    expect(res.status).toBe(403);
    expect(runs).toBe(0);
  });

  it('forgets keys after 24 hours, and the hourly job prunes them', async () => {
    const key = newKey();
    await post('/effects', key, { amount: 1 }).expect(201);
    app.clock.advance(24 * HOUR - 1000);
    await post('/effects', key, { amount: 1 }).expect(201);
    expect(runs).toBe(1);
    app.clock.advance(2000);
    const after = await post('/effects', key, { amount: 2 });
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(runs).toBe(2);
    expect(await stored().where({ idempotency_key: key }).count({ n: '*' })).toEqual([{ n: 1 }]);

    const oldKey = newKey();
    await post('/effects', oldKey, { amount: 1 }).expect(201);
    app.clock.advance(25 * HOUR);
    while ((await app.host.jobs.runDue(50)) > 0);
    expect(await stored().where({ idempotency_key: oldKey }).first()).toBeUndefined();
    expect(await app.host.db('jobs').where({ name: 'store/idempotency/prune', status: 'done' }).first()).toBeDefined();
  });

  it('runs a key once under parallel requests: one runs, the others get 409 while it is running', async () => {
    const key = newKey();
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    // The first request holds the key until every other one has been answered.
    const safety = setTimeout(() => open(), 5000);
    let answered = 0;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        post('/effects', key, { amount: 9 }).then((res) => {
          if (++answered === 9) open();
          return res;
        }),
      ),
    );
    clearTimeout(safety);
    expect(runs).toBe(1);
    expect(answers.filter((res) => res.status === 201).map((res) => [res.body, res.headers['idempotent-replayed']])).toEqual([
      [{ message: 'Effect applied', run: 1, amount: 9 }, undefined],
    ]);
    expect(answers.filter((res) => res.status === 409).map((res) => res.body)).toEqual(Array(9).fill({ message: KEY_IN_PROGRESS_MESSAGE }));
    expect(await stored().where({ idempotency_key: key }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });
});
