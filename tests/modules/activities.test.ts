import { transaction } from '../../src/core/context';
import { recordActivity } from '../../src/modules/activities/service';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('GET /activities', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let shopper: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['product_manager']);
    shopper = await app.createUser('shopper');
    const ctx = app.ctx(admin);
    const fired: number[] = [];
    app.host.hooks.addAction('store/activity/created', (activity) => {
      fired.push(activity.object_id);
    });
    await transaction(ctx, async (trx, afterCommit) => {
      await recordActivity(trx, ctx, { object_type: 'product', object_id: 1, title: 'Product created' }, afterCommit);
      await recordActivity(trx, ctx, { object_type: 'product', object_id: 2, title: 'Product created', content: 'Second' }, afterCommit);
      await recordActivity(trx, ctx, { object_type: 'order', object_id: 1, title: 'Order paid', status: 'success' }, afterCommit);
      expect(fired).toEqual([]);
    });
    expect(fired).toEqual([1, 2, 1]);
  });
  afterAll(() => app.close());

  it('lists the log newest first with who wrote each entry', async () => {
    const res = await app.as(admin).get(`${BASE}/activities`);
    expect(res.status).toBe(200);
    expect(res.body.activities.total).toBe(3);
    expect(res.body.activities.data[0]).toEqual({
      id: expect.any(Number),
      object_type: 'order',
      object_id: 1,
      title: 'Order paid',
      content: '',
      status: 'success',
      user_id: admin.user.id,
      created_by: 'admin',
      created_at: '2026-11-21 10:00:00',
    });
  });

  it('filters by object', async () => {
    const res = await app.as(admin).get(`${BASE}/activities?object_type=product&object_id=2`);
    expect(res.body.activities.data.map((a: { content: string }) => a.content)).toEqual(['Second']);
  });

  it('shows only the kinds of object the caller may read', async () => {
    const res = await app.as(clerk).get(`${BASE}/activities`);
    expect(res.status).toBe(200);
    expect(res.body.activities.data.every((a: { object_type: string }) => a.object_type === 'product')).toBe(true);
    expect((await app.as(clerk).get(`${BASE}/activities?object_type=order`)).status).toBe(403);
  });

  it('refuses unknown object types with 422, anonymous with 401, customers with 403', async () => {
    expect((await app.as(admin).get(`${BASE}/activities?object_type=planet`)).status).toBe(422);
    expect((await app.http.get(`${BASE}/activities`)).status).toBe(401);
    expect((await app.as(shopper).get(`${BASE}/activities`)).status).toBe(403);
  });
});
