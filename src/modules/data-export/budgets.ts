import type { Host } from '../../host/contract';

/** How long one batch may run and how large its answer may grow before it stops early (`next_max` then shrinks). */
export interface ExportBudgets {
  export_time_budget_ms: number;
  export_size_budget_bytes: number;
}

declare module '../../host/contract' {
  interface OptionMap {
    data_export_budgets: Partial<ExportBudgets>;
  }
}

const DEFAULT_EXPORT_BUDGETS: ExportBudgets = {
  export_time_budget_ms: 2000,
  export_size_budget_bytes: 8 * 1024 * 1024,
};

/** The budgets saved in the `data_export_budgets` option, over the defaults. */
export async function exportBudgets(host: Host): Promise<ExportBudgets> {
  return { ...DEFAULT_EXPORT_BUDGETS, ...(await host.options.get('data_export_budgets', {})) };
}

/** The share of a budget `next_max` aims at, so a batch of slightly heavier records still fits. */
const SAFETY = 0.8;
const MIN_RECORDS = 100;
export const MAX_RECORDS = 1000;

export const clampRecords = (n: number): number => Math.min(MAX_RECORDS, Math.max(MIN_RECORDS, Math.floor(n)));

/**
 * The largest batch that fits both budgets at this batch's measured cost per record (bytes and milliseconds), with a
 * safety margin, within 100-1000. A batch that emitted nothing measured nothing: the request's size stands.
 */
export function nextMax(budgets: ExportBudgets, measured: { records: number; bytes: number; ms: number }, requested: number): number {
  if (!measured.records) return requested;
  const bySize = (SAFETY * budgets.export_size_budget_bytes) / (measured.bytes / measured.records);
  const byTime = measured.ms > 0 ? (SAFETY * budgets.export_time_budget_ms) / (measured.ms / measured.records) : MAX_RECORDS;
  return clampRecords(Math.min(bySize, byTime));
}
