import type { Knex } from 'knex';
import { dialect, escapeLike } from '../../core/db';
import { invalid } from '../../core/errors';
import { localDayRange, toTimestamp, zonedToUtc } from '../../core/time';

/**
 * Advanced filters (`filter_type=advanced`, `advanced_filters=<JSON>`): an array of groups, each group an array of
 * conditions `{property, operator, value}`. Conditions inside a group must all hold (AND); a record matches when any
 * group holds (OR). A flat array of conditions is read as one group.
 *
 *   [[{"property": "ltv", "operator": ">=", "value": 10000}, {"property": "labels", "operator": "in", "value": [3]}],
 *    [{"property": "order_items", "operator": "in", "value": [12, 14]}]]
 *
 * Operators by kind of property:
 * - text: `=`, `!=` (case-insensitive), `contains`, `not_contains`, `starts_with`, `ends_with`; value a string
 * - number: `=`, `!=`, `>`, `>=`, `<`, `<=` with a number, `between` with `[min, max]` (inclusive)
 * - date: `=`, `!=`, `>`, `>=`, `<`, `<=` with `YYYY-MM-DD` (a whole day in `user_tz`) or `YYYY-MM-DD HH:MM:SS`
 *   (an instant in `user_tz`), `between` with `[from, to]` (inclusive days), `in_last_days` with a whole number,
 *   `is_empty` / `not_empty` (no value)
 * - ids (order items, labels): `in` (any of them), `not_in` (none of them), `all` (every one); value an array of ids
 * - choice (statuses, types): `in`, `not_in` with an array of strings (or one string)
 *
 * Anything else (not JSON, another shape, an unknown property or operator, a value of the wrong kind) is a 422 naming
 * `advanced_filters`; no part of the input reaches SQL except as a binding.
 */

export type FilterKind = 'text' | 'number' | 'date' | 'ids' | 'choice';

export interface FilterProperty {
  kind: FilterKind;
  /** Trusted SQL of the value (a qualified column or an expression built from columns), for scalar kinds. */
  sql?: (db: Knex | Knex.Transaction) => string;
  /** `ids` kind: narrows `query` to rows related to one of `ids` (`whereExists`), or negated by the caller. */
  related?: (sub: Knex.QueryBuilder, ids: number[]) => Knex.QueryBuilder;
  /** `choice` kind: the allowed values, when the set is closed. */
  choices?: readonly string[];
}

const OPERATORS: Record<FilterKind, readonly string[]> = {
  text: ['=', '!=', 'contains', 'not_contains', 'starts_with', 'ends_with'],
  number: ['=', '!=', '>', '>=', '<', '<=', 'between'],
  date: ['=', '!=', '>', '>=', '<', '<=', 'between', 'in_last_days', 'is_empty', 'not_empty'],
  ids: ['in', 'not_in', 'all'],
  choice: ['in', 'not_in'],
};

interface Condition {
  property: string;
  operator: string;
  value: unknown;
}

export interface FilterContext {
  /** The caller's `user_tz`. */
  zone: string;
  now: Date;
}

const MAX_GROUPS = 20;
const MAX_CONDITIONS = 20;

function refuse(rule: string, message: string): never {
  throw invalid('advanced_filters', rule, message);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$/;

/** A date value as the UTC instants it covers: a bare date is the whole local day, a date-time one instant. */
function dateBounds(value: unknown, zone: string): [string, string] | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  try {
    if (DATE_ONLY.test(v)) return localDayRange(v, v, zone);
    if (DATE_TIME.test(v)) {
      const instant = zonedToUtc(v.replace('T', ' '), zone);
      return [instant, instant];
    }
  } catch {
    // not a real calendar date
  }
  return null;
}

/** A finite number no larger in size than `Number.MAX_SAFE_INTEGER`: `Infinity` (from 400 digits) would reach SQL unquoted. */
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER;
const toNumber = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
  return isNumber(n) ? n : null;
};

