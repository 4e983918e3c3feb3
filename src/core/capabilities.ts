import type { Host, HostUser } from '../host/contract';

/** The host's role that holds every capability (the host's other role is `customer`). */
export const ADMINISTRATOR = 'administrator';

/** A role's capabilities as they count for its holders: the registered ones through `store/role/capabilities`. */
export function roleCapabilities(host: Host, roleKey: string): string[] {
  const role = host.users.roles.get(roleKey);
  if (!role) return [];
  return host.hooks.applyFilters('store/role/capabilities', [...role.capabilities], { role_key: roleKey });
}

/**
 * Whether `user` holds `capability` (a route permission or one an extension registered): administrators hold every
 * capability, anyone else what their roles grant after `store/role/capabilities`; then the host's `host/user/can` and
 * the store's `store/user/can` have their say, the latter the last.
 */
export function userCan(host: Host, user: HostUser | null, capability: string): boolean {
  if (!user) return false;
  const held = user.roles.includes(ADMINISTRATOR) || user.roles.some((key) => roleCapabilities(host, key).includes(capability));
  const hostVerdict = host.hooks.applyFilters('host/user/can', held, { user, capability });
  return host.hooks.applyFilters('store/user/can', hostVerdict, { user, permission: capability });
}
