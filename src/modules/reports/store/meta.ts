import type { Ctx } from '../../../core/context';
import { currencySymbol } from '../../../core/money';
import { parseReportParams, reportDefaults } from '../params';
import { FAMILIES } from '../types';
import { localDateOf, orderSpan } from './order-span';

export interface ReportMeta {
  currencies: Record<string, { code: string; sign: string }>;
  /** Local date (report time zone) of the first counted order in the mode; null when there is none. */
  min_date: string | null;
  storeMode: 'live' | 'test';
  /** UTC timestamp of that order. */
  first_order_date: string | null;
}

const sign = (code: string) => (/^[A-Z]{3}$/.test(code) ? currencySymbol(code) : code);

/**
 * `GET /reports/fetch-report-meta`: the currencies with counted orders in the selected payment mode (read from the
 * monthly sales summaries, a few rows per month) plus the store currency, and the first counted order of the mode.
 * The standard parameters are checked; only `filterMode` and `user_tz` change the answer.
 */
export async function reportMeta(ctx: Ctx, query: Record<string, unknown>): Promise<ReportMeta> {
  const [{ filters, tz }, defaults] = await Promise.all([parseReportParams(ctx, query), reportDefaults(ctx)]);
  const rows = (await ctx.db(FAMILIES.sales.table).distinct('currency').where({ grain: 'm', mode: filters.mode })) as Array<{ currency: string }>;
  const counted = rows.map((row) => row.currency);
  const codes = [...new Set([...counted, defaults.currency])].sort();
  const spans = await Promise.all(counted.map((currency) => orderSpan(ctx, { mode: filters.mode, currency })));
  const first = spans.reduce<string | null>((earliest, span) => (span.first && (!earliest || span.first < earliest) ? span.first : earliest), null);
  return {
    currencies: Object.fromEntries(codes.map((code) => [code, { code, sign: sign(code) }])),
    min_date: first ? localDateOf(first, tz) : null,
    storeMode: defaults.mode,
    first_order_date: first,
  };
}
