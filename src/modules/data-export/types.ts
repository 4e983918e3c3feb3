import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { MoneyFormat } from '../../core/money';
import type { Permission } from '../../core/permissions';
import type { Policy } from '../../core/policies';

export type ExportFormat = 'csv' | 'json';
export type ExportScope = 'all' | 'current_page' | 'selected' | 'search_results';

/**
 * The list filters a batch may carry (the spec's allowlist), as the admin list reads them. The framework drops every
 * other key; the entity validates the values exactly as its list does (unknown views are a 422 there and here).
 */
export interface ExportFilters {
  filter_type?: unknown;
  search?: unknown;
  active_view?: unknown;
  sort_by?: unknown;
  sort_type?: unknown;
  advanced_filters?: unknown;
  user_tz?: unknown;
}

/** What every row a batch reads has: the id the cursor walks and `record_id` names. */
export interface ExportRow {
  id: number;
}

/** Per-batch facts the readers need: the zone of the `_local` dates and the store's way of writing money. */
export interface ExportFormatting {
  /** `user_tz` of the filters when valid, else the site's time zone. */
  zone: string;
  /** How the store writes money, and its currency (for amounts kept without one: a customer's ltv and aov). */
  money: MoneyFormat & { currency: string };
}

/** A CSV cell: what the record holds under the column's key and what the CSV file writes. */
export type ExportCell = string | number | null;

/** One flat CSV column: a documented key with a stable label, read from a row of the batch. */
export interface ExportColumn<Row extends ExportRow> {
  key: string;
  label: string;
  default_selected: boolean;
  read(row: Row, format: ExportFormatting): ExportCell;
}

/** One nested JSON module (`items`, `addresses`…): what `loadModules` may be asked for. */
export interface ExportModule {
  key: string;
  label: string;
}

/**
 * An exportable entity, declared as data. The framework owns the request rules, the keyset cursor
 * (`idColumn > cursor order by idColumn limit n`), counting, budgets and the response; the entity says what its rows
 * are, how the list filters narrow them and how a row becomes a CSV record or a nested JSON record.
 */
export interface ExportEntity<Row extends ExportRow> {
  /** The path segment: `/data-export/{entity}/…`. */
  entity: string;
  permission: Permission;
  policy: Policy;
  /** The entity's table with its alias (`store_orders as o`) and the aliased primary key the cursor walks (`o.id`). */
  table: string;
  idColumn: string;
  columns: readonly ExportColumn<Row>[];
  modules: readonly ExportModule[];
  /** The key holding the record itself in a JSON record (`order`: `{record_id, order, items, …}`) and its shape. */
  record: { key: string; present(row: Row, format: ExportFormatting): Record<string, unknown> };
  /**
   * Narrows a query on `table` to what the admin list shows for these filters (`search_results`), with the list's
   * own builders; throws the list's 422 for a value it refuses. Used for the rows and for `total`.
   */
  applyFilters(ctx: Ctx, query: Knex.QueryBuilder, filters: ExportFilters): void;
  /**
   * Adds the joins and selects a batch's rows need: for `csv` those of the selected columns, for `json` (`columns`
   * null) those of `record.present`. The query already has its table, scope, cursor, order and limit.
   */
  selectRows(ctx: Ctx, query: Knex.QueryBuilder, columns: readonly ExportColumn<Row>[] | null): void;
  /**
   * Optional: fills, on the batch's rows, the fields selected columns read that one row query cannot give (coupon
   * codes, item counts): one query per field for the whole batch.
   */
  completeRows?(ctx: Ctx, rows: Row[], columns: readonly ExportColumn<Row>[]): Promise<void>;
  /** The JSON modules of a batch, loaded with one query per module; the answer gives a row its `{module: value}`. */
  loadModules(ctx: Ctx, rows: Row[], modules: readonly string[], format: ExportFormatting): Promise<(row: Row) => Record<string, unknown>>;
}

/** An entity as the framework holds it, whatever its row type (the methods' row parameters are bivariant). */
export type AnyExportEntity = ExportEntity<ExportRow>;

/** Declares an entity with its row type checked against its columns and modules. */
export function exportEntity<Row extends ExportRow>(entity: ExportEntity<Row>): AnyExportEntity {
  return entity as unknown as AnyExportEntity;
}
