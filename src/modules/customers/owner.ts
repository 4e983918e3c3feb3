import type { Knex } from 'knex';
import type { OwnerScope } from '../../core/context';
import { fail } from '../../core/errors';
import { isUniqueViolation } from '../products/validation';

const BLOCKS = 'store_customer_link_blocks';

/**
 * The unlinked customer records a user may claim by email: the user's current email is verified, the record has that
 * email, and no administrator detached this user from it. An unverified email proves nothing (anyone can sign up or
 * check out with someone else's address), so it never opens another person's guest orders.
 */
function claimableByEmail(db: Knex | Knex.Transaction, scope: OwnerScope): Knex.QueryBuilder {
  return db('store_customers as c')
    .join('users as u', (join) => {
      join.on('u.email', '=', 'c.email').andOnVal('u.id', '=', scope.user_id);
    })
    .whereNotNull('u.email_verified_at')
    .where('c.email', scope.email.toLowerCase())
    .whereNull('c.user_id')
    .whereNotExists(db(`${BLOCKS} as b`).select('b.id').whereRaw('b.customer_id = c.id').andWhere('b.user_id', scope.user_id));
}

/**
 * The customer record of a logged-in user: linked by `user_id`, or else the unlinked record they may claim by their
 * verified email (`claimableByEmail`). Only reads: resolving the owner never writes, so a refused portal request
 * changes nothing. The link itself is written when the email is verified or at login (`linkCustomerByEmail`), or by
 * an admin (attach user, create customer).
 */
export async function customerIdOf(db: Knex | Knex.Transaction, scope: OwnerScope): Promise<number | null> {
  const linked = (await db('store_customers').where({ user_id: scope.user_id }).first('id')) as { id: number | string } | undefined;
  if (linked) return Number(linked.id);
  const claimable = (await claimableByEmail(db, scope).first('c.id')) as { id: number | string } | undefined;
  return claimable ? Number(claimable.id) : null;
}

/**
 * Links the record the user may claim by email (`claimableByEmail`) to the user; returns its id, or null when there
 * is none, the user already has a record, or a concurrent link won.
 */
export async function linkCustomerByEmail(db: Knex | Knex.Transaction, scope: OwnerScope): Promise<number | null> {
  if (await db('store_customers').where({ user_id: scope.user_id }).first('id')) return null;
  const claimable = (await claimableByEmail(db, scope).first('c.id')) as { id: number | string } | undefined;
  if (!claimable) return null;
  try {
    const updated = await db('store_customers').where({ id: claimable.id }).whereNull('user_id').update({ user_id: scope.user_id });
    return updated ? Number(claimable.id) : null;
  } catch (error) {
    if (isUniqueViolation(error, 'store_customers', 'user_id')) return null;
    throw error;
  }
}

/** A logged-in user needs a customer record, but the one with their email is not theirs to claim (409). */
export const emailNotClaimable = () =>
  fail(
    'conflict',
    'A customer record with your email address exists but is not linked to your account. Confirm your email address with the link we mailed you (you can ask for a new one), then try again.',
  );

/** Whether an administrator detached the user from the customer (and has not attached them again since). */
export async function linkBlocked(db: Knex | Knex.Transaction, customerId: number, userId: number): Promise<boolean> {
  return !!(await db(BLOCKS).where({ customer_id: customerId, user_id: userId }).first('id'));
}

/**
 * Records an administrator's link change: a detached user's email no longer links them to this customer on its own;
 * attaching a user lifts that user's block.
 */
export async function recordAdminLink(
  trx: Knex.Transaction,
  customerId: number,
  previousUserId: number | null,
  userId: number | null,
  now: string,
): Promise<void> {
  if (previousUserId !== null && previousUserId !== userId) {
    await trx(BLOCKS).insert({ customer_id: customerId, user_id: previousUserId, created_at: now }).onConflict(['customer_id', 'user_id']).ignore();
  }
  if (userId !== null) await trx(BLOCKS).where({ customer_id: customerId, user_id: userId }).delete();
}

/** Narrows a query on a table with a `customer_id` column to the caller's own rows: ownership is a WHERE clause. */
export function ownedBy(query: Knex.QueryBuilder, customerId: number | null, column = 'customer_id'): Knex.QueryBuilder {
  return customerId === null ? query.whereRaw('1 = 0') : query.where(column, customerId);
}
