import type { RouteDef } from '../../core/routes';
import { reportRoute as report } from './report-route';
import { newVsReturning } from './series/new-vs-returning';
import { reportByDayAndHour } from './series/day-hour';
import { itemCountDistribution, orderCompletionTime, orderValueDistribution } from './series/distributions';
import { refundChart } from './series/refund-chart';
import { orderChart, revenueReport, salesReport } from './series/sales-series';

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
