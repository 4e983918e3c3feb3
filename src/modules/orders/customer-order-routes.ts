import { CustomerFrontendPolicy, CustomerPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';
import { customerIdOf } from '../customers/owner';
import { CustomerOrdersQuery, CustomerParams, PortalOrdersQuery } from '../customers/schemas';
import { findCustomer, ownCustomerRow } from '../customers/service';
import { customerOrdersWithItems, pageOfCustomerOrders, portalOrderPage } from './customer-orders';

/** The customer routes' `list` class: the same hourly counter as the other customer lists. */
const LIST = hourlyClass('customers', 'list', 'customers/view');

/**
 * A customer's orders under the customer paths (spec: "Customers"), in the customer envelopes: the administrative
 * variant (`CustomerPolicy`, `{code, message, data}`) and, on `…/orders`, the portal variant right after it
 * (`CustomerFrontendPolicy`, `{message}`). They live with the orders, which depend on customers, not the reverse.
 */
export const customerOrderRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/customers/:customerId/orders',
    policy: CustomerPolicy,
    permission: 'customers/view',
    schema: { params: CustomerParams, query: CustomerOrdersQuery },
    envelope: 'admin',
    rateLimit: LIST,
    handler: async (ctx, { params, query }) => {
      await findCustomer(ctx.db, params.customerId);
      return { orders: await pageOfCustomerOrders(ctx, params.customerId, query) };
    },
  }),
  route({
    method: 'GET',
    path: '/customers/:customerId/orders',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: CustomerParams, query: PortalOrdersQuery },
    envelope: 'message',
    rateLimit: LIST,
    handler: async (ctx, { params, query }) => {
      const ownId = await customerIdOf(ctx.db, ctx.scope!);
      if (!(await ownCustomerRow(ctx, params.customerId, ownId))) return { orders: [] };
      return { orders: await portalOrderPage(ctx, params.customerId, ownId, query) };
    },
  }),

  route({
    method: 'GET',
    path: '/customers/:customerId/order',
    policy: CustomerPolicy,
    permission: 'customers/view',
    schema: { params: CustomerParams },
    envelope: 'admin',
    rateLimit: LIST,
    handler: async (ctx, { params }) => {
      await findCustomer(ctx.db, params.customerId);
      return { data: { data: await customerOrdersWithItems(ctx.db, params.customerId) } };
    },
  }),
];
