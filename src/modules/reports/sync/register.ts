import type { Host } from '../../../host/contract';
import { onOrderEvent } from '../../order-records/order-events';
import { syncOrders } from './sync';

/**
 * Keeps the report facts and summaries in step with every order change, in the change's transaction: `changed`
 * names the orders, and a payment or a refund is a change of its order too (a second sync of an unchanged order
 * writes nothing).
 */
export function registerReportSync(host: Host): void {
  onOrderEvent(host, async (ctx, trx, event) => {
    if (event.type === 'changed') await syncOrders(ctx, trx, event.order_ids);
    else if (event.type === 'paid' || event.type === 'refunded') await syncOrders(ctx, trx, [Number(event.order.id)]);
  });
}
