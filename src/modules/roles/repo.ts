import type { Knex } from 'knex';
import { escapeLike, insertedId, lockForUpdate, parseJson } from '../../core/db';

/*
 * The SQL of role storage: `store_roles`, the `roles` counter, and one user's roles (the host's `roles` usermeta, a
 * JSON array of role keys), read through the caller's transaction when it has one. Kept light: the CLI loads it.
 */

type Db = Knex | Knex.Transaction;

const COUNTER = 'roles';
export const ROLES_META = 'roles';

export interface RoleRow {
  id: number;
  key: string;
  title: string;
  description: string;
  capabilities: string[];
}

interface RawRoleRow extends Omit<RoleRow, 'id' | 'capabilities'> {
  id: number | string;
  capabilities: string;
}

const toRow = (raw: RawRoleRow): RoleRow => ({
  id: Number(raw.id),
  key: raw.key,
  title: raw.title,
  description: raw.description,
  capabilities: parseJson<string[]>(raw.capabilities, []),
});

export async function readRolesVersion(db: Db): Promise<number> {
  const row = (await db('store_counters').where({ name: COUNTER }).first('value')) as { value: number | string } | undefined;
  return Number(row?.value ?? 0);
}

/** Takes the next roles version: the row stays locked until the transaction ends, so role changes run one at a time. */
export async function bumpRolesVersion(trx: Knex.Transaction): Promise<void> {
  await trx('store_counters').where({ name: COUNTER }).increment('value', 1);
}

/** Waits for role changes running elsewhere and keeps others waiting until this transaction ends (MySQL row lock). */
export async function lockRoles(trx: Knex.Transaction): Promise<void> {
  await lockForUpdate(trx('store_counters').where({ name: COUNTER }).select('value'), trx);
}

export async function readRoleRows(db: Db): Promise<RoleRow[]> {
  return ((await db('store_roles').orderBy('id').select('id', 'key', 'title', 'description', 'capabilities')) as RawRoleRow[]).map(toRow);
}

export async function findRoleRow(db: Db, key: string): Promise<RoleRow | null> {
  const raw = (await db('store_roles').where({ key }).first('id', 'key', 'title', 'description', 'capabilities')) as RawRoleRow | undefined;
  return raw ? toRow(raw) : null;
}

/** The stored keys that are `base` or `base_<suffix>`. */
export async function keysLike(db: Db, base: string): Promise<string[]> {
  const rows = (await db('store_roles')
    .where({ key: base })
    .orWhereRaw(`?? like ? escape '!'`, ['key', `${escapeLike(base)}!_%`])
    .select('key')) as Array<{ key: string }>;
  return rows.map((row) => row.key);
}

export async function insertRoleRow(trx: Knex.Transaction, role: Omit<RoleRow, 'id'>, now: string): Promise<number> {
  const row = { ...role, capabilities: JSON.stringify(role.capabilities), created_at: now, updated_at: now };
  return insertedId(await trx('store_roles').insert(row));
}

export async function updateRoleRow(trx: Knex.Transaction, key: string, role: Omit<RoleRow, 'id' | 'key'>, now: string): Promise<void> {
  await trx('store_roles')
    .where({ key })
    .update({ ...role, capabilities: JSON.stringify(role.capabilities), updated_at: now });
}

export async function deleteRoleRow(trx: Knex.Transaction, key: string): Promise<void> {
  await trx('store_roles').where({ key }).delete();
}

/** A user's role keys, or null when there is no such user. */
export async function readUserRoles(db: Db, userId: number): Promise<string[] | null> {
  const row = (await db('users')
    .leftJoin('usermeta as m', (join) => join.on('m.user_id', '=', 'users.id').andOnVal('m.meta_key', '=', ROLES_META))
    .where('users.id', userId)
    .first('users.id', 'm.meta_value')) as { id: number; meta_value: string | null } | undefined;
  return row ? parseJson<string[]>(row.meta_value, []) : null;
}
