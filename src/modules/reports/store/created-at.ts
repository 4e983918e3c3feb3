import { invalid } from '../../../core/errors';
import { addDays } from '../engine/calendar';
import { localDate } from './inputs';

/**
 * `params[created_at]` of `/reports/report-overview`: `{column: 'created_at', operator, value}` on local days,
 * with operators `=`, `>`, `>=`, `<`, `<=` (value one date) and `between` (value `[from, to]`, inclusive).
 */
export const CREATED_AT_OPERATORS = ['=', '>', '>=', '<', '<=', 'between'] as const;
type Operator = (typeof CREATED_AT_OPERATORS)[number];

/** Local dates, inclusive; an open end is null (the caller closes it at the first or last order). */
export interface DayBounds {
  from: string | null;
  to: string | null;
}

const FIELD = 'params.created_at';

function field(condition: Record<string, unknown>, name: string): unknown {
  const value = condition[name];
  if (value === undefined || value === '') throw invalid(`${FIELD}.${name}`, 'required', `Invalid ${FIELD}: ${name} is required.`);
  return value;
}

function oneDate(value: unknown, name: string): string {
  const date = localDate(value);
  if (!date) throw invalid(`${FIELD}.${name}`, 'date', `Invalid ${FIELD}: ${name} must be a real date as YYYY-MM-DD.`);
  return date;
}

/** The days a condition selects; a malformed condition is a 422 naming the part at fault. */
export function parseCreatedAt(input: unknown): DayBounds {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid(FIELD, 'array', `Invalid ${FIELD}: expected column, operator and value, as params[created_at][operator]=>=.`);
  }
  const condition = input as Record<string, unknown>;
  if (field(condition, 'column') !== 'created_at') throw invalid(`${FIELD}.column`, 'in', `Invalid ${FIELD}: column must be created_at.`);
  const operator = field(condition, 'operator');
  if (!(CREATED_AT_OPERATORS as readonly unknown[]).includes(operator)) {
    throw invalid(`${FIELD}.operator`, 'in', `Invalid ${FIELD}: operator must be one of ${CREATED_AT_OPERATORS.join(', ')}.`);
  }
  const value = field(condition, 'value');
  switch (operator as Operator) {
    case 'between': {
      if (!Array.isArray(value) || value.length !== 2) throw invalid(`${FIELD}.value`, 'array', `Invalid ${FIELD}: between needs value as [from, to].`);
      const [from, to] = [oneDate(value[0], 'value'), oneDate(value[1], 'value')];
      if (to < from) throw invalid(`${FIELD}.value`, 'after_or_equal', `Invalid ${FIELD}: the second date of between must not be before the first.`);
      return { from, to };
    }
    case '=': {
      const day = oneDate(value, 'value');
      return { from: day, to: day };
    }
    case '>':
      return { from: addDays(oneDate(value, 'value'), 1), to: null };
    case '>=':
      return { from: oneDate(value, 'value'), to: null };
    case '<':
      return { from: null, to: addDays(oneDate(value, 'value'), -1) };
    case '<=':
      return { from: null, to: oneDate(value, 'value') };
  }
}
