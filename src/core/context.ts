import type { Knex } from 'knex';
import type { Clock, Host, HostUser, Hooks, RestAuth, RestSession } from '../host/contract';
import { userCan } from './capabilities';
import { withTx, type AfterCommit } from './db';
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
  /** Permission check: the user's roles through `store/role/capabilities`, then `store/user/can` (see `userCan`). */
  can(permission: Permission): boolean;
  /** The same check for any registered capability, those extensions add through `store/roles/capabilities` included. */
  holds(capability: string): boolean;
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
    can: (permission) => userCan(host, user, permission),
    holds: (capability) => userCan(host, user, capability),
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

/** Runs `work` in one transaction; `afterCommit` callbacks (hooks) run once it has committed, failures logged. */
export function transaction<T>(ctx: Ctx, work: (trx: Knex.Transaction, afterCommit: AfterCommit) => Promise<T>): Promise<T> {
  return withTx(ctx.db, work, (error) => ctx.host.logger.error({ err: error }, 'after-commit callback failed'));
}

const NO_AUTH: RestAuth = { method: null, sessionToken: null, sessionUserId: null, nonce: null, nonceValid: false };
const NO_SESSION: RestSession = {
  login: () => Promise.reject(new Error('no session outside a request')),
  logout: () => Promise.resolve(),
  ensure: () => Promise.resolve(null),
  endOthers: () => Promise.resolve(0),
};

/**
 * A context outside any request (CLI commands, jobs, the demo seeder): acting as `user` when given (with that
 * user's permissions), otherwise as the system, which may do everything.
 */
export function systemCtx(host: Host, limits: RateLimits, user: HostUser | null = null): Ctx {
  const ctx = createCtx(host, { user, ip: '', auth: NO_AUTH, session: NO_SESSION, query: {} }, limits);
  return user ? ctx : { ...ctx, can: () => true, holds: () => true };
}
