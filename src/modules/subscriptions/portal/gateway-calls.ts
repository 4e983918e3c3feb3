import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { AppError, fail } from '../../../core/errors';
import type { GatewayResult, GatewaySubscription } from '../../../gateways/gateway';
import { toGatewaySubscription } from '../checkout';
import type { Subscription } from '../types';

/** The subscription as a gateway takes it; its payment mode (test/live) is the parent order's. */
export async function gatewaySubscriptionOf(db: Knex | Knex.Transaction, subscription: Subscription): Promise<GatewaySubscription> {
  const order =
    subscription.parent_order_id === null
      ? undefined
      : ((await db('store_orders').where({ id: subscription.parent_order_id }).first('mode')) as { mode: string } | undefined);
  return toGatewaySubscription(subscription, order?.mode ?? 'test');
}

/**
 * Runs a gateway call for a portal action. Answers already in the portal's codes pass; terms a gateway cannot bill
 * (a 422) are `payment_method_invalid`; any other refusal, and no answer, are the 502 `gateway_error` with the
 * gateway's message (those messages never carry keys).
 */
export async function atGateway<T>(ctx: Ctx, title: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError) {
      if (error.code === 'payment_method_invalid' || error.code === 'gateway_error') throw error;
      if (error.status === 422) throw fail('payment_method_invalid', error.message);
      throw fail('gateway_error', error.message);
    }
    ctx.host.logger.warn({ err: error, gateway: title }, 'a portal subscription call to the gateway failed');
    throw fail('gateway_error', `${title} did not answer. Nothing was changed; please try again.`);
  }
}

/** A gateway's answer that did not succeed, as the portal's `gateway_error`. */
export function refusedBy(title: string, result: GatewayResult): AppError {
  return fail('gateway_error', `${title} refused the request: ${result.message}`);
}
