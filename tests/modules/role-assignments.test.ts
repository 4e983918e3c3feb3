import { CommandError } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const roleError = (status: number, message: string) => ({ message, errors: [{ code: status, message }] });

describe('roles: giving roles to users and taking them', () => {
  let app: TestApp;
  let admin: TestUser;
  let manager: TestUser;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    manager = await app.createUser('manager', ['shop_manager']);
  });
  afterAll(() => app.close());

  const rolesOf = async (userId: number) =>
    JSON.parse((await app.database.db('usermeta').where({ user_id: userId, meta_key: 'roles' }).first()).meta_value) as string[];
  const roleActivities = () => app.database.db('store_activities').where({ object_type: 'role' }).orderBy('id').select('object_id', 'title', 'content');
  const assign = (caller: TestUser, userId: number, roleKey: string) => app.as(caller).post(`${BASE}/roles`).send({ user_id: userId, role_key: roleKey });
  const remove = (caller: TestUser, userId: number, roleKey: string) => app.as(caller).delete(`${BASE}/roles/${roleKey}`).send({ user_id: userId });

  /** Records the role actions while `work` runs. */
  async function recording(work: () => Promise<void>): Promise<unknown[]> {
    const events: unknown[] = [];
    const offs = [
      app.host.hooks.addAction('store/role/assigned', (userId, key) => void events.push(['assigned', userId, key])),
      app.host.hooks.addAction('store/role/removed', (userId, key) => void events.push(['removed', userId, key])),
    ];
    try {
      await work();
    } finally {
      offs.forEach((off) => off());
    }
    return events;
  }

  describe('POST /roles (assign: with user_id)', () => {
    it('gives the role; host roles stay; logged; store/role/assigned fires after', async () => {
      const ann = await app.createUser('ann');
      const events = await recording(async () => {
        const res = await assign(manager, ann.user.id, 'order_manager');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Role synced successfully', is_updated: true });
      });
      expect(events).toEqual([['assigned', ann.user.id, 'order_manager']]);
      expect(await rolesOf(ann.user.id)).toEqual(['customer', 'order_manager']);
      expect((await roleActivities()).pop()).toEqual({
        object_id: ann.user.id,
        title: 'Role assigned',
        content: `Order Manager (order_manager) given to user #${ann.user.id}`,
      });
    });

    it('a user holds one store role: another one is replaced ("synced"), firing store/role/removed for it', async () => {
      const ben = await app.createUser('ben', ['customer', 'product_manager']);
      const events = await recording(async () => {
        expect((await assign(admin, ben.user.id, 'customer_service')).status).toBe(200);
      });
      expect(events).toEqual([
        ['removed', ben.user.id, 'product_manager'],
        ['assigned', ben.user.id, 'customer_service'],
      ]);
      expect(await rolesOf(ben.user.id)).toEqual(['customer', 'customer_service']);
      expect((await roleActivities()).pop()).toMatchObject({ content: expect.stringContaining('replacing product_manager') });
    });

    it('applies to the user at once, even after a cached answer', async () => {
      const cara = await app.createUser('cara');
      expect((await app.as(cara).get(`${BASE}/orders`)).status).toBe(403);
      await assign(admin, cara.user.id, 'order_manager').expect(200);
      expect((await app.as(cara).get(`${BASE}/orders`)).status).toBe(200);
    });

    it.each([
      ['an unknown user', 404, 'User not found', () => 4_000_000, 'order_manager'],
      ['an unknown role', 400, 'Invalid role', () => manager.user.id, 'pirate'],
      ['a host role (customer)', 400, 'Invalid role', () => manager.user.id, 'customer'],
      ['a host role (administrator)', 400, 'Invalid role', () => manager.user.id, 'administrator'],
      ['a role the user holds', 409, 'Role already assigned', () => manager.user.id, 'shop_manager'],
      ['an administrator', 403, 'Permission denied', () => admin.user.id, 'order_manager'],
    ])('%s: %d %s in the role envelope, nothing changes', async (_what, status, message, userId, key) => {
      const before = [await rolesOf(manager.user.id), await rolesOf(admin.user.id)];
      const res = await assign(admin, userId(), key);
      expect(res.status).toBe(status);
      expect(res.body).toEqual(roleError(status, message));
      expect([await rolesOf(manager.user.id), await rolesOf(admin.user.id)]).toEqual(before);
    });

    it('403 Permission denied when the role grants more than the caller holds', async () => {
      const created = await app
        .as(admin)
        .post(`${BASE}/roles`)
        .send({ title: 'Role Desk', capabilities: ['manage_store_settings', 'customers/view'] });
      const desk = await app.createUser('desk');
      await assign(admin, desk.user.id, created.body.role.key).expect(200);
      const dora = await app.createUser('dora');
      const res = await assign(desk, dora.user.id, 'order_manager');
      expect(res.status).toBe(403);
      expect(res.body).toEqual(roleError(403, 'Permission denied'));
      expect(await rolesOf(dora.user.id)).toEqual(['customer']);
      expect((await assign(desk, dora.user.id, created.body.role.key)).status).toBe(200);
    });

    it('422 without role_key; a body without user_id is a creation', async () => {
      const res = await app.as(admin).post(`${BASE}/roles`).send({ user_id: manager.user.id });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The role key field is required.', errors: { role_key: { required: 'The role key field is required.' } } });
      const bad = await app.as(admin).post(`${BASE}/roles`).send({ user_id: 'seven', role_key: 'order_manager' });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toEqual({ user_id: { integer: 'The user id field must be an integer.' } });
      const creation = await app.as(admin).post(`${BASE}/roles`).send({ role_key: 'order_manager' });
      expect(creation.status).toBe(422);
      expect(Object.keys(creation.body.errors)).toEqual(['title', 'capabilities']);
    });
  });

  describe('store/role/before_assign and before_remove: a listener may veto', () => {
    it('a veto is answered in the role envelope with its status (default 403) and nothing changes', async () => {
      const eve = await app.createUser('eve');
      const seen: unknown[] = [];
      const off = app.host.hooks.addAction('store/role/before_assign', async (userId, key, veto) => {
        seen.push([userId, key]);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (key === 'shop_manager') veto.reject('Shop managers need a store email address.', 422);
        if (key === 'order_manager') veto.reject('Not today.');
      });
      try {
        const events = await recording(async () => {
          const res = await assign(admin, eve.user.id, 'shop_manager');
          expect(res.status).toBe(422);
          expect(res.body).toEqual(roleError(422, 'Shop managers need a store email address.'));
          const plain = await assign(admin, eve.user.id, 'order_manager');
          expect(plain.status).toBe(403);
          expect(plain.body).toEqual(roleError(403, 'Not today.'));
        });
        expect(events).toEqual([]);
        expect(seen).toEqual([
          [eve.user.id, 'shop_manager'],
          [eve.user.id, 'order_manager'],
        ]);
        expect(await rolesOf(eve.user.id)).toEqual(['customer']);
        expect(await app.database.db('store_activities').where({ object_type: 'role', object_id: eve.user.id }).count({ n: '*' }).first()).toEqual({ n: 0 });
        expect((await assign(admin, eve.user.id, 'customer_service')).status).toBe(200);
      } finally {
        off();
      }
    });

    it('the first refusal wins; a status outside 4xx counts as 403; a listener that throws does not veto', async () => {
      const fay = await app.createUser('fay');
      const offs = [
        app.host.hooks.addAction('store/role/before_assign', (_userId, _key, veto) => veto.reject('First.', 500)),
        app.host.hooks.addAction('store/role/before_assign', (_userId, _key, veto) => {
          expect(veto.rejected).toBe(true);
          veto.reject('Second.', 409);
        }),
      ];
      try {
        expect((await assign(admin, fay.user.id, 'order_manager')).body).toEqual(roleError(403, 'First.'));
      } finally {
        offs.forEach((off) => off());
      }
      const off = app.host.hooks.addAction('store/role/before_assign', () => {
        throw new Error('listener bug');
      });
      try {
        expect((await assign(admin, fay.user.id, 'order_manager')).status).toBe(200);
      } finally {
        off();
      }
    });

    it('replacing a store role asks store/role/before_remove too', async () => {
      const gus = await app.createUser('gus', ['customer', 'product_manager']);
      const off = app.host.hooks.addAction('store/role/before_remove', (userId, key, veto) => {
        if (userId === gus.user.id && key === 'product_manager') veto.reject('Product managers stay.', 409);
      });
      try {
        const res = await assign(admin, gus.user.id, 'order_manager');
        expect(res.status).toBe(409);
        expect(res.body).toEqual(roleError(409, 'Product managers stay.'));
        expect(await rolesOf(gus.user.id)).toEqual(['customer', 'product_manager']);
        const removal = await remove(admin, gus.user.id, 'product_manager');
        expect(removal.body).toEqual(roleError(409, 'Product managers stay.'));
        expect(await rolesOf(gus.user.id)).toEqual(['customer', 'product_manager']);
      } finally {
        off();
      }
    });
  });

  describe('DELETE /roles/{key} (remove: with user_id)', () => {
    it('takes the role from the user; store/role/removed fires; logged', async () => {
      const hal = await app.createUser('hal', ['customer', 'order_manager']);
      const events = await recording(async () => {
        const res = await remove(manager, hal.user.id, 'order_manager');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ message: 'Role deleted successfully' });
      });
      expect(events).toEqual([['removed', hal.user.id, 'order_manager']]);
      expect(await rolesOf(hal.user.id)).toEqual(['customer']);
      expect((await roleActivities()).pop()).toEqual({
        object_id: hal.user.id,
        title: 'Role removed',
        content: `Order Manager (order_manager) taken from user #${hal.user.id}`,
      });
      expect((await app.as(admin).get(`${BASE}/roles/order_manager`)).status).toBe(200);
    });

    it('takes user_id from the query string too: a custom role is taken from that user, not deleted', async () => {
      const created = await app
        .as(admin)
        .post(`${BASE}/roles`)
        .send({ title: 'Night shift', capabilities: ['orders/view'] });
      expect(created.status).toBe(200);
      const [ivy, jo] = [await app.createUser('night-ivy', ['customer']), await app.createUser('night-jo', ['customer'])];
      for (const user of [ivy, jo]) expect((await assign(admin, user.user.id, 'night_shift')).status).toBe(200);

      const res = await app.as(admin).delete(`${BASE}/roles/night_shift?user_id=${ivy.user.id}`);
      expect([res.status, res.body]).toEqual([200, { message: 'Role deleted successfully' }]);
      expect(await rolesOf(ivy.user.id)).toEqual(['customer']);
      expect(await rolesOf(jo.user.id)).toEqual(['customer', 'night_shift']);
      expect((await app.as(admin).get(`${BASE}/roles/night_shift`)).status).toBe(200);

      const bad = await app.as(admin).delete(`${BASE}/roles/night_shift?user_id=abc`);
      expect([bad.status, bad.body.errors]).toEqual([422, { user_id: { integer: 'The user id field must be an integer.' } }]);
      expect((await app.as(admin).get(`${BASE}/roles/night_shift`)).status).toBe(200);
      expect(await rolesOf(jo.user.id)).toEqual(['customer', 'night_shift']);
    });

    it.each([
      ['a role the user does not hold', 400, 'Invalid role', () => manager.user.id, 'order_manager'],
      ['an unknown role', 400, 'Invalid role', () => manager.user.id, 'pirate'],
      ['a host role', 400, 'Invalid role', () => manager.user.id, 'customer'],
      ['an unknown user', 404, 'User not found', () => 4_000_000, 'shop_manager'],
      ['an administrator', 403, 'Permission denied', () => admin.user.id, 'shop_manager'],
    ])('%s: %d %s, nothing changes', async (_what, status, message, userId, key) => {
      const before = await rolesOf(manager.user.id);
      const res = await remove(admin, userId(), key);
      expect(res.status).toBe(status);
      expect(res.body).toEqual(roleError(status, message));
      expect(await rolesOf(manager.user.id)).toEqual(before);
    });
  });

  describe('parallel assignments', () => {
    it('two roles given to one user at once leave exactly one store role', async () => {
      const ida = await app.createUser('ida');
      const events = await recording(async () => {
        const answers = await Promise.all([assign(admin, ida.user.id, 'order_manager'), assign(manager, ida.user.id, 'product_manager')]);
        expect(answers.map((res) => res.status)).toEqual([200, 200]);
      });
      const roles = await rolesOf(ida.user.id);
      expect(roles).toHaveLength(2);
      expect(roles[0]).toBe('customer');
      // The later assignment saw the earlier one and replaced it: one removal, of the role that did not stay.
      const first = roles[1] === 'order_manager' ? 'product_manager' : 'order_manager';
      expect(events).toEqual(
        expect.arrayContaining([
          ['assigned', ida.user.id, first],
          ['removed', ida.user.id, first],
          ['assigned', ida.user.id, roles[1]],
        ]),
      );
      expect(events).toHaveLength(3);
    });
  });

  describe('the CLI: role assign and role remove go through the same service', () => {
    const run = (name: string, flags: Record<string, string>) => app.host.commands.get(name)!.run(flags);

    it('role assign: a veto stops it with the listener message; nothing changes', async () => {
      const jo = await app.createUser('jo');
      const off = app.host.hooks.addAction('store/role/before_assign', (_userId, key, veto) => {
        if (key === 'shop_manager') veto.reject('Not from the command line.');
      });
      try {
        const refused = run('role assign', { login: 'jo', role: 'shop_manager' });
        await expect(refused).rejects.toThrow(CommandError);
        await expect(refused).rejects.toThrow('Not from the command line.');
        expect(await rolesOf(jo.user.id)).toEqual(['customer']);
        expect(await run('role assign', { login: 'jo', role: 'order_manager' })).toEqual(['Assigned role order_manager to jo.']);
        expect(await run('role assign', { login: 'jo', role: 'customer_service' })).toEqual([
          'Assigned role customer_service to jo (replacing order_manager).',
        ]);
        expect(await run('role assign', { login: 'jo', role: 'customer_service' })).toEqual(['jo already has the role customer_service.']);
      } finally {
        off();
      }
      expect(await rolesOf(jo.user.id)).toEqual(['customer', 'customer_service']);
      expect((await roleActivities()).pop()).toMatchObject({ object_id: jo.user.id, title: 'Role assigned' });
    });

    it('role remove takes a store role; refusals are the command error', async () => {
      const kim = await app.createUser('kim', ['customer', 'order_manager']);
      await expect(run('role remove', { login: 'kim', role: 'customer' })).rejects.toThrow('"customer" is not a store role');
      await expect(run('role remove', { login: 'kim', role: 'shop_manager' })).rejects.toThrow('kim does not have the role shop_manager');
      await expect(run('role remove', { login: 'nobody', role: 'shop_manager' })).rejects.toThrow('no user with login "nobody"');
      expect(await run('role remove', { login: 'kim', role: 'order_manager' })).toEqual(['Removed role order_manager from kim.']);
      expect(await rolesOf(kim.user.id)).toEqual(['customer']);
    });

    it('role assign of a host role stays the host’s (administrator, customer)', async () => {
      const lee = await app.createUser('lee', ['order_manager']);
      expect(await run('role assign', { login: 'lee', role: 'customer' })).toEqual(['Assigned role customer to lee.']);
      expect(await rolesOf(lee.user.id)).toEqual(['order_manager', 'customer']);
      await expect(run('role assign', { login: 'lee', role: 'pirate' })).rejects.toThrow('Unknown role "pirate".');
    });
  });
});
