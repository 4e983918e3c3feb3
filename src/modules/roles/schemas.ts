import { Type } from '@sinclair/typebox';
import { pageQuery } from '../../core/page';
import { Id } from '../../core/schema';

const Title = (description?: string) => Type.String({ minLength: 1, maxLength: 100, ...(description ? { description } : {}) });
const Description = Type.String({ maxLength: 1000 });
const Capabilities = (description = 'Registered capability ids (`products/view`, …).') =>
  Type.Array(Type.String({ maxLength: 100 }), { maxItems: 500, description });

export const RoleParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) });

/** `POST /roles`: with `user_id` it assigns `role_key` to that user; without, it creates a role (DESIGN §9). */
export const RolePostBody = Type.Object({
  user_id: Type.Optional(Id({ description: 'Assign `role_key` to this user (instead of creating a role).' })),
  role_key: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Required with `user_id`.' })),
  title: Type.Optional(Title('Required to create a role; its key is derived from it.')),
  description: Type.Optional(Description),
  capabilities: Type.Optional(Capabilities('Required to create a role: registered capability ids.')),
});

export const RolePatchBody = Type.Object({
  title: Type.Optional(Title()),
  description: Type.Optional(Description),
  capabilities: Type.Optional(Capabilities()),
});

/** `DELETE /roles/{key}`: with `user_id` it takes the role from that user; without, it deletes the (custom) role. */
export const RoleDeleteBody = Type.Object({
  user_id: Type.Optional(Id({ description: 'Take the role from this user (instead of deleting the role).' })),
});

/**
 * `user_id` may also come in the query string (many clients send no body with DELETE): ignoring it there would delete
 * the whole role where the caller meant to take it from one user.
 */
export const RoleDeleteQuery = Type.Object({
  user_id: Type.Optional(Id({ description: 'As `user_id` in the body.' })),
});

/** An id list item: one id, or a comma list of them. */
const ID_LIST = '^\\s*[1-9][0-9]{0,9}(\\s*,\\s*[1-9][0-9]{0,9})*\\s*$';

export const RoleUserListQuery = Type.Object({
  ...pageQuery,
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Part of a display name or email (taken literally).' })),
  user_ids: Type.Optional(Type.Array(Type.String({ pattern: ID_LIST, maxLength: 2200 }), { maxItems: 200, description: 'Ids, as an array or a comma list.' })),
});
