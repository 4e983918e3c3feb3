import type { RouteDef } from '../../core/routes';

export const customerRoutes: RouteDef[] = [];
