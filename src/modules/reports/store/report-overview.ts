import type { Ctx } from '../../../core/context';
import { aggregate } from '../engine/aggregate';
import { today } from '../engine/calendar';
import { parseReportParams } from '../params';
import { netRevenue, salesSummary, type SalesSummary } from '../summary';
import type { Interval, ReportFilters } from '../types';
import { parseCreatedAt } from './created-at';
import { dayInterval, namedParams } from './inputs';
import { localDateOf, orderSpan } from './order-span';

export interface PaymentMethodFigures {
  payment_method: string;
  orders: number;
  gross_revenue: number;
  net_revenue: number;
}

/** The interval `params[created_at]` selects, open ends closed at the first and last counted order (or today); null when it selects no day. */
async function conditionInterval(ctx: Ctx, condition: unknown, filters: ReportFilters, tz: string): Promise<Interval | null> {
  const bounds = parseCreatedAt(condition);
  const span = bounds.from && bounds.to ? null : await orderSpan(ctx, filters);
  const now = today(tz, ctx.clock.now());
  const last = span?.last ? localDateOf(span.last, tz) : now;
  const from = bounds.from ?? (span?.first ? localDateOf(span.first, tz) : now);
  const to = bounds.to ?? (last > now ? last : now);
  return from <= to ? dayInterval(from, to, tz) : null;
}

/**
 * `GET /reports/report-overview`: the sales summary and the figures per payment method over the days
 * `params[created_at]` selects, or the standard range without it (standard filters apply either way).
 */
export async function reportOverviewByCondition(
  ctx: Ctx,
  query: Record<string, unknown>,
): Promise<{ data: SalesSummary; orders_by_payment_method: PaymentMethodFigures[] }> {
  const params = await parseReportParams(ctx, query);
  const condition = namedParams(query).created_at;
  const range = condition === undefined ? params.range : await conditionInterval(ctx, condition, params.filters, params.tz);
  if (!range) return { data: salesSummary({}), orders_by_payment_method: [] };
  const rows = await aggregate(ctx, { family: 'groups', filters: params.filters, buckets: [range], groupBy: ['payment_method'] });
  const totals: Record<string, number> = {};
  for (const { metrics } of rows) {
    for (const [metric, value] of Object.entries(metrics)) totals[metric] = (totals[metric] ?? 0) + value;
  }
  const methods = rows
    .map(({ dims, metrics }) => ({
      payment_method: String(dims.payment_method ?? '') || 'unknown',
      orders: metrics.orders,
      gross_revenue: metrics.gross,
      net_revenue: netRevenue(metrics),
    }))
    .sort((a, b) => b.gross_revenue - a.gross_revenue || a.payment_method.localeCompare(b.payment_method));
  return { data: salesSummary(totals), orders_by_payment_method: methods };
}
