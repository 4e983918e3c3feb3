import type { Ctx } from '../../../core/context';
import { parseReportParams } from '../params';
import { groupedSales } from '../series/grouped-sales';
import { salesSummary, type SalesSummary } from '../summary';

/**
 * The standard range per group (`groupKey`): local days, months or years (zero-filled, in order) for the time keys,
 * or one row per value of the dimension present (`''` shown as `unknown`, largest gross revenue first) for
 * `billing_country`, `shipping_country`, `payment_method` and `payment_status`.
 */

export type RevenueGroup = { year: string | null; group: string } & SalesSummary;

/** `GET /reports/revenue-by-group`: the sales summary of each group (gross and net revenue, orders, refunds, tax, …). */
export async function revenueByGroup(ctx: Ctx, query: Record<string, unknown>): Promise<{ data: RevenueGroup[]; appliedGroupKey: string }> {
  const params = await parseReportParams(ctx, query);
  const { appliedGroupKey, groups } = await groupedSales(ctx, params, params);
  return { data: groups.map(({ year, group, metrics }) => ({ year, group, ...salesSummary(metrics) })), appliedGroupKey };
}

export interface OrderGroup {
  year: string | null;
  group: string;
  orders: number;
  items_sold: number;
  gross_revenue: number;
}

/** `GET /reports/fetch-order-by-group`: orders, items sold and gross revenue of each group. */
export async function ordersByGroup(ctx: Ctx, query: Record<string, unknown>): Promise<{ data: OrderGroup[]; appliedGroupKey: string }> {
  const params = await parseReportParams(ctx, query);
  const { appliedGroupKey, groups } = await groupedSales(ctx, params, params);
  return {
    data: groups.map(({ year, group, metrics }) => ({ year, group, orders: metrics.orders, items_sold: metrics.items, gross_revenue: metrics.gross })),
    appliedGroupKey,
  };
}
