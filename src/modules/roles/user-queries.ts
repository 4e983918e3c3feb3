import type { Knex } from 'knex';
import { escapeLike, parseJson } from '../../core/db';
import { paginate, type Page } from '../../core/page';
import { ROLES_META } from './repo';

type Db = Knex | Knex.Transaction;

/**
 * Users holding any of `keys`, read from the host's `roles` usermeta (a JSON array of role keys, `m`). Role keys are
 * `[a-z0-9_]`, so a key in that JSON text is exactly `"key"` (its `_` escaped for LIKE).
 */
const holdsAny = (query: Knex.QueryBuilder, keys: string[]) =>
  query.where((any) => {
    for (const key of keys) any.orWhereRaw(`m.meta_value like ? escape '!'`, [`%"${escapeLike(key)}"%`]);
  });

export interface UserRolesRow {
  id: number;
  display_name: string;
  email: string;
  roles: string[];
}

/** The users holding any of `keys`, by id. */
export async function usersHolding(db: Db, keys: string[]): Promise<UserRolesRow[]> {
  if (!keys.length) return [];
  const query = db('users')
    .join('usermeta as m', (join) => join.on('m.user_id', '=', 'users.id').andOnVal('m.meta_key', '=', ROLES_META))
    .orderBy('users.id')
    .select('users.id', 'users.display_name', 'users.email', 'm.meta_value');
  const rows = (await holdsAny(query, keys)) as Array<{ id: number | string; display_name: string; email: string; meta_value: string }>;
  return rows.map((row) => ({ id: Number(row.id), display_name: row.display_name, email: row.email, roles: parseJson<string[]>(row.meta_value, []) }));
}

export interface UserListFilter {
  search: string;
  userIds: number[] | null;
  /** Users holding any of these roles are left out. */
  excludeRoles: string[];
  page: number;
  perPage: number;
}

/** A page of users by id: display name or email containing `search` (literally), among `userIds` when given. */
export async function userPage(db: Db, filter: UserListFilter): Promise<Page<{ id: number; display_name: string; email: string }>> {
  const query = db('users')
    .leftJoin('usermeta as m', (join) => join.on('m.user_id', '=', 'users.id').andOnVal('m.meta_key', '=', ROLES_META))
    .orderBy('users.id')
    .select('users.id', 'users.display_name', 'users.email');
  if (filter.excludeRoles.length) query.where((q) => q.whereNull('m.meta_value').orWhereNot((held) => holdsAny(held, filter.excludeRoles)));
  if (filter.userIds) query.whereIn('users.id', filter.userIds);
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    query.where((q) => q.whereRaw(`?? like ? escape '!'`, ['users.display_name', pattern]).orWhereRaw(`?? like ? escape '!'`, ['users.email', pattern]));
  }
  const page = await paginate<{ id: number | string; display_name: string; email: string }>(query, filter.page, filter.perPage);
  return { ...page, data: page.data.map((row) => ({ id: Number(row.id), display_name: row.display_name, email: row.email })) };
}
