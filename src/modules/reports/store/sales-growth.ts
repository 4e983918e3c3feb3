import type { Ctx } from '../../../core/context';
import { invalid } from '../../../core/errors';
import { timeBuckets } from '../buckets';
import { fluctuations } from '../compare';
import { aggregate } from '../engine/aggregate';
import { today } from '../engine/calendar';
import { parseReportParams } from '../params';
import { netRevenue } from '../summary';
import { dateParameter } from './inputs';
import { localDateOf, orderSpan } from './order-span';

export interface GrowthMonth {
  year: string;
  group: string;
  gross_revenue: number;
  net_revenue: number;
  orders: number;
  /** Percent change of gross revenue from the month before (2 decimals); null for the first month. */
  growth: number | null;
}

/**
 * `GET /reports/sales-growth?start_date&end_date`: gross and net revenue and orders per local calendar month, with
 * the growth of gross revenue over the month before. The dates default to those of the first and last counted
 * order of the currency and mode (today when there is none); an end before the start is refused.
 */
export async function salesGrowth(ctx: Ctx, query: Record<string, unknown>): Promise<{ sales_data: GrowthMonth[] }> {
  const startInput = dateParameter('start_date', query.start_date);
  const endInput = dateParameter('end_date', query.end_date);
  if (startInput && endInput && endInput < startInput) throw invalid('end_date', 'after_or_equal', 'Invalid end_date: expected a date on or after start_date.');
  const { filters, tz } = await parseReportParams(ctx, query);
  const span = startInput && endInput ? null : await orderSpan(ctx, filters);
  const now = today(tz, ctx.clock.now());
  const startDate = startInput ?? (span?.first ? localDateOf(span.first, tz) : now);
  const lastOrder = span?.last ? localDateOf(span.last, tz) : now;
  const endDate = endInput ?? (lastOrder < startDate ? startDate : lastOrder);
  if (endDate < startDate)
    throw invalid('end_date', 'after_or_equal', 'Invalid end_date: expected a date on or after the first order date when start_date is not given.');

  const { buckets } = timeBuckets({ startDate, endDate }, tz, 'monthly');
  const rows = await aggregate(ctx, { family: 'sales', filters, buckets });
  const months = buckets.map(({ year, group }) => ({ year, group, gross_revenue: 0, net_revenue: 0, orders: 0 }));
  for (const { bucket, metrics } of rows) {
    months[bucket].gross_revenue += metrics.gross;
    months[bucket].net_revenue += netRevenue(metrics);
    months[bucket].orders += metrics.orders;
  }
  return {
    sales_data: months.map((month, index) => ({
      ...month,
      growth: index ? fluctuations({ gross: month.gross_revenue }, { gross: months[index - 1].gross_revenue }).gross : null,
    })),
  };
}
