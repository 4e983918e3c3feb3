import type { Knex } from 'knex';
import type { OwnerScope } from '../../core/context';

interface OwnerRow {
  id: number;
  user_id: number | null;
  email: string;
}

/**
 * The customer record of a logged-in user: linked by `user_id`, or else an unlinked record with the user's email.
 * Only reads: resolving the owner never writes, so a refused portal request changes nothing. The link itself is
 * written by `linkCustomerByEmail` at login, or by an admin (attach user, create customer).
 */
export async function customerIdOf(db: Knex | Knex.Transaction, scope: OwnerScope): Promise<number | null> {
  const linked = (await db('store_customers').where({ user_id: scope.user_id }).first('id')) as Pick<OwnerRow, 'id'> | undefined;
  if (linked) return Number(linked.id);
  // A record with the user's email but linked to another account is not theirs.
  const byEmail = (await db('store_customers').where({ email: scope.email.toLowerCase() }).whereNull('user_id').first('id')) as
    Pick<OwnerRow, 'id'> | undefined;
  return byEmail ? Number(byEmail.id) : null;
}

/** Links the unlinked customer record with the user's email to the user (a no-op when there is none or it is taken). */
export async function linkCustomerByEmail(db: Knex | Knex.Transaction, scope: OwnerScope): Promise<void> {
  const linked = await db('store_customers').where({ user_id: scope.user_id }).first('id');
  if (linked) return;
  await db('store_customers').where({ email: scope.email.toLowerCase() }).whereNull('user_id').update({ user_id: scope.user_id });
}

/** Narrows a query on a table with a `customer_id` column to the caller's own rows: ownership is a WHERE clause. */
export function ownedBy(query: Knex.QueryBuilder, customerId: number | null, column = 'customer_id'): Knex.QueryBuilder {
  return customerId === null ? query.whereRaw('1 = 0') : query.where(column, customerId);
}
