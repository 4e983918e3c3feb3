import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import type { Host } from '../../host/contract';
import type { OrderRow } from '../order-records/presenter';

/** What became of the subscriptions a refund asked to cancel (the refund answer's `subscription_cancel`). */
export interface SubscriptionCancelPart {
  status: 'success' | 'failed' | 'skipped';
  message: string;
}

/**
 * What orders need of subscriptions. The subscriptions module depends on orders (a renewal is an order), so orders
 * cannot import it: it plugs itself in here when the plugin registers, one implementation per host.
 */
export interface OrderSubscriptions {
  /** Inside mark-as-paid's transaction, once the order is paid (an early installment payment counts then). */
  orderPaid(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, order: OrderRow): Promise<void>;
  /** A refund's `cancelSubscription`: cancels the order's subscriptions at their gateway and in the store. */
  cancelForRefund(ctx: Ctx, orderId: number): Promise<SubscriptionCancelPart>;
}

const provided = new WeakMap<Host, OrderSubscriptions>();

export function provideOrderSubscriptions(host: Host, subscriptions: OrderSubscriptions): void {
  provided.set(host, subscriptions);
}

/** The host's subscriptions, or null when no subscriptions module is registered (orders work without one). */
export function orderSubscriptions(ctx: Ctx): OrderSubscriptions | null {
  return provided.get(ctx.host) ?? null;
}
