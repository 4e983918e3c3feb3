import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/context';
import { validateAddressFields } from '../../core/address';
import { AppError, fail, type FieldErrors } from '../../core/errors';
import { CustomerFrontendPolicy, CustomerPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';
import { label } from '../../core/validate';
import {
  AddressCreateBody,
  AddressIdBody,
  AddressListQuery,
  AddressUpdateBody,
  CustomerParams,
  PORTAL_FIELDS,
  PORTAL_REQUIRED,
  PortalAddressRef,
  PortalMakePrimaryBody,
  PortalUpdateBody,
  toFlag,
} from './address-schemas';
import { assertCustomerExists, createAddress, deleteAddress, listAddresses, makePrimary, updateAddress, type AddressPatch } from './addresses';
import { customerIdOf } from './owner';

/**
 * Customer addresses. Each method and path has an administrative variant (`CustomerPolicy`, `{code, message, data}`
 * errors) and, for PUT, DELETE and make-primary, a customer-portal variant (`CustomerFrontendPolicy`, `{message}`
 * errors) declared after it: a caller holding the admin permission gets the first, any other logged-in user the
 * second, which only ever touches the caller's own customer record (DESIGN §9).
 */

const list = hourlyClass('customers', 'list', 'customers/view');
const create = hourlyClass('customers', 'create', 'customers/manage');
const update = hourlyClass('customers', 'update', 'customers/manage');
const remove = hourlyClass('customers', 'delete', 'customers/manage');

const NOT_YOURS_UPDATE = 'You are not authorized to update this address';
const NOT_YOURS_DELETE = 'You are not authorized to delete this address';

function throwIfAny(errors: FieldErrors): void {
  const fields = Object.values(errors);
  if (fields.length) throw fail('validation_error', Object.values(fields[0])[0], { errors });
}

/** The address fields an admin body may set. Anything else a client sends along (e.g. a whole presented address) is ignored. */
const ADMIN_FIELDS = [
  'name',
  'email',
  'label',
  'company_name',
  'address_1',
  'address_2',
  'city',
  'state',
  'postcode',
  'country',
  'phone',
  'type',
  'status',
  'meta',
] as const;

/** The fields of an admin body the address service stores (null taken as empty; `id`, `order_id` and the flag apart). */
function patchOf(body: Static<typeof AddressUpdateBody> | Static<typeof AddressCreateBody>): AddressPatch {
  const patch: Record<string, unknown> = {};
  for (const key of ADMIN_FIELDS) {
    const value = (body as Record<string, unknown>)[key];
    if (value !== undefined) patch[key] = value === null ? '' : value;
  }
  if (body.is_primary !== undefined) patch.is_primary = toFlag(body.is_primary);
  return patch as AddressPatch;
}

/**
 * Portal: the caller's own customer id, which must be the one in the path; the service then finds the address by id
 * and this customer id in one WHERE clause. Anything else (another customer, an address that is not the caller's or
 * does not exist) is 403 with the spec's message, the same answer either way so ids cannot be probed.
 */
async function portalCustomer(ctx: Ctx, customerId: number, message: string): Promise<number> {
  const own = ctx.scope ? await customerIdOf(ctx.db, ctx.scope) : null;
  if (own === null || own !== customerId) throw fail('rest_forbidden', message, { status: 403 });
  return own;
}

async function asPortal<T>(message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') throw fail('rest_forbidden', message, { status: 403 });
    throw error;
  }
}

/** The portal form's `<type>_…` fields without the prefix, after checking the required ones and the country rules. */
async function portalPatch(body: Static<typeof PortalUpdateBody>): Promise<AddressPatch> {
  const { type } = body;
  const values = body as unknown as Record<string, string | null | undefined>;
  const value = (field: string) => values[`${type}_${field}`];
  const errors: FieldErrors = {};
  for (const field of PORTAL_REQUIRED) {
    if (!String(value(field) ?? '').trim()) errors[`${type}_${field}`] = { required: `The ${label(`${type}_${field}`)} field is required.` };
  }
  throwIfAny(errors);
  throwIfAny(await validateAddressFields({ country: value('country'), state: value('state'), postcode: value('postcode'), city: value('city') }, `${type}_`));
  const patch: AddressPatch = { type };
  for (const field of PORTAL_FIELDS) {
    const sent = value(field);
    if (sent !== undefined) (patch as Record<string, unknown>)[field] = sent ?? '';
  }
  return patch;
}

