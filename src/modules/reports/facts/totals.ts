import { FAMILIES, type FamilyName, type ReportFact, type ReportLine } from '../types';
import { keyId, visitContributions, type KeyValue } from './contributions';

/**
 * Summary rows summed in memory, per family and key: the rebuild adds every order's contributions, the sync adds an
 * order's new ones and subtracts its old ones (what is left is the change to apply).
 */

export interface SummaryEntry {
  key: KeyValue[];
  metrics: number[];
}

function compareKeys(a: KeyValue[], b: KeyValue[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (typeof a[i] === 'number' && typeof b[i] === 'number') return (a[i] as number) - (b[i] as number);
    return String(a[i]) < String(b[i]) ? -1 : 1;
  }
  return 0;
}

/** Groups lines by their order. */
export function linesByOrder(lines: ReportLine[]): Map<number, ReportLine[]> {
  const byOrder = new Map<number, ReportLine[]>();
  for (const line of lines) {
    const list = byOrder.get(line.order_id);
    if (list) list.push(line);
    else byOrder.set(line.order_id, [line]);
  }
  return byOrder;
}

export class SummaryTotals {
  private readonly sums = new Map<FamilyName, Map<string, SummaryEntry>>(
    (Object.keys(FAMILIES) as FamilyName[]).map((family) => [family, new Map<string, SummaryEntry>()]),
  );

  /** Adds (`sign` 1) or takes away (`sign` -1) the order's contributions. */
  add(fact: ReportFact, lines: ReportLine[], sign: 1 | -1 = 1): void {
    visitContributions(fact, lines, (family, common, commonId, dims, metrics) => {
      const rows = this.sums.get(family)!;
      const id = keyId(commonId, dims);
      const entry = rows.get(id);
      if (!entry) rows.set(id, { key: [...common, ...dims], metrics: sign === 1 ? [...metrics] : metrics.map((value) => -value) });
      else for (let i = 0; i < metrics.length; i++) entry.metrics[i] += sign * metrics[i];
    });
  }

  /** Adds several orders' contributions; `lines` may hold other orders' lines too. */
  addAll(facts: ReportFact[], lines: ReportLine[], sign: 1 | -1 = 1): void {
    const byOrder = linesByOrder(lines);
    for (const fact of facts) this.add(fact, byOrder.get(fact.order_id) ?? [], sign);
  }

  /**
   * The family's entries, leaving out those whose metrics are all zero (a change that cancelled out); in key order
   * unless `sorted` is false (the rebuild writes into empty tables, where the order does not matter).
   */
  entries(family: FamilyName, sorted = true): SummaryEntry[] {
    const entries = [...this.sums.get(family)!.values()].filter((entry) => entry.metrics.some((value) => value !== 0));
    return sorted ? entries.sort((a, b) => compareKeys(a.key, b.key)) : entries;
  }
}
