import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { IntegerIn, MAX_INT } from './schema';

export interface Page<T> {
  current_page: number;
  data: T[];
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

export interface PageLimits {
  min?: number;
  max: number;
  default: number;
}

/** A number that is clamped rather than refused (page, page size, limit, offset): any integer, or any text. */
export const clamped = () => Type.Union([IntegerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER), Type.String()]);

/** Query properties for `page` and `per_page`: anything is accepted, then clamped by `readPage`. */
export const pageQuery = {
  page: Type.Optional(clamped()),
  per_page: Type.Optional(clamped()),
};

function toInt(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Page number and size from a query, clamped to the limits (out-of-range values are clamped, not errors); the page to
 * 1 … `MAX_INT`, so its offset stays an exact integer the databases accept.
 */
export function readPage(query: { page?: unknown; per_page?: unknown }, limits: PageLimits): { page: number; perPage: number } {
  const min = limits.min ?? 1;
  const size = toInt(query.per_page);
  const page = toInt(query.page);
  return {
    perPage: size === null ? limits.default : Math.min(limits.max, Math.max(min, size)),
    page: page === null || page < 1 ? 1 : Math.min(page, MAX_INT),
  };
}

/**
 * The rows of one page as a size and an offset: `limit` + `offset` when `limit` is given (`limit` clamped like a page
 * size), otherwise `page` + `per_page` (see `readPage`), which an `offset` given alone replaces as the start.
 */
export function readWindow(
  query: { page?: unknown; per_page?: unknown; limit?: unknown; offset?: unknown },
  limits: PageLimits,
): { size: number; offset: number } {
  const offset = toInt(query.offset);
  const limit = toInt(query.limit);
  if (limit !== null) return { size: Math.min(limits.max, Math.max(limits.min ?? 1, limit)), offset: Math.max(0, offset ?? 0) };
  const { page, perPage } = readPage(query, limits);
  return { size: perPage, offset: Math.max(0, offset ?? (page - 1) * perPage) };
}

export function pageOf<T>(data: T[], total: number, page: number, perPage: number): Page<T> {
  const from = data.length ? (page - 1) * perPage + 1 : null;
  return {
    current_page: page,
    data,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
    from,
    to: from === null ? null : from + data.length - 1,
  };
}

type Statement = { grouping: string; distinct?: boolean; distinctOn?: boolean };

/** Whether the rows of a query are groups or distinct values, which `count(*)` over its table would miscount. */
function countsGroups(query: Knex.QueryBuilder): boolean {
  const statements = (query as unknown as { _statements?: Statement[] })._statements ?? [];
  return statements.some(
    (s) => s.grouping === 'group' || s.grouping === 'having' || s.grouping === 'union' || (s.grouping === 'columns' && (s.distinct || s.distinctOn)),
  );
}

/**
 * Runs a list query as one page: a count over the same filters, then the rows of that page. A grouped or
 * `distinct` query is counted as a subquery (one per group / distinct row); a `limit`/`offset` already on the
 * query is ignored by the count and replaced for the rows. `cachedTotal` may answer the count from a cache.
 */
export async function paginate<Row>(
  query: Knex.QueryBuilder,
  page: number,
  perPage: number,
  cachedTotal?: (count: () => Promise<number>) => Promise<number>,
): Promise<Page<Row>> {
  const count = async () => {
    const base = query.clone().clear('order').clear('limit').clear('offset');
    const counter = countsGroups(query)
      ? query.client.queryBuilder().count({ total: '*' }).from(base.as('page_count'))
      : base.clearSelect().count({ total: '*' });
    const counted = (await counter.first()) as { total: number | string } | undefined;
    return Number(counted?.total ?? 0);
  };
  const total = await (cachedTotal ? cachedTotal(count) : count());
  const rows = (await query
    .clone()
    .limit(perPage)
    .offset((page - 1) * perPage)) as Row[];
  return pageOf(rows, total, page, perPage);
}

/**
 * The total of an unfiltered list, reused for `ttlMs` while its `version` is unchanged (e.g. how many created and
 * deleted hooks ran in this process). Counting every row costs MariaDB ~16 ms a page at 100k rows (~190 ms at 1M
 * orders); another process's writes show once the TTL has passed. One count runs at a time: when only the TTL has
 * passed, callers get the last total while it runs, so a busy list never stalls on a pile of identical counts.
 */
export class TotalCache {
  private cached: { total: number; version: number; until: number } | null = null;
  private counting: { version: number; total: Promise<number> } | null = null;

  constructor(private readonly ttlMs: number) {}

  async get(version: number, now: number, count: () => Promise<number>): Promise<number> {
    const hit = this.cached;
    if (hit && hit.version === version && now < hit.until) return hit.total;
    const fresh = this.recount(version, now, count);
    if (hit && hit.version === version) {
      fresh.catch(() => undefined);
      return hit.total;
    }
    return fresh;
  }

  private recount(version: number, now: number, count: () => Promise<number>): Promise<number> {
    if (this.counting?.version === version) return this.counting.total;
    const total = count().then((n) => {
      this.cached = { total: n, version, until: now + this.ttlMs };
      return n;
    });
    const running = { version, total };
    this.counting = running;
    const done = () => {
      if (this.counting === running) this.counting = null;
    };
    total.then(done, done);
    return total;
  }
}

/** One list's unfiltered totals, per database and view (`active_view`), each a `TotalCache` kept `ttlMs`. */
export function totalCaches(ttlMs = 5000): (db: Knex, view: string) => TotalCache {
  const byDb = new WeakMap<Knex, Map<string, TotalCache>>();
  return (db, view) => {
    let byView = byDb.get(db);
    if (!byView) byDb.set(db, (byView = new Map()));
    let cache = byView.get(view);
    if (!cache) byView.set(view, (cache = new TotalCache(ttlMs)));
    return cache;
  };
}
