import type { RouteDef } from '../../core/routes';
import { reportRoute as report } from './report-route';
import { ordersByGroup, revenueByGroup } from './store/by-group';
import { reportMeta } from './store/meta';
import { reportOverview } from './store/overview';
import { quickOrderStats } from './store/quick-stats';
import { repeatCustomers } from './store/repeat-customers';
import { reportOverviewByCondition } from './store/report-overview';
import { salesGrowth } from './store/sales-growth';
import { fetchTopSoldProducts, fetchTopSoldVariants, topProductsSold } from './store/top-products';

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
