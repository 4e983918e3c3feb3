import type { Ctx } from '../../../core/context';
import { fluctuations } from '../compare';
import { parseReportParams } from '../params';
import { groupedSales, type GroupedSales } from './grouped-sales';
import { roundedAverage } from './numbers';
import { withComparison } from './period';

export interface RefundSummary {
  total_refunds: number;
  total_refund_amount: number;
  average_refund: number;
}

export interface RefundRow {
  year: string | null;
  group: string;
  refund_count: number;
  refund_amount: number;
}

function refundSummary({ total }: GroupedSales): RefundSummary {
  return { total_refunds: total.refunded_orders, total_refund_amount: total.refund, average_refund: roundedAverage(total.refund, total.refunded_orders) };
}

const refundRows = ({ groups }: GroupedSales): RefundRow[] =>
  groups.map(({ year, group, metrics }) => ({ year, group, refund_count: metrics.refunded_orders, refund_amount: metrics.refund }));

/**
 * `GET /reports/refund-chart`: the orders with a refund and their refunded amounts per group, by the orders'
 * creation time (the one time axis the reports keep), the summary, and the comparison period's.
 */
export async function refundChart(
  ctx: Ctx,
  query: Record<string, unknown>,
): Promise<{
  summary: RefundSummary;
  previousSummary: RefundSummary | null;
  chartData: RefundRow[];
  fluctuations: Record<keyof RefundSummary, number | null>;
  previousMetrics: RefundRow[] | null;
}> {
  const params = await parseReportParams(ctx, query);
  const { current, previous } = await withComparison(params, (period) => groupedSales(ctx, params, period));
  const summary = refundSummary(current);
  const previousSummary = previous && refundSummary(previous);
  return {
    summary,
    previousSummary,
    chartData: refundRows(current),
    fluctuations: fluctuations({ ...summary }, previousSummary && { ...previousSummary }),
    previousMetrics: previous && refundRows(previous),
  };
}
