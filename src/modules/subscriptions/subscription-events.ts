import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { Host } from '../../host/contract';
import type { OrderRow } from '../order-records/presenter';
import type { Subscription, SubscriptionStatus } from './types';

/**
 * Subscription changes as they happen, inside the transaction that makes them: work that must commit or roll back
 * with the change (emails queued) listens here; the `store/subscription/*` actions fire after commit.
 */
export type SubscriptionChange =
  /** A renewal payment was recorded (a gateway's renewal or an early payment); `order` is the paid renewal order. */
  | { type: 'renewed'; subscription: Subscription; order: OrderRow }
  /** The subscription arrived in `canceled` from `previous`. */
  | { type: 'canceled'; subscription: Subscription; previous: SubscriptionStatus };

export type SubscriptionChangeListener = (ctx: Ctx, trx: Knex.Transaction, change: SubscriptionChange) => Promise<void>;

const listeners = new WeakMap<Host, SubscriptionChangeListener[]>();

/** Registers a listener for the host's subscription changes; listeners run in registration order. */
export function onSubscriptionEvent(host: Host, listener: SubscriptionChangeListener): void {
  listeners.set(host, [...(listeners.get(host) ?? []), listener]);
}

/** Runs every listener in the change's transaction; a listener that throws rolls the change back. */
export async function emitSubscriptionEvent(ctx: Ctx, trx: Knex.Transaction, change: SubscriptionChange): Promise<void> {
  for (const listener of listeners.get(ctx.host) ?? []) await listener(ctx, trx, change);
}
