import type { RoleDefinition, RoleRegistry } from './contract';

/** The in-process registry of roles and their capabilities; host roles are registered at start-up. */
export class Roles implements RoleRegistry {
  private readonly roles = new Map<string, RoleDefinition>();

  register(key: string, role: RoleDefinition): void {
    this.roles.set(key, { ...role, capabilities: [...new Set(role.capabilities)] });
  }

  unregister(key: string): boolean {
    const role = this.roles.get(key);
    if (!role || role.builtin) return false;
    return this.roles.delete(key);
  }

  get(key: string): RoleDefinition | undefined {
    return this.roles.get(key);
  }

  list(): Array<RoleDefinition & { key: string }> {
    return [...this.roles].map(([key, role]) => ({ key, ...role }));
  }
}

export const ADMINISTRATOR = 'administrator';

export function registerHostRoles(roles: Roles): void {
  roles.register(ADMINISTRATOR, {
    title: 'Administrator',
    description: 'Every capability of the site.',
    capabilities: ['manage_options', 'list_users', 'edit_users', 'read'],
    builtin: true,
  });
  roles.register('customer', { title: 'Customer', description: 'A shopper with an account.', capabilities: ['read'], builtin: true });
}
