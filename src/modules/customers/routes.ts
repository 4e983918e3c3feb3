import { CustomerFrontendPolicy, CustomerPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { Reply, route, type RouteDef } from '../../core/routes';
import { transaction } from '../../core/context';
import { bulkAction } from './bulk';
import { adminCustomerDetail, portalCustomerDetail } from './detail';
import { recalculateCustomerStats } from './ltv';
import { adminCustomersUrl } from './presenter';
import {
  AdditionalInfoBody,
  AttachableUsersQuery,
  AttachUserBody,
  BulkActionBody,
  CustomerBody,
  CustomerDetailNotFound,
  CustomerDetailQuery,
  CustomerListQuery,
  CustomerNotFound,
  CustomerParams,
  CustomerUpdateBody,
  PortalCustomerBody,
  PortalDetailQuery,
  StatsParams,
} from './schemas';
import { createCustomer, findCustomer, listCustomers, portalUpdateCustomer, updateAdditionalInfo, updateCustomer } from './service';
import { attachableUsers, setCustomerUser } from './users-link';

/** The spec's hourly request classes on customer routes (API and portal callers; dashboard sessions exempt). */
const LIST = hourlyClass('customers', 'list', 'customers/view');
const CREATE = hourlyClass('customers', 'create', 'customers/manage');
const UPDATE = hourlyClass('customers', 'update', 'customers/manage');

/**
 * Customer administration (`CustomerPolicy`, errors in `{code, message, data}`) and, on the shared paths, the
 * customer-portal variants declared right after their admin twin (`CustomerFrontendPolicy`, errors in `{message}`):
 * a caller holding the admin permission gets the admin variant, any other logged-in user the portal one.
 * The address routes live in address-routes.ts; a customer's orders (`…/orders`, `…/order`) in
 * ../orders/customer-order-routes.ts.
 */
export const customerRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/customers',
    policy: CustomerPolicy,
    permission: 'customers/view',
    schema: { query: CustomerListQuery },
    envelope: 'admin',
    rateLimit: LIST,
    handler: async (ctx, { query }) => ({ customers: await listCustomers(ctx, query) }),
  }),
  route({
    method: 'POST',
    path: '/customers',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { body: CustomerBody },
    envelope: 'admin',
    rateLimit: CREATE,
    handler: async (ctx, { body }) => ({ message: 'Customer created successfully!', data: await createCustomer(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/customers/attachable-user',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { query: AttachableUsersQuery },
    envelope: 'admin',
    rateLimit: LIST,
    handler: async (ctx, { query }) => ({ success: true, data: { users: await attachableUsers(ctx, query) } }),
  }),
  route({
    method: 'POST',
    path: '/customers/do-bulk-action',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { body: BulkActionBody },
    envelope: 'admin',
    rateLimit: UPDATE,
    handler: (ctx, { body }) => bulkAction(ctx, body),
  }),
  route({
    method: 'GET',
    path: '/customers/get-stats/:customer',
    policy: CustomerPolicy,
    permission: 'customers/view',
    schema: { params: StatsParams },
    envelope: 'admin',
    rateLimit: LIST,
    handler: async (ctx, { params }) => {
      const customer = await findCustomer(ctx.db, params.customer);
      return { widgets: ctx.hooks.applyFilters('store/widgets/single_customer', [], { customer }) };
    },
  }),

  route({
    method: 'GET',
    path: '/customers/:customerId',
    policy: CustomerPolicy,
    permission: 'customers/view',
    schema: { params: CustomerParams, query: CustomerDetailQuery },
    envelope: 'admin',
    rateLimit: LIST,
    answers: { 404: { description: 'No such customer: the flat shape with the way back to the list.', schema: CustomerDetailNotFound } },
    handler: async (ctx, { params, query }) => {
      const customer = await adminCustomerDetail(ctx, params.customerId, { with: query.with, customerOnly: query.params?.customer_only === 'yes' });
      // The spec gives this 404 its own flat shape, with the way back to the list.
      if (!customer) return new Reply({ message: 'Customer not found', back_text: 'Back to Customers', back_url: adminCustomersUrl(ctx.host) }, 404);
      return { customer };
    },
  }),
  route({
    method: 'GET',
    path: '/customers/:customerId',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: CustomerParams, query: PortalDetailQuery },
    envelope: 'message',
    rateLimit: LIST,
    handler: async (ctx, { params, query }) => ({ customer: await portalCustomerDetail(ctx, params.customerId, query.with ?? []) }),
  }),

  route({
    method: 'PUT',
    path: '/customers/:customerId',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: CustomerUpdateBody },
    envelope: 'admin',
    rateLimit: UPDATE,
    handler: async (ctx, { params, body }) => ({ message: 'Customer updated successfully!', data: await updateCustomer(ctx, params.customerId, body) }),
  }),
  route({
    method: 'PUT',
    path: '/customers/:customerId',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: CustomerParams, body: PortalCustomerBody },
    envelope: 'message',
    rateLimit: UPDATE,
    handler: async (ctx, { params, body }) => {
      const customer = await portalUpdateCustomer(ctx, params.customerId, body);
      return {
        message: 'Customer updated successfully!',
        data: { id: customer.id, email: customer.email, first_name: customer.first_name, last_name: customer.last_name },
      };
    },
  }),

  route({
    method: 'PUT',
    path: '/customers/:customerId/additional-info',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: AdditionalInfoBody },
    envelope: 'admin',
    rateLimit: UPDATE,
    handler: async (ctx, { params, body }) => ({
      message: 'Customer labels updated successfully!',
      data: await updateAdditionalInfo(ctx, params.customerId, body.labels),
    }),
  }),

  route({
    method: 'POST',
    path: '/customers/:customerId/recalculate-ltv',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams },
    envelope: 'admin',
    rateLimit: UPDATE,
    answers: { 404: { description: 'No such customer: `{message}`.', schema: CustomerNotFound } },
    handler: async (ctx, { params }) => {
      const customer = await transaction(ctx, (trx) => recalculateCustomerStats(trx, params.customerId));
      // The spec gives this 404 the flat `{message}` shape.
      if (!customer) return new Reply({ message: 'Customer not found' }, 404);
      return { message: 'Customer lifetime value recalculated successfully', customer };
    },
  }),

  route({
    method: 'POST',
    path: '/customers/:customerId/attachable-user',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: AttachUserBody },
    envelope: 'admin',
    rateLimit: UPDATE,
    handler: async (ctx, { params, body }) => {
      const customer = await setCustomerUser(ctx, params.customerId, Number(body.user_id));
      return { success: true, data: { customer: { id: customer.id, user_id: customer.user_id, updated_at: customer.updated_at } } };
    },
  }),
  route({
    method: 'POST',
    path: '/customers/:customerId/detach-user',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams },
    envelope: 'admin',
    rateLimit: UPDATE,
    handler: async (ctx, { params }) => {
      const customer = await setCustomerUser(ctx, params.customerId, null);
      return { success: true, data: { customer: { id: customer.id, user_id: customer.user_id, updated_at: customer.updated_at } } };
    },
  }),
];
