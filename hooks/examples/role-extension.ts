import { ADMINISTRATOR, userCan } from '../../src/core/capabilities';
import type { Host, HostUser, RestResponse } from '../../src/host/contract';
import '..';

/**
 * An example extension of the store's roles: a support desk. Load it by calling `register(host)` before the store
 * plugin builds its roles (the registration points are read whenever the store builds its role registry). Every
 * listener carries the namespace `support-desk`, so `host.hooks.removeNamespace('support-desk')` unloads it.
 */

export const NAMESPACE = 'support-desk';
export const REST_NAMESPACE = 'support-desk/v1';
/** The capability the desk adds to the store's catalogue. */
export const TICKETS = 'support/tickets';
/** The role the desk defines in code: it behaves as a built-in role (never deleted). */
export const AGENT = 'support_agent';
/** Usermeta: an agent on shift keeps the role until the shift ends. */
export const ON_SHIFT_META = 'support_desk_on_shift';

export interface RoleEvent {
  event: 'assigned' | 'before_remove' | 'removed';
  user_id: number;
  role: string;
}

const forbidden = (user: HostUser | null): RestResponse => {
  const status = user ? 403 : 401;
  return { status, body: { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status } } };
};

export function register(host: Host): void {
  const { hooks } = host;
  const options = { namespace: NAMESPACE };
  const domain = new URL(host.site.url).hostname;
  const onDomain = (email: string) => email.toLowerCase().endsWith(`@${domain}`);
  /** The role changes this process saw, oldest first (a real desk would store them). */
  const log: RoleEvent[] = [];

  hooks.addFilter('store/roles/capabilities', (capabilities) => ({ ...capabilities, [TICKETS]: 'Answer support tickets' }), options);
  hooks.addFilter(
    'store/roles/register',
    (roles) => ({
      ...roles,
      [AGENT]: {
        title: 'Support Agent',
        description: 'Answers support tickets; reads customers and orders.',
        capabilities: [TICKETS, 'customers/view', 'orders/view'],
      },
    }),
    options,
  );
  // Customer service answers tickets too, whatever its stored capabilities say.
  hooks.addFilter(
    'store/role/capabilities',
    (capabilities, { role_key }) => (role_key === 'customer_service' ? [...capabilities, TICKETS] : capabilities),
    options,
  );
  // This store has no product team: the role is not offered.
  hooks.addFilter('store/roles/available', (roles) => roles.filter((role) => role.key !== 'product_manager'), options);
  hooks.addFilter(
    'store/roles/user_list',
    (users) => ({ ...users, data: users.data.map((user) => (onDomain(user.email) ? user : { ...user, name: `${user.name} (external)` })) }),
    options,
  );
  // Staff act only once their email is verified; administrators are never locked out.
  hooks.addFilter('store/user/can', (allowed, { user }) => allowed && (user.email_verified_at !== null || user.roles.includes(ADMINISTRATOR)), options);

  hooks.addAction(
    'store/role/before_assign',
    async (userId, roleKey, veto) => {
      if (roleKey !== 'shop_manager') return;
      const user = await host.users.findById(userId);
      if (user && !onDomain(user.email)) veto.reject(`A shop manager needs an email address at ${domain}.`);
    },
    options,
  );
  hooks.addAction(
    'store/role/before_remove',
    async (userId, roleKey, veto) => {
      log.push({ event: 'before_remove', user_id: userId, role: roleKey });
      if (roleKey === AGENT && (await host.users.getMeta<boolean>(userId, ON_SHIFT_META))) {
        veto.reject('A support agent on shift keeps the role until the shift ends.', 409);
      }
    },
    options,
  );
  hooks.addAction(
    'store/role/assigned',
    (userId, roleKey) => {
      log.push({ event: 'assigned', user_id: userId, role: roleKey });
    },
    options,
  );
  hooks.addAction(
    'store/role/removed',
    (userId, roleKey) => {
      log.push({ event: 'removed', user_id: userId, role: roleKey });
    },
    options,
  );

  host.router.register(REST_NAMESPACE, {
    method: 'GET',
    path: '/tickets',
    handler: async ({ user }) => (user && userCan(host, user, TICKETS) ? { body: { agent: user.login, tickets: [] } } : forbidden(user)),
  });
  host.router.register(REST_NAMESPACE, {
    method: 'GET',
    path: '/role-log',
    handler: async ({ user }) => (userCan(host, user, 'manage_store_settings') ? { body: { events: log } } : forbidden(user)),
  });
}
