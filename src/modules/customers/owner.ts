import type { Knex } from 'knex';
import type { OwnerScope } from '../../core/context';

interface OwnerRow {
  id: number;
  user_id: number | null;
  email: string;
}

/**
 * The customer record of a logged-in user: linked by `user_id`, or else an unlinked record with the user's email,
 * which is then linked (later lookups use the index). Null when the user has no customer record.
 */
export async function customerIdOf(db: Knex | Knex.Transaction, scope: OwnerScope): Promise<number | null> {
  const linked = (await db('store_customers').where({ user_id: scope.user_id }).first('id')) as Pick<OwnerRow, 'id'> | undefined;
  if (linked) return Number(linked.id);
  // A record with the user's email but linked to another account is not theirs.
  const byEmail = (await db('store_customers').where({ email: scope.email.toLowerCase() }).whereNull('user_id').first('id')) as
    Pick<OwnerRow, 'id'> | undefined;
  if (!byEmail) return null;
  const claimed = await db('store_customers').where({ id: byEmail.id }).whereNull('user_id').update({ user_id: scope.user_id });
  return claimed ? Number(byEmail.id) : customerIdOf(db, scope);
}

/** Narrows a query on a table with a `customer_id` column to the caller's own rows: ownership is a WHERE clause. */
export function ownedBy(query: Knex.QueryBuilder, customerId: number | null, column = 'customer_id'): Knex.QueryBuilder {
  return customerId === null ? query.whereRaw('1 = 0') : query.where(column, customerId);
}
