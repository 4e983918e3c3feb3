import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import type { Permission } from '../../core/permissions';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { recalculateCustomerStats } from '../customers/ltv';
import { capturePayments } from './capture';
import { releaseOrderCouponUses, restoreOrderCouponUses } from './coupon-uses';
import { deleteOrders } from './delete';
import type { BulkAction, BulkActionBody } from './manage-schemas';
import { emitOrderEvent } from '../order-records/order-events';
import { markPaidInTransaction } from './payments';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { lockOrders, notFoundNote, plural, summary } from './selection';
import { reclaimOrderStock, releaseOrderStock, type StockState } from './stock-state';
import {
  isUnpaid,
  PAYMENT_STATUS_ALIASES,
  PAYMENT_STATUSES,
  SETTABLE_ORDER_STATUSES,
  SETTLED_PAYMENT_STATUSES,
  SHIPPING_STATUSES,
  type PaymentStatus,
  type ShippingStatus,
} from './state';

type SettableStatus = (typeof SETTABLE_ORDER_STATUSES)[number];

async function reload(trx: Knex.Transaction, id: number) {
  return presentOrder((await trx('store_orders').where({ id }).first()) as OrderRow);
}

function requireStatus<T extends string>(value: string | undefined, allowed: readonly T[]): T {
  if (value === undefined || value === '') throw invalid('new_status', 'required', 'The new status field is required.');
  if (!(allowed as readonly string[]).includes(value)) throw invalid('new_status', 'in', `The new status must be one of: ${allowed.join(', ')}.`);
  return value as T;
}

const CANCEL_NOTES: Record<StockState, string> = { '': ' Stock was restored.', taken: ' Stock was restored.', held: ' Held stock was released.', released: '' };
const RECLAIM_NOTES: Record<StockState, string> = { taken: ' Stock was reduced.', held: ' Stock was put on hold.', '': '', released: '' };

/** What canceling does besides the status: stock per `manage_stock` (a checkout's hold is always freed), coupon uses of an unpaid order. */
async function cancelEffects(trx: Knex.Transaction, ctx: Ctx, order: OrderRow, manageStock: boolean, afterCommit: AfterCommit): Promise<string> {
  const id = Number(order.id);
  const uses = isUnpaid(order.payment_status) ? await releaseOrderCouponUses(trx, id) : 0;
  const released = await releaseOrderStock(trx, ctx, id, afterCommit, manageStock ? { restockUntracked: true } : { holdsOnly: true });
  return `${released === null ? '' : CANCEL_NOTES[released]}${uses ? ` ${plural(uses, 'coupon use was', 'coupon uses were')} given back.` : ''}`;
}

/** What leaving `canceled` does: with `manage_stock` the stock is taken or held again; coupon uses given back are counted again. */
async function reinstateEffects(trx: Knex.Transaction, ctx: Ctx, order: OrderRow, manageStock: boolean, afterCommit: AfterCommit): Promise<string> {
  const id = Number(order.id);
  const uses = await restoreOrderCouponUses(trx, id);
  const reclaimed = manageStock ? await reclaimOrderStock(trx, ctx, id, afterCommit) : null;
  return `${reclaimed === null ? '' : RECLAIM_NOTES[reclaimed]}${uses ? ` ${plural(uses, 'coupon use was', 'coupon uses were')} counted again.` : ''}`;
}

/**
 * `change_order_status`: sets one of the settable statuses. Canceling frees a checkout's held stock and gives back the
 * coupon uses of an unpaid order; with `manage_stock` it also gives taken stock back (an order without a stock state
 * counts as taken), and leaving `canceled` takes the stock again (held again while unpaid). Orders already in the
 * status are left as they are (no event).
 */
async function changeOrderStatus(ctx: Ctx, ids: number[], status: SettableStatus, manageStock: boolean): Promise<string> {
  return transaction(ctx, async (trx, afterCommit) => {
    const { rows, missing } = await lockOrders(trx, ids);
    const now = toTimestamp(ctx.clock.now());
    const changed: number[] = [];
    for (const before of rows) {
      const id = Number(before.id);
      const previous = String(before.status);
      if (previous === status) continue;
      changed.push(id);
      await trx('store_orders')
        .where({ id })
        .update({ status, updated_at: now, ...(status === 'completed' && !before.completed_at ? { completed_at: now } : {}) });
      const note =
        status === 'canceled'
          ? await cancelEffects(trx, ctx, before, manageStock, afterCommit)
          : previous === 'canceled'
            ? await reinstateEffects(trx, ctx, before, manageStock, afterCommit)
            : '';
      await recordActivity(
        trx,
        ctx,
        { object_type: 'order', object_id: id, title: 'Order status changed', content: `From ${previous} to ${status}.${note}` },
        afterCommit,
      );
      const order = await reload(trx, id);
      afterCommit(() => {
        ctx.hooks.doAction('store/order/status_changed', order, previous);
        if (status === 'canceled') ctx.hooks.doAction('store/order/canceled', order, previous);
      });
    }
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: changed });
    const done = rows.length;
    return summary(
      ids.length,
      done,
      `Order status has been changed to ${status} for the selected orders.`,
      `Order status has been changed to ${status} for ${done} of ${ids.length} selected orders.`,
      notFoundNote(missing),
    );
  });
}

const SHIPPING_HOOKS = {
  unshipped: 'store/order/shipping_status_changed_to_unshipped',
  shipped: 'store/order/shipping_status_changed_to_shipped',
  delivered: 'store/order/shipping_status_changed_to_delivered',
  unshippable: 'store/order/shipping_status_changed_to_unshippable',
} as const satisfies Record<ShippingStatus, string>;