export const addressRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/customers/:customerId/address',
    policy: CustomerPolicy,
    permission: 'customers/view',
    schema: { params: CustomerParams, query: AddressListQuery },
    envelope: 'admin',
    rateLimit: list,
    handler: async (ctx, { params, query }) => {
      await assertCustomerExists(ctx.db, params.customerId);
      return { addresses: await listAddresses(ctx.db, params.customerId, query.type ?? 'billing') };
    },
  }),
  route({
    method: 'POST',
    path: '/customers/:customerId/address',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: AddressCreateBody },
    envelope: 'admin',
    rateLimit: create,
    handler: async (ctx, { params, body }) => {
      const patch = patchOf(body);
      const address = await createAddress(
        ctx,
        params.customerId,
        { ...patch, type: body.type, name: body.name, email: body.email, address_1: body.address_1, city: body.city, country: body.country },
        { orderId: body.order_id ?? null },
      );
      return { message: 'Address created successfully', data: address };
    },
  }),
  route({
    method: 'PUT',
    path: '/customers/:customerId/address',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: AddressUpdateBody },
    envelope: 'admin',
    rateLimit: update,
    handler: async (ctx, { params, body }) => {
      const address = await updateAddress(ctx, params.customerId, body.id, patchOf(body), { orderId: body.order_id ?? null });
      return { message: 'Address updated successfully', data: address };
    },
  }),
  route({
    method: 'PUT',
    path: '/customers/:customerId/address',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: CustomerParams, body: PortalUpdateBody },
    envelope: 'message',
    rateLimit: update,
    handler: async (ctx, { params, body }) => {
      const customerId = await portalCustomer(ctx, params.customerId, NOT_YOURS_UPDATE);
      const patch = await portalPatch(body);
      await asPortal(NOT_YOURS_UPDATE, () => updateAddress(ctx, customerId, body.address.id, patch));
      return { message: 'Address updated successfully' };
    },
  }),
  route({
    method: 'DELETE',
    path: '/customers/:customerId/address',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: AddressIdBody },
    envelope: 'admin',
    rateLimit: remove,
    handler: async (ctx, { params, body }) => {
      await deleteAddress(ctx, params.customerId, body.address_id);
      return { success: true, message: 'Address deleted successfully' };
    },
  }),
  route({
    method: 'DELETE',
    path: '/customers/:customerId/address',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: CustomerParams, body: PortalAddressRef },
    envelope: 'message',
    rateLimit: remove,
    handler: async (ctx, { params, body }) => {
      const customerId = await portalCustomer(ctx, params.customerId, NOT_YOURS_DELETE);
      await asPortal(NOT_YOURS_DELETE, () => deleteAddress(ctx, customerId, body.address.id));
      return { message: 'Address deleted successfully' };
    },
  }),
  route({
    method: 'POST',
    path: '/customers/:customerId/address/make-primary',
    policy: CustomerPolicy,
    permission: 'customers/manage',
    schema: { params: CustomerParams, body: AddressIdBody },
    envelope: 'admin',
    rateLimit: update,
    handler: async (ctx, { params, body }) => {
      return { success: true, data: { address: await makePrimary(ctx, params.customerId, body.address_id) } };
    },
  }),
  route({
    method: 'POST',
    path: '/customers/:customerId/address/make-primary',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: CustomerParams, body: PortalMakePrimaryBody },
    envelope: 'message',
    rateLimit: update,
    handler: async (ctx, { params, body }) => {
      const customerId = await portalCustomer(ctx, params.customerId, NOT_YOURS_UPDATE);
      await asPortal(NOT_YOURS_UPDATE, () => makePrimary(ctx, customerId, body.address.id, { type: body.address.type }));
      return { message: 'Address successfully set as the primary' };
    },
  }),
];
