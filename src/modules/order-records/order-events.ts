import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { Host } from '../../host/contract';
import type { OrderRow } from './presenter';

/**
 * Order changes as they happen, inside the transaction that makes them. Work that must commit or roll back with the
 * change (tax records, report summaries, emails queued) listens here; the `store/order/*` actions fire after commit
 * and are for everything else.
 */
export type OrderEvent =
  /** The order became paid; `order` is the row after the change, `charge_id` the transaction that paid it. */
  | { type: 'paid'; order: OrderRow; charge_id: number }
  /** A refund settled; `order` is the row after the ledger moved, `amount` the cents given back. */
  | { type: 'refunded'; order: OrderRow; amount: number; refund_transaction_id: number }
  /** The shipping status changed from `previous` (`''` for none) to `order.shipping_status`. */
  | { type: 'shipping_status_changed'; order: OrderRow; previous: string }
  /** Checkout placed the order with an offline method (cash on delivery, bank transfer): it waits for an admin to mark it paid. */
  | { type: 'placed_offline'; order: OrderRow }
  /**
   * Orders were created, changed or deleted (any column, their items, addresses or transactions): every writer of
   * `store_orders` and its child tables emits it after its writes, so derived data (report summaries) can follow.
   * Emitting it more than once for the same change is harmless.
   */
  | { type: 'changed'; order_ids: number[] };

export type OrderEventListener = (ctx: Ctx, trx: Knex.Transaction, event: OrderEvent) => Promise<void>;

const listeners = new WeakMap<Host, OrderEventListener[]>();

/** Registers a listener for the host's order events; listeners run in registration order. */
export function onOrderEvent(host: Host, listener: OrderEventListener): void {
  listeners.set(host, [...(listeners.get(host) ?? []), listener]);
}

/** Runs every listener in the change's transaction; a listener that throws rolls the change back. */
export async function emitOrderEvent(ctx: Ctx, trx: Knex.Transaction, event: OrderEvent): Promise<void> {
  for (const listener of listeners.get(ctx.host) ?? []) await listener(ctx, trx, event);
}
