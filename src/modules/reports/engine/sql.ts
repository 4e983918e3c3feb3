import type { Knex } from 'knex';
import type { ReportFilters } from '../types';

/** A piece of SQL and its bindings. */
export interface Fragment {
  sql: string;
  bindings: Knex.Value[];
}

/**
 * `(a) OR (b) OR …` nested as a balanced tree, so that hundreds of ranges stay within SQLite's expression depth
 * limit (1000); both databases flatten nested ORs, and each term carries the index prefix in full so that each is
 * read as its own index range (SQLite's multi-index OR, MySQL's range access).
 */
export function anyOf(terms: Fragment[]): Fragment {
  if (terms.length === 1) return { sql: `(${terms[0].sql})`, bindings: terms[0].bindings };
  const middle = terms.length >> 1;
  const left = anyOf(terms.slice(0, middle));
  const right = anyOf(terms.slice(middle));
  return { sql: `(${left.sql} OR ${right.sql})`, bindings: [...left.bindings, ...right.bindings] };
}

/** The filters on the dimensions every family carries, the index prefix (mode, currency) excepted. */
export function whereDimensions(query: Knex.QueryBuilder, filters: ReportFilters, prefix: string): Knex.QueryBuilder {
  if (filters.excludeStatuses.length) query.whereNotIn(`${prefix}status`, filters.excludeStatuses);
  return query.whereIn(`${prefix}type`, filters.types).whereIn(`${prefix}payment_status`, filters.paymentStatuses);
}
