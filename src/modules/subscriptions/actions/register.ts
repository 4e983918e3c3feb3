import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import type { AfterCommit } from '../../../core/db';
import type { RateLimits } from '../../../core/ratelimit';
import type { Host } from '../../../host/contract';
import type { OrderRow } from '../../order-records/presenter';
import { provideOrderSubscriptions } from '../../orders/subscription-port';
import { activateOrderSubscriptions } from '../service';
import { registerEarlyPaymentPage } from './early-payment-page';
import { countEarlyPayment } from './early-payment-settle';
import { registerEndAtGatewayJob } from './end-at-gateway';
import { cancelForRefund } from './refund-cancel';

/**
 * An order became paid (through a gateway, the free path at checkout, or an admin's mark-as-paid), inside that
 * transaction: its pending subscriptions start, and an early installment payment counts.
 */
async function orderPaid(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, order: OrderRow): Promise<void> {
  await activateOrderSubscriptions(ctx, trx, afterCommit, Number(order.id));
  await countEarlyPayment(ctx, trx, afterCommit, order);
}

/** What the admin actions add besides their routes: the orders' side of subscriptions, the early-payment page, its job. */
export function registerSubscriptionActions(host: Host, limits: RateLimits): void {
  provideOrderSubscriptions(host, { orderPaid, cancelForRefund });
  registerEarlyPaymentPage(host, limits);
  registerEndAtGatewayJob(host, limits);
}
