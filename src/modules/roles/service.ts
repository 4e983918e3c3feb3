import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { roleCatalog, type RoleCatalog } from './catalog';
import { firstFreeKey, keyFromTitle } from './keys';
import { bumpRolesVersion, deleteRoleRow, findRoleRow, insertRoleRow, keysLike, ROLES_META, updateRoleRow } from './repo';
import type { Role } from './types';
import { usersHolding } from './user-queries';

export interface NewRole {
  title: string;
  description?: string;
  capabilities: string[];
}

export type RolePatch = Partial<NewRole>;

const roleNotFound = () => fail('not_found', 'Role not found');
const permissionDenied = () => fail('permission_denied');

export const describeRole = (role: Pick<Role, 'key' | 'title'>) => `${role.title} (${role.key})`;

/** The store roles `GET /roles` lists, through `store/roles/available`. */
export function listRoles(ctx: Ctx): Role[] {
  return ctx.hooks.applyFilters('store/roles/available', roleCatalog(ctx.host).list());
}

export function getRole(ctx: Ctx, key: string): Role {
  const role = roleCatalog(ctx.host).get(key);
  if (!role) throw roleNotFound();
  return role;
}

/**
 * The capabilities a role may be given: registered ones only (422 naming the unknown), each held by the caller,
 * so nobody grants more than they have (403).
 */
function grantable(ctx: Ctx, catalog: RoleCatalog, capabilities: string[]): string[] {
  const unknown = [...new Set(capabilities)].filter((id) => !catalog.isCapability(id));
  if (unknown.length) throw invalid('capabilities', 'in', `The selected capabilities are invalid: ${unknown.join(', ')}.`);
  const known = catalog.known(capabilities);
  if (!known.every((id) => ctx.holds(id))) throw permissionDenied();
  return known;
}

function cleanTitle(title: string): string {
  const clean = title.trim();
  if (!clean) throw invalid('title', 'required', 'The title field is required.');
  return clean;
}

/** Runs `work` as a role change: the roles version moves in the same transaction and this process reloads at once. */
function roleChange<T>(ctx: Ctx, work: (trx: Knex.Transaction, afterCommit: AfterCommit, now: string) => Promise<T>): Promise<T> {
  const catalog = roleCatalog(ctx.host);
  return transaction(ctx, async (trx, afterCommit) => {
    await bumpRolesVersion(trx);
    afterCommit(() => catalog.load());
    return work(trx, afterCommit, toTimestamp(ctx.clock.now()));
  });
}

/** `POST /roles` without `user_id`: a custom role, its key derived from the title and made unique. */
export async function createRole(ctx: Ctx, input: NewRole): Promise<Role> {
  const catalog = roleCatalog(ctx.host);
  const title = cleanTitle(input.title);
  const capabilities = grantable(ctx, catalog, input.capabilities);
  const description = input.description?.trim() ?? '';
  return roleChange(ctx, async (trx, afterCommit, now) => {
    const base = keyFromTitle(title);
    const stored = new Set(await keysLike(trx, base));
    const key = firstFreeKey(base, (candidate) => stored.has(candidate) || catalog.isTaken(candidate));
    const role: Role = { key, title, description, capabilities, builtin: false };
    const id = await insertRoleRow(trx, { key, title, description, capabilities }, now);
    await recordActivity(trx, ctx, { object_type: 'role', object_id: id, title: 'Role created', content: describeRole(role) }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/role/created', role));
    return role;
  });
}

/** `POST /roles/{key}`: a custom role's or a built-in role's title, description or capabilities (its key stays). */
export async function updateRole(ctx: Ctx, key: string, input: RolePatch): Promise<Role> {
  const catalog = roleCatalog(ctx.host);
  const previous = getRole(ctx, key);
  const title = input.title === undefined ? undefined : cleanTitle(input.title);
  const capabilities = input.capabilities === undefined ? undefined : grantable(ctx, catalog, input.capabilities);
  return roleChange(ctx, async (trx, afterCommit, now) => {
    const row = await findRoleRow(trx, key);
    // A custom role has a row; one without was deleted by another process meanwhile.
    if (!row && !previous.builtin) throw roleNotFound();
    const base = row ?? previous;
    const changed = {
      title: title ?? base.title,
      description: input.description === undefined ? base.description : input.description.trim(),
      capabilities: capabilities ?? catalog.known(base.capabilities),
    };
    const id = row ? row.id : await insertRoleRow(trx, { key, ...changed }, now);
    if (row) await updateRoleRow(trx, key, changed, now);
    const role: Role = { key, ...changed, builtin: previous.builtin };
    await recordActivity(trx, ctx, { object_type: 'role', object_id: id, title: 'Role updated', content: describeRole(role) }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/role/updated', role, previous));
    return role;
  });
}

/** `DELETE /roles/{key}` without `user_id`: a custom role, taken from every user holding it in the same transaction. */
export async function deleteRole(ctx: Ctx, key: string): Promise<void> {
  const role = getRole(ctx, key);
  if (role.builtin) throw permissionDenied();
  await roleChange(ctx, async (trx, afterCommit) => {
    const row = await findRoleRow(trx, key);
    if (!row) throw roleNotFound();
    const holders = await usersHolding(trx, [key]);
    for (const holder of holders) {
      await ctx.host.users.setMeta(
        holder.id,
        ROLES_META,
        holder.roles.filter((held) => held !== key),
        trx,
      );
    }
    await deleteRoleRow(trx, key);
    const content = `${describeRole(role)}${holders.length ? `; taken from user(s) ${holders.map((holder) => `#${holder.id}`).join(', ')}` : ''}`;
    await recordActivity(trx, ctx, { object_type: 'role', object_id: row.id, title: 'Role deleted', content }, afterCommit);
    const holderIds = holders.map((holder) => holder.id);
    afterCommit(() => {
      for (const id of holderIds) ctx.hooks.doAction('store/role/removed', id, key);
      ctx.hooks.doAction('store/role/deleted', role, holderIds);
    });
  });
}
