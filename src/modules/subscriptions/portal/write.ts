import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import type { AfterCommit } from '../../../core/db';
import { toTimestamp } from '../../../core/time';
import { recordActivity } from '../../activities/service';
import { readSubscription, type SubscriptionPatch } from '../service';
import type { Subscription } from '../types';

/**
 * Writes a change the customer made that leaves the status alone (payment method, pending switch) inside the caller's
 * transaction: the columns, an activity entry, and `store/subscription/updated` after commit.
 */
export async function writePortalChange(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  before: Subscription,
  patch: SubscriptionPatch,
  activity: { title: string; content?: string },
): Promise<Subscription> {
  const { config, ...columns } = patch;
  await trx('store_subscriptions')
    .where({ id: before.id })
    .update({ ...columns, ...(config === undefined ? {} : { config: JSON.stringify(config) }), updated_at: toTimestamp(ctx.clock.now()) });
  const after = (await readSubscription(trx, before.id)) as Subscription;
  await recordActivity(trx, ctx, { object_type: 'subscription', object_id: before.id, title: activity.title, content: activity.content ?? '' }, afterCommit);
  afterCommit(() => ctx.hooks.doAction('store/subscription/updated', after, before));
  return after;
}