/** `change_shipping_status`: fires `shipping_status_changed` and its `_to_<status>` twin for every order that changed. */
async function changeShippingStatus(ctx: Ctx, ids: number[], status: ShippingStatus): Promise<string> {
  return transaction(ctx, async (trx, afterCommit) => {
    const { rows, missing } = await lockOrders(trx, ids);
    const now = toTimestamp(ctx.clock.now());
    const changed: number[] = [];
    for (const before of rows) {
      const id = Number(before.id);
      const previous = String(before.shipping_status ?? '');
      if (previous === status) continue;
      changed.push(id);
      await trx('store_orders').where({ id }).update({ shipping_status: status, updated_at: now });
      await recordActivity(
        trx,
        ctx,
        { object_type: 'order', object_id: id, title: 'Shipping status changed', content: `From ${previous || 'none'} to ${status}.` },
        afterCommit,
      );
      const row = (await trx('store_orders').where({ id }).first()) as OrderRow;
      await emitOrderEvent(ctx, trx, { type: 'shipping_status_changed', order: row, previous });
      const order = presentOrder(row);
      afterCommit(() => {
        ctx.hooks.doAction('store/order/shipping_status_changed', order, previous);
        ctx.hooks.doAction(SHIPPING_HOOKS[status], order, previous);
      });
    }
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: changed });
    return summary(
      ids.length,
      rows.length,
      `Shipping status has been changed to ${status} for the selected orders.`,
      `Shipping status has been changed to ${status} for ${rows.length} of ${ids.length} selected orders.`,
      notFoundNote(missing),
    );
  });
}

/**
 * `change_payment_status`. `paid` is a bulk mark-as-paid (the charge for what is due, the invoice number, `paid` and
 * the order status by fulfilment), so the ledger and the invoice numbers stay right; canceled orders and orders that
 * were already paid are left (said in the message). Any other status is an admin's correction and is set as given.
 * Customers' statistics are recomputed either way.
 */
async function changePaymentStatus(ctx: Ctx, ids: number[], status: PaymentStatus): Promise<string> {
  return transaction(ctx, async (trx, afterCommit) => {
    const { rows, missing } = await lockOrders(trx, ids);
    const now = toTimestamp(ctx.clock.now());
    const customers = new Set<number>();
    const changed: number[] = [];
    const canceled: number[] = [];
    const settled: number[] = [];
    for (const before of rows) {
      const id = Number(before.id);
      const previous = String(before.payment_status);
      if (previous === status) continue;
      if (status === 'paid') {
        if (before.status === 'canceled') canceled.push(id);
        else if ((SETTLED_PAYMENT_STATUSES as readonly string[]).includes(previous)) settled.push(id);
        else await markPaidInTransaction(ctx, trx, afterCommit, id, {});
        continue;
      }
      await trx('store_orders').where({ id }).update({ payment_status: status, updated_at: now });
      changed.push(id);
      if (before.customer_id !== null) customers.add(Number(before.customer_id));
      await recordActivity(
        trx,
        ctx,
        { object_type: 'order', object_id: id, title: 'Payment status changed', content: `From ${previous} to ${status}.` },
        afterCommit,
      );
      const order = await reload(trx, id);
      afterCommit(() => ctx.hooks.doAction('store/order/payment_status_changed', order, previous));
    }
    for (const customerId of customers) await recalculateCustomerStats(trx, customerId);
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: changed });
    const done = rows.length - canceled.length - settled.length;
    return summary(
      ids.length,
      done,
      `Payment status has been changed to ${status} for the selected orders.`,
      `Payment status has been changed to ${status} for ${done} of ${ids.length} selected orders.`,
      [
        ...(canceled.length ? [`${plural(canceled.length, 'canceled order', 'canceled orders')} cannot be marked paid.`] : []),
        ...(settled.length ? [`${plural(settled.length, 'order was', 'orders were')} already paid and then refunded.`] : []),
        ...notFoundNote(missing),
      ],
    );
  });
}

const truthy = (value: unknown) => value === true || value === 'true' || value === '1' || value === 'yes';

/**
 * What an action needs besides the route's `orders/manage` or `orders/manage_statuses`, all of it: the status changes
 * are what `orders/manage_statuses` is for; the rest needs `orders/manage`, and deleting `orders/delete` too.
 */
const ACTION_PERMISSIONS: Record<BulkAction, Permission[]> = {
  delete_orders: ['orders/manage', 'orders/delete'],
  capture_payments: ['orders/manage'],
  change_order_status: [],
  change_shipping_status: [],
  change_payment_status: [],
};

/** `POST /orders/do-bulk-action`: answers `{message}`. */
export async function bulkAction(ctx: Ctx, body: Static<typeof BulkActionBody>): Promise<{ message: string }> {
  if (!ACTION_PERMISSIONS[body.action].every((permission) => ctx.can(permission))) throw fail('rest_forbidden');
  const ids = [...new Set(body.order_ids.map(Number))];
  switch (body.action) {
    case 'delete_orders':
      return { message: await deleteOrders(ctx, ids) };
    case 'capture_payments':
      return { message: await capturePayments(ctx, ids) };
    case 'change_order_status':
      return { message: await changeOrderStatus(ctx, ids, requireStatus(body.new_status, SETTABLE_ORDER_STATUSES), truthy(body.manage_stock)) };
    case 'change_shipping_status':
      return { message: await changeShippingStatus(ctx, ids, requireStatus(body.new_status, SHIPPING_STATUSES)) };
    case 'change_payment_status': {
      const status = body.new_status ? (ownEntry(PAYMENT_STATUS_ALIASES, body.new_status) ?? body.new_status) : body.new_status;
      return { message: await changePaymentStatus(ctx, ids, requireStatus(status, PAYMENT_STATUSES)) };
    }
  }
}
