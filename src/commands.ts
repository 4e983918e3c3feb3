import type { Host } from './host/contract';
import { registerExportCommands } from './modules/data-export/commands';
import { registerDemoCommands } from './modules/demo/commands';
import { registerPaymentCommands } from './modules/payments/commands';
import { registerReportCommands } from './modules/reports/commands';
import { roleCatalog } from './modules/roles/catalog';
import { registerRoleCommands } from './modules/roles/commands';

/**
 * What the CLI needs of the store (plugin.json `commands`): its commands and the roles `user create` and
 * `role assign` accept (built-in, extension-registered and stored ones). The CLI loads this module alone, not the
 * REST API; `register` in plugin.ts calls it too.
 */
export async function register(host: Host): Promise<void> {
  await roleCatalog(host).load();
  registerDemoCommands(host);
  registerExportCommands(host);
  registerPaymentCommands(host);
  registerReportCommands(host);
  registerRoleCommands(host);
}
