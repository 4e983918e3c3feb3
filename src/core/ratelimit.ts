import type { Knex } from 'knex';
import { RateLimiterMySQL, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Host, HostUser, RestAuth } from '../host/contract';
import { dialect } from './db';
import { fail } from './errors';
import type { Permission } from './permissions';

export const RATE_LIMIT_TABLE = 'store_rate_limits';

/** What a limit reads of a request: the part of `Ctx` it needs (declared here, so `context.ts` alone depends on this file). */
export interface LimitedRequest {
  user: HostUser | null;
  ip: string;
  auth: RestAuth;
  host: Host;
  can(permission: Permission): boolean;
}

export interface RateLimitRule {
  /** Counter name, e.g. `place-order` or `customers:list`. */
  name: string;
  /** The budget per window; a function reads it from settings (cached options) per request. */
  points: number | ((ctx: LimitedRequest) => Promise<number>);
  durationSeconds: number;
  /** Whose counter a request uses; default: the user when logged in, otherwise the IP. */
  key?: (ctx: LimitedRequest) => string;
  /** Requests that are not counted at all. */
  exempt?: (ctx: LimitedRequest) => boolean;
  /**
   * Count in this process and write to the shared table at most once per `SYNC_INTERVAL_MS` per caller, instead of
   * one write per request. For high-volume budgets (the hourly classes), where another process's requests may show
   * up a second late.
   */
  batched?: boolean;
}

/** How often a batched counter writes its new requests to the shared table. */
export const SYNC_INTERVAL_MS = 1000;

/** One caller's batched counter: the shared total last read, plus what this process counted since. */
interface Tally {
  shared: number;
  pending: number;
  resetAt: number;
  syncedAt: number;
  flushing: boolean;
}

function budget(ctx: LimitedRequest, rule: RateLimitRule): Promise<number> | number {
  return typeof rule.points === 'number' ? rule.points : rule.points(ctx);
}

function tooMany(state: RateLimiterRes): Error {
  return fail('rate_limited', undefined, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(state.msBeforeNext / 1000))) } });
}

export function callerKey(ctx: LimitedRequest): string {
  return ctx.user ? `user:${ctx.user.id}` : `ip:${ctx.ip}`;
}

/**
 * Fixed-window counters kept in the database (rate-limiter-flexible on the app's own knex), so every
 * process behind a load balancer shares them.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly tallies = new Map<string, Tally>();

  constructor(
    private readonly db: Knex,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /** Counts one request; throws the 429 error when the rule's budget is spent. */
  async consume(ctx: LimitedRequest, rule: RateLimitRule): Promise<void> {
    if (rule.exempt?.(ctx)) return;
    const points = await budget(ctx, rule);
    const key = (rule.key ?? callerKey)(ctx);
    if (rule.batched) return this.consumeBatched(rule, points, key);
    try {
      await this.limiter(rule, points).consume(key);
    } catch (error) {
      throw error instanceof RateLimiterRes ? tooMany(error) : error;
    }
  }

  /** Refuses with 429 when the budget is already spent, without counting this request. */
  async check(ctx: LimitedRequest, rule: RateLimitRule): Promise<void> {
    const points = await budget(ctx, rule);
    const key = (rule.key ?? callerKey)(ctx);
    const tally = this.tallies.get(`${rule.name}|${key}`);
    if (tally && Date.now() < tally.resetAt) {
      if (tally.shared + tally.pending >= points) throw tooMany(new RateLimiterRes(0, tally.resetAt - Date.now()));
      return;
    }
    const state = await this.limiter(rule, points).get(key);
    if (state && state.consumedPoints >= points) throw tooMany(state);
  }

  /** Forgets a caller's counter (e.g. after a successful login). */
  async reset(ctx: LimitedRequest, rule: RateLimitRule): Promise<void> {
    const key = (rule.key ?? callerKey)(ctx);
    this.tallies.delete(`${rule.name}|${key}`);
    await this.limiter(rule, await budget(ctx, rule)).delete(key);
  }

  /**
   * The first request of a window is written through (and reads the shared total); later ones are counted here and
   * written in one `penalty` once `SYNC_INTERVAL_MS` has passed. Within one process the budget is exact; across
   * processes a caller may overshoot by what the others counted in their last second.
   */
  private async consumeBatched(rule: RateLimitRule, points: number, key: string): Promise<void> {
    const id = `${rule.name}|${key}`;
    const now = Date.now();
    const tally = this.tallies.get(id);
    if (!tally || now >= tally.resetAt) {
      const state = await this.limiter(rule, points).penalty(key, 1);
      this.remember(id, { shared: state.consumedPoints, pending: 0, resetAt: now + state.msBeforeNext, syncedAt: now, flushing: false });
      if (state.consumedPoints > points) throw tooMany(state);
      return;
    }
    if (tally.shared + tally.pending >= points) throw tooMany(new RateLimiterRes(0, tally.resetAt - now));
    tally.pending += 1;
    if (!tally.flushing && now - tally.syncedAt >= SYNC_INTERVAL_MS) void this.flush(this.limiter(rule, points), key, tally);
  }

  private async flush(limiter: RateLimiterAbstract, key: string, tally: Tally): Promise<void> {
    const count = tally.pending;
    tally.pending = 0;
    tally.flushing = true;
    tally.syncedAt = Date.now();
    try {
      const state = await limiter.penalty(key, count);
      tally.shared = state.consumedPoints;
      tally.resetAt = Date.now() + state.msBeforeNext;
    } catch (error) {
      tally.pending += count;
      this.onError(error);
    } finally {
      tally.flushing = false;
    }
  }

  private remember(id: string, tally: Tally): void {
    if (this.tallies.size >= 10_000) {
      const now = Date.now();
      for (const [other, t] of this.tallies) if (now >= t.resetAt && !t.pending) this.tallies.delete(other);
    }
    this.tallies.set(id, tally);
  }

  private limiter(rule: RateLimitRule, points: number): RateLimiterAbstract {
    const id = `${rule.name}/${points}/${rule.durationSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = {
        storeClient: this.db,
        storeType: 'knex',
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        keyPrefix: rule.name,
        points,
        duration: rule.durationSeconds,
      };
      limiter =
        dialect(this.db) === 'mysql'
          ? new RateLimiterMySQL({ ...options, dbName: (this.db.client.config.connection as { database: string }).database })
          : new RateLimiterSQLite(options);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

export type RequestClass = 'list' | 'create' | 'update' | 'cancel' | 'delete';

/** The spec's hourly request classes (per user per hour): the defaults of the `hourly_request_limits` option. */
export const HOURLY_LIMITS: Record<RequestClass, number> = { list: 100, create: 50, update: 200, cancel: 20, delete: 20 };

declare module '../host/contract' {
  interface OptionMap {
    /** Overrides of the hourly request classes, e.g. `{list: 500}`. */
    hourly_request_limits: Partial<Record<RequestClass, number>>;
  }
}

/**
 * The hourly budget of one request class on one resource (`customers`, `subscriptions`), counted per user for API
 * (application-password) and portal callers. A logged-in dashboard session (cookie + nonce) holding `adminPermission`
 * is exempt (DESIGN §9).
 */
export function hourlyClass(resource: string, kind: RequestClass, adminPermission: Permission): RateLimitRule {
  return {
    name: `${resource}:${kind}`,
    points: async (ctx) => (await ctx.host.options.get('hourly_request_limits', {}))[kind] ?? HOURLY_LIMITS[kind],
    durationSeconds: 3600,
    batched: true,
    exempt: (ctx) => ctx.auth.method === 'cookie' && ctx.can(adminPermission),
  };
}
