import { invalid } from '../../../core/errors';
import { isTimeZone } from '../../../core/time';
import type { ExportFilters } from '../types';

/** A batch's `filters` as the admin list's query carries them, checked as that query's schema checks them. */
export interface ListFilterValues<View extends string> {
  search?: string;
  active_view?: View;
  filter_type?: 'simple' | 'advanced';
  advanced_filters?: string;
  /** The zone of the date filters: `user_tz` when valid, else UTC (as the list reads it). */
  zone: string;
}

function view<View extends string>(value: unknown, views: readonly View[]): View | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (views as readonly string[]).includes(value)) return value as View;
  throw invalid('filters.active_view', 'in', `The filters.active_view field must be one of: ${views.join(', ')}.`);
}

function filterType(value: unknown): 'simple' | 'advanced' | undefined {
  if (value === undefined || value === 'simple' || value === 'advanced') return value;
  throw invalid('filters.filter_type', 'in', 'The filters.filter_type field must be simple or advanced.');
}

function searchText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if ((typeof value === 'string' || typeof value === 'number') && String(value).length <= 500) return String(value);
  throw invalid('filters.search', 'string', 'The filters.search field must be a text of at most 500 characters.');
}

/** `advanced_filters` as the list takes it (JSON text); the export also accepts the array itself. */
function advancedFilters(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text.length > 20000) throw invalid('filters.advanced_filters', 'max', 'The filters.advanced_filters field must not be greater than 20000 characters.');
  return text;
}

/** Reads and checks the list filters of a batch (422 naming `filters.<key>`) for a list with these views. */
export function listFilterValues<View extends string>(filters: ExportFilters, views: readonly View[]): ListFilterValues<View> {
  return {
    search: searchText(filters.search),
    active_view: view(filters.active_view, views),
    filter_type: filterType(filters.filter_type),
    advanced_filters: advancedFilters(filters.advanced_filters),
    zone: isTimeZone(filters.user_tz) ? filters.user_tz : 'UTC',
  };
}
