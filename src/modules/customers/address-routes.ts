import type { RouteDef } from '../../core/routes';

export const addressRoutes: RouteDef[] = [];
