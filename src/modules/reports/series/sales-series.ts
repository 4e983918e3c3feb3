import type { Ctx } from '../../../core/context';
import { fluctuations } from '../compare';
import { parseReportParams } from '../params';
import { netRevenue, salesSummary, type SalesSummary } from '../summary';
import { groupedSales, type GroupedSales } from './grouped-sales';
import { withComparison } from './period';

type Query = Record<string, unknown>;
type Fluctuations = Record<keyof SalesSummary, number | null>;

/** The period's grouped sales and, with a `compareType`, the comparison period's; the summaries and their changes. */
async function comparedSales(ctx: Ctx, query: Query) {
  const params = await parseReportParams(ctx, query);
  const { current, previous } = await withComparison(params, (period) => groupedSales(ctx, params, period));
  const summary = salesSummary(current.total);
  const previousSummary = previous ? salesSummary(previous.total) : null;
  return { current, previous, summary, previousSummary, fluctuations: fluctuations({ ...summary }, previousSummary && { ...previousSummary }) };
}

export interface RevenueRow {
  year: string | null;
  group: string;
  gross_revenue: number;
  net_revenue: number;
  orders: number;
}

const revenueRows = ({ groups }: GroupedSales): RevenueRow[] =>
  groups.map(({ year, group, metrics }) => ({ year, group, gross_revenue: metrics.gross, net_revenue: netRevenue(metrics), orders: metrics.orders }));

/** `GET /reports/revenue`: gross and net revenue and orders per group, the summary, and the comparison period's. */
export async function revenueReport(
  ctx: Ctx,
  query: Query,
): Promise<{
  revenueReport: RevenueRow[];
  summary: SalesSummary;
  previousSummary: SalesSummary | null;
  fluctuations: Fluctuations;
  previousMetrics: RevenueRow[] | null;
  appliedGroupKey: string;
}> {
  const { current, previous, summary, previousSummary, fluctuations } = await comparedSales(ctx, query);
  return {
    revenueReport: revenueRows(current),
    summary,
    previousSummary,
    fluctuations,
    previousMetrics: previous && revenueRows(previous),
    appliedGroupKey: current.appliedGroupKey,
  };
}

/** `GET /reports/order-chart`: orders per group, the summary, and the comparison period's. */
export async function orderChart(
  ctx: Ctx,
  query: Query,
): Promise<{
  orderChartData: Array<{ year: string | null; group: string; orders: number }>;
  summary: SalesSummary;
  previousSummary: SalesSummary | null;
  fluctuations: Fluctuations;
}> {
  const { current, summary, previousSummary, fluctuations } = await comparedSales(ctx, query);
  return {
    orderChartData: current.groups.map(({ year, group, metrics }) => ({ year, group, orders: metrics.orders })),
    summary,
    previousSummary,
    fluctuations,
  };
}

type Graph = Array<{ year: string | null; group: string; value: number }>;

/** `GET /reports/sales-report`: one graph per figure (gross and net revenue, orders, items sold), the summary, and the comparison period's. */
export async function salesReport(
  ctx: Ctx,
  query: Query,
): Promise<{
  graphs: { gross_revenue: Graph; net_revenue: Graph; orders: Graph; items_sold: Graph };
  summaryData: SalesSummary;
  previousSummary: SalesSummary | null;
  fluctuations: Fluctuations;
}> {
  const { current, summary, previousSummary, fluctuations } = await comparedSales(ctx, query);
  const graph = (value: (metrics: GroupedSales['total']) => number): Graph =>
    current.groups.map(({ year, group, metrics }) => ({ year, group, value: value(metrics) }));
  return {
    graphs: {
      gross_revenue: graph((metrics) => metrics.gross),
      net_revenue: graph(netRevenue),
      orders: graph((metrics) => metrics.orders),
      items_sold: graph((metrics) => metrics.items),
    },
    summaryData: summary,
    previousSummary,
    fluctuations,
  };
}
