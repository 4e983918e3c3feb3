import request from 'supertest';
import { createHost, type HostRuntime } from '../../src/host/app';
import { MovableClock } from '../../src/host/clock';
import { BASE, MemoryLogger, startTestApp, testConfig, type TestApp, type TestUser } from '../support/app';

/** What a user's roles let them do, route by route: 200 allowed, 403 denied. */
async function reach(app: { http: ReturnType<typeof request> }, user: TestUser, paths: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const path of paths) statuses.push((await app.http.get(`${BASE}${path}`).auth(user.user.login, user.appPassword)).status);
  return statuses;
}

describe('roles: a role decides what its holders may do', () => {
  let app: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
  });
  afterAll(() => app.close());

  it('a custom role grants its capabilities on the next request, and nothing else; a change applies at once', async () => {
    const created = await app
      .as(admin)
      .post(`${BASE}/roles`)
      .send({ title: 'Catalog Viewer', capabilities: ['products/view'] });
    const viewer = await app.createUser('viewer');
    expect(await reach(app, viewer, ['/products', '/orders'])).toEqual([403, 403]);
    await app.as(admin).post(`${BASE}/roles`).send({ user_id: viewer.user.id, role_key: created.body.role.key }).expect(200);
    expect(await reach(app, viewer, ['/products', '/orders', '/labels'])).toEqual([200, 403, 403]);
    await app
      .as(admin)
      .post(`${BASE}/roles/catalog_viewer`)
      .send({ capabilities: ['orders/view', 'labels/view'] })
      .expect(200);
    expect(await reach(app, viewer, ['/products', '/orders', '/labels'])).toEqual([403, 200, 200]);
    await app.as(admin).delete(`${BASE}/roles/catalog_viewer`).expect(200);
    expect(await reach(app, viewer, ['/products', '/orders', '/labels'])).toEqual([403, 403, 403]);
  });

  it('an edited built-in role grants what the edit says', async () => {
    const seller = await app.createUser('seller', ['product_manager']);
    expect(await reach(app, seller, ['/products', '/orders'])).toEqual([200, 403]);
    await app
      .as(admin)
      .post(`${BASE}/roles/product_manager`)
      .send({ capabilities: ['orders/view'] })
      .expect(200);
    expect(await reach(app, seller, ['/products', '/orders'])).toEqual([403, 200]);
  });

  it('store/role/capabilities filters a role’s capabilities for its holders; store/user/can has the last word', async () => {
    const clerk = await app.createUser('clerk', ['customer_service']);
    expect(await reach(app, clerk, ['/orders', '/products'])).toEqual([200, 200]);
    const roleKeys: string[] = [];
    const offs = [
      app.host.hooks.addFilter('store/role/capabilities', (capabilities, { role_key }) => {
        roleKeys.push(role_key);
        return role_key === 'customer_service' ? capabilities.filter((id) => id !== 'orders/view') : capabilities;
      }),
    ];
    try {
      expect(await reach(app, clerk, ['/orders', '/products'])).toEqual([403, 200]);
      expect(roleKeys).toContain('customer_service');
      offs.push(
        app.host.hooks.addFilter('store/user/can', (allowed, { user, permission }) => (user.id === clerk.user.id && permission === 'orders/view') || allowed),
      );
      expect(await reach(app, clerk, ['/orders'])).toEqual([200]);
    } finally {
      offs.forEach((off) => off());
    }
  });

  describe('another process (a second app on the same database)', () => {
    let other: HostRuntime;
    let otherHttp: ReturnType<typeof request>;

    beforeAll(async () => {
      other = await createHost(testConfig(), { db: app.database.db, clock: new MovableClock('2026-11-21T10:00:00Z'), logger: new MemoryLogger() });
      await other.loadPlugin();
      otherHttp = request(other.app);
    });
    afterAll(() => other.close());

    const asAdminThere = (method: 'post' | 'delete', path: string) => otherHttp[method](`${BASE}${path}`).auth(admin.user.login, admin.appPassword);

    it('its role changes reach this process within a second', async () => {
      const packer = await app.createUser('packer');
      const created = await asAdminThere('post', '/roles').send({ title: 'Remote Packer', capabilities: ['products/view'] });
      expect(created.status).toBe(200);
      await asAdminThere('post', '/roles').send({ user_id: packer.user.id, role_key: 'remote_packer' }).expect(200);
      // This process has not looked yet: it does not know the role.
      expect((await app.as(admin).get(`${BASE}/roles/remote_packer`)).status).toBe(404);
      app.clock.advance(1001);
      expect((await app.as(admin).get(`${BASE}/roles/remote_packer`)).status).toBe(200);
      expect(await reach(app, packer, ['/products', '/orders'])).toEqual([200, 403]);

      await asAdminThere('post', '/roles/remote_packer')
        .send({ capabilities: ['orders/view'] })
        .expect(200);
      expect(await reach(app, packer, ['/products', '/orders'])).toEqual([200, 403]);
      app.clock.advance(1001);
      expect(await reach(app, packer, ['/products', '/orders'])).toEqual([403, 200]);

      await asAdminThere('delete', '/roles/remote_packer').expect(200);
      app.clock.advance(1001);
      expect(await reach(app, packer, ['/products', '/orders'])).toEqual([403, 403]);
      expect((await app.as(admin).get(`${BASE}/roles`)).body.roles.map((role: { key: string }) => role.key)).not.toContain('remote_packer');
    });

    it('a process checks the roles version at most once a second (one read), not on every request', async () => {
      const queries: string[] = [];
      const listen = (query: { sql: string }) => void queries.push(query.sql);
      app.database.db.on('query', listen);
      try {
        app.clock.advance(1001);
        await app.as(admin).get(`${BASE}/roles`).expect(200);
        await app.as(admin).get(`${BASE}/roles`).expect(200);
        app.clock.advance(999);
        await app.as(admin).get(`${BASE}/roles`).expect(200);
      } finally {
        app.database.db.off('query', listen);
      }
      expect(queries.filter((sql) => sql.includes('store_counters'))).toHaveLength(1);
    });
  });
});

