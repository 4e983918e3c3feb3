/**
 * The coupon uses an order counted (`use_count` of each coupon it applied, counted when it was placed) given back when
 * the order ends unpaid, and counted again if it is reinstated. `store_orders.coupon_uses_released` records which way
 * they stand; each switch is a conditional update of it, so the uses move once however often or concurrently asked.
 */
import type { Knex } from 'knex';
import { releaseCouponUse, restoreCouponUse } from '../coupons/service';

async function couponIdsOf(trx: Knex.Transaction, orderId: number): Promise<number[]> {
  const rows = (await trx('store_applied_coupons').where({ order_id: orderId }).whereNotNull('coupon_id').orderBy('coupon_id').select('coupon_id')) as Array<{
    coupon_id: number | string;
  }>;
  return rows.map((row) => Number(row.coupon_id));
}

async function flip(trx: Knex.Transaction, orderId: number, released: boolean): Promise<boolean> {
  return (
    (await trx('store_orders')
      .where({ id: orderId, coupon_uses_released: released ? 0 : 1 })
      .update({ coupon_uses_released: released ? 1 : 0 })) > 0
  );
}

/** Gives back one use of every coupon the order applied, unless already given back; returns how many. */
export async function releaseOrderCouponUses(trx: Knex.Transaction, orderId: number): Promise<number> {
  if (!(await flip(trx, orderId, true))) return 0;
  const ids = await couponIdsOf(trx, orderId);
  for (const id of ids) await releaseCouponUse(trx, id);
  return ids.length;
}

/** Counts again the uses `releaseOrderCouponUses` gave back; returns how many. */
export async function restoreOrderCouponUses(trx: Knex.Transaction, orderId: number): Promise<number> {
  if (!(await flip(trx, orderId, false))) return 0;
  const ids = await couponIdsOf(trx, orderId);
  for (const id of ids) await restoreCouponUse(trx, id);
  return ids.length;
}
