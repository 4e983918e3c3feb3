import type { Ctx, OwnerScope } from './context';
import type { Permission } from './permissions';

/** `public` routes need nobody; `authenticated` routes need a logged-in user; the rest name permissions. */
export type RoutePermission = Permission | Permission[] | 'public' | 'authenticated';

export type Decision = { allow: true; scope?: OwnerScope } | { allow: false; status: 401 | 403 };

export interface Policy {
  name: string;
  /** What kind of `permission` a route under this policy must declare. */
  requires: 'permission' | 'public' | 'authenticated';
  authorize(ctx: Ctx, permissions: Permission[]): Decision;
}

/** Logged in and holding any one of the route's permissions. */
function permissionPolicy(name: string): Policy {
  return {
    name,
    requires: 'permission',
    authorize(ctx, permissions) {
      if (!ctx.user) return { allow: false, status: 401 };
      return permissions.some((p) => ctx.can(p)) ? { allow: true } : { allow: false, status: 403 };
    },
  };
}

export const CustomerPolicy = permissionPolicy('CustomerPolicy');
export const OrderPolicy = permissionPolicy('OrderPolicy');
export const AdminPolicy = permissionPolicy('AdminPolicy');
export const StoreSettingsPolicy = permissionPolicy('StoreSettingsPolicy');
export const StoreSensitivePolicy = permissionPolicy('StoreSensitivePolicy');
export const ReportPolicy = permissionPolicy('ReportPolicy');
export const RolePolicy = permissionPolicy('RolePolicy');
export const LicensePolicy = permissionPolicy('LicensePolicy');

export const PublicPolicy: Policy = {
  name: 'PublicPolicy',
  requires: 'public',
  authorize: () => ({ allow: true }),
};

/** A logged-in user, scoped to what they own: the scope becomes a WHERE clause in the services. */
export const CustomerFrontendPolicy: Policy = {
  name: 'CustomerFrontendPolicy',
  requires: 'authenticated',
  authorize(ctx) {
    if (!ctx.user) return { allow: false, status: 401 };
    return { allow: true, scope: { user_id: ctx.user.id, email: ctx.user.email } };
  },
};

export const POLICIES: Policy[] = [
  CustomerPolicy,
  CustomerFrontendPolicy,
  OrderPolicy,
  PublicPolicy,
  AdminPolicy,
  StoreSettingsPolicy,
  ReportPolicy,
  RolePolicy,
  StoreSensitivePolicy,
  LicensePolicy,
];
