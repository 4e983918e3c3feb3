import type { Host } from '../../host/contract';
import { toTimestamp } from '../../core/time';
import { deleteExpiredCarts } from './repo';

declare module '../../host/contract' {
  interface JobMap {
    'store/cart/prune': Record<string, never>;
  }
}

/** Carts deleted per statement: short transactions, whatever the backlog. */
export const PRUNE_BATCH = 500;

/** Deletes every cart that expired without becoming an order, a batch at a time; returns how many went. */
export async function pruneExpiredCarts(host: Host, signal?: AbortSignal): Promise<number> {
  const now = toTimestamp(host.clock.now());
  let total = 0;
  for (;;) {
    const deleted = await deleteExpiredCarts(host.db, now, PRUNE_BATCH);
    total += deleted;
    if (deleted < PRUNE_BATCH || signal?.aborted) return total;
  }
}

/** The hourly job that deletes expired carts (a cart with an order stays with its order). */
export function registerCartJobs(host: Host): void {
  host.jobs.define('store/cart/prune', async (_payload, job) => {
    await pruneExpiredCarts(host, job.signal);
  });
  host.jobs.schedule('store/cart/prune', '29 * * * *', {});
}
