import { invalid } from '../../core/errors';
import { isTimeZone } from '../../core/time';
import { clampRecords } from './budgets';
import { FILTER_KEYS, type ExportBatchInput } from './schemas';
import type { AnyExportEntity, ExportColumn, ExportFilters, ExportFormat, ExportRow, ExportScope } from './types';

const MAX_IDS = 5000;
const MAX_KEYS = 100;
const DEFAULT_RECORDS = 500;

/** A batch request after the spec's rules: what the batch reads and how. */
export interface BatchRequest {
  format: ExportFormat;
  scope: ExportScope;
  /** The records of `selected` and `current_page`; null for the other scopes. */
  ids: number[] | null;
  /** The list filters of `search_results` and `current_page`; null for the other scopes. */
  filters: ExportFilters | null;
  /** `csv`: the selected columns, in the order sent. */
  columns: ExportColumn<ExportRow>[];
  /** `json`: the selected modules, in the order sent. */
  modules: string[];
  cursor: number;
  direction: 'asc' | 'desc';
  maxRecords: number;
  /** The zone of the `_local` date columns: `user_tz` when valid, else the site's. */
  displayZone: string;
}

/** Keys of `known` among `sent` (the first 100 sent, each once), in the order sent. */
function knownKeys(sent: readonly string[] | undefined, known: ReadonlySet<string>): string[] {
  return [...new Set((sent ?? []).slice(0, MAX_KEYS))].filter((key) => known.has(key));
}

function allowlisted(sent: Record<string, unknown> | undefined): ExportFilters {
  const out: Record<string, unknown> = {};
  for (const key of FILTER_KEYS) if (sent?.[key] !== undefined && sent[key] !== null && sent[key] !== '') out[key] = sent[key];
  return out;
}

/** The walk order: only by id (the keyset cursor), ascending unless `sort_type` is `desc`. */
function direction(filters: ExportFilters): 'asc' | 'desc' {
  if (filters.sort_by !== undefined && filters.sort_by !== 'id') {
    throw invalid('filters.sort_by', 'in', 'The export walks records by id: filters.sort_by accepts only id.');
  }
  if (filters.sort_type === undefined) return 'asc';
  const type = typeof filters.sort_type === 'string' ? filters.sort_type.toLowerCase() : '';
  if (type !== 'asc' && type !== 'desc')
    throw invalid('filters.sort_type', 'in', 'The filters.sort_type field must be asc or desc (records are walked by id).');
  return type;
}

/** Applies the batch request rules (spec: Data export) for one entity; refusals are 422s naming the field. */
export function readBatchRequest(entity: AnyExportEntity, body: ExportBatchInput, siteZone: string): BatchRequest {
  const format = body.format ?? 'csv';
  const scope = body.scope ?? 'all';
  const byIds = scope === 'selected' || scope === 'current_page';
  const ids = byIds ? [...new Set(body.ids ?? [])].slice(0, MAX_IDS) : null;
  if (ids && !ids.length) throw invalid('ids', 'required', `The ids field is required when scope is ${scope}.`);

  const columnsByKey = new Map(entity.columns.map((c) => [c.key, c]));
  const columns = format === 'csv' ? knownKeys(body.columns, new Set(columnsByKey.keys())).map((key) => columnsByKey.get(key)!) : [];
  if (format === 'csv' && !columns.length) {
    throw invalid('columns', 'required', `The columns field must name at least one column of GET /data-export/${entity.entity}/schema (csv_columns) for csv.`);
  }
  const modules = format === 'json' ? knownKeys(body.modules, new Set(entity.modules.map((m) => m.key))) : [];

  const filters = scope === 'all' ? {} : allowlisted(body.filters);
  const zone = isTimeZone(filters.user_tz) ? filters.user_tz : null;
  return {
    format,
    scope,
    ids,
    filters: scope === 'search_results' || scope === 'current_page' ? filters : null,
    columns,
    modules,
    cursor: body.cursor ?? 0,
    direction: direction(filters),
    maxRecords: body.max_records === undefined ? DEFAULT_RECORDS : clampRecords(body.max_records),
    displayZone: zone ?? siteZone,
  };
}
