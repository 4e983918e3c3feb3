import { countryName } from '../../../core/address';
import type { Ctx } from '../../../core/context';
import { timeBuckets } from '../buckets';
import { fluctuations } from '../compare';
import { aggregate } from '../engine/aggregate';
import { addDays, addMonths, today } from '../engine/calendar';
import { parseReportParams } from '../params';
import { netRevenue } from '../summary';
import type { ReportFilters } from '../types';
import { dayInterval } from './inputs';

/** Spec: "last 30 months, 12-month year-over-year comparison, top 5 countries". */
const MONTHS = 30;
const YEAR = 12;
const TOP_COUNTRIES = 5;

interface MonthTotal {
  year: string;
  month: number;
  group: string;
  total: number;
}

interface QuarterTotal {
  year: string;
  quarter: number;
  group: string;
  total: number;
}

interface YearOverYear {
  current: number;
  previous: number;
  fluctuation: number | null;
}

interface CountryTotal {
  country: string;
  country_name: string;
  total: number;
}

export interface Overview {
  gross_revenue: MonthTotal[];
  gross_revenue_quarterly: QuarterTotal[];
  net_revenue: MonthTotal[];
  net_revenue_quarterly: QuarterTotal[];
  gross_summary: YearOverYear;
  net_summary: YearOverYear;
  top_country_net: CountryTotal[];
  top_country_gross: CountryTotal[];
}

interface MonthFigures {
  year: string;
  group: string;
  gross: number;
  net: number;
}

const quarterOf = (group: string) => Math.floor((Number(group.slice(5, 7)) - 1) / 3) + 1;

/** The months from the start of the quarter holding the first of the last 30 months to the current one, with gross and net. */
async function monthFigures(ctx: Ctx, filters: ReportFilters, tz: string): Promise<MonthFigures[]> {
  const thisMonth = `${today(tz, ctx.clock.now()).slice(0, 7)}-01`;
  const first = addMonths(thisMonth, -(MONTHS - 1));
  const quarterStart = `${first.slice(0, 5)}${String((quarterOf(first.slice(0, 7)) - 1) * 3 + 1).padStart(2, '0')}-01`;
  const { buckets } = timeBuckets({ startDate: quarterStart, endDate: addDays(addMonths(thisMonth, 1), -1) }, tz, 'monthly');
  const rows = await aggregate(ctx, { family: 'sales', filters, buckets });
  const figures = buckets.map(({ year, group }) => ({ year, group, gross: 0, net: 0 }));
  for (const { bucket, metrics } of rows) {
    figures[bucket].gross += metrics.gross;
    figures[bucket].net += netRevenue(metrics);
  }
  return figures;
}

function quarters(months: MonthFigures[], measure: 'gross' | 'net'): QuarterTotal[] {
  const out: QuarterTotal[] = [];
  for (const month of months) {
    const quarter = quarterOf(month.group);
    const group = `${month.year}-Q${quarter}`;
    const last = out[out.length - 1];
    if (last?.group === group) last.total += month[measure];
    else out.push({ year: month.year, quarter, group, total: month[measure] });
  }
  return out;
}

function yearOverYear(months: MonthFigures[], measure: 'gross' | 'net'): YearOverYear {
  const sum = (list: MonthFigures[]) => list.reduce((total, month) => total + month[measure], 0);
  const current = sum(months.slice(-YEAR));
  const previous = sum(months.slice(-2 * YEAR, -YEAR));
  return { current, previous, fluctuation: fluctuations({ total: current }, { total: previous }).total };
}

/** The five billing countries with the largest gross and net revenue over the last 12 months (`''` is `unknown`). */
async function topCountries(ctx: Ctx, filters: ReportFilters, tz: string): Promise<Pick<Overview, 'top_country_gross' | 'top_country_net'>> {
  const thisMonth = `${today(tz, ctx.clock.now()).slice(0, 7)}-01`;
  const range = dayInterval(addMonths(thisMonth, -(YEAR - 1)), addDays(addMonths(thisMonth, 1), -1), tz);
  const rows = await aggregate(ctx, { family: 'groups', filters, buckets: [range], groupBy: ['billing_country'] });
  const countries = rows.map(({ dims, metrics }) => {
    const code = String(dims.billing_country ?? '');
    return { country: code || 'unknown', country_name: code ? countryName(code) : 'Unknown', gross: metrics.gross, net: netRevenue(metrics) };
  });
  const top = (measure: 'gross' | 'net'): CountryTotal[] =>
    [...countries]
      .sort((a, b) => b[measure] - a[measure] || a.country.localeCompare(b.country))
      .slice(0, TOP_COUNTRIES)
      .map(({ country, country_name, ...figures }) => ({ country, country_name, total: figures[measure] }));
  return { top_country_gross: top('gross'), top_country_net: top('net') };
}

/**
 * `GET /reports/overview`: monthly and quarterly gross and net revenue over the last 30 calendar months of the
 * report's time zone (the current month included), the last 12 months against the 12 before, and the top billing
 * countries. The standard filters apply; the date range parameters do not (the periods are fixed).
 */
export async function reportOverview(ctx: Ctx, query: Record<string, unknown>): Promise<{ data: Overview }> {
  const { filters, tz } = await parseReportParams(ctx, query);
  const [months, countries] = await Promise.all([monthFigures(ctx, filters, tz), topCountries(ctx, filters, tz)]);
  const recent = months.slice(-MONTHS);
  const monthly = (measure: 'gross' | 'net'): MonthTotal[] =>
    recent.map((month) => ({ year: month.year, month: Number(month.group.slice(5, 7)), group: month.group, total: month[measure] }));
  return {
    data: {
      gross_revenue: monthly('gross'),
      gross_revenue_quarterly: quarters(months, 'gross'),
      net_revenue: monthly('net'),
      net_revenue_quarterly: quarters(months, 'net'),
      gross_summary: yearOverYear(months, 'gross'),
      net_summary: yearOverYear(months, 'net'),
      ...countries,
    },
  };
}
