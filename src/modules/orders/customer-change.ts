import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { lockForUpdate } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { recalculateCustomerStats } from '../customers/ltv';
import type { CustomerBody } from '../customers/schemas';
import { createCustomer } from '../customers/service';
import type { AdminCustomer } from '../customers/presenter';
import { presentOrder, type OrderRow } from '../order-records/presenter';

export const CUSTOMER_CHANGED = 'Customer changed successfully';

export const orderNotFound = () => fail('not_found', 'Order not found');

/**
 * Every order connected to an order through `parent_id`, both ways and transitively (its parent, the parent's other
 * renewals, its children …), locked.
 */
async function connectedOrders(trx: Knex.Transaction, orderId: number): Promise<OrderRow[]> {
  const found = new Map<number, OrderRow>();
  const queried = new Set<number>();
  let frontier = [orderId];
  while (frontier.length) {
    for (const id of frontier) queried.add(id);
    const ids = frontier;
    const rows = (await lockForUpdate(
      trx('store_orders')
        .where((q) => q.whereIn('id', ids).orWhereIn('parent_id', ids))
        .orderBy('id'),
      trx,
    )) as OrderRow[];
    const next = new Set<number>();
    for (const row of rows) {
      found.set(Number(row.id), row);
      for (const candidate of [row.id, row.parent_id]) {
        if (candidate !== null && !queried.has(Number(candidate))) next.add(Number(candidate));
      }
    }
    frontier = [...next];
  }
  return [...found.values()].sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * Moves an order and every order connected to it (parent, children, renewals) to another customer in one transaction:
 * their applied coupons follow (per-customer coupon limits count for the new customer), both customers' statistics
 * are recomputed, each moved order gets an activity entry and fires `store/order/customer_changed` after the commit.
 * 423 'Customer id is required' without a customer id; 404 for a missing order or customer. The orders' own address
 * copies are kept (`update-address-id` replaces them).
 */
export async function changeOrderCustomer(ctx: Ctx, orderId: number, customerIdInput: number | string | null | undefined): Promise<{ message: string }> {
  if (customerIdInput === undefined || customerIdInput === null || customerIdInput === '') throw fail('locked', 'Customer id is required');
  const customerId = Number(customerIdInput);
  await transaction(ctx, async (trx, afterCommit) => {
    if (!(await lockForUpdate(trx('store_orders').where({ id: orderId }).select('id'), trx)).length) throw orderNotFound();
    if (!(await lockForUpdate(trx('store_customers').where({ id: customerId }).select('id'), trx)).length) throw fail('not_found', 'Customer not found');
    const moving = (await connectedOrders(trx, orderId)).filter((row) => row.customer_id === null || Number(row.customer_id) !== customerId);
    if (!moving.length) return;
    const ids = moving.map((row) => Number(row.id));
    const now = toTimestamp(ctx.clock.now());
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
  });
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
