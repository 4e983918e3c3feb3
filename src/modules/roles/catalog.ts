import type { Host } from '../../host/contract';
import { ownEntry } from '../../core/lookup';
import { PERMISSIONS } from '../../core/permissions';
import { STORE_ROLES } from '../../core/roles';
import { readRoleRows, readRolesVersion, type RoleRow } from './repo';
import type { Role } from './types';

/** How often a process asks whether another process changed the roles: one primary-key read, at most once a second. */
export const REFRESH_MS = 1000;

/** What a role key may be: what `keyFromTitle` derives, and what an extension may register. */
export const ROLE_KEY = /^[a-z0-9_]{1,100}$/;

const copy = (role: Role): Role => ({ ...role, capabilities: [...role.capabilities] });

/**
 * One process's store roles and capability catalogue, registered into the host's role registry (`host.users.roles`),
 * which the permission checks read:
 * - the capabilities: the store's permissions, then `store/roles/capabilities`;
 * - the roles: the four built-in ones, those extensions define through `store/roles/register` (built-in too: never
 *   deleted), then the rows of `store_roles` (edits of those, and custom roles). A role holds only registered
 *   capabilities.
 * `load` builds it (at start-up, in the server and in the CLI, and at once after this process changed a role);
 * `refresh`, run before each request, reloads it when the `roles` counter moved, checking at most every `REFRESH_MS`,
 * so another process's change counts within a second. The registration points are applied on every build.
 */
export class RoleCatalog {
  private capabilities: Record<string, string> = { ...PERMISSIONS };
  private roles = new Map<string, Role>();
  private version = -1;
  private checkedAt = -Infinity;
  private checking: Promise<void> | null = null;

  constructor(private readonly host: Host) {}

  /** The store roles: built-in, extension-registered, custom (by creation). */
  list(): Role[] {
    return [...this.roles.values()].map(copy);
  }

  get(key: string): Role | undefined {
    const role = this.roles.get(key);
    return role && copy(role);
  }

  /** Whether `key` names any role, the host's own (`administrator`, `customer`) included. */
  isTaken(key: string): boolean {
    return this.roles.has(key) || this.host.users.roles.get(key) !== undefined;
  }

  isCapability(id: string): boolean {
    return ownEntry(this.capabilities, id) !== undefined;
  }

  /** The registered capabilities among `ids`, each once. */
  known(ids: readonly string[]): string[] {
    return [...new Set(ids)].filter((id) => this.isCapability(id));
  }

  async load(): Promise<void> {
    const version = await readRolesVersion(this.host.db);
    const rows = await readRoleRows(this.host.db);
    // A slower load that started earlier must not undo a newer one.
    if (version >= this.version) this.build(rows, version);
  }

  async refresh(): Promise<void> {
    if (this.checking) return this.checking;
    const now = this.host.clock.now().getTime();
    if (now - this.checkedAt < REFRESH_MS) return;
    this.checkedAt = now;
    this.checking = this.check().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async check(): Promise<void> {
    try {
      if ((await readRolesVersion(this.host.db)) !== this.version) await this.load();
    } catch (error) {
      this.host.logger.warn({ err: error }, 'the roles could not be reloaded; the loaded ones stay in use');
    }
  }

  private build(rows: RoleRow[], version: number): void {
    const { hooks, logger, users } = this.host;
    const hostRoles = new Set(
      users.roles
        .list()
        .filter((role) => !this.roles.has(role.key))
        .map((role) => role.key),
    );
    this.capabilities = hooks.applyFilters('store/roles/capabilities', { ...PERMISSIONS });
    const next = new Map<string, Role>();
    for (const [key, role] of Object.entries(STORE_ROLES)) {
      next.set(key, { key, title: role.title, description: role.description ?? '', capabilities: this.known(role.capabilities), builtin: true });
    }
    for (const [key, draft] of Object.entries(hooks.applyFilters('store/roles/register', {}))) {
      if (!ROLE_KEY.test(key) || next.has(key) || hostRoles.has(key)) {
        logger.warn({ role: key }, 'an extension role was not registered: its key is taken, or not lower-case letters, digits and _');
        continue;
      }
      const unknown = draft.capabilities.filter((id) => !this.isCapability(id));
      if (unknown.length) logger.warn({ role: key, capabilities: unknown }, 'an extension role names capabilities nobody registered; they are left out');
      next.set(key, { key, title: draft.title, description: draft.description ?? '', capabilities: this.known(draft.capabilities), builtin: true });
    }
    for (const row of rows) {
      if (hostRoles.has(row.key)) continue;
      const { title, description, capabilities } = row;
      next.set(row.key, { key: row.key, title, description, capabilities: this.known(capabilities), builtin: next.get(row.key)?.builtin ?? false });
    }
    for (const key of this.roles.keys()) if (!next.has(key)) users.roles.unregister(key);
    for (const role of next.values()) {
      users.roles.register(role.key, { title: role.title, description: role.description, capabilities: role.capabilities, builtin: role.builtin });
    }
    this.roles = next;
    this.version = version;
  }
}

const catalogs = new WeakMap<Host, RoleCatalog>();

/** The role catalogue of this host (one per process; tests run several hosts in one process). */
export function roleCatalog(host: Host): RoleCatalog {
  let catalog = catalogs.get(host);
  if (!catalog) catalogs.set(host, (catalog = new RoleCatalog(host)));
  return catalog;
}
