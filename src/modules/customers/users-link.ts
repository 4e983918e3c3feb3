import type { Knex } from 'knex';
import type { HostUser } from '../../host/contract';
import { transaction, type Ctx } from '../../core/context';
import { escapeLike } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { isUniqueViolation } from '../products/validation';
import { recordAdminLink } from './owner';
import { presentCustomer, type CustomerRow } from './presenter';
import type { CustomerRecord } from './types';

/**
 * Links between customers and host users. Host-user calls (`ctx.host.users.*`) use the host's own connection, so they
 * are made before or after a transaction, never inside one (SQLite has a single connection).
 */

/** The customer a host user is linked to, or null. */
export async function customerOfUser(db: Knex | Knex.Transaction, userId: number): Promise<number | null> {
  const row = (await db('store_customers').where({ user_id: userId }).first('id')) as { id: number | string } | undefined;
  return row ? Number(row.id) : null;
}

export const userAlreadyLinked = () => invalid('user_id', 'unique', 'This user is already linked to another customer.');

/** A host user that exists and is not linked to a customer other than `exceptCustomerId`; 422 on `user_id` otherwise. */
export async function linkableUser(ctx: Ctx, userId: number, exceptCustomerId: number | null = null): Promise<HostUser> {
  const user = await ctx.host.users.findById(userId);
  if (!user) throw invalid('user_id', 'exists', 'The selected user id is invalid.');
  const linked = await customerOfUser(ctx.db, userId);
  if (linked !== null && linked !== exceptCustomerId) throw userAlreadyLinked();
  return user;
}

/** A free login for a new host user, from `wanted` or the email's local part (`jane.doe`, `jane.doe2`, …). */
async function freeLogin(ctx: Ctx, email: string, wanted?: string): Promise<string> {
  const base =
    (wanted ?? email.split('@')[0])
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '')
      .slice(0, 50) || 'customer';
  for (let n = 1; n < 1000; n++) {
    const login = n === 1 ? base : `${base}${n}`;
    if (!(await ctx.host.users.findByLogin(login))) return login;
  }
  return `${base}${Date.now()}`;
}

export interface NewHostUser {
  email: string;
  first_name: string;
  last_name: string;
  url?: string;
  login?: string;
  /** An administrator creating the user vouches for the address; a shopper's own sign-up (checkout) does not. */
  email_verified?: boolean;
}

/** Creates a host user with the `customer` role for a customer (`wp_user: 'yes'`). */
export async function createHostUser(ctx: Ctx, input: NewHostUser): Promise<HostUser> {
  if (input.login !== undefined && input.login.trim() && (await ctx.host.users.findByLogin(input.login.trim()))) {
    throw invalid('username', 'unique', 'The username has already been taken.');
  }
  const login = input.login?.trim() ? input.login.trim() : await freeLogin(ctx, input.email);
  try {
    return await ctx.host.users.create({
      login,
      email: input.email,
      first_name: input.first_name,
      last_name: input.last_name,
      url: input.url ?? '',
      roles: ['customer'],
      email_verified: input.email_verified ?? false,
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'existing_user_email') throw invalid('email', 'unique', 'A user account with this email already exists.');
    if (code === 'existing_user_login') throw invalid('username', 'unique', 'The username has already been taken.');
    throw error;
  }
}

export interface AttachableUser {
  id: number;
  display_name: string;
  user_email: string;
  user_login: string;
}

/** Host users not linked to any customer, optionally matching `search` (login, email or display name). */
export async function attachableUsers(ctx: Ctx, input: { search?: string; limit?: number }): Promise<AttachableUser[]> {
  const query = ctx
    .db('users as u')
    .leftJoin('store_customers as c', 'c.user_id', 'u.id')
    .whereNull('c.id')
    .select('u.id', 'u.display_name', 'u.email', 'u.login')
    .orderBy('u.id', 'desc')
    .limit(input.limit ?? 20);
  const search = input.search?.trim();
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    query.where((q) =>
      q
        .whereRaw(`u.login like ? escape '!'`, [pattern])
        .orWhereRaw(`u.email like ? escape '!'`, [pattern])
        .orWhereRaw(`u.display_name like ? escape '!'`, [pattern]),
    );
  }
  const rows = (await query) as Array<{ id: number | string; display_name: string; email: string; login: string }>;
  return rows.map((r) => ({ id: Number(r.id), display_name: r.display_name, user_email: r.email, user_login: r.login }));
}

const notFound = () => fail('not_found', 'Customer not found');

/**
 * Links (`userId`) or unlinks (`null`) a customer's host user. Linking a user that belongs to another customer is a
 * 422; the unique key on `user_id` settles concurrent attempts the same way. An administrator's choice sticks: a
 * detached user is not linked to this customer again by their email (`recordAdminLink`).
 */
export async function setCustomerUser(ctx: Ctx, customerId: number, userId: number | null): Promise<CustomerRecord> {
  const user = userId === null ? null : await linkableUser(ctx, userId, customerId);
  try {
    return await transaction(ctx, async (trx, afterCommit) => {
      const row = (await trx('store_customers').where({ id: customerId }).first()) as CustomerRow | undefined;
      if (!row) throw notFound();
      const previous = presentCustomer(row);
      if (previous.user_id === userId) return previous;
      const now = toTimestamp(ctx.clock.now());
      await trx('store_customers').where({ id: customerId }).update({ user_id: userId, updated_at: now });
      await recordAdminLink(trx, customerId, previous.user_id, userId, now);
      const customer = presentCustomer((await trx('store_customers').where({ id: customerId }).first()) as CustomerRow);
      await recordActivity(
        trx,
        ctx,
        user
          ? { object_type: 'customer', object_id: customerId, title: 'User attached', content: `Linked to the user ${user.login} (#${user.id}).` }
          : { object_type: 'customer', object_id: customerId, title: 'User detached', content: `Unlinked from the user #${previous.user_id}.` },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/customer/updated', customer, previous));
      return customer;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'store_customers', 'user_id')) throw userAlreadyLinked();
    throw error;
  }
}