/** Checks one condition and returns it with its value normalised. */
function checkCondition(raw: unknown, properties: Record<string, FilterProperty>, ctx: FilterContext): Condition {
  if (!isObject(raw)) refuse('array', 'Each advanced filter must be an object with property, operator and value.');
  const property = raw.property;
  if (typeof property !== 'string' || !Object.prototype.hasOwnProperty.call(properties, property)) {
    refuse('in', `Unknown advanced filter "${String(property)}". Known filters: ${Object.keys(properties).join(', ')}.`);
  }
  const def = properties[property];
  const operator = raw.operator;
  if (typeof operator !== 'string' || !OPERATORS[def.kind].includes(operator)) {
    refuse('operator', `The operator "${String(operator)}" is not supported for ${property}. Use one of: ${OPERATORS[def.kind].join(', ')}.`);
  }
  const value = raw.value;
  const bad = (what: string): never => refuse('value', `The value of the ${property} filter must be ${what}.`);
  switch (def.kind) {
    case 'text':
      if (typeof value !== 'string' && !isNumber(value)) bad('a string');
      if (String(value).length > 255) bad('at most 255 characters');
      return { property, operator, value: String(value) };
    case 'number': {
      if (operator === 'between') {
        const range = Array.isArray(value) && value.length === 2 ? value.map(toNumber) : null;
        if (!range || range[0] === null || range[1] === null) bad('an array of two numbers');
        return { property, operator, value: range };
      }
      const n = toNumber(value);
      if (n === null) bad('a number');
      return { property, operator, value: n };
    }
    case 'date': {
      if (operator === 'is_empty' || operator === 'not_empty') return { property, operator, value: null };
      if (operator === 'in_last_days') {
        const days = toNumber(value);
        if (days === null || !Number.isInteger(days) || days < 1 || days > 36500) bad('a whole number of days');
        return { property, operator, value: days };
      }
      if (operator === 'between') {
        const ends = Array.isArray(value) && value.length === 2 ? value.map((v) => dateBounds(v, ctx.zone)) : null;
        if (!ends || !ends[0] || !ends[1]) return bad('an array of two dates (YYYY-MM-DD)');
        return { property, operator, value: [ends[0][0], ends[1][1]] };
      }
      const bounds = dateBounds(value, ctx.zone);
      if (!bounds) bad('a date (YYYY-MM-DD or YYYY-MM-DD HH:MM:SS)');
      return { property, operator, value: bounds };
    }
    case 'ids': {
      const list = Array.isArray(value) ? value : [value];
      const ids = list.map(toNumber);
      if (!list.length || list.length > 500 || ids.some((id) => id === null || !Number.isSafeInteger(id) || id < 1)) bad('an array of ids');
      return { property, operator, value: [...new Set(ids as number[])] };
    }
    case 'choice': {
      const list = Array.isArray(value) ? value : [value];
      if (!list.length || list.length > 50 || list.some((v) => typeof v !== 'string' || !v || v.length > 100)) bad('an array of values');
      if (def.choices && list.some((v) => !def.choices!.includes(v as string))) bad(`one or more of: ${def.choices.join(', ')}`);
      return { property, operator, value: list };
    }
  }
}

/** Parses and checks `advanced_filters`; every refusal is a 422 naming the field. */
export function parseAdvancedFilters(text: string | undefined, properties: Record<string, FilterProperty>, ctx: FilterContext): Condition[][] {
  if (text === undefined || text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    refuse('json', 'The advanced filters field must be valid JSON.');
  }
  if (!Array.isArray(parsed)) refuse('array', 'The advanced filters field must be an array of filter groups.');
  const groups = parsed.length && parsed.every(isObject) ? [parsed] : parsed;
  if (groups.length > MAX_GROUPS) refuse('max', `The advanced filters field may have at most ${MAX_GROUPS} groups.`);
  return groups.map((group) => {
    if (!Array.isArray(group)) refuse('array', 'The advanced filters field must be an array of filter groups.');
    if (group.length > MAX_CONDITIONS) refuse('max', `A group of advanced filters may have at most ${MAX_CONDITIONS} conditions.`);
    return group.map((raw) => checkCondition(raw, properties, ctx));
  });
}

