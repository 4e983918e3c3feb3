import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { AppError, fail } from '../../../core/errors';
import type { PaymentGateway } from '../../../gateways/gateway';
import { paymentGateways } from '../../../gateways/registry';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import type { Subscription } from '../types';

export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

/**
 * The subscription `{subscription}` of the order `{order}` (its `parent_order_id`): ownership is part of the query, so
 * a subscription of another order is as missing as one that does not exist (404).
 */
export async function subscriptionOfOrder(db: Knex | Knex.Transaction, orderId: number, subscriptionId: number): Promise<Subscription> {
  const row = (await db('store_subscriptions').where({ id: subscriptionId, parent_order_id: orderId }).first()) as SubscriptionRow | undefined;
  if (!row) throw fail('not_found', SUBSCRIPTION_NOT_FOUND);
  return presentSubscription(row);
}

/** The gateway of the subscription's payment method, when there is one by that key. */
export function gatewayOf(ctx: Ctx, subscription: Subscription): PaymentGateway | null {
  return paymentGateways(ctx).get(subscription.current_payment_method) ?? null;
}

/** The gateway's title, or the payment method's key when no gateway answers for it. */
export const titleOf = (gateway: PaymentGateway | null, subscription: Subscription) =>
  gateway?.title || subscription.current_payment_method || 'The payment gateway';

/**
 * What a gateway call that threw says to the admin: a refusal carries the vendor's reason (the gateways throw an
 * `AppError` with it); anything else (no answer, a timeout) a plain sentence, the detail logged.
 */
export function gatewayFailure(ctx: Ctx, title: string, error: unknown, what: string): string {
  if (error instanceof AppError) return error.message;
  ctx.host.logger.warn({ err: error, gateway: title }, what);
  return `${title} did not answer. Please try again in a moment.`;
}
