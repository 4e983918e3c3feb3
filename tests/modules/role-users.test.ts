import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

describe('roles: the user lists', () => {
  let app: TestApp;
  let admin: TestUser;
  const people: Record<string, number> = {};

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    await app.createUser('second-admin', ['administrator', 'customer']);
    // Users straight from the host (no application password needed): faster than createUser.
    const make = async (login: string, display_name: string, roles: string[]) => {
      people[login] = (await app.host.users.create({ login, email: `${login}@example.com`, display_name, roles })).id;
    };
    await make('olga', 'Olga Manager', ['customer', 'shop_manager']);
    await make('pete', 'Pete 100% Sure', ['customer_service']);
    await make('quinn', 'Quinn_Underscore', ['customer']);
    for (let i = 1; i <= 9; i++) await make(`shopper${i}`, `Shopper ${i}`, ['customer']);
    await make('norole', 'No Role', []);
  });
  afterAll(() => app.close());

  const ids = (res: { body: { users: { data: Array<{ ID: number }> } } }) => res.body.users.data.map((user) => user.ID);

  describe('GET /roles/managers', () => {
    it('lists the users holding a store role, with those roles', async () => {
      const res = await app.as(admin).get(`${BASE}/roles/managers`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Managers retrieved successfully',
        managers: [
          { ID: people.olga, display_name: 'Olga Manager', user_email: 'olga@example.com', roles: ['shop_manager'] },
          { ID: people.pete, display_name: 'Pete 100% Sure', user_email: 'pete@example.com', roles: ['customer_service'] },
        ],
      });
    });

    it('follows assignments and custom roles', async () => {
      const role = await app
        .as(admin)
        .post(`${BASE}/roles`)
        .send({ title: 'Packer', capabilities: ['orders/view'] });
      await app.as(admin).post(`${BASE}/roles`).send({ user_id: people.quinn, role_key: role.body.role.key }).expect(200);
      const res = await app.as(admin).get(`${BASE}/roles/managers`);
      expect(res.body.managers.map((m: { ID: number; roles: string[] }) => [m.ID, m.roles])).toEqual([
        [people.olga, ['shop_manager']],
        [people.pete, ['customer_service']],
        [people.quinn, ['packer']],
      ]);
      await app.as(admin).delete(`${BASE}/roles/packer`).expect(200);
      expect((await app.as(admin).get(`${BASE}/roles/managers`)).body.managers).toHaveLength(2);
    });
  });

  describe('GET /roles/user-list', () => {
    it('pages every user but administrators, 10 by default', async () => {
      const res = await app.as(admin).get(`${BASE}/roles/user-list`);
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('Users retrieved successfully');
      expect(res.body.users).toEqual({
        data: expect.any(Array),
        total: 13,
        per_page: 10,
        current_page: 1,
        last_page: 2,
      });
      expect(res.body.users.data[0]).toEqual({ ID: people.olga, name: 'Olga Manager', email: 'olga@example.com' });
      const second = await app.as(admin).get(`${BASE}/roles/user-list?page=2`);
      expect(ids(second)).toEqual([people.shopper8, people.shopper9, people.norole]);
      const all = [...ids(res), ...ids(second)];
      expect(all).toHaveLength(13);
      expect(all).not.toContain(admin.user.id);
    });

    it('clamps per_page and page instead of refusing them', async () => {
      const big = await app.as(admin).get(`${BASE}/roles/user-list?per_page=100000`);
      expect(big.body.users).toMatchObject({ per_page: 200, total: 13, last_page: 1 });
      const small = await app.as(admin).get(`${BASE}/roles/user-list?per_page=0&page=-3`);
      expect(small.body.users).toMatchObject({ per_page: 1, current_page: 1, last_page: 13 });
      expect(ids(await app.as(admin).get(`${BASE}/roles/user-list?per_page=5&page=3`))).toEqual([people.shopper8, people.shopper9, people.norole]);
    });

    it.each([
      ['a display name', 'olga man', ['olga']],
      ['an email', 'PETE@EXAMPLE', ['pete']],
      ['a literal %', '100%', ['pete']],
      ['a literal _', 'Quinn_U', ['quinn']],
      ['an _ that is no wildcard', 'Quin_', []],
      ['a % that is no wildcard', 'Pete%Sure', []],
      ['nothing', 'zzz', []],
    ])('search by %s', async (_what, search, logins) => {
      const res = await app.as(admin).get(`${BASE}/roles/user-list`).query({ search });
      expect(ids(res)).toEqual(logins.map((login) => people[login]));
      expect(res.body.users.total).toBe(logins.length);
    });

    it('administrators stay out of a search', async () => {
      expect(ids(await app.as(admin).get(`${BASE}/roles/user-list`).query({ search: 'admin' }))).toEqual([]);
    });

    it('user_ids as an array or a comma list (administrators still left out)', async () => {
      const array = await app.as(admin).get(`${BASE}/roles/user-list?user_ids[]=${people.pete}&user_ids[]=${people.olga}&user_ids[]=${admin.user.id}`);
      expect(array.status).toBe(200);
      expect(ids(array)).toEqual([people.olga, people.pete]);
      const comma = await app.as(admin).get(`${BASE}/roles/user-list?user_ids=${people.quinn},%20${people.pete}`);
      expect(ids(comma)).toEqual([people.pete, people.quinn]);
      const both = await app.as(admin).get(`${BASE}/roles/user-list?user_ids=${people.quinn}&search=pete`);
      expect(ids(both)).toEqual([]);
    });

    it.each([
      ['not ids', 'user_ids=abc', { regex: 'The user ids field format is invalid.' }],
      ['an id of 0', 'user_ids=0', { regex: 'The user ids field format is invalid.' }],
      ['an id past the id range', 'user_ids=9999999999', { max: 'The user ids must not be greater than 4294967295.' }],
    ])('user_ids with %s: 422', async (_what, query, error) => {
      const res = await app.as(admin).get(`${BASE}/roles/user-list?${query}`);
      expect(res.status).toBe(422);
      expect(Object.values(res.body.errors)[0]).toEqual(error);
    });

    it('answers what store/roles/user_list leaves', async () => {
      const seen: unknown[] = [];
      const off = app.host.hooks.addFilter('store/roles/user_list', (users, context) => {
        seen.push(context);
        return { ...users, data: users.data.map((user) => ({ ...user, name: user.name.toUpperCase() })) };
      });
      try {
        const res = await app.as(admin).get(`${BASE}/roles/user-list?search=olga&user_ids=${people.olga}`);
        expect(res.body.users.data).toEqual([{ ID: people.olga, name: 'OLGA MANAGER', email: 'olga@example.com' }]);
        expect(seen).toEqual([{ search: 'olga', user_ids: [people.olga] }]);
      } finally {
        off();
      }
    });
  });
});
