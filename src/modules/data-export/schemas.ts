import { Type, type Static } from '@sinclair/typebox';
import { Id, MAX_ID } from '../../core/schema';

const EXPORT_FORMATS = ['csv', 'json'] as const;
const EXPORT_SCOPES = ['all', 'current_page', 'selected', 'search_results'] as const;

/** The list filters a batch keeps (everything else in `filters` is dropped); the entity checks their values as its list does. */
export const FILTER_KEYS = ['filter_type', 'search', 'active_view', 'sort_by', 'sort_type', 'advanced_filters', 'user_tz'] as const;

const filter = (description: string) => Type.Optional(Type.Unknown({ description }));

/** `POST /data-export/{entity}/batch` (spec: Data export, batch request body). */
export const ExportBatchBody = Type.Object({
  format: Type.Optional(
    Type.Union(
      EXPORT_FORMATS.map((v) => Type.Literal(v)),
      {
        description: '`csv` (default): flat records keyed by columns; `json`: nested records keyed by modules.',
        messages: { in: 'The format field must be csv or json.' },
      },
    ),
  ),
  scope: Type.Optional(
    Type.Union(
      EXPORT_SCOPES.map((v) => Type.Literal(v)),
      {
        description: '`all` (default), `current_page`, `selected` or `search_results`.',
        messages: { in: `The scope field must be one of: ${EXPORT_SCOPES.join(', ')}.` },
      },
    ),
  ),
  ids: Type.Optional(Type.Array(Id(), { description: 'Required for `current_page` and `selected`; deduplicated, the first 5000 kept.' })),
  columns: Type.Optional(Type.Array(Type.String(), { description: 'Keys of `csv_columns` (required for `csv`); unknown keys are dropped, at most 100 kept.' })),
  modules: Type.Optional(Type.Array(Type.String(), { description: 'Keys of `json_modules`; unknown keys are dropped, at most 100 kept.' })),
  filters: Type.Optional(
    Type.Object(
      {
        filter_type: filter('`simple` or `advanced`, as the list reads it.'),
        search: filter('The list search (operator syntax or start-of-text).'),
        active_view: filter("One of the list's views."),
        sort_by: filter('Only `id`: the export walks records by id.'),
        sort_type: filter('`asc` (default) or `desc`.'),
        advanced_filters: filter('The list advanced filters (a JSON string or the array itself).'),
        user_tz: filter('Time zone of the date filters and of the `_local` date columns.'),
      },
      { description: 'The list filters, for `search_results` and `current_page`; other keys are dropped, all of them when `scope` is `all`.' },
    ),
  ),
  cursor: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: "Omit or 0 for the first batch, then the previous answer's `cursor`." })),
  max_records: Type.Optional(Type.Integer({ minimum: -MAX_ID, maximum: MAX_ID, description: 'Records per batch, clamped to 100-1000; default 500.' })),
});
export type ExportBatchInput = Static<typeof ExportBatchBody>;
