import type { Host } from './host/contract';
import { registerStoreRoles } from './core/roles';
import { registerDemoCommands } from './modules/demo/commands';
import { registerPaymentCommands } from './modules/payments/commands';

/**
 * What the CLI needs of the store (plugin.json `commands`): its commands and the roles `user create` and
 * `role assign` accept. The CLI loads this module alone, not the REST API; `register` in plugin.ts calls it too.
 */
export function register(host: Host): void {
  registerStoreRoles(host.users.roles);
  registerDemoCommands(host);
  registerPaymentCommands(host);
}
