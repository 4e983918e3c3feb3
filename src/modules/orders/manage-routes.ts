import { fail } from '../../core/errors';
import { OrderPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { CustomerBody } from '../customers/schemas';
import { bulkAction } from './bulk';
import { changeOrderCustomer, createAndChangeCustomer, orderNotFound } from './customer-change';
import { BulkActionBody, ChangeCustomerBody, OrderIdParams, OrderParams, UpdateAddressIdBody } from './manage-schemas';
import { copyCustomerAddressToOrder } from './order-address';

/** Spec "Orders": bulk actions, change-customer, create-and-change-customer, update-address-id, generate-missing-licenses. */
export const orderManageRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/orders/do-bulk-action',
    policy: OrderPolicy,
    // `orders/manage_statuses` reaches the status-changing actions only; the service checks each action's permissions.
    permission: ['orders/manage', 'orders/manage_statuses'],
    schema: { body: BulkActionBody },
    envelope: 'message',
    handler: (ctx, { body }) => bulkAction(ctx, body),
  }),
  route({
    method: 'POST',
    path: '/orders/:order_id/change-customer',
    policy: OrderPolicy,
    permission: 'orders/manage',
    schema: { params: OrderIdParams, body: ChangeCustomerBody },
    envelope: 'message',
    handler: (ctx, { params, body }) => changeOrderCustomer(ctx, params.order_id, body.customer_id),
  }),
  route({
    method: 'POST',
    path: '/orders/:order_id/create-and-change-customer',
    policy: OrderPolicy,
    permission: 'orders/manage',
    schema: { params: OrderIdParams, body: CustomerBody },
    envelope: 'message',
    handler: (ctx, { params, body }) => createAndChangeCustomer(ctx, params.order_id, body),
  }),
  route({
    method: 'POST',
    path: '/orders/:order_id/update-address-id',
    policy: OrderPolicy,
    permission: 'orders/manage',
    schema: { params: OrderIdParams, body: UpdateAddressIdBody },
    envelope: 'message',
    handler: (ctx, { params, body }) => copyCustomerAddressToOrder(ctx, params.order_id, Number(body.address_id), body.address_type ?? 'billing'),
  }),
  route({
    method: 'POST',
    path: '/orders/:order/generate-missing-licenses',
    policy: OrderPolicy,
    permission: 'orders/manage',
    schema: { params: OrderParams },
    envelope: 'message',
    // Licenses exist only with the optional licensing module (DESIGN §9), which is off: no order can miss one.
    handler: async (ctx, { params }) => {
      if (!(await ctx.db('store_orders').where({ id: params.order }).first('id'))) throw orderNotFound();
      throw fail('invalid_state', 'No missing licenses found!');
    },
  }),
];
