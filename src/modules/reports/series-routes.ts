import type { Ctx } from '../../core/context';
import { ReportPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { newVsReturning } from './series/new-vs-returning';
import { reportByDayAndHour } from './series/day-hour';
import { itemCountDistribution, orderCompletionTime, orderValueDistribution } from './series/distributions';
import { refundChart } from './series/refund-chart';
import { orderChart, revenueReport, salesReport } from './series/sales-series';

/** A series report: `GET /reports/<path>` answered by `service(ctx, query)`; bad parameters are 422 `{message, errors}`. */
const report = (path: string, service: (ctx: Ctx, query: Record<string, unknown>) => Promise<unknown>): RouteDef =>
  route({
    method: 'GET',
    path: `/reports/${path}`,
    policy: ReportPolicy,
    permission: 'reports/view',
    envelope: 'message',
    handler: (ctx, { query }) => service(ctx, query as Record<string, unknown>),
  });

/** Spec: Reports, the time series and distributions over the standard parameters. */
export const seriesReportRoutes: RouteDef[] = [
  report('revenue', revenueReport),
  report('order-chart', orderChart),
  report('sales-report', salesReport),
  report('refund-chart', refundChart),
  report('order-value-distribution', orderValueDistribution),
  report('item-count-distribution', itemCountDistribution),
  report('order-completion-time', orderCompletionTime),
  report('fetch-new-vs-returning-customer', newVsReturning),
  report('fetch-report-by-day-and-hour', reportByDayAndHour),
];
