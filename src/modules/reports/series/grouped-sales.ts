import type { Ctx } from '../../../core/context';
import { timeBuckets } from '../buckets';
import { aggregate } from '../engine/aggregate';
import type { GroupKey, ReportParams } from '../params';
import type { SummaryMetric } from '../summary';
import type { Period } from './period';

export type SalesMetrics = Record<SummaryMetric, number>;

/** The group keys that group by an order's dimension (one row per value present) instead of by time, and the family keeping it. */
const DIMENSION_FAMILIES = {
  billing_country: 'groups',
  shipping_country: 'groups',
  payment_method: 'groups',
  payment_status: 'sales',
} as const;
type DimensionKey = keyof typeof DIMENSION_FAMILIES;

export const isDimensionKey = (key: GroupKey): key is DimensionKey => key in DIMENSION_FAMILIES;

/** A row of a series: a time bucket (`year` `'2026'`, `group` `'2026-11-25'`/`'2026-11'`/`'2026'`) or a dimension value (`year` null). */
export interface SeriesGroup<M> {
  year: string | null;
  group: string;
  metrics: M;
}

export interface GroupedSales {
  /** `daily`/`monthly`/`yearly` for the time keys, else the dimension group key. */
  appliedGroupKey: string;
  groups: SeriesGroup<SalesMetrics>[];
  /** The whole period's metrics (the groups tile it). */
  total: SalesMetrics;
}

export const zeroMetrics = (): SalesMetrics => ({ orders: 0, refunded_orders: 0, gross: 0, refund: 0, tax: 0, shipping_tax: 0, shipping_total: 0, items: 0 });

function addTo(target: SalesMetrics, source: SalesMetrics): void {
  for (const metric of Object.keys(target) as SummaryMetric[]) target[metric] += source[metric];
}

/**
 * The sales metrics of a period per group: per local day, month or year of the report zone (zero-filled, in
 * order) for the time keys, or per value of the dimension present in the period (`''` shown as `unknown`),
 * largest gross first, then by name.
 */
export async function groupedSales(ctx: Ctx, params: ReportParams, period: Period): Promise<GroupedSales> {
  const { filters, groupKey } = params;
  const total = zeroMetrics();
  if (isDimensionKey(groupKey)) {
    const rows = await aggregate(ctx, { family: DIMENSION_FAMILIES[groupKey], filters, buckets: [period.range], groupBy: [groupKey] });
    const groups = rows
      .map(({ dims, metrics }) => ({ year: null, group: String(dims[groupKey] ?? '') || 'unknown', metrics: metrics as SalesMetrics }))
      .sort((a, b) => b.metrics.gross - a.metrics.gross || a.group.localeCompare(b.group));
    for (const { metrics } of groups) addTo(total, metrics);
    return { appliedGroupKey: groupKey, groups, total };
  }
  const { applied, buckets } = timeBuckets(period, params.tz, groupKey);
  const groups = buckets.map(({ year, group }): SeriesGroup<SalesMetrics> => ({ year, group, metrics: zeroMetrics() }));
  for (const { bucket, metrics } of await aggregate(ctx, { family: 'sales', filters, buckets })) {
    addTo(groups[bucket].metrics, metrics);
    addTo(total, metrics);
  }
  return { appliedGroupKey: applied, groups, total };
}
