import type { Host } from './host/contract';
import { RateLimits } from './core/ratelimit';
import { registerStoreRoles } from './core/roles';
import { mountRoutes } from './core/routes';
import { checkoutRoutes } from './modules/checkout/routes';
import '../hooks';

/** The composition root: everything the store adds to the host. */
export function register(host: Host): void {
  registerStoreRoles(host.users.roles);
  mountRoutes(host, host.manifest.namespace, [...checkoutRoutes], { limits: new RateLimits(host.db) });
}