describe('roles: the registration points', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;

  beforeAll(async () => {
    app = await startTestApp({ plugin: false });
    // An extension listens before the store builds its registry.
    app.host.hooks.addFilter('store/roles/capabilities', (capabilities) => ({ ...capabilities, 'reports/accountant': 'Read the books' }));
    app.host.hooks.addFilter('store/roles/register', (roles) => ({
      ...roles,
      accountant: { title: 'Accountant', description: 'The books.', capabilities: ['reports/view', 'reports/accountant', 'not/registered'] },
      shop_manager: { title: 'Impostor', capabilities: [] },
      'Bad Key': { title: 'Bad', capabilities: [] },
    }));
    await app.runtime.loadPlugin();
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['shop_manager']);
  });
  afterAll(() => app.close());

  it('an extension role is listed as built-in with its registered capabilities; taken or bad keys are refused', async () => {
    const res = await app.as(admin).get(`${BASE}/roles`);
    expect(res.body.roles.map((role: { key: string }) => role.key)).toEqual([
      'shop_manager',
      'product_manager',
      'order_manager',
      'customer_service',
      'accountant',
    ]);
    expect(res.body.roles[0].title).toBe('Shop Manager');
    expect(res.body.roles[4]).toEqual({
      key: 'accountant',
      title: 'Accountant',
      description: 'The books.',
      capabilities: ['reports/view', 'reports/accountant'],
      builtin: true,
    });
    const warnings = app.logger.entries.filter((entry) => entry.level === 'warn' && typeof entry.obj === 'object' && entry.obj !== null && 'role' in entry.obj);
    expect(warnings.map((entry) => entry.obj)).toEqual([
      { role: 'accountant', capabilities: ['not/registered'] },
      { role: 'shop_manager' },
      { role: 'Bad Key' },
    ]);
  });

  it('an extension role cannot be deleted; it can be edited and assigned', async () => {
    const res = await app.as(admin).delete(`${BASE}/roles/accountant`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'Permission denied', errors: [{ code: 403, message: 'Permission denied' }] });
    const edited = await app.as(admin).post(`${BASE}/roles/accountant`).send({ title: 'Bookkeeper' });
    expect(edited.body.role).toMatchObject({ key: 'accountant', title: 'Bookkeeper', builtin: true });
    const bea = await app.createUser('bea');
    await app.as(admin).post(`${BASE}/roles`).send({ user_id: bea.user.id, role_key: 'accountant' }).expect(200);
    expect((await app.as(admin).delete(`${BASE}/roles/accountant`)).status).toBe(403);
  });

  it('a registered capability may be given by those who hold it; the shop manager does not hold it', async () => {
    const made = await app
      .as(admin)
      .post(`${BASE}/roles`)
      .send({ title: 'Auditor', capabilities: ['reports/accountant'] });
    expect(made.status).toBe(200);
    expect(made.body.role.capabilities).toEqual(['reports/accountant']);
    const refused = await app
      .as(manager)
      .post(`${BASE}/roles`)
      .send({ title: 'Auditor Two', capabilities: ['reports/accountant'] });
    expect(refused.status).toBe(403);
    const cal = await app.createUser('cal');
    expect((await app.as(manager).post(`${BASE}/roles`).send({ user_id: cal.user.id, role_key: 'accountant' })).status).toBe(403);
  });
});
