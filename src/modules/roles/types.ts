/** A store role as the API shows it: the four built-in roles, those extensions register, and custom roles. */
export interface Role {
  key: string;
  title: string;
  description: string;
  capabilities: string[];
  /** Built-in and extension-registered roles: their key never changes and they cannot be deleted. */
  builtin: boolean;
}

/** A role an extension defines in code (`store/roles/register`), by key. */
export interface RoleDraft {
  title: string;
  description?: string;
  capabilities: string[];
}

/**
 * Handed to `store/role/before_assign` and `store/role/before_remove` listeners: calling `reject` refuses the change,
 * which the API answers in the role envelope with `status` (a 4xx, default 403) and `message`. The first refusal wins.
 */
export interface RoleVeto {
  reject(message: string, status?: number): void;
  /** Whether a listener before this one refused already. */
  readonly rejected: boolean;
}

/** A row of `GET /roles/user-list`. */
export interface RoleUser {
  ID: number;
  name: string;
  email: string;
}

/** The users page of `GET /roles/user-list`. */
export interface RoleUserPage {
  data: RoleUser[];
  total: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

/** A user holding a store role (`GET /roles/managers`). */
export interface RoleManager {
  ID: number;
  display_name: string;
  user_email: string;
  /** The store roles the user holds (one, unless roles were given outside the API). */
  roles: string[];
}
