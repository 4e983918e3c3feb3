import type { RouteDef } from '../../core/routes';
import { seriesReportRoutes } from './series-routes';
import { storeReportRoutes } from './store-routes';

/** Spec: "Reports (prefix /reports, policy ReportPolicy, permission reports/view; all GET)". */
export const reportRoutes: RouteDef[] = [...storeReportRoutes, ...seriesReportRoutes];
