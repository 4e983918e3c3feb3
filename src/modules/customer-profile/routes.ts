import { fail } from '../../core/errors';
import { CustomerFrontendPolicy, PublicPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';
import type { HttpMethod } from '../../host/contract';
import { createProfileAddress, editProfileAddress } from './addresses';
import { CreateAddressBody, EditAddressBody, ProfileUpdateBody } from './schemas';
import { dashboard, profile, updateProfile } from './service';

/**
 * The spec's answer to a caller who is not logged in (`{message: 'You are not logged in'}`, 401). Declared after the
 * CustomerFrontendPolicy variant of the same path, it is only reached when that policy turns the caller away, which it
 * does for anonymous callers only; it never validates, counts or reads anything.
 */
function notLoggedIn(method: HttpMethod, path: string): RouteDef {
  return route({
    method,
    path,
    policy: PublicPolicy,
    permission: 'public',
    envelope: 'message',
    handler: () => Promise.reject(fail('rest_forbidden', 'You are not logged in', { status: 401 })),
  });
}

const read = hourlyClass('customers', 'list', 'customers/view');

/**
 * Customer profile (spec: policy CustomerFrontendPolicy, logged-in user; everything is the caller's own, found through
 * `customerIdOf` and narrowed in the WHERE clause). Decisions on what the spec leaves open:
 * - Anonymous callers get the spec's 401 `{message: 'You are not logged in'}` on every profile route (fallback variant
 *   below), before any validation or counting.
 * - Success messages of the two reads: `'Success'`.
 * - Dashboard: renewal orders are counted on their parent (`renewals_count`) rather than listed; `line_meta` shows only
 *   `bundle_parent_item_id` (the rest of the line meta is internal: tax configuration and the like).
 * - Update: fields left out keep their value; empty password fields mean no password change. The password change keeps
 *   the caller's own session and ends the user's other cookie sessions; application passwords stay (as WordPress). Update of a user without a customer record: 404.
 * - Create-address: a logged-in user without a customer record gets one made from the account (as any logged-in
 *   WooCommerce shopper can save addresses); `total_address_count` counts all of the customer's addresses.
 * - Edit-address: an address that is not the caller's, or does not exist, is 403 'You are not authorized to update this
 *   address', the portal's answer, the same for both so other customers' address ids cannot be probed.
 * - Request classes: the reads count as `customers` list requests, update and edit-address as update, create-address as
 *   create (DESIGN §9).
 */
const profileRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/customer-profile',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    envelope: 'message',
    rateLimit: read,
    handler: async (ctx) => {
      const { orders, sections_parts } = await dashboard(ctx);
      return { message: 'Success', dashboard_data: { orders }, sections_parts };
    },
  }),
  route({
    method: 'GET',
    path: '/customer-profile/profile',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    envelope: 'message',
    rateLimit: read,
    handler: async (ctx) => ({ message: 'Success', data: await profile(ctx) }),
  }),
  route({
    method: 'POST',
    path: '/customer-profile/update',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { body: ProfileUpdateBody },
    envelope: 'message',
    rateLimit: hourlyClass('customers', 'update', 'customers/manage'),
    handler: async (ctx, { body }) => {
      await updateProfile(ctx, body);
      return { message: 'Profile updated successfully' };
    },
  }),
  route({
    method: 'POST',
    path: '/customer-profile/create-address',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { body: CreateAddressBody },
    envelope: 'message',
    rateLimit: hourlyClass('customers', 'create', 'customers/manage'),
    handler: async (ctx, { body }) => ({ message: 'Customer address created successfully!', data: await createProfileAddress(ctx, body) }),
  }),
  route({
    method: 'POST',
    path: '/customer-profile/edit-address',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { body: EditAddressBody },
    envelope: 'message',
    rateLimit: hourlyClass('customers', 'update', 'customers/manage'),
    handler: async (ctx, { body }) => ({ message: 'Address updated successfully', data: await editProfileAddress(ctx, body) }),
  }),
];

export const customerProfileRoutes: RouteDef[] = [...profileRoutes, ...profileRoutes.map((def) => notLoggedIn(def.method, def.path))];
