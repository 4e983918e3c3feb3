import { ADMINISTRATOR } from '../../core/capabilities';
import type { Ctx } from '../../core/context';
import { invalid } from '../../core/errors';
import { readPage } from '../../core/page';
import { MAX_ID } from '../../core/schema';
import { roleCatalog } from './catalog';
import type { RoleManager, RoleUserPage } from './types';
import { userPage, usersHolding } from './user-queries';

/** `GET /roles/user-list` page sizes: 10 by default (spec Limits), at most 200 as the other admin lists. */
export const USER_LIST_LIMITS = { default: 10, max: 200 };
const MAX_USER_IDS = 200;

/** `GET /roles/managers`: the users holding a store role, with those roles. */
export async function listManagers(ctx: Ctx): Promise<RoleManager[]> {
  const keys = roleCatalog(ctx.host)
    .list()
    .map((role) => role.key);
  const users = await usersHolding(ctx.db, keys);
  return users.map((user) => ({
    ID: user.id,
    display_name: user.display_name,
    user_email: user.email,
    roles: user.roles.filter((key) => keys.includes(key)),
  }));
}

export interface UserListQuery {
  search?: string;
  user_ids?: string[];
  page?: unknown;
  per_page?: unknown;
}

/** `user_ids` as an array (`user_ids[]=1&user_ids[]=2`), a comma list (`user_ids=1,2`), or both. */
function userIds(values: string[] | undefined): number[] | null {
  if (values === undefined) return null;
  const ids = [
    ...new Set(
      values
        .flatMap((value) => value.split(','))
        .map((part) => part.trim())
        .filter(Boolean)
        .map(Number),
    ),
  ];
  if (ids.some((id) => id > MAX_ID)) throw invalid('user_ids', 'max', `The user ids must not be greater than ${MAX_ID}.`);
  if (ids.length > MAX_USER_IDS) throw invalid('user_ids', 'max', `The user ids field must not have more than ${MAX_USER_IDS} items.`);
  return ids;
}

/** `GET /roles/user-list`: users to pick from, administrators left out, through `store/roles/user_list`. */
export async function listRoleUsers(ctx: Ctx, query: UserListQuery): Promise<RoleUserPage> {
  const ids = userIds(query.user_ids);
  const search = query.search?.trim() ?? '';
  const { page, perPage } = readPage(query, USER_LIST_LIMITS);
  const found = await userPage(ctx.db, { search, userIds: ids, excludeRoles: [ADMINISTRATOR], page, perPage });
  const users: RoleUserPage = {
    data: found.data.map((user) => ({ ID: user.id, name: user.display_name, email: user.email })),
    total: found.total,
    per_page: found.per_page,
    current_page: found.current_page,
    last_page: found.last_page,
  };
  return ctx.hooks.applyFilters('store/roles/user_list', users, { search, user_ids: ids ?? [] });
}
