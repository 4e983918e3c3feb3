import { FAMILIES, type FamilyName, type Grain, type ReportFact, type ReportLine } from '../types';

/**
 * What one counted order adds to the summary families: one row per family and grain (the items family one per
 * line), keyed like the family's primary key (`summaryColumns`: the key columns, then the metrics in
 * `FAMILIES[family].metrics` order). The sync subtracts an order's old contributions and adds its new
 * ones; the rebuild adds everyone's. Slots are UTC and computed from `created_at` (`YYYY-MM-DD HH:MM:SS`).
 */

export type KeyValue = string | number;

const COMMON_KEY = ['grain', 'mode', 'currency', 'slot', 'status', 'type', 'payment_status'] as const;

/** A family's key columns (its primary key) and metric columns, in the order contributions carry them. */
export function summaryColumns(family: FamilyName): { key: string[]; metrics: string[] } {
  return { key: [...COMMON_KEY, ...FAMILIES[family].dimensions], metrics: [...FAMILIES[family].metrics] };
}

const part = (timestamp: string, from: number, to: number) => Number(timestamp.slice(from, to));

function epochSeconds(timestamp: string): number {
  return (
    Date.UTC(
      part(timestamp, 0, 4),
      part(timestamp, 5, 7) - 1,
      part(timestamp, 8, 10),
      part(timestamp, 11, 13),
      part(timestamp, 14, 16),
      part(timestamp, 17, 19),
    ) / 1000
  );
}

/** `year*12 + month-1` of the UTC calendar month. */
export function monthSlot(timestamp: string): number {
  return part(timestamp, 0, 4) * 12 + part(timestamp, 5, 7) - 1;
}

/** Whole UTC days since the epoch. */
export function daySlot(timestamp: string): number {
  return Math.floor(epochSeconds(timestamp) / 86_400);
}

/** Whole hours since the epoch. */
export function hourSlot(timestamp: string): number {
  return Math.floor(epochSeconds(timestamp) / 3_600);
}

const SLOT: Record<Grain, (timestamp: string) => number> = { m: monthSlot, d: daySlot, h: hourSlot };

const SEPARATOR = '\u0001';

/** A key as one string, for summing in a map: the shared part's id, then the family's dimensions. */
export const keyId = (commonId: string, dims: KeyValue[]) => (dims.length ? `${commonId}${SEPARATOR}${dims.join(SEPARATOR)}` : commonId);

function salesMetrics(fact: ReportFact): number[] {
  return [1, fact.refund > 0 ? 1 : 0, fact.gross, fact.refund, fact.tax, fact.shipping_tax, fact.shipping_total, fact.items];
}

/** Per family, its own dimensions and metrics of the order (the items family: one entry per line). */
function familyParts(fact: ReportFact, lines: ReportLine[]): Record<FamilyName, Array<{ dims: KeyValue[]; metrics: number[] }>> {
  return {
    sales: [{ dims: [fact.first_order], metrics: salesMetrics(fact) }],
    groups: [{ dims: [fact.payment_method, fact.billing_country, fact.shipping_country], metrics: salesMetrics(fact) }],
    items: lines.map((line) => ({ dims: [line.product_id, line.variation_id], metrics: [1, line.quantity, line.revenue] })),
    bands: [
      {
        dims: [fact.value_band, fact.item_band, fact.completion_band],
        metrics: [1, fact.completion_seconds === null ? 0 : 1, fact.gross, fact.items, fact.completion_seconds ?? 0],
      },
    ],
  };
}

/**
 * Visits every summary row the order (its fact and its lines) contributes to, in every family and grain: the key
 * comes in two parts (the columns all families share, with their id string, and the family's own dimensions), so
 * the rebuild sums a million orders without building a key per row.
 */
export function visitContributions(
  fact: ReportFact,
  lines: ReportLine[],
  visit: (family: FamilyName, common: KeyValue[], commonId: string, dims: KeyValue[], metrics: number[]) => void,
): void {
  const parts = familyParts(fact, lines);
  const grains = (['m', 'd', 'h'] as Grain[]).map((grain) => {
    const common: KeyValue[] = [grain, fact.mode, fact.currency, SLOT[grain](fact.created_at), fact.status, fact.type, fact.payment_status];
    return { grain, common, id: common.join(SEPARATOR) };
  });
  for (const family of Object.keys(FAMILIES) as FamilyName[]) {
    const kept: readonly Grain[] = FAMILIES[family].grains;
    for (const { grain, common, id } of grains) {
      if (!kept.includes(grain)) continue;
      for (const { dims, metrics } of parts[family]) visit(family, common, id, dims, metrics);
    }
  }
}
