import type { Ctx } from '../../core/context';
import { ReportPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { ordersByGroup, revenueByGroup } from './store/by-group';
import { reportMeta } from './store/meta';
import { reportOverview } from './store/overview';
import { quickOrderStats } from './store/quick-stats';
import { repeatCustomers } from './store/repeat-customers';
import { reportOverviewByCondition } from './store/report-overview';
import { salesGrowth } from './store/sales-growth';
import { fetchTopSoldProducts, fetchTopSoldVariants, topProductsSold } from './store/top-products';

/** A store report: `GET /reports/<path>` answered by `service(ctx, query)`; bad parameters are 422 `{message, errors}`. */
const report = (path: string, service: (ctx: Ctx, query: Record<string, unknown>) => Promise<unknown>): RouteDef =>
  route({
    method: 'GET',
    path: `/reports/${path}`,
    policy: ReportPolicy,
    permission: 'reports/view',
    envelope: 'message',
    handler: (ctx, { query }) => service(ctx, query as Record<string, unknown>),
  });

/** Spec: Reports, the store-wide reports (the time series are in `series-routes.ts`). */
export const storeReportRoutes: RouteDef[] = [
  report('overview', reportOverview),
  report('fetch-report-meta', reportMeta),
  report('quick-order-stats', quickOrderStats),
  report('sales-growth', salesGrowth),
  report('report-overview', reportOverviewByCondition),
  report('search-repeat-customer', repeatCustomers),
  report('top-products-sold', topProductsSold),
  report('revenue-by-group', revenueByGroup),
  report('fetch-order-by-group', ordersByGroup),
  report('fetch-top-sold-products', fetchTopSoldProducts),
  report('fetch-top-sold-variants', fetchTopSoldVariants),
];
