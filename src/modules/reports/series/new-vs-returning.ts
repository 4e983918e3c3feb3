import type { Ctx } from '../../../core/context';
import { timeBuckets } from '../buckets';
import { aggregate } from '../engine/aggregate';
import { parseReportParams } from '../params';

export interface NewVsReturningTotals {
  new_customers: number;
  returning_orders: number;
  new_revenue: number;
  returning_revenue: number;
}

export type NewVsReturningRow = { year: string; group: string } & NewVsReturningTotals;

const zero = (): NewVsReturningTotals => ({ new_customers: 0, returning_orders: 0, new_revenue: 0, returning_revenue: 0 });

/**
 * `GET /reports/fetch-new-vs-returning-customer`: per time bucket (zero-filled), the orders that are their
 * customer's first counted order (`new_customers`, orders without a customer included) and the others
 * (`returning_orders`), with their gross revenue, and the totals. The split is over time, so a dimension group
 * key takes the `default` time rule.
 */
export async function newVsReturning(
  ctx: Ctx,
  query: Record<string, unknown>,
): Promise<{ newVsReturning: { series: NewVsReturningRow[]; summary: NewVsReturningTotals } }> {
  const params = await parseReportParams(ctx, query);
  const { buckets } = timeBuckets(params, params.tz, params.groupKey);
  const series: NewVsReturningRow[] = buckets.map(({ year, group }) => ({ year, group, ...zero() }));
  const summary = zero();
  const rows = await aggregate(ctx, { family: 'sales', filters: params.filters, buckets, groupBy: ['first_order'] });
  for (const { bucket, dims, metrics } of rows) {
    for (const target of [series[bucket], summary]) {
      if (Number(dims.first_order) === 1) {
        target.new_customers += metrics.orders;
        target.new_revenue += metrics.gross;
      } else {
        target.returning_orders += metrics.orders;
        target.returning_revenue += metrics.gross;
      }
    }
  }
  return { newVsReturning: { series, summary } };
}
