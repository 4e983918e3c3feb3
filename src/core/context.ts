import type { Knex } from 'knex';
import type { Clock, Host, HostUser, Hooks, RestAuth, RestSession } from '../host/contract';
import type { Permission } from './permissions';
import type { RateLimits } from './ratelimit';
import { isTimeZone } from './time';

/** What the caller owns, set by the portal policies; services turn it into a WHERE clause. */
export interface OwnerScope {
  user_id: number;
  email: string;
}

/** Everything a service needs to know about one request, and nothing of HTTP. */
export interface Ctx {
  db: Knex;
  user: HostUser | null;
  /** Permission check through the `store/user/can` filter. */
  can(permission: Permission): boolean;
  hooks: Hooks;
  clock: Clock;
  /** The caller's time zone (`user_tz`), only used to shift date filters. */
  tz: string;
  ip: string;
  auth: RestAuth;
  session: RestSession;
  scope: OwnerScope | null;
  limits: RateLimits;
  host: Host;
}

export interface CtxSource {
  user: HostUser | null;
  ip: string;
  auth: RestAuth;
  session: RestSession;
  query: Record<string, unknown>;
}

export function createCtx(host: Host, source: CtxSource, limits: RateLimits): Ctx {
  const { user } = source;
  const tz = source.query.user_tz;
  return {
    db: host.db,
    user,
    can: (permission) => !!user && host.hooks.applyFilters('store/user/can', host.users.can(user, permission), { user, permission }),
    hooks: host.hooks,
    clock: host.clock,
    tz: isTimeZone(tz) ? tz : 'UTC',
    ip: source.ip,
    auth: source.auth,
    session: source.session,
    scope: null,
    limits,
    host,
  };
}
