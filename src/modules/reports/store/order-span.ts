import type { Ctx } from '../../../core/context';
import { fromTimestamp } from '../../../core/time';
import { today } from '../engine/calendar';
import type { ReportFilters } from '../types';

export interface OrderSpan {
  /** UTC timestamps of the first and last counted order; null when there is none. */
  first: string | null;
  last: string | null;
}

/**
 * When the counted orders of a currency in a payment mode start and end: the ends of the facts' index
 * `(mode, currency, created_at)`. MIN and MAX are asked apart: SQLite reads a lone MIN or MAX from the index end,
 * but scans the whole range for a query holding both.
 */
export async function orderSpan(ctx: Ctx, filters: Pick<ReportFilters, 'mode' | 'currency'>): Promise<OrderSpan> {
  const end = async (aggregate: 'min' | 'max') => {
    const rows = ctx.db('store_report_orders').where({ mode: filters.mode, currency: filters.currency });
    const row = (await rows[aggregate]({ at: 'created_at' }).first()) as { at: string | null } | undefined;
    return row?.at ?? null;
  };
  const [first, last] = await Promise.all([end('min'), end('max')]);
  return { first, last };
}

/** The local date (`YYYY-MM-DD` in `tz`) of a stored UTC timestamp. */
export function localDateOf(timestamp: string, tz: string): string {
  return today(tz, fromTimestamp(timestamp));
}
