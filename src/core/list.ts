import { Type, type TProperties } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { Ctx } from './context';
import { ownEntry } from './lookup';
import { paginate, pageQuery, readPage, type Page, type PageLimits } from './page';
import { applySearch, parseSearch, type SearchSpec } from './search';

/** The query of an admin list: page, per_page, search, sort_by, sort_type, plus the route's own filters. */
export function listQuery<P extends TProperties>(extra: P = {} as P) {
  return Type.Object({
    ...pageQuery,
    search: Type.Optional(Type.String({ maxLength: 500 })),
    sort_by: Type.Optional(Type.String()),
    sort_type: Type.Optional(Type.String()),
    user_tz: Type.Optional(Type.String()),
    ...extra,
  });
}

export interface ListSpec {
  limits: PageLimits;
  /** Sortable public column → SQL column; anything else falls back to `defaultSort`. */
  sortable: Record<string, string>;
  defaultSort: string;
  search?: SearchSpec;
}

export interface ListInput {
  page?: unknown;
  per_page?: unknown;
  search?: string;
  sort_by?: string;
  sort_type?: string;
}

/** Applies search, an allowlisted sort (ties broken by id) and pagination to a list query. */
export async function runList<Row>(
  ctx: Ctx,
  query: Knex.QueryBuilder,
  input: ListInput,
  spec: ListSpec,
  idColumn = 'id',
  cachedTotal?: (count: () => Promise<number>) => Promise<number>,
): Promise<Page<Row>> {
  if (spec.search) applySearch(query, parseSearch(input.search), spec.search, ctx.tz);
  const column = ownEntry(spec.sortable, String(input.sort_by ?? '')) ?? spec.sortable[spec.defaultSort];
  const direction = String(input.sort_type).toLowerCase() === 'asc' ? 'asc' : 'desc';
  query.orderBy(column, direction);
  if (column !== idColumn) query.orderBy(idColumn, direction);
  const { page, perPage } = readPage(input, spec.limits);
  return paginate<Row>(query, page, perPage, cachedTotal);
}
