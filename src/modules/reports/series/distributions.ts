import type { Ctx } from '../../../core/context';
import { COMPLETION_BANDS, ITEM_BANDS, VALUE_BANDS } from '../bands';
import { aggregate } from '../engine/aggregate';
import { parseReportParams } from '../params';
import type { MetricOf } from '../types';
import { percentOf, roundedAverage } from './numbers';

type Query = Record<string, unknown>;
type BandDimension = 'value_band' | 'item_band' | 'completion_band';
type BandMetrics = Record<MetricOf<'bands'>, number>;

/** The range's band metrics per band of one band dimension (bands without orders absent). */
async function perBand(ctx: Ctx, query: Query, dimension: BandDimension): Promise<Map<number, BandMetrics>> {
  const params = await parseReportParams(ctx, query);
  const rows = await aggregate(ctx, { family: 'bands', filters: params.filters, buckets: [params.range], groupBy: [dimension] });
  return new Map(rows.map(({ dims, metrics }) => [Number(dims[dimension]), metrics]));
}

const ordersIn = (bands: Map<number, BandMetrics>) => [...bands.values()].reduce((sum, metrics) => sum + metrics.orders, 0);

export interface ValueBandRow {
  band: number;
  label: string;
  orders: number;
  gross_revenue: number;
  percentage: number;
}

/** `GET /reports/order-value-distribution`: orders and gross revenue per order-value band (every band), share of orders in percent. */
export async function orderValueDistribution(ctx: Ctx, query: Query): Promise<{ data: ValueBandRow[] }> {
  const bands = await perBand(ctx, query, 'value_band');
  const total = ordersIn(bands);
  return {
    data: VALUE_BANDS.map(({ band, label }) => {
      const metrics = bands.get(band);
      const orders = metrics?.orders ?? 0;
      return { band, label, orders, gross_revenue: metrics?.gross ?? 0, percentage: percentOf(orders, total) };
    }),
  };
}

export interface CountBandRow {
  band: number;
  label: string;
  orders: number;
  percentage: number;
}

/** `GET /reports/item-count-distribution`: orders per band of items per order (every band), share of orders in percent. */
export async function itemCountDistribution(ctx: Ctx, query: Query): Promise<{ data: CountBandRow[] }> {
  const bands = await perBand(ctx, query, 'item_band');
  const total = ordersIn(bands);
  return {
    data: ITEM_BANDS.map(({ band, label }) => {
      const orders = bands.get(band)?.orders ?? 0;
      return { band, label, orders, percentage: percentOf(orders, total) };
    }),
  };
}

/** Band 0 of the completion bands: orders not completed, left out of the completion report. */
const NOT_COMPLETED = 0;

/**
 * `GET /reports/order-completion-time`: the completed orders per band of time from creation to completion (every
 * band but "not completed"), their share in percent, their count and their average time in whole seconds.
 */
export async function orderCompletionTime(
  ctx: Ctx,
  query: Query,
): Promise<{ data: { bands: CountBandRow[]; completed_orders: number; average_seconds: number } }> {
  const bands = await perBand(ctx, query, 'completion_band');
  bands.delete(NOT_COMPLETED);
  const completed = ordersIn(bands);
  const seconds = [...bands.values()].reduce((sum, metrics) => sum + metrics.completion_seconds, 0);
  return {
    data: {
      bands: COMPLETION_BANDS.filter(({ band }) => band !== NOT_COMPLETED).map(({ band, label }) => {
        const orders = bands.get(band)?.orders ?? 0;
        return { band, label, orders, percentage: percentOf(orders, completed) };
      }),
      completed_orders: completed,
      average_seconds: roundedAverage(seconds, completed),
    },
  };
}
