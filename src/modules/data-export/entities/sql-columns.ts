import type { Knex } from 'knex';
import { formatMoney } from '../../../core/money';
import { utcToZone } from '../local-time';
import type { ExportCell, ExportColumn, ExportRow } from '../types';

/** A row of a batch: the selected expressions under their keys. */
export type SqlRow = ExportRow & Record<string, unknown>;

/** A CSV column read from SQL: the expressions the row query selects (aliased to the keys the cell reads) and its joins. */
export interface SqlColumn<Join extends string> extends ExportColumn<SqlRow> {
  select: readonly string[];
  joins?: readonly Join[];
}

export const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
export const integer = (value: unknown): number | null => (value === null || value === undefined || value === '' ? null : Number(value));

/** One SQL expression as one cell. */
export function column<Join extends string>(
  key: string,
  label: string,
  sql: string,
  read: (value: unknown) => ExportCell,
  options: { selected?: boolean; joins?: Join[] } = {},
): SqlColumn<Join> {
  return { key, label, default_selected: options.selected ?? false, select: [`${sql} as ${key}`], joins: options.joins, read: (row) => read(row[key]) };
}

/**
 * `key` in cents and `key_formatted` written as the store writes money (`$1,234.50`), in the currency of the
 * `currency` expression, or the store's when there is none (amounts summed over orders: a customer's ltv).
 */
export function money<Join extends string>(key: string, label: string, sql: string, currency: string | null, selected = false): SqlColumn<Join>[] {
  return [
    { key, label: `${label} (cents)`, default_selected: selected, select: [`${sql} as ${key}`], read: (row) => Number(row[key] ?? 0) },
    {
      key: `${key}_formatted`,
      label,
      default_selected: selected,
      select: [`${sql} as ${key}`, ...(currency ? [`${currency} as currency`] : [])],
      read: (row, format) => formatMoney(Number(row[key] ?? 0), currency ? text(row.currency) : format.money.currency, format.money),
    },
  ];
}

/** `key` as stored (UTC) and `key_local` in the export's zone (`user_tz`, else the site's); empty when there is none. */
export function date<Join extends string>(key: string, label: string, sql: string, selected = false): SqlColumn<Join>[] {
  return [
    { key, label: `${label} (UTC)`, default_selected: selected, select: [`${sql} as ${key}`], read: (row) => text(row[key]) },
    {
      key: `${key}_local`,
      label: `${label} (local)`,
      default_selected: false,
      select: [`${sql} as ${key}`],
      read: (row, format) => utcToZone((row[key] as string | null) ?? null, format.zone) ?? '',
    },
  ];
}

/** Selects what the chosen columns read (each expression once, the id always) and adds their joins. */
export function selectColumns<Join extends string>(
  query: Knex.QueryBuilder,
  idColumn: string,
  columns: readonly SqlColumn<Join>[],
  joins: Record<Join, (query: Knex.QueryBuilder) => void>,
): void {
  query.select([...new Set([idColumn, ...columns.flatMap((c) => c.select)])]);
  for (const join of new Set(columns.flatMap((c) => c.joins ?? []))) joins[join](query);
}

/** `customer_name`: the joined customer's first and last name (`c`, join `customer`). */
export function customerNameColumn<Join extends string>(): SqlColumn<Join> {
  return {
    key: 'customer_name',
    label: 'Customer name',
    default_selected: true,
    select: ['c.first_name as customer_first_name', 'c.last_name as customer_last_name'],
    joins: ['customer' as Join],
    read: (row) => [text(row.customer_first_name), text(row.customer_last_name)].filter(Boolean).join(' '),
  };
}
