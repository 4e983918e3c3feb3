import type { RouteDef } from '../../core/routes';

export const seriesReportRoutes: RouteDef[] = [];
