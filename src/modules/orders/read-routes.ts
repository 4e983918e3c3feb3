import { OrderPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { orderDetail } from './detail';
import { listOrders } from './list';
import { OrderListQuery, OrderParams } from './read-schemas';

/** Spec: `GET /orders` and `GET /orders/{order_id}`. */
export const orderReadRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/orders',
    policy: OrderPolicy,
    permission: 'orders/view',
    schema: { query: OrderListQuery },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ orders: await listOrders(ctx, query) }),
  }),
  route({
    method: 'GET',
    path: '/orders/:order_id',
    policy: OrderPolicy,
    permission: 'orders/view',
    schema: { params: OrderParams },
    envelope: 'message',
    handler: (ctx, { params }) => orderDetail(ctx, params.order_id),
  }),
];
