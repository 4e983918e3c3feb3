import type { RouteDef } from '../../core/routes';

export const customerProfileRoutes: RouteDef[] = [];