function applyCondition(q: Knex.QueryBuilder, db: Knex | Knex.Transaction, def: FilterProperty, c: Condition, ctx: FilterContext): void {
  if (def.kind === 'ids') {
    const ids = c.value as number[];
    const exists = (sub: Knex.QueryBuilder, list: number[]) => def.related!(sub, list);
    if (c.operator === 'in') q.whereExists((sub) => exists(sub, ids));
    else if (c.operator === 'not_in') q.whereNotExists((sub) => exists(sub, ids));
    else for (const id of ids) q.whereExists((sub) => exists(sub, [id]));
    return;
  }
  const sql = def.sql!(db);
  switch (def.kind) {
    case 'choice':
      if (c.operator === 'in') q.whereRaw(`${sql} in (${(c.value as string[]).map(() => '?').join(', ')})`, c.value as string[]);
      else q.whereRaw(`${sql} not in (${(c.value as string[]).map(() => '?').join(', ')})`, c.value as string[]);
      return;
    case 'text': {
      const v = c.value as string;
      const like = (pattern: string, not = false) => q.whereRaw(`${not ? 'not ' : ''}(${sql} like ? escape '!')`, [pattern]);
      if (c.operator === '=') q.whereRaw(`lower(${sql}) = ?`, [v.toLowerCase()]);
      else if (c.operator === '!=') q.whereRaw(`lower(${sql}) <> ?`, [v.toLowerCase()]);
      else if (c.operator === 'contains') like(`%${escapeLike(v)}%`);
      else if (c.operator === 'not_contains') like(`%${escapeLike(v)}%`, true);
      else if (c.operator === 'starts_with') like(`${escapeLike(v)}%`);
      else like(`%${escapeLike(v)}`);
      return;
    }
    case 'number':
      if (c.operator === 'between') {
        const [a, b] = c.value as number[];
        q.whereRaw(`${sql} between ? and ?`, [Math.min(a, b), Math.max(a, b)]);
      } else q.whereRaw(`${sql} ${c.operator === '!=' ? '<>' : c.operator} ?`, [c.value as number]);
      return;
    case 'date': {
      if (c.operator === 'is_empty') q.whereRaw(`${sql} is null`);
      else if (c.operator === 'not_empty') q.whereRaw(`${sql} is not null`);
      else if (c.operator === 'in_last_days') q.whereRaw(`${sql} >= ?`, [toTimestamp(new Date(ctx.now.getTime() - (c.value as number) * 86400_000))]);
      else {
        const [start, end] = c.value as [string, string];
        if (c.operator === 'between' || c.operator === '=') q.whereRaw(`${sql} between ? and ?`, [start, end]);
        else if (c.operator === '!=') q.whereRaw(`(${sql} is null or ${sql} not between ? and ?)`, [start, end]);
        else if (c.operator === '>') q.whereRaw(`${sql} > ?`, [end]);
        else if (c.operator === '>=') q.whereRaw(`${sql} >= ?`, [start]);
        else if (c.operator === '<') q.whereRaw(`${sql} < ?`, [start]);
        else q.whereRaw(`${sql} <= ?`, [end]);
      }
      return;
    }
  }
}

/** Narrows `query` to the rows matching any group (all conditions of a group holding). */
export function applyAdvancedFilters(
  query: Knex.QueryBuilder,
  db: Knex | Knex.Transaction,
  groups: Condition[][],
  properties: Record<string, FilterProperty>,
  ctx: FilterContext,
): void {
  const nonEmpty = groups.filter((g) => g.length);
  if (!nonEmpty.length) return;
  query.where((outer) => {
    for (const group of nonEmpty) {
      outer.orWhere((inner) => {
        for (const condition of group) applyCondition(inner, db, properties[condition.property], condition, ctx);
      });
    }
  });
}

/** `first_name last_name` as one SQL expression on either dialect. */
export function fullNameSql(db: Knex | Knex.Transaction, alias: string): string {
  return dialect(db) === 'mysql' ? `concat(${alias}.first_name, ' ', ${alias}.last_name)` : `(${alias}.first_name || ' ' || ${alias}.last_name)`;
}
