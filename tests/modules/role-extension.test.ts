import { AGENT, NAMESPACE, ON_SHIFT_META, register, REST_NAMESPACE, TICKETS, type RoleEvent } from '../../hooks/examples/role-extension';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';

const DESK = `/wp-json/${REST_NAMESPACE}`;

/**
 * The example extension `hooks/examples/role-extension.ts` (a support desk), loaded into the real app before the store: each
 * role extension point it uses, proved over HTTP.
 */
describe('the role extension example (hooks/examples/role-extension.ts)', () => {
  let app: TestApp;
  let admin: TestUser;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp({ plugin: false });
    register(app.host);
    await app.runtime.loadPlugin();
    admin = await app.createUser('desk-admin', ['administrator']);
  });
  afterAll(() => app.close());

  /** A user with an application password; `@example.com` unless `email` says otherwise, email verified unless told. */
  async function user(roles: string[], { email, verified = true }: { email?: string; verified?: boolean } = {}): Promise<TestUser> {
    const login = `desk-user-${++n}`;
    // No login password: the requests use the application password, and one key derivation less keeps this fast.
    const created = await app.host.users.create({ login, email: email ?? `${login}@example.com`, roles, email_verified: verified });
    const { password: appPassword } = await app.host.users.appPasswords.create(created.id, 'tests');
    return { user: created, password: '', appPassword };
  }

  const roles = async (who: TestUser) => (await app.host.users.findById(who.user.id))!.roles;
  const assign = (who: TestUser, role: string) => app.as(admin).post(`${BASE}/roles`).send({ user_id: who.user.id, role_key: role });
  const unassign = (who: TestUser, role: string) => app.as(admin).delete(`${BASE}/roles/${role}`).send({ user_id: who.user.id });
  const tickets = (who: TestUser) => app.as(who).get(`${DESK}/tickets`);
  async function events(who: TestUser): Promise<RoleEvent[]> {
    const res = await app.as(admin).get(`${DESK}/role-log`).expect(200);
    return (res.body.events as RoleEvent[]).filter((event) => event.user_id === who.user.id);
  }

  describe('store/roles/capabilities and store/roles/register', () => {
    it('GET /roles lists the role the extension registered, holding the capability it registered', async () => {
      const res = await app.as(admin).get(`${BASE}/roles`);
      expect(res.status).toBe(200);
      expect(res.body.roles).toContainEqual({
        key: AGENT,
        title: 'Support Agent',
        description: 'Answers support tickets; reads customers and orders.',
        capabilities: [TICKETS, 'customers/view', 'orders/view'],
        builtin: true,
      });
    });

    it('a custom role may hold the registered capability; one nobody registered is 422', async () => {
      const created = await app
        .as(admin)
        .post(`${BASE}/roles`)
        .send({ title: 'Ticket triage', capabilities: [TICKETS] });
      expect(created.status).toBe(200);
      expect(created.body.role).toEqual({ key: 'ticket_triage', title: 'Ticket triage', description: '', capabilities: [TICKETS], builtin: false });
      const unknown = await app
        .as(admin)
        .post(`${BASE}/roles`)
        .send({ title: 'Chat', capabilities: ['support/chat'] });
      expect(unknown.status).toBe(422);
      expect((await app.as(admin).get(`${BASE}/roles/chat`)).status).toBe(404);
    });

    it('the registered role behaves as a built-in one: DELETE /roles/support_agent is 403 and it stays', async () => {
      const res = await app.as(admin).delete(`${BASE}/roles/${AGENT}`).send({});
      expect([res.status, res.body]).toEqual([403, { message: 'Permission denied', errors: [{ code: 403, message: 'Permission denied' }] }]);
      expect((await app.as(admin).get(`${BASE}/roles/${AGENT}`)).status).toBe(200);
    });

    it('the role grants the capability: an agent reaches the desk and the store routes of its other capabilities, nothing more', async () => {
      const agent = await user(['customer']);
      expect((await tickets(agent)).status).toBe(403);
      expect((await assign(agent, AGENT)).body).toEqual({ message: 'Role synced successfully', is_updated: true });
      const res = await tickets(agent);
      expect([res.status, res.body]).toEqual([200, { agent: agent.user.login, tickets: [] }]);
      expect((await app.as(agent).get(`${BASE}/orders`)).status).toBe(200);
      expect((await app.as(agent).get(`${BASE}/products`)).status).toBe(403);
      expect((await tickets(await user(['customer']))).status).toBe(403);
      expect((await app.http.get(`${DESK}/tickets`)).status).toBe(401);
    });
  });

  describe('store/role/capabilities', () => {
    it('gives customer service the ticket capability its stored role does not name; other roles stay without it', async () => {
      const stored = await app.as(admin).get(`${BASE}/roles/customer_service`);
      expect(stored.body.role.capabilities).not.toContain(TICKETS);
      expect((await tickets(await user(['customer_service']))).status).toBe(200);
      expect((await tickets(await user(['order_manager']))).status).toBe(403);
    });
  });

  describe('store/roles/available', () => {
    it('GET /roles leaves out the product manager', async () => {
      const res = await app.as(admin).get(`${BASE}/roles`);
      expect(res.body.roles.map((role: { key: string }) => role.key)).toEqual(
        expect.arrayContaining(['shop_manager', 'order_manager', 'customer_service', AGENT, 'ticket_triage']),
      );
      expect(res.body.roles.map((role: { key: string }) => role.key)).not.toContain('product_manager');
    });
  });

  describe('store/roles/user_list', () => {
    it('GET /roles/user-list marks users whose email is not on the store domain as external', async () => {
      const outside = await user([]);
      const inside = await user([], { email: 'dana@store.test' });
      const res = await app
        .as(admin)
        .get(`${BASE}/roles/user-list`)
        .query({ user_ids: `${outside.user.id},${inside.user.id}` });
      expect(res.status).toBe(200);
      expect(res.body.users.data).toEqual(
        expect.arrayContaining([
          { ID: outside.user.id, name: `${outside.user.display_name} (external)`, email: outside.user.email },
          { ID: inside.user.id, name: inside.user.display_name, email: 'dana@store.test' },
        ]),
      );
      expect(res.body.users.total).toBe(2);
    });
  });

  describe('store/user/can', () => {
    it('refuses every store permission to staff whose email is not verified, until it is; administrators are exempt', async () => {
      const manager = await user(['shop_manager'], { email: 'erin@store.test', verified: false });
      expect((await app.as(manager).get(`${BASE}/orders`)).status).toBe(403);
      expect((await app.as(manager).get(`${BASE}/roles`)).status).toBe(403);
      await app.host.users.markEmailVerified(manager.user.id);
      expect((await app.as(manager).get(`${BASE}/orders`)).status).toBe(200);
      expect((await app.as(manager).get(`${BASE}/roles`)).status).toBe(200);
      const unverifiedAdmin = await user(['administrator'], { verified: false });
      expect((await app.as(unverifiedAdmin).get(`${BASE}/orders`)).status).toBe(200);
    });
  });

  describe('store/role/before_assign', () => {
    it('vetoes making someone off the store domain a shop manager: 403 in the role envelope, nothing changes', async () => {
      const outsider = await user(['customer']);
      const res = await assign(outsider, 'shop_manager');
      const message = 'A shop manager needs an email address at store.test.';
      expect([res.status, res.body]).toEqual([403, { message, errors: [{ code: 403, message }] }]);
      expect(await roles(outsider)).toEqual(['customer']);
      expect(await events(outsider)).toEqual([]);
    });

    it('lets the same role go to a user on the store domain, and other roles to anyone', async () => {
      const staff = await user(['customer'], { email: 'frank@store.test' });
      expect((await assign(staff, 'shop_manager')).status).toBe(200);
      expect(await roles(staff)).toEqual(['customer', 'shop_manager']);
      const outsider = await user(['customer']);
      expect((await assign(outsider, 'order_manager')).status).toBe(200);
      expect(await roles(outsider)).toEqual(['customer', 'order_manager']);
    });
  });

  describe('store/role/before_remove', () => {
    it('vetoes taking the agent role from an agent on shift: 409, the role stays; off shift it goes', async () => {
      const agent = await user(['customer']);
      await assign(agent, AGENT).expect(200);
      await app.host.users.setMeta(agent.user.id, ON_SHIFT_META, true);
      const refused = await unassign(agent, AGENT);
      const message = 'A support agent on shift keeps the role until the shift ends.';
      expect([refused.status, refused.body]).toEqual([409, { message, errors: [{ code: 409, message }] }]);
      expect(await roles(agent)).toEqual(['customer', AGENT]);
      // an assignment that would replace the role passes the same veto
      expect((await assign(agent, 'customer_service')).status).toBe(409);
      expect(await roles(agent)).toEqual(['customer', AGENT]);

      await app.host.users.setMeta(agent.user.id, ON_SHIFT_META, false);
      expect((await unassign(agent, AGENT)).body).toEqual({ message: 'Role deleted successfully' });
      expect(await roles(agent)).toEqual(['customer']);
    });
  });

  describe('store/role/assigned, store/role/before_remove and store/role/removed', () => {
    it('each change reaches the listeners, in order; GET /support-desk/v1/role-log shows them to role managers only', async () => {
      const clerk = await user(['customer']);
      await assign(clerk, 'customer_service').expect(200);
      await assign(clerk, AGENT).expect(200);
      await unassign(clerk, AGENT).expect(200);
      expect(await events(clerk)).toEqual([
        { event: 'assigned', user_id: clerk.user.id, role: 'customer_service' },
        { event: 'before_remove', user_id: clerk.user.id, role: 'customer_service' },
        { event: 'removed', user_id: clerk.user.id, role: 'customer_service' },
        { event: 'assigned', user_id: clerk.user.id, role: AGENT },
        { event: 'before_remove', user_id: clerk.user.id, role: AGENT },
        { event: 'removed', user_id: clerk.user.id, role: AGENT },
      ]);
      expect((await app.as(clerk).get(`${DESK}/role-log`)).status).toBe(403);
    });
  });

  it('removeNamespace unloads its filters: the product manager is offered again', async () => {
    const before = await app.as(admin).get(`${BASE}/roles`);
    expect(before.body.roles.map((role: { key: string }) => role.key)).not.toContain('product_manager');
    expect(app.host.hooks.removeNamespace(NAMESPACE)).toBeGreaterThan(0);
    const after = await app.as(admin).get(`${BASE}/roles`);
    expect(after.body.roles.map((role: { key: string }) => role.key)).toContain('product_manager');
  });
});
