import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate, retryOnLockConflict, type AfterCommit } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { recalculateCustomerStats } from '../customers/ltv';
import type { CustomerBody } from '../customers/schemas';
import { createCustomer } from '../customers/service';
import type { AdminCustomer } from '../customers/presenter';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { emitOrderEvent } from '../order-records/order-events';
import { presentSubscription, type SubscriptionRow } from '../subscription-records/presenter';

export const CUSTOMER_CHANGED = 'Customer changed successfully';

export const orderNotFound = () => fail('not_found', 'Order not found');

/**
 * The ids of every order connected to an order through `parent_id`, both ways and transitively (its parent, the
 * parent's other renewals, its children …), read without locks.
 */
async function familyIds(trx: Knex.Transaction, orderId: number): Promise<number[]> {
  const found = new Set<number>();
  let frontier = [orderId];
  while (frontier.length) {
    for (const id of frontier) found.add(id);
    const ids = frontier;
    const rows = (await trx('store_orders')
      .where((q) => q.whereIn('id', ids).orWhereIn('parent_id', ids))
      .select('id', 'parent_id')) as Array<{ id: number | string; parent_id: number | string | null }>;
    const next = new Set<number>();
    for (const row of rows)
      for (const candidate of [row.id, row.parent_id]) if (candidate !== null && !found.has(Number(candidate))) next.add(Number(candidate));
    frontier = [...next];
  }
  return [...found];
}

/**
 * The order's whole family, locked in id order, so that two requests on one family queue instead of deadlocking. Under
 * the locks no order can join the family (a new renewal needs its parent's row), so one locking read of the members'
 * children and parents shows whether one joined between the first read and the locks; then the lock is taken again.
 */
async function lockFamily(trx: Knex.Transaction, orderId: number): Promise<OrderRow[]> {
  let ids = await familyIds(trx, orderId);
  for (;;) {
    const rows = (await lockForUpdate(trx('store_orders').whereIn('id', ids).orderBy('id'), trx)) as OrderRow[];
    const members = new Set(rows.map((row) => Number(row.id)));
    const children = (await lockForUpdate(
      trx('store_orders')
        .whereIn('parent_id', [...members])
        .select('id'),
      trx,
    )) as Array<{ id: number | string }>;
    const linked = [...children.map((row) => Number(row.id)), ...rows.flatMap((row) => (row.parent_id === null ? [] : [Number(row.parent_id)]))];
    const joined = linked.filter((id) => !members.has(id));
    if (!joined.length) return rows;
    ids = [...members, ...joined];
  }
}

/** The family's subscriptions (by `parent_order_id`), locked after the orders. */
async function lockSubscriptions(trx: Knex.Transaction, orderIds: number[]): Promise<SubscriptionRow[]> {
  return (await lockForUpdate(trx('store_subscriptions').whereIn('parent_order_id', orderIds).orderBy('id'), trx)) as SubscriptionRow[];
}

/** Moves the family's subscriptions that belong to someone else to the customer: an activity entry and `store/subscription/updated` each. */
async function moveSubscriptions(
  ctx: Ctx,
  trx: Knex.Transaction,
  afterCommit: AfterCommit,
  rows: SubscriptionRow[],
  customerId: number,
  now: string,
): Promise<void> {
  const moving = rows.map(presentSubscription).filter((s) => s.customer_id !== customerId);
  if (!moving.length) return;
  await trx('store_subscriptions')
    .whereIn(
      'id',
      moving.map((s) => s.id),
    )
    .update({ customer_id: customerId, updated_at: now });
  for (const before of moving) {
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'subscription',
        object_id: before.id,
        title: 'Customer changed',
        content: `From ${before.customer_id === null ? 'no customer' : `customer #${before.customer_id}`} to customer #${customerId}, with order #${before.parent_order_id}.`,
      },
      afterCommit,
    );
    const after = { ...before, customer_id: customerId, updated_at: now };
    afterCommit(() => ctx.hooks.doAction('store/subscription/updated', after, before));
  }
}

/**
 * Moves an order and every order connected to it (parent, children, renewals) to another customer in one transaction,
 * with the subscriptions of those orders: their applied coupons follow (per-customer coupon limits count for the new
 * customer), both customers' statistics are recomputed, each moved order and subscription gets an activity entry, and
 * `store/order/customer_changed` (and `store/subscription/updated`) fire after the commit. The family's orders are
 * locked in id order, then its subscriptions, then the customer; a transaction MySQL still picks as a deadlock victim
 * (a renewal recorded at the same moment takes the subscription first) runs again. 423 'Customer id is required'
 * without a customer id; 404 for a missing order or customer. The orders' own address copies are kept
 * (`update-address-id` replaces them).
 */
export async function changeOrderCustomer(ctx: Ctx, orderId: number, customerIdInput: number | string | null | undefined): Promise<{ message: string }> {
  if (customerIdInput === undefined || customerIdInput === null || customerIdInput === '') throw fail('locked', 'Customer id is required');
  const customerId = Number(customerIdInput);
  await retryOnLockConflict(() =>
    transaction(ctx, async (trx, afterCommit) => {
      const family = await lockFamily(trx, orderId);
      if (!family.some((row) => Number(row.id) === orderId)) throw orderNotFound();
      const subscriptions = await lockSubscriptions(
        trx,
        family.map((row) => Number(row.id)),
      );
      if (!(await lockForUpdate(trx('store_customers').where({ id: customerId }).select('id'), trx)).length) throw fail('not_found', 'Customer not found');
      const now = toTimestamp(ctx.clock.now());
      await moveSubscriptions(ctx, trx, afterCommit, subscriptions, customerId, now);
      const moving = family.filter((row) => row.customer_id === null || Number(row.customer_id) !== customerId);
      if (!moving.length) return;
      const ids = moving.map((row) => Number(row.id));
      await trx('store_orders').whereIn('id', ids).update({ customer_id: customerId, updated_at: now });
      await trx('store_applied_coupons').whereIn('order_id', ids).update({ customer_id: customerId, updated_at: now });
      const previousCustomers = new Set<number>();
      for (const before of moving) {
        const id = Number(before.id);
        const previous = before.customer_id === null ? null : Number(before.customer_id);
        if (previous !== null) previousCustomers.add(previous);
        await recordActivity(
          trx,
          ctx,
          {
            object_type: 'order',
            object_id: id,
            title: 'Customer changed',
            content: `From ${previous === null ? 'no customer' : `customer #${previous}`} to customer #${customerId}.`,
          },
          afterCommit,
        );
        const order = presentOrder((await trx('store_orders').where({ id }).first()) as OrderRow);
        afterCommit(() => ctx.hooks.doAction('store/order/customer_changed', order, previous));
      }
      for (const id of [customerId, ...previousCustomers]) await recalculateCustomerStats(trx, id);
      await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: ids });
    }),
  );
  return { message: CUSTOMER_CHANGED };
}

/**
 * `create-and-change-customer`: creates the customer exactly as `POST /customers` does (same validation and messages),
 * then moves the order to it. The order is checked first, so a missing order creates no customer.
 */
export async function createAndChangeCustomer(
  ctx: Ctx,
  orderId: number,
  body: Static<typeof CustomerBody>,
): Promise<{ message: string; customer: AdminCustomer }> {
  if (!(await ctx.db('store_orders').where({ id: orderId }).first('id'))) throw orderNotFound();
  const customer = await createCustomer(ctx, body);
  await changeOrderCustomer(ctx, orderId, customer.id);
  return { message: CUSTOMER_CHANGED, customer };
}
