import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { recordActivity } from '../activities/service';
import { recalculateCustomerStats } from '../customers/ltv';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { presentSubscription, type SubscriptionRow } from '../subscription-records/presenter';
import { releaseOrderCouponUses } from './coupon-uses';
import { emitOrderEvent } from '../order-records/order-events';
import { lockOrders, notFoundNote, plural, summary } from './selection';
import { DELETABLE, isUnpaid } from './state';
import { releaseOrderStock } from './stock-state';

/**
 * Safe to delete (reference §3): nothing was taken (payment pending or failed) and the order is not being fulfilled
 * (on hold, pending, draft, failed or canceled); test-mode orders always are.
 */
export function isDeletable(row: OrderRow): boolean {
  if (row.mode === 'test') return true;
  return (DELETABLE.orderStatuses as readonly unknown[]).includes(row.status) && (DELETABLE.paymentStatuses as readonly unknown[]).includes(row.payment_status);
}

const statuses = [...DELETABLE.orderStatuses];
const KEPT_NOTE = `only unpaid orders that are ${statuses.slice(0, -1).join(', ')} or ${statuses.at(-1)} can be deleted, and a subscription order only together with all its renewals and once its subscription has ended (cancel it first).`;

/** Subscriptions that still run (or may run again): deleting their order would lose what the gateway keeps billing. */
const RUNNING_SUBSCRIPTIONS = ['active', 'trialing', 'failing', 'paused', 'expiring'];

/** The subscriptions of some orders (their `parent_order_id`), locked in id order. */
async function subscriptionsOf(trx: Knex.Transaction, orderIds: number[]): Promise<SubscriptionRow[]> {
  return (await lockForUpdate(trx('store_subscriptions').whereIn('parent_order_id', orderIds).orderBy('id'), trx)) as SubscriptionRow[];
}

/** Deletes an order's subscriptions (and their labels), each logged; `store/subscription/deleted` after commit. */
async function deleteSubscriptions(trx: Knex.Transaction, ctx: Ctx, rows: SubscriptionRow[], afterCommit: AfterCommit): Promise<void> {
  for (const row of rows) {
    const subscription = presentSubscription(row);
    await trx('store_label_relations').where({ object_type: 'subscription', object_id: subscription.id }).delete();
    await trx('store_subscriptions').where({ id: subscription.id }).delete();
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'subscription',
        object_id: subscription.id,
        title: 'Subscription deleted',
        content: `Subscription #${subscription.id} (${subscription.status}) was deleted with its order #${subscription.parent_order_id}.`,
        status: 'warning',
      },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/subscription/deleted', subscription));
  }
}

/** The orders below an order (its renewals, and theirs), locked, parents before children. */
async function descendantsOf(trx: Knex.Transaction, id: number): Promise<OrderRow[]> {
  const found: OrderRow[] = [];
  const seen = new Set([id]);
  let level = [id];
  while (level.length) {
    const children = ((await lockForUpdate(trx('store_orders').whereIn('parent_id', level).orderBy('id'), trx)) as OrderRow[]).filter(
      (row) => !seen.has(Number(row.id)),
    );
    for (const child of children) seen.add(Number(child.id));
    found.push(...children);
    level = children.map((row) => Number(row.id));
  }
  return found;
}

/**
 * What a deleted order held goes back: a checkout's held stock always; taken stock and coupon uses only when the order
 * is unpaid (a paid test-mode order's goods are gone, and its coupons were used). Returns the note for the activity.
 */
async function giveBack(trx: Knex.Transaction, ctx: Ctx, row: OrderRow, afterCommit: AfterCommit): Promise<string> {
  const id = Number(row.id);
  const unpaid = isUnpaid(row.payment_status);
  const uses = unpaid ? await releaseOrderCouponUses(trx, id) : 0;
  const released = await releaseOrderStock(trx, ctx, id, afterCommit, { holdsOnly: !unpaid });
  return `${released === 'held' ? ' Held stock was released.' : released === 'taken' ? ' Stock was restored.' : ''}${
    uses ? ` ${plural(uses, 'coupon use was', 'coupon uses were')} given back.` : ''
  }`;
}

/**
 * `delete_orders`: deletes each selected order that is safe to delete, with its renewals and its subscriptions, in one
 * transaction; an order whose renewals are not all safe is kept whole (a paid renewal is never lost with its parent),
 * and so is an order whose subscription still runs (active, trialing, failing, paused or expiring). Items, transactions,
 * addresses, applied coupons and UTM rows go with their order (foreign keys); the activity log keeps its history.
 * Held stock, and an unpaid order's taken stock and coupon uses, are given back first (`giveBack`).
 * Customers' statistics are recomputed; `store/order/deleted` fires for every deleted order.
 */
export async function deleteOrders(ctx: Ctx, ids: number[]): Promise<string> {
  return transaction(ctx, async (trx, afterCommit) => {
    const { rows, missing } = await lockOrders(trx, ids);
    const doomed = new Map<number, OrderRow>();
    const subscriptions = new Map<number, SubscriptionRow[]>();
    const kept: number[] = [];
    for (const row of rows) {
      const id = Number(row.id);
      if (doomed.has(id)) continue;
      const family = [row, ...(await descendantsOf(trx, id))];
      const owned = await subscriptionsOf(
        trx,
        family.map((member) => Number(member.id)),
      );
      if (!family.every(isDeletable) || owned.some((s) => RUNNING_SUBSCRIPTIONS.includes(String(s.status)))) {
        kept.push(id);
        continue;
      }
      for (const member of family) doomed.set(Number(member.id), member);
      for (const subscription of owned)
        subscriptions.set(Number(subscription.parent_order_id), [...(subscriptions.get(Number(subscription.parent_order_id)) ?? []), subscription]);
    }
    const selected = new Set(ids);
    const customers = new Set<number>();
    for (const row of [...doomed.values()].reverse()) {
      const id = Number(row.id);
      const given = await giveBack(trx, ctx, row, afterCommit);
      await deleteSubscriptions(trx, ctx, subscriptions.get(id) ?? [], afterCommit);
      await trx('store_label_relations').where({ object_type: 'order', object_id: id }).delete();
      await trx('store_orders').where({ id }).delete();
      if (row.customer_id !== null) customers.add(Number(row.customer_id));
      const renewalOf = selected.has(id) || row.parent_id === null ? '' : ` with its parent order #${Number(row.parent_id)}`;
      await recordActivity(
        trx,
        ctx,
        {
          object_type: 'order',
          object_id: id,
          title: 'Order deleted',
          content: `Order #${id}${row.invoice_no ? ` (${String(row.invoice_no)})` : ''} was deleted${renewalOf}.${given}`,
          status: 'warning',
        },
        afterCommit,
      );
      const order = presentOrder(row);
      afterCommit(() => ctx.hooks.doAction('store/order/deleted', order));
    }
    for (const customerId of customers) await recalculateCustomerStats(trx, customerId);
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [...doomed.keys()] });
    const done = [...doomed.keys()].filter((id) => selected.has(id)).length;
    const renewals = doomed.size - done;
    return summary(ids.length, done, 'Selected orders have been deleted successfully.', `${done} of ${ids.length} selected orders deleted.`, [
      ...(renewals ? [`${plural(renewals, 'renewal order was', 'renewal orders were')} deleted with their subscription orders.`] : []),
      ...(kept.length ? [`${plural(kept.length, 'order was', 'orders were')} not deleted: ${KEPT_NOTE}`] : []),
      ...notFoundNote(missing),
    ]);
  });
}
