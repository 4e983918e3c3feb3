import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';

/**
 * The reports' shared vocabulary: the facts kept per counted order, the summary families built from them, the
 * filters every report takes and the aggregate query the endpoints ask the engine for.
 */

/** Payment statuses the reports count (spec: "set automatically to the report statuses"); other orders have no facts. */
export const REPORT_PAYMENT_STATUSES = ['paid', 'partially-paid', 'refunded', 'partially-refunded'] as const;
export type ReportPaymentStatus = (typeof REPORT_PAYMENT_STATUSES)[number];

/** Order statuses `orderStatus: ['all']` leaves out (spec). */
export const EXCLUDED_BY_ALL = ['on-hold', 'failed'] as const;

/** One row of `store_report_orders`: an order as the reports count it. Money in the currency's minor units. */
export interface ReportFact {
  order_id: number;
  created_at: string;
  mode: string;
  currency: string;
  status: string;
  type: string;
  payment_status: string;
  payment_method: string;
  /** ISO 3166-1 alpha-2, `''` when the order has no such address. */
  billing_country: string;
  shipping_country: string;
  customer_id: number | null;
  first_order: 0 | 1;
  gross: number;
  refund: number;
  tax: number;
  shipping_tax: number;
  shipping_total: number;
  items: number;
  completion_seconds: number | null;
  value_band: number;
  item_band: number;
  completion_band: number;
}

/** One row of `store_report_order_lines`: what one order sold of one variation (`0` ids for lines without one). */
export interface ReportLine {
  order_id: number;
  product_id: number;
  variation_id: number;
  title: string;
  quantity: number;
  revenue: number;
}

/** UTC grains of the summary slots: calendar month (`year*12 + month-1`), day and hour (since the epoch). */
export type Grain = 'm' | 'd' | 'h';

/** Dimensions every family carries and filters on. */
export type FilterDimension = 'status' | 'type' | 'payment_status';

/** The summary families: their table, the grains they keep, their own dimensions and their metrics (sums). */
export const FAMILIES = {
  sales: {
    table: 'store_report_sales',
    grains: ['m', 'd', 'h'],
    dimensions: ['first_order'],
    metrics: ['orders', 'refunded_orders', 'gross', 'refund', 'tax', 'shipping_tax', 'shipping_total', 'items'],
  },
  groups: {
    table: 'store_report_groups',
    grains: ['m', 'd'],
    dimensions: ['payment_method', 'billing_country', 'shipping_country'],
    metrics: ['orders', 'refunded_orders', 'gross', 'refund', 'tax', 'shipping_tax', 'shipping_total', 'items'],
  },
  items: {
    table: 'store_report_items',
    grains: ['m', 'd'],
    dimensions: ['product_id', 'variation_id'],
    metrics: ['orders', 'quantity', 'revenue'],
  },
  bands: {
    table: 'store_report_bands',
    grains: ['m', 'd'],
    dimensions: ['value_band', 'item_band', 'completion_band'],
    metrics: ['orders', 'completed_orders', 'gross', 'items', 'completion_seconds'],
  },
} as const;

export type FamilyName = keyof typeof FAMILIES;
export type DimensionOf<F extends FamilyName> = FilterDimension | (typeof FAMILIES)[F]['dimensions'][number];
export type MetricOf<F extends FamilyName> = (typeof FAMILIES)[F]['metrics'][number];

/** What every report filters on (spec: the standard report parameters, normalised). */
export interface ReportFilters {
  mode: 'live' | 'test';
  currency: string;
  /** Order statuses left out (`orderStatus` is an exclusion list; `all` or nothing leaves out `on-hold` and `failed`). */
  excludeStatuses: string[];
  /** Stored order types counted (`one-time` is stored as `payment`). */
  types: string[];
  /** Payment statuses counted: a non-empty subset of REPORT_PAYMENT_STATUSES. */
  paymentStatuses: string[];
  /** Only orders containing one of these variations; empty for no limit. */
  variationIds: number[];
}

/** A half-open UTC interval `[from, to)` of stored timestamps (`YYYY-MM-DD HH:MM:SS`). */
export interface Interval {
  from: string;
  to: string;
}

/** A time bucket of a report series: its interval and its label (`year` `'2026'`, `group` `'2026-11-25'`, `'2026-11'` or `'2026'`). */
export interface Bucket extends Interval {
  year: string;
  group: string;
}

export interface AggregateQuery<F extends FamilyName> {
  family: F;
  filters: ReportFilters;
  /** Sorted, non-overlapping intervals; each answer row names the index of the one it falls in. */
  buckets: Interval[];
  /** Dimensions to keep apart; rows are merged over every other dimension. */
  groupBy?: DimensionOf<F>[];
}

export interface AggregateRow<F extends FamilyName> {
  bucket: number;
  dims: Partial<Record<DimensionOf<F>, string | number>>;
  metrics: Record<MetricOf<F>, number>;
}

/** The engine's entry point (`engine/aggregate.ts`): sums of the family's metrics per bucket and group, from the summaries where whole slots fit and from the facts for the rest. */
export type Aggregate = <F extends FamilyName>(ctx: Ctx, query: AggregateQuery<F>) => Promise<AggregateRow<F>[]>;

/** Keeps an order's facts and the summaries in step with it, inside the transaction that changed it (`sync/`). */
export type SyncOrders = (ctx: Ctx, trx: Knex.Transaction, orderIds: number[]) => Promise<void>;
