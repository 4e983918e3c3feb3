import { STORE_ROLES } from '../../src/core/roles';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const roleError = (status: number, message: string) => ({ message, errors: [{ code: status, message }] });

describe('roles: the role definitions', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;
  let clerk: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['customer', 'shop_manager']);
    clerk = await app.createUser('clerk', ['customer_service']);
  });
  afterAll(() => app.close());

  const storedRoles = async () =>
    (await app.database.db('store_roles').orderBy('id').select('key', 'title', 'description', 'capabilities')).map((row) => ({
      ...row,
      capabilities: JSON.parse(row.capabilities),
    }));
  const roleActivities = () => app.database.db('store_activities').where({ object_type: 'role' }).orderBy('id').select('object_id', 'title', 'content');
  const rolesOf = async (user: TestUser) =>
    JSON.parse((await app.database.db('usermeta').where({ user_id: user.user.id, meta_key: 'roles' }).first()).meta_value);

  /** A user holding a custom role that grants `capabilities` (the role is created by the administrator). */
  async function userWithRole(login: string, title: string, capabilities: string[]): Promise<{ user: TestUser; key: string }> {
    const created = await app.as(admin).post(`${BASE}/roles`).send({ title, capabilities });
    expect(created.status).toBe(200);
    const user = await app.createUser(login);
    expect((await app.as(admin).post(`${BASE}/roles`).send({ user_id: user.user.id, role_key: created.body.role.key })).status).toBe(200);
    return { user, key: created.body.role.key };
  }

  describe('access', () => {
    it('needs manage_store_settings: 401 without credentials, 403 rest_forbidden without the permission', async () => {
      expect((await app.http.get(`${BASE}/roles`)).status).toBe(401);
      const res = await app.as(clerk).get(`${BASE}/roles`);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'rest_forbidden' });
      expect((await app.as(clerk).post(`${BASE}/roles`).send({ title: 'X', capabilities: [] })).status).toBe(403);
      expect(await storedRoles()).toEqual([]);
    });
  });

  describe('GET /roles', () => {
    it('lists the four built-in roles with their keys, not the host roles', async () => {
      const res = await app.as(manager).get(`${BASE}/roles`);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Roles retrieved successfully');
      expect(res.body.roles.map((role: { key: string }) => role.key)).toEqual(['shop_manager', 'product_manager', 'order_manager', 'customer_service']);
      expect(res.body.roles[1]).toEqual({
        key: 'product_manager',
        title: 'Product Manager',
        description: STORE_ROLES.product_manager.description,
        capabilities: STORE_ROLES.product_manager.capabilities,
        builtin: true,
      });
    });

    it('answers what store/roles/available leaves', async () => {
      const off = app.host.hooks.addFilter('store/roles/available', (roles) => roles.filter((role) => role.key !== 'customer_service'));
      try {
        const res = await app.as(admin).get(`${BASE}/roles`);
        expect(res.body.roles.map((role: { key: string }) => role.key)).toEqual(['shop_manager', 'product_manager', 'order_manager']);
      } finally {
        off();
      }
    });
  });

  describe('POST /roles (create: no user_id)', () => {
    it('creates a custom role, its key derived from the title, and logs it', async () => {
      const created: unknown[] = [];
      const off = app.host.hooks.addAction('store/role/created', (role) => void created.push(role));
      try {
        const res = await app
          .as(admin)
          .post(`${BASE}/roles`)
          .send({ title: ' Inventory Clerk ', description: 'Counts stock.', capabilities: ['products/view', 'products/manage', 'products/view'] });
        expect(res.status).toBe(200);
        const role = {
          key: 'inventory_clerk',
          title: 'Inventory Clerk',
          description: 'Counts stock.',
          capabilities: ['products/view', 'products/manage'],
          builtin: false,
        };
        expect(res.body).toEqual({ message: 'Role created successfully', role });
        expect(created).toEqual([role]);
      } finally {
        off();
      }
      expect(await storedRoles()).toEqual([
        { key: 'inventory_clerk', title: 'Inventory Clerk', description: 'Counts stock.', capabilities: ['products/view', 'products/manage'] },
      ]);
      expect(await roleActivities()).toEqual([{ object_id: expect.any(Number), title: 'Role created', content: 'Inventory Clerk (inventory_clerk)' }]);
      const list = await app.as(admin).get(`${BASE}/roles`);
      expect(list.body.roles[4]).toMatchObject({ key: 'inventory_clerk', builtin: false });
      const one = await app.as(admin).get(`${BASE}/roles/inventory_clerk`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual({ message: 'Role retrieved successfully', role: list.body.roles[4] });
    });

    it.each([
      ['Tax & Reports!', 'tax_reports'],
      ['Tax & Reports', 'tax_reports_2'],
      ['tax reports', 'tax_reports_3'],
      ['Shop Manager', 'shop_manager_2'],
      ['Administrator', 'administrator_2'],
      ['Crème Brûlée', 'creme_brulee'],
      ['日本語', 'role'],
      ['¿¡', 'role_2'],
    ])('the key of "%s" is %s (lower-case, _ for other characters, unique with a suffix)', async (title, key) => {
      const res = await app.as(admin).post(`${BASE}/roles`).send({ title, capabilities: [] });
      expect(res.status).toBe(200);
      expect(res.body.role).toMatchObject({ key, title });
      expect((await app.as(admin).get(`${BASE}/roles/${encodeURIComponent(key)}`)).body.role.title).toBe(title);
    });

    it('a form-encoded body works like JSON', async () => {
      const res = await app.as(admin).post(`${BASE}/roles`).type('form').send('title=Form+Role&capabilities[]=orders/view');
      expect(res.status).toBe(200);
      expect(res.body.role).toMatchObject({ key: 'form_role', capabilities: ['orders/view'] });
    });

    it.each([
      [
        'no title and no capabilities',
        {},
        { title: { required: 'The title field is required.' }, capabilities: { required: 'The capabilities field is required.' } },
      ],
      ['a blank title', { title: '   ', capabilities: [] }, { title: { required: 'The title field is required.' } }],
      [
        'a title over 100 characters',
        { title: 'x'.repeat(101), capabilities: [] },
        { title: { max: 'The title field must not be greater than 100 characters.' } },
      ],
      [
        'capabilities that are not an array',
        { title: 'X', capabilities: 'products/view' },
        { capabilities: { array: 'The capabilities field must be an array.' } },
      ],
      [
        'capabilities nobody registered',
        { title: 'X', capabilities: ['products/view', 'orders/fly', 'constructor'] },
        { capabilities: { in: 'The selected capabilities are invalid: orders/fly, constructor.' } },
      ],
    ])('%s: 422 naming the field, nothing stored', async (_what, body, errors) => {
      const before = await storedRoles();
      const res = await app.as(admin).post(`${BASE}/roles`).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: Object.values(Object.values(errors)[0])[0], errors });
      expect(await storedRoles()).toEqual(before);
    });

    it('403 Permission denied when the caller would grant a capability they do not hold', async () => {
      const { user } = await userWithRole('role-admin', 'Role Admin', ['manage_store_settings', 'products/view']);
      const before = await storedRoles();
      const res = await app
        .as(user)
        .post(`${BASE}/roles`)
        .send({ title: 'Bigger', capabilities: ['products/view', 'orders/view'] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(roleError(403, 'Permission denied'));
      expect(await storedRoles()).toEqual(before);
      const allowed = await app
        .as(user)
        .post(`${BASE}/roles`)
        .send({ title: 'Smaller', capabilities: ['products/view'] });
      expect(allowed.status).toBe(200);
    });
  });

  describe('GET /roles/{key}', () => {
    it('answers a built-in role', async () => {
      const res = await app.as(admin).get(`${BASE}/roles/order_manager`);
      expect(res.status).toBe(200);
      expect(res.body.role).toEqual({ key: 'order_manager', ...STORE_ROLES.order_manager, description: STORE_ROLES.order_manager.description });
    });

    it.each(['nope', 'administrator', 'customer', 'constructor'])('%s: 404 Role not found in the role envelope', async (key) => {
      const res = await app.as(admin).get(`${BASE}/roles/${key}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(roleError(404, 'Role not found'));
    });
  });

  describe('POST /roles/{key} (update)', () => {
    it('changes a custom role; its key stays', async () => {
      const updates: Array<[string, string]> = [];
      const off = app.host.hooks.addAction('store/role/updated', (role, previous) => void updates.push([role.title, previous.title]));
      try {
        const res = await app
          .as(admin)
          .post(`${BASE}/roles/inventory_clerk`)
          .send({ title: 'Stock Keeper', capabilities: ['products/view'] });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          message: 'Role updated successfully',
          role: { key: 'inventory_clerk', title: 'Stock Keeper', description: 'Counts stock.', capabilities: ['products/view'], builtin: false },
        });
        expect(updates).toEqual([['Stock Keeper', 'Inventory Clerk']]);
      } finally {
        off();
      }
      expect((await storedRoles()).find((row) => row.key === 'inventory_clerk')).toEqual({
        key: 'inventory_clerk',
        title: 'Stock Keeper',
        description: 'Counts stock.',
        capabilities: ['products/view'],
      });
      expect((await app.as(admin).get(`${BASE}/roles/inventory_clerk`)).body.role.title).toBe('Stock Keeper');
      expect((await roleActivities()).pop()).toMatchObject({ title: 'Role updated', content: 'Stock Keeper (inventory_clerk)' });
    });

    it('edits a built-in role: stored under its key, still built-in', async () => {
      const res = await app.as(admin).post(`${BASE}/roles/product_manager`).send({ description: 'Products, inventory and labels.' });
      expect(res.status).toBe(200);
      expect(res.body.role).toEqual({
        key: 'product_manager',
        title: 'Product Manager',
        description: 'Products, inventory and labels.',
        capabilities: STORE_ROLES.product_manager.capabilities,
        builtin: true,
      });
      expect((await storedRoles()).find((row) => row.key === 'product_manager')).toMatchObject({ description: 'Products, inventory and labels.' });
      const again = await app
        .as(admin)
        .post(`${BASE}/roles/product_manager`)
        .send({ capabilities: ['products/view'] });
      expect(again.body.role).toMatchObject({ description: 'Products, inventory and labels.', capabilities: ['products/view'], builtin: true });
      expect(await app.database.db('store_roles').where({ key: 'product_manager' }).count({ n: '*' }).first()).toEqual({ n: 1 });
    });

    it('404 for an unknown role, 422 for an unknown capability, 403 for one the caller lacks; nothing changes', async () => {
      const { user } = await userWithRole('editor', 'Role Editor', ['manage_store_settings', 'products/view']);
      const before = await storedRoles();
      expect((await app.as(admin).post(`${BASE}/roles/nope`).send({ title: 'X' })).body).toEqual(roleError(404, 'Role not found'));
      const unknown = await app
        .as(admin)
        .post(`${BASE}/roles/inventory_clerk`)
        .send({ capabilities: ['x/y'] });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual({ capabilities: { in: 'The selected capabilities are invalid: x/y.' } });
      const lacking = await app
        .as(user)
        .post(`${BASE}/roles/inventory_clerk`)
        .send({ capabilities: ['orders/can_refund'] });
      expect(lacking.status).toBe(403);
      expect(lacking.body).toEqual(roleError(403, 'Permission denied'));
      expect(await storedRoles()).toEqual(before);
    });
  });

  describe('DELETE /roles/{key} (delete: no user_id)', () => {
    it('deletes a custom role and takes it from every user holding it, in one transaction', async () => {
      const { user, key } = await userWithRole('doomed', 'Doomed Role', ['products/view']);
      const other = await app.createUser('doomed-too', ['customer']);
      await app.as(admin).post(`${BASE}/roles`).send({ user_id: other.user.id, role_key: key }).expect(200);
      const events: unknown[] = [];
      const offs = [
        app.host.hooks.addAction('store/role/deleted', (role, holders) => void events.push(['deleted', role.key, holders])),
        app.host.hooks.addAction('store/role/removed', (userId, roleKey) => void events.push(['removed', userId, roleKey])),
      ];
      try {
        const res = await app.as(admin).delete(`${BASE}/roles/${key}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Role deleted successfully' });
      } finally {
        offs.forEach((off) => off());
      }
      expect(events).toEqual([
        ['removed', user.user.id, key],
        ['removed', other.user.id, key],
        ['deleted', key, [user.user.id, other.user.id]],
      ]);
      expect((await storedRoles()).map((row) => row.key)).not.toContain(key);
      expect(await rolesOf(user)).toEqual(['customer']);
      expect(await rolesOf(other)).toEqual(['customer']);
      expect((await app.as(admin).get(`${BASE}/roles/${key}`)).status).toBe(404);
      expect((await roleActivities()).pop()).toMatchObject({
        title: 'Role deleted',
        content: `Doomed Role (${key}); taken from user(s) #${user.user.id}, #${other.user.id}`,
      });
    });

    it.each(['shop_manager', 'product_manager', 'order_manager', 'customer_service'])('%s is built in: 403 Permission denied, it stays', async (key) => {
      const res = await app.as(admin).delete(`${BASE}/roles/${key}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(roleError(403, 'Permission denied'));
      expect((await app.as(admin).get(`${BASE}/roles/${key}`)).status).toBe(200);
    });

    it('an edited built-in role cannot be deleted either; an unknown role is 404', async () => {
      expect((await app.as(admin).delete(`${BASE}/roles/product_manager`)).status).toBe(403);
      expect((await storedRoles()).map((row) => row.key)).toContain('product_manager');
      expect((await app.as(admin).delete(`${BASE}/roles/nope`)).body).toEqual(roleError(404, 'Role not found'));
      expect((await app.as(admin).delete(`${BASE}/roles/administrator`)).status).toBe(404);
    });
  });
});
