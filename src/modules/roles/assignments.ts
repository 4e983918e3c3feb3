import type { Knex } from 'knex';
import { ADMINISTRATOR, roleCapabilities } from '../../core/capabilities';
import { transaction, type Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { recordActivity } from '../activities/service';
import { roleCatalog } from './catalog';
import { findRoleRow, lockRoles, readUserRoles, ROLES_META } from './repo';
import { describeRole } from './service';
import { askListeners } from './veto';

const userNotFound = () => fail('not_found', 'User not found');
const invalidRole = () => fail('invalid_role');

/** A user's roles for a change: 404 for an unknown user, 403 for an administrator (their roles are not the store's to change). */
async function targetRoles(db: Knex | Knex.Transaction, userId: number): Promise<string[]> {
  const roles = await readUserRoles(db, userId);
  if (!roles) throw userNotFound();
  if (roles.includes(ADMINISTRATOR)) throw fail('permission_denied');
  return roles;
}

/**
 * `POST /roles` with `user_id`: gives the user `role_key`. A user holds one store role: one they held is replaced
 * (its removal passes `store/role/before_remove` too); host roles stay. Listeners may veto before anything changes.
 * Returns the store roles it replaced.
 */
export async function assignRole(ctx: Ctx, userId: number, key: string): Promise<string[]> {
  const catalog = roleCatalog(ctx.host);
  const before = await targetRoles(ctx.db, userId);
  const role = catalog.get(key);
  if (!role) throw invalidRole();
  if (!roleCapabilities(ctx.host, key).every((id) => ctx.holds(id))) throw fail('permission_denied');
  if (before.includes(key)) throw fail('conflict', 'Role already assigned');
  await askListeners(ctx, 'store/role/before_assign', userId, key);
  for (const replaced of before.filter((held) => catalog.get(held))) await askListeners(ctx, 'store/role/before_remove', userId, replaced);
  return transaction(ctx, async (trx, afterCommit) => {
    await lockRoles(trx);
    // A custom role deleted (by another request) since the checks above is no longer given.
    if (!role.builtin && !(await findRoleRow(trx, key))) throw invalidRole();
    const roles = await targetRoles(trx, userId);
    if (roles.includes(key)) throw fail('conflict', 'Role already assigned');
    const replaced = roles.filter((held) => catalog.get(held));
    await ctx.host.users.setMeta(userId, ROLES_META, [...roles.filter((held) => !replaced.includes(held)), key], trx);
    const content = `${describeRole(role)} given to user #${userId}${replaced.length ? `, replacing ${replaced.join(', ')}` : ''}`;
    await recordActivity(trx, ctx, { object_type: 'role', object_id: userId, title: 'Role assigned', content }, afterCommit);
    afterCommit(() => {
      for (const held of replaced) ctx.hooks.doAction('store/role/removed', userId, held);
      ctx.hooks.doAction('store/role/assigned', userId, key);
    });
    return replaced;
  });
}

/** `DELETE /roles/{key}` with `user_id`: takes a store role the user holds from them (400 when they do not hold it). */
export async function removeRole(ctx: Ctx, key: string, userId: number): Promise<void> {
  const role = roleCatalog(ctx.host).get(key);
  const before = await targetRoles(ctx.db, userId);
  if (!role || !before.includes(key)) throw invalidRole();
  await askListeners(ctx, 'store/role/before_remove', userId, key);
  await transaction(ctx, async (trx, afterCommit) => {
    await lockRoles(trx);
    const roles = await targetRoles(trx, userId);
    if (!roles.includes(key)) throw invalidRole();
    await ctx.host.users.setMeta(
      userId,
      ROLES_META,
      roles.filter((held) => held !== key),
      trx,
    );
    const content = `${describeRole(role)} taken from user #${userId}`;
    await recordActivity(trx, ctx, { object_type: 'role', object_id: userId, title: 'Role removed', content }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/role/removed', userId, key));
  });
}
