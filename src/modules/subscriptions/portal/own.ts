import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { lockForUpdate } from '../../../core/db';
import { fail } from '../../../core/errors';
import { customerIdOf, ownedBy } from '../../customers/owner';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import type { Subscription } from '../types';

/** The spec's uuid shape: alphanumeric with dashes; anything else names no subscription. */
const UUID = /^[A-Za-z0-9-]{1,100}$/;

export const subscriptionNotFound = () => fail('subscription_not_found');

/**
 * The caller's subscription with this uuid (ownership is part of the WHERE clause), locked when `lock` inside a
 * transaction; null when it does not exist or is not the caller's, which the routes answer alike (404).
 */
export async function findOwnSubscription(
  ctx: Ctx,
  uuid: string,
  options: { db?: Knex | Knex.Transaction; lock?: boolean } = {},
): Promise<Subscription | null> {
  if (!ctx.scope || !UUID.test(uuid)) return null;
  const db = options.db ?? ctx.db;
  const query = ownedBy(db('store_subscriptions').where({ uuid }), await customerIdOf(db, ctx.scope));
  const row = (await (options.lock ? lockForUpdate(query, db) : query).first()) as SubscriptionRow | undefined;
  return row ? presentSubscription(row) : null;
}

/** `findOwnSubscription`, or the 404 `subscription_not_found`. */
export async function ownSubscription(ctx: Ctx, uuid: string, options: { db?: Knex | Knex.Transaction; lock?: boolean } = {}): Promise<Subscription> {
  const subscription = await findOwnSubscription(ctx, uuid, options);
  if (!subscription) throw subscriptionNotFound();
  return subscription;
}
