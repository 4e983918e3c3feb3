/**
 * Unpaid checkout orders expire: a sweep every 5 minutes cancels the orders a checkout placed for an online payment
 * that is still pending `unpaid_order_ttl_minutes` (store setting; 0 = never) after the order was last written (a
 * shopper who places the same cart again restarts the clock), giving back their held stock and coupon uses. Orders of
 * the offline methods (cash on delivery, bank transfer) are unpaid by design and wait for an admin.
 *
 * One sweep rather than a delayed job per order: jobs may run twice and missed runs are caught up once, and a sweep
 * finds every due order whatever happened before. Each order is canceled in its own transaction by a conditional
 * update, so a payment or an admin arriving at the same moment wins or loses cleanly.
 */
import type { Knex } from 'knex';
import { systemCtx, transaction, type Ctx } from '../../core/context';
import { RateLimits } from '../../core/ratelimit';
import { toTimestamp } from '../../core/time';
import type { Host } from '../../host/contract';
import { recordActivity } from '../activities/service';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { getStoreSettings } from '../settings/store-settings';
import { releaseOrderCouponUses } from '../orders/coupon-uses';
import { emitOrderEvent } from '../order-records/order-events';
import { plural } from '../orders/selection';
import { releaseCartOfOrder } from '../cart/repo';
import { releaseOrderStock, type StockState } from '../orders/stock-state';
import { cancelUnstartedSubscriptions } from '../subscriptions/checkout';

declare module '../../host/contract' {
  interface JobMap {
    'store/orders/expire-unpaid': Record<string, never>;
  }
}

/** Orders canceled per statement batch; a sweep goes on batch after batch until none is due. */
export const EXPIRY_BATCH = 200;

const RELEASE_NOTES: Record<StockState, string> = { held: ' Held stock was released.', taken: ' Stock was restored.', '': '', released: '' };

/** Methods paid outside the store: their orders stay unpaid until an admin marks them paid. */
const OFFLINE_METHODS = ['cod', 'bank_transfer', 'offline', 'manual'];

/** The checkout orders still waiting for an online payment that were last written before `cutoff`, after id `after`. */
async function dueOrderIds(db: Knex, cutoff: string, after: number, limit: number): Promise<number[]> {
  const rows = (await db('store_orders as o')
    .join('store_order_operations as op', 'op.order_id', 'o.id')
    .where({ 'o.status': 'on-hold', 'o.payment_status': 'pending', 'op.created_via': 'checkout' })
    .whereNotIn('o.payment_method', OFFLINE_METHODS)
    .where('o.updated_at', '<', cutoff)
    .where('o.id', '>', after)
    .orderBy('o.id')
    .limit(limit)
    .select('o.id')) as Array<{ id: number | string }>;
  return rows.map((row) => Number(row.id));
}

/**
 * Cancels one expired order: `on-hold` and `pending` still (else false: it was paid or changed meanwhile), its coupon
 * uses and held stock given back, the cart it came from back to shopping (the shopper keeps the cart and may check
 * out again), the subscription it would have started canceled, an activity entry, and `store/order/status_changed` and `store/order/canceled` after the commit.
 */
export async function expireUnpaidOrder(ctx: Ctx, orderId: number, ttlMinutes: number): Promise<boolean> {
  return transaction(ctx, async (trx, afterCommit) => {
    const now = toTimestamp(ctx.clock.now());
    const won = await trx('store_orders').where({ id: orderId, status: 'on-hold', payment_status: 'pending' }).update({ status: 'canceled', updated_at: now });
    if (!won) return false;
    const uses = await releaseOrderCouponUses(trx, orderId);
    const released = await releaseOrderStock(trx, ctx, orderId, afterCommit);
    await releaseCartOfOrder(trx, orderId, now);
    await cancelUnstartedSubscriptions(ctx, trx, afterCommit, orderId, `Its order #${orderId} was not paid in time.`);
    await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [orderId] });
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: orderId,
        title: 'Order canceled',
        content: `Not paid within ${plural(ttlMinutes, 'minute', 'minutes')}: canceled automatically.${RELEASE_NOTES[released ?? 'released']}${
          uses ? ` ${plural(uses, 'coupon use was', 'coupon uses were')} given back.` : ''
        }`,
        status: 'warning',
      },
      afterCommit,
    );
    const order = presentOrder((await trx('store_orders').where({ id: orderId }).first()) as OrderRow);
    afterCommit(() => {
      ctx.hooks.doAction('store/order/status_changed', order, 'on-hold');
      ctx.hooks.doAction('store/order/canceled', order, 'on-hold');
    });
    return true;
  });
}

/**
 * One sweep: cancels every order due now, `batch` ids at a time, each in its own transaction. An order that fails is
 * logged and left for the next sweep; the others go on. Stops early when `signal` aborts. Returns how many it canceled.
 */
export async function expireUnpaidOrders(ctx: Ctx, options: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
  const { unpaid_order_ttl_minutes: ttl } = await getStoreSettings(ctx.host);
  if (!ttl) return 0;
  const batch = options.batch ?? EXPIRY_BATCH;
  const cutoff = toTimestamp(new Date(ctx.clock.now().getTime() - ttl * 60_000));
  let canceled = 0;
  let after = 0;
  for (;;) {
    const ids = await dueOrderIds(ctx.db, cutoff, after, batch);
    for (const id of ids) {
      if (options.signal?.aborted) return canceled;
      try {
        if (await expireUnpaidOrder(ctx, id, ttl)) canceled++;
      } catch (error) {
        ctx.host.logger.error({ err: error, orderId: id }, 'unpaid order could not be canceled');
      }
    }
    if (ids.length < batch) return canceled;
    after = ids[ids.length - 1];
  }
}

/** The orders' scheduled jobs: the unpaid-order sweep every 5 minutes. */
export function registerOrderJobs(host: Host): void {
  const limits = new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written'));
  host.jobs.define('store/orders/expire-unpaid', async (_payload, job) => {
    await expireUnpaidOrders(systemCtx(host, limits), { signal: job.signal });
  });
  host.jobs.schedule('store/orders/expire-unpaid', '*/5 * * * *', {});
}
