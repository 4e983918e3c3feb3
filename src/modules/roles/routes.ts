import { throwIfAny, type FieldErrors } from '../../core/errors';
import { RolePolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { label } from '../../core/validate';
import { assignRole, removeRole } from './assignments';
import { RoleDeleteBody, RoleDeleteQuery, RoleParams, RolePatchBody, RolePostBody, RoleUserListQuery } from './schemas';
import { createRole, deleteRole, getRole, listRoles, updateRole } from './service';
import { listManagers, listRoleUsers } from './user-lists';

/** The fields one use of a shared body needs (`POST /roles`: assign or create): 422 naming each one missing. */
function required<T extends object, K extends keyof T & string>(body: T, fields: K[]): T & Required<Pick<T, K>> {
  const errors: FieldErrors = {};
  for (const field of fields) if (body[field] === undefined) errors[field] = { required: `The ${label(field)} field is required.` };
  throwIfAny(errors);
  return body as T & Required<Pick<T, K>>;
}

const roleRoute = { policy: RolePolicy, permission: 'manage_store_settings', envelope: 'role' } as const;

/** Roles and permissions (admin spec), with DESIGN §9's split of `POST /roles` and `DELETE /roles/{key}`. */
export const roleRoutes: RouteDef[] = [
  route({
    ...roleRoute,
    method: 'GET',
    path: '/roles',
    handler: async (ctx) => ({ message: 'Roles retrieved successfully', roles: listRoles(ctx) }),
  }),
  route({
    ...roleRoute,
    method: 'GET',
    path: '/roles/managers',
    handler: async (ctx) => ({ message: 'Managers retrieved successfully', managers: await listManagers(ctx) }),
  }),
  route({
    ...roleRoute,
    method: 'GET',
    path: '/roles/user-list',
    schema: { query: RoleUserListQuery },
    handler: async (ctx, { query }) => ({ message: 'Users retrieved successfully', users: await listRoleUsers(ctx, query) }),
  }),
  route({
    ...roleRoute,
    method: 'POST',
    path: '/roles',
    schema: { body: RolePostBody },
    handler: async (ctx, { body }) => {
      if (body.user_id === undefined) return { message: 'Role created successfully', role: await createRole(ctx, required(body, ['title', 'capabilities'])) };
      await assignRole(ctx, body.user_id, required(body, ['role_key']).role_key);
      return { message: 'Role synced successfully', is_updated: true };
    },
  }),
  route({
    ...roleRoute,
    method: 'GET',
    path: '/roles/:key',
    schema: { params: RoleParams },
    handler: async (ctx, { params }) => ({ message: 'Role retrieved successfully', role: getRole(ctx, params.key) }),
  }),
  route({
    ...roleRoute,
    method: 'POST',
    path: '/roles/:key',
    schema: { params: RoleParams, body: RolePatchBody },
    handler: async (ctx, { params, body }) => ({ message: 'Role updated successfully', role: await updateRole(ctx, params.key, body) }),
  }),
  route({
    ...roleRoute,
    method: 'DELETE',
    path: '/roles/:key',
    schema: { params: RoleParams, body: RoleDeleteBody, query: RoleDeleteQuery },
    handler: async (ctx, { params, body, query }) => {
      const userId = body.user_id ?? query.user_id;
      if (userId === undefined) await deleteRole(ctx, params.key);
      else await removeRole(ctx, params.key, userId);
      return { message: 'Role deleted successfully' };
    },
  }),
];
