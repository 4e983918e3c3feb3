import { OrderPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { calculateShippingCharge } from './shipping-charge';
import { createOrder, updateOrder } from './write';
import { CalculateShippingBody, CreateOrderBody, OrderIdParams, UpdateOrderBody } from './write-schemas';

/** Spec "Orders": calculate-shipping, create and update. */
export const orderWriteRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/orders/calculate-shipping',
    policy: OrderPolicy,
    permission: ['orders/create', 'orders/manage'],
    schema: { body: CalculateShippingBody },
    envelope: 'message',
    handler: (ctx, { body }) => calculateShippingCharge(ctx, body),
  }),
  route({
    method: 'POST',
    path: '/orders',
    policy: OrderPolicy,
    permission: 'orders/create',
    schema: { body: CreateOrderBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Order created successfully!', ...(await createOrder(ctx, body)) }),
  }),
  route({
    method: 'POST',
    path: '/orders/:order_id',
    policy: OrderPolicy,
    permission: 'orders/manage',
    schema: { params: OrderIdParams, body: UpdateOrderBody },
    envelope: 'message',
    handler: async (ctx, { params, body }) => ({ message: 'Order updated successfully', order: await updateOrder(ctx, params.order_id, body) }),
  }),
];
