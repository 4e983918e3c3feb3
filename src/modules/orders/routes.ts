import type { RouteDef } from '../../core/routes';
import { orderManageRoutes } from './manage-routes';
import { orderPaymentRoutes } from './payment-routes';
import { orderReadRoutes } from './read-routes';
import { orderWriteRoutes } from './write-routes';

/** Spec: "Orders (policy OrderPolicy)". */
export const orderRoutes: RouteDef[] = [...orderReadRoutes, ...orderWriteRoutes, ...orderPaymentRoutes, ...orderManageRoutes];
