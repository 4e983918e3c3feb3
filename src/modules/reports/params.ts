import type { Ctx } from '../../core/context';
import { rejected, type FieldErrors } from '../../core/errors';
import { isTimeZone, zonedToUtc } from '../../core/time';
import { ORDER_STATUSES, PAYMENT_STATUS_ALIASES } from '../orders/state';
import { getPaymentSettings } from '../settings/payment-settings';
import { getStoreSettings } from '../settings/store-settings';
import { COMPARE_TYPES, comparisonRange, type CompareType } from './compare';
import { addDays, parseDate, today } from './engine/calendar';
import { EXCLUDED_BY_ALL, REPORT_PAYMENT_STATUSES, type Interval, type ReportFilters } from './types';

export type { CompareType } from './compare';

export const GROUP_KEYS = ['default', 'monthly', 'yearly', 'billing_country', 'shipping_country', 'payment_method', 'payment_status'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

/** The standard report parameters, checked and normalised (spec: "Standard report parameters, sent as params[...]"). */
export interface ReportParams {
  /** Local dates in `tz`, inclusive. */
  startDate: string;
  endDate: string;
  /** The UTC instants of the range's local boundaries, half-open. */
  range: Interval;
  tz: string;
  groupKey: GroupKey;
  filters: ReportFilters;
  compare: { type: CompareType; startDate: string; endDate: string; range: Interval } | null;
  subscriptionType: string;
}

/** `orderTypes` spellings → stored order types. */
const ORDER_TYPE_INPUTS: Record<string, string> = { 'one-time': 'payment', payment: 'payment', subscription: 'subscription', renewal: 'renewal' };
const MAX_VARIATIONS = 100;
const DEFAULT_DAYS = 30;
/** Buckets and slots stay meaningful (and bounded) inside these years. */
const FIRST_YEAR = 1970;
const LAST_YEAR = 2099;
const DATE_INPUT = /^(\d{4}-\d{2}-\d{2})(?:[ T]([01]\d|2[0-3]):[0-5]\d:[0-5]\d)?$/;

const list = (values: readonly string[]) => values.join(', ');

/** Collects every parameter's failure so one 422 names them all. */
class Problems {
  readonly errors: FieldErrors = {};
  add(name: string, rule: string, message: string): undefined {
    this.errors[`params.${name}`] ??= { [rule]: message };
    return undefined;
  }
  has(name: string): boolean {
    return `params.${name}` in this.errors;
  }
}

/** A scalar parameter: absent or empty → undefined; anything but one string is refused. */
function scalar(source: Record<string, unknown>, name: string, problems: Problems): string | undefined {
  const value = source[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') return problems.add(name, 'string', `Invalid ${name}: expected a single text value.`);
  return value;
}

/** A list parameter: one value or an array of values (`orderTypes=renewal` or `orderTypes[]=renewal`); nested values are refused. */
function array(source: Record<string, unknown>, name: string, problems: Problems): string[] | undefined {
  const value = source[name];
  if (value === undefined || value === '') return undefined;
  const values = Array.isArray(value) ? value : [value];
  if (!values.every((item): item is string => typeof item === 'string')) return problems.add(name, 'array', `Invalid ${name}: expected a list of text values.`);
  return values.filter((item) => item !== '');
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T, problems: Problems): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.add(name, 'in', `Invalid ${name}: expected one of ${list(allowed)}.`);
  return fallback;
}

/** `YYYY-MM-DD` (a time after it is accepted and ignored) → the date, or undefined after recording the problem. */
function date(name: string, value: string | undefined, problems: Problems): string | undefined {
  if (value === undefined) return undefined;
  const match = DATE_INPUT.exec(value.trim());
  const parsed = match ? parseDate(match[1]) : null;
  if (!match || !parsed) return problems.add(name, 'date', `Invalid ${name}: expected a real date as YYYY-MM-DD.`);
  const year = parsed.getUTCFullYear();
  if (year < FIRST_YEAR || year > LAST_YEAR)
    return problems.add(name, 'date', `Invalid ${name}: expected a date between ${FIRST_YEAR}-01-01 and ${LAST_YEAR}-12-31.`);
  return match[1];
}

/** The caller's time zone: `user_tz` when given (an unknown zone is refused), else the site's, else UTC. */
export async function reportTimeZone(ctx: Ctx, query: Record<string, unknown>): Promise<string> {
  const given = query.user_tz;
  if (given !== undefined && given !== '') {
    if (isTimeZone(given)) return given;
    throw rejected({ user_tz: { timezone: 'Invalid user_tz: expected an IANA time zone such as Europe/Berlin.' } });
  }
  const site = ctx.host.site.timezone;
  return isTimeZone(site) ? site : 'UTC';
}

/** The store currency (store settings) and the current payment mode (payment settings). */
export async function reportDefaults(ctx: Ctx): Promise<{ currency: string; mode: 'live' | 'test' }> {
  const [store, payments] = await Promise.all([getStoreSettings(ctx.host), getPaymentSettings(ctx.host)]);
  return { currency: store.currency.toUpperCase(), mode: payments.mode };
}

function localRange(startDate: string, endDate: string, tz: string): Interval {
  return { from: zonedToUtc(startDate, tz), to: zonedToUtc(addDays(endDate, 1), tz) };
}

function filters(params: Record<string, unknown>, defaults: { currency: string; mode: 'live' | 'test' }, problems: Problems): ReportFilters {
  const mode = oneOf('filterMode', scalar(params, 'filterMode', problems), ['live', 'test'] as const, defaults.mode, problems);

  const currencyInput = scalar(params, 'currency', problems);
  if (currencyInput !== undefined && !/^[A-Za-z]{3}$/.test(currencyInput))
    problems.add('currency', 'regex', 'Invalid currency: expected a three-letter ISO 4217 code such as USD.');
  const currency = currencyInput && !problems.has('currency') ? currencyInput.toUpperCase() : defaults.currency;

  const typeInputs = array(params, 'orderTypes', problems) ?? [];
  const unknownTypes = typeInputs.filter((type) => !(type in ORDER_TYPE_INPUTS));
  if (unknownTypes.length) problems.add('orderTypes', 'in', `Invalid orderTypes: ${list(unknownTypes)}; expected any of one-time, subscription, renewal.`);
  const types = typeInputs.length ? [...new Set(typeInputs.map((type) => ORDER_TYPE_INPUTS[type]).filter(Boolean))] : ['payment', 'subscription', 'renewal'];

  const statusInputs = array(params, 'orderStatus', problems) ?? [];
  const statusChoices = ['all', ...ORDER_STATUSES];
  const unknownStatuses = statusInputs.filter((status) => !statusChoices.includes(status));
  if (unknownStatuses.length) problems.add('orderStatus', 'in', `Invalid orderStatus: ${list(unknownStatuses)}; expected any of ${list(statusChoices)}.`);
  const counted = statusInputs.filter((status) => status !== 'all');
  const excludeStatuses = !counted.length || statusInputs.includes('all') ? [...EXCLUDED_BY_ALL] : ORDER_STATUSES.filter((status) => !counted.includes(status));

  const paymentInputs = (array(params, 'paymentStatus', problems) ?? []).map((status) => PAYMENT_STATUS_ALIASES[status] ?? status);
  const unknownPayments = paymentInputs.filter((status) => !(REPORT_PAYMENT_STATUSES as readonly string[]).includes(status));
  if (unknownPayments.length)
    problems.add('paymentStatus', 'in', `Invalid paymentStatus: ${list(unknownPayments)}; expected any of ${list(REPORT_PAYMENT_STATUSES)}.`);
  const paymentStatuses = paymentInputs.length ? [...new Set(paymentInputs)] : [...REPORT_PAYMENT_STATUSES];

  const variationInputs = array(params, 'variation_ids', problems) ?? [];
  if (variationInputs.some((id) => !/^[1-9]\d{0,9}$/.test(id) || Number(id) > 4_294_967_295)) {
    problems.add('variation_ids', 'integer', 'Invalid variation_ids: expected positive whole numbers.');
  } else if (variationInputs.length > MAX_VARIATIONS) {
    problems.add('variation_ids', 'max', `Invalid variation_ids: expected at most ${MAX_VARIATIONS} ids.`);
  }
  const variationIds = problems.has('variation_ids') ? [] : [...new Set(variationInputs.map(Number))];

  return { mode, currency, excludeStatuses, types, paymentStatuses, variationIds };
}

/**
 * Reads the standard report parameters (`params[startDate]`, …) and `user_tz`; every bad one is named in one 422,
 * never replaced by a default. Endpoint-specific parameters are left to the endpoint.
 */
export async function parseReportParams(ctx: Ctx, query: Record<string, unknown>): Promise<ReportParams> {
  const tz = await reportTimeZone(ctx, query);
  const problems = new Problems();
  const raw = query.params ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw rejected({ params: { array: 'Invalid params: expected named report parameters such as params[startDate].' } });
  }
  const params = raw as Record<string, unknown>;
  const defaults = await reportDefaults(ctx);

  const startInput = date('startDate', scalar(params, 'startDate', problems), problems);
  const endInput = date('endDate', scalar(params, 'endDate', problems), problems);
  const endDate = endInput ?? today(tz, ctx.clock.now());
  const startDate = startInput ?? addDays(endDate, -(DEFAULT_DAYS - 1));
  if (startInput && endInput && endInput < startInput) problems.add('endDate', 'after_or_equal', 'Invalid endDate: expected a date on or after startDate.');
  else if (startInput && !endInput && endDate < startInput)
    problems.add('startDate', 'before_or_equal', 'Invalid startDate: expected a date on or before today when endDate is not given.');

  const groupKey = oneOf('groupKey', scalar(params, 'groupKey', problems), GROUP_KEYS, 'default', problems);
  const reportFilters = filters(params, defaults, problems);
  const subscriptionType = scalar(params, 'subscriptionType', problems) ?? 'subscription';

  const compareInput = scalar(params, 'compareType', problems);
  const compareType = compareInput === undefined ? undefined : oneOf('compareType', compareInput, COMPARE_TYPES, 'previous_period', problems);
  const compareDate = date('compareDate', scalar(params, 'compareDate', problems), problems);
  if (compareType === 'custom' && !compareDate && !problems.has('compareDate')) {
    problems.add('compareDate', 'required', 'Invalid compareDate: required (YYYY-MM-DD, the first day of the comparison) when compareType is custom.');
  }

  if (Object.keys(problems.errors).length) throw rejected(problems.errors);
  const comparison = compareType && !problems.has('compareType') ? comparisonRange(compareType, { startDate, endDate }, compareDate) : null;
  return {
    startDate,
    endDate,
    range: localRange(startDate, endDate, tz),
    tz,
    groupKey,
    filters: reportFilters,
    compare: comparison && compareType ? { type: compareType, ...comparison, range: localRange(comparison.startDate, comparison.endDate, tz) } : null,
    subscriptionType,
  };
}
