import { SCHEMA_VERSION } from './batch';
import type { AnyExportEntity } from './types';

const FORMATS = [
  { value: 'csv', label: 'CSV' },
  { value: 'json', label: 'JSON' },
] as const;

/** `GET /data-export/{entity}/schema`: exactly the keys the batch accepts. */
export function exportSchema(entity: AnyExportEntity) {
  return {
    export: {
      entity: entity.entity,
      schema_version: SCHEMA_VERSION,
      formats: FORMATS,
      csv_columns: entity.columns.map(({ key, label, default_selected }) => ({ key, label, default_selected })),
      json_modules: entity.modules.map(({ key, label }) => ({ key, label })),
    },
  };
}
