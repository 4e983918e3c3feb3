import type { RouteDef } from '../../core/routes';

export const storeReportRoutes: RouteDef[] = [];
