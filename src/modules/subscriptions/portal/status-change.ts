import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { AppError, fail } from '../../../core/errors';
import type { AfterCommit } from '../../../core/db';
import type { SubscriptionEvent } from '../lifecycle';
import { transitionSubscription, type SubscriptionPatch } from '../service';
import type { Subscription, SubscriptionStatus } from '../types';
import { writePortalChange } from './write';

/**
 * Moves the subscription to `to` through the lifecycle (`transitionSubscription`: activity entry and hooks), after the
 * gateway already did its part. When the gateway's own notification got there first and the subscription already is
 * in `to`, only `patch` is written. A transition the lifecycle refuses is `invalid_subscription_status`.
 */
export async function moveAfterGateway(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  current: Subscription,
  to: SubscriptionStatus,
  event: SubscriptionEvent,
  patch: SubscriptionPatch,
  note: string,
): Promise<Subscription> {
  if (current.status === to) return writePortalChange(ctx, trx, afterCommit, current, patch, { title: `Subscription ${to} (customer)`, content: note });
  try {
    return await transitionSubscription(ctx, trx, afterCommit, current.id, event, patch, { note });
  } catch (error) {
    if (error instanceof AppError && error.code === 'invalid_state') throw fail('invalid_subscription_status', error.message);
    throw error;
  }
}
