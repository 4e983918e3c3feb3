import type { Knex } from 'knex';
import { whereContains } from './db';
import { ownEntry } from './lookup';
import { localDayRange, zonedToUtc } from './time';

export type SearchOperator = '=' | '!=' | '>' | '<' | '>=' | '<=' | 'between' | 'contains' | 'not_contains';

export type SearchTerm =
  | { kind: 'empty' }
  | { kind: 'id'; id: number }
  | { kind: 'condition'; column: string; operator: SearchOperator; value: string; to?: string; raw: string }
  | { kind: 'text'; text: string };

const OPERATORS: Record<string, SearchOperator> = {
  '::': 'between',
  '>=': '>=',
  '<=': '<=',
  '!=': '!=',
  '<>': '!=',
  '!~': 'not_contains',
  '=': '=',
  '>': '>',
  '<': '<',
  '~': 'contains',
};

const CONDITION = /^([A-Za-z_][A-Za-z0-9_]*)\s*(::|>=|<=|!=|<>|!~|=|>|<|~)\s*(.+)$/s;

function unquote(value: string): string {
  const trimmed = value.trim();
  const quoted = /^(['"])(.*)\1$/s.exec(trimmed);
  return quoted ? quoted[2] : trimmed;
}

/** `1-10`, `1 - 10`, `1,10`, `2024-01-01 - 2024-02-01`, `2024-01-01-2024-02-01`. */
function splitRange(value: string): [string, string] | null {
  const spaced = value.split(/\s+-\s+|\s*,\s*/);
  if (spaced.length === 2 && spaced[0] && spaced[1]) return [unquote(spaced[0]), unquote(spaced[1])];
  const numbers = /^(-?\d+(?:\.\d+)?)-(-?\d+(?:\.\d+)?)$/.exec(value);
  if (numbers) return [numbers[1], numbers[2]];
  const dates = /^(\d{4}-\d{2}-\d{2})-(\d{4}-\d{2}-\d{2})$/.exec(value);
  if (dates) return [dates[1], dates[2]];
  return null;
}

/**
 * Parses the list `search` syntax: `#123` (an id), `column <op> value` with `=`, `!=`/`<>`, `>`, `<`, `>=`,
 * `<=`, `::` (between, `a-b`), `~` (contains), `!~` (does not contain), or free text. Pure: columns are
 * checked against an allowlist only when the term is applied.
 */
export function parseSearch(input: unknown): SearchTerm {
  if (typeof input !== 'string' && typeof input !== 'number') return { kind: 'empty' };
  const text = String(input).trim();
  if (!text) return { kind: 'empty' };
  const id = /^#\s*(\d+)$/.exec(text);
  if (id && Number.isSafeInteger(Number(id[1]))) return { kind: 'id', id: Number(id[1]) };
  const condition = CONDITION.exec(text);
  if (condition) {
    const operator = ownEntry(OPERATORS, condition[2])!;
    const value = unquote(condition[3]);
    if (operator === 'between') {
      // Split before unquoting: `"2024-01-01" - "2024-02-01"` is two quoted ends, not one quoted value.
      const range = splitRange(condition[3].trim()) ?? splitRange(value);
      if (range) return { kind: 'condition', column: condition[1].toLowerCase(), operator, value: range[0], to: range[1], raw: text };
    } else if (value !== '') {
      return { kind: 'condition', column: condition[1].toLowerCase(), operator, value, raw: text };
    }
  }
  return { kind: 'text', text };
}

export type ColumnKind = 'integer' | 'string' | 'date';

export interface SearchColumn {
  /** The SQL column (qualified where joins make it ambiguous). */
  column: string;
  kind: ColumnKind;
}

export interface SearchSpec {
  /** Columns the operator syntax may address, by their public name. */
  columns: Record<string, SearchColumn>;
  /** The id column `#123` matches. */
  idColumn: string;
  /** Free-text search; also used when a condition names a column outside the allowlist. */
  text(query: Knex.QueryBuilder, text: string): void;
}

function valueFits(kind: ColumnKind, value: string, operator: SearchOperator): boolean {
  // `~`/`!~` on a date column is a text match on the stored `YYYY-MM-DD HH:MM:SS` (`created_at ~ 2024-01`).
  if (kind === 'date' && (operator === 'contains' || operator === 'not_contains')) return true;
  // Integers beyond 2^53 would be rounded on their way to SQL and match a neighbouring id.
  if (kind === 'integer') return /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value));
  if (kind === 'date') return dateBounds(value, 'UTC') !== null;
  return true;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/;

/**
 * The UTC instants a date value stands for: a bare date is the whole local day in `zone` (first and last
 * second), a date-time is one instant. Null when the value is not a real date.
 */
function dateBounds(value: string, zone: string): [string, string] | null {
  try {
    if (DATE_ONLY.test(value)) return localDayRange(value, value, zone);
    if (DATE_TIME.test(value)) {
      const instant = zonedToUtc(value, zone);
      return [instant, instant];
    }
  } catch {
    // not a real calendar date (2024-02-30)
  }
  return null;
}

function applyDate(query: Knex.QueryBuilder, column: string, term: Extract<SearchTerm, { kind: 'condition' }>, zone: string): void {
  if (term.operator === 'contains' || term.operator === 'not_contains') {
    // a text match on the stored UTC text, `created_at ~ 2024-01`
    if (term.operator === 'contains') whereContains(query, column, term.value);
    else query.whereNot((q) => whereContains(q, column, term.value));
    return;
  }
  const [start, end] = dateBounds(term.value, zone)!;
  switch (term.operator) {
    case 'between':
      query.whereBetween(column, [start, dateBounds(term.to!, zone)![1]]);
      break;
    case '=':
      query.whereBetween(column, [start, end]);
      break;
    case '!=':
      query.whereNotBetween(column, [start, end]);
      break;
    case '>':
      query.where(column, '>', end);
      break;
    case '>=':
      query.where(column, '>=', start);
      break;
    case '<':
      query.where(column, '<', start);
      break;
    case '<=':
      query.where(column, '<=', end);
      break;
  }
}

/**
 * Applies a parsed term to a query; values only ever reach SQL as bindings. A condition on a column outside the
 * allowlist, or with a value the column cannot hold (text for an integer column), becomes a free-text search of
 * the whole term. On `date` columns a bare date means the whole day in `zone` (the caller's `user_tz`), so
 * `created_at = 2024-01-15` matches that day and `created_at :: 2024-01-01 - 2024-01-31` includes January 31.
 */
export function applySearch(query: Knex.QueryBuilder, term: SearchTerm, spec: SearchSpec, zone = 'UTC'): void {
  if (term.kind === 'empty') return;
  if (term.kind === 'id') {
    query.where(spec.idColumn, term.id);
    return;
  }
  if (term.kind === 'text') {
    spec.text(query, term.text);
    return;
  }
  const target = ownEntry(spec.columns, term.column);
  const fits = target && valueFits(target.kind, term.value, term.operator) && (term.to === undefined || valueFits(target.kind, term.to, term.operator));
  if (!target || !fits) {
    spec.text(query, term.raw);
    return;
  }
  if (target.kind === 'date') {
    applyDate(query, target.column, term, zone);
    return;
  }
  const cast = (v: string) => (target.kind === 'integer' ? Number(v) : v);
  switch (term.operator) {
    case 'between':
      query.whereBetween(target.column, [cast(term.value), cast(term.to!)]);
      break;
    case 'contains':
      whereContains(query, target.column, term.value);
      break;
    case 'not_contains':
      query.whereNot((q) => whereContains(q, target.column, term.value));
      break;
    default:
      query.where(target.column, term.operator, cast(term.value));
  }
}

/** Each way to read "Mary Ann Smith" as a first name and the start of a last name (at most 3), for name searches. */
export function nameSplits(text: string): Array<[string, string]> {
  const words = text.split(/\s+/).filter(Boolean);
  return words.slice(1, 4).map((_, i) => [words.slice(0, i + 1).join(' '), words.slice(i + 1).join(' ')]);
}
