import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { isTimeZone } from '../../core/time';
import { getStoreSettings } from '../settings/store-settings';
import { exportBudgets, nextMax } from './budgets';
import { flatRecordBytes, jsonBytes } from './json-size';
import { readBatchRequest, type BatchRequest } from './request';
import type { ExportBatchInput } from './schemas';
import type { AnyExportEntity, ExportFormatting, ExportRow } from './types';

export const SCHEMA_VERSION = 1;

export type ExportRecord = Record<string, unknown> & { record_id: number };

export interface ExportBatch {
  entity: string;
  schema_version: number;
  records: ExportRecord[];
  total: number | null;
  cursor: number | null;
  has_more: boolean;
  batch: { records: number; elapsed_ms: number; estimated_bytes: number; requested_max: number; next_max: number };
}

/** The bytes of the answer around its records (envelope, keys, counters), so the size budget covers the whole body. */
const ENVELOPE_BYTES = 512;

/** The entity's rows the request covers: its scope (ids, list filters), before the cursor. */
function scoped(ctx: Ctx, entity: AnyExportEntity, request: BatchRequest): Knex.QueryBuilder {
  const query = ctx.db(entity.table);
  if (request.ids) query.whereIn(entity.idColumn, request.ids);
  if (request.filters) entity.applyFilters(ctx, query, request.filters);
  return query;
}

async function countOf(query: Knex.QueryBuilder): Promise<number> {
  const row = (await query.count({ total: '*' }).first()) as { total: number | string } | undefined;
  return Number(row?.total ?? 0);
}

/**
 * One batch of an export. The rows are one keyset read (`id > cursor order by id limit n + 1`, no OFFSET), so a walk
 * batch by batch returns every record that existed when it started exactly once, whatever is inserted meanwhile; the
 * modules are one query each for the batch. Records are then shaped one by one until the batch is full or a budget is
 * reached: the answer's size (each record's JSON) or the time spent.
 */
export async function exportBatch(ctx: Ctx, entity: AnyExportEntity, body: ExportBatchInput): Promise<ExportBatch> {
  const started = performance.now();
  const siteZone = isTimeZone(ctx.host.site.timezone) ? ctx.host.site.timezone : 'UTC';
  const request = readBatchRequest(entity, body, siteZone);
  const limits = await exportBudgets(ctx.host);
  const settings = await getStoreSettings(ctx.host);
  const format: ExportFormatting = { zone: request.displayZone, money: settings };

  const first = request.cursor === 0;
  const total = first ? await countOf(scoped(ctx, entity, request)) : null;
  // What the batch's size changes starts here: `next_max` extrapolates from it, not from the setup and the count.
  const reading = performance.now();
  const query = scoped(ctx, entity, request);
  if (!first) query.where(entity.idColumn, request.direction === 'asc' ? '>' : '<', request.cursor);
  query.orderBy(entity.idColumn, request.direction).limit(request.maxRecords + 1);
  entity.selectRows(ctx, query, request.format === 'csv' ? request.columns : null);
  const fetched = (await query) as ExportRow[];
  const rows = fetched.slice(0, request.maxRecords);

  const { shape, size: sizeOf } = await shaper(ctx, entity, request, rows, format);
  const records: ExportRecord[] = [];
  let bytes = ENVELOPE_BYTES;
  let stopped = false;
  for (const row of rows) {
    const record = shape(row);
    const size = sizeOf(record) + 1;
    if (!records.length && size + ENVELOPE_BYTES > limits.export_size_budget_bytes) {
      throw fail('response_too_large', undefined, { data: { record_id: record.record_id, bytes: size, budget_bytes: limits.export_size_budget_bytes } });
    }
    if (bytes + size > limits.export_size_budget_bytes) {
      stopped = true;
      break;
    }
    records.push(record);
    bytes += size;
    if (performance.now() - started >= limits.export_time_budget_ms && records.length < rows.length) {
      stopped = true;
      break;
    }
  }

  const hasMore = stopped || fetched.length > rows.length;
  const finished = performance.now();
  return {
    entity: entity.entity,
    schema_version: SCHEMA_VERSION,
    records,
    total,
    cursor: hasMore ? records[records.length - 1].record_id : null,
    has_more: hasMore,
    batch: {
      records: records.length,
      elapsed_ms: Math.round(finished - started),
      estimated_bytes: bytes,
      requested_max: request.maxRecords,
      next_max: nextMax(limits, { records: records.length, bytes: bytes - ENVELOPE_BYTES, ms: finished - reading }, request.maxRecords),
    },
  };
}

/**
 * How one row of the batch becomes its record, the selected columns (csv) or the record and its modules (json), and
 * the size of a record's JSON.
 */
async function shaper(
  ctx: Ctx,
  entity: AnyExportEntity,
  request: BatchRequest,
  rows: ExportRow[],
  format: ExportFormatting,
): Promise<{ shape: (row: ExportRow) => ExportRecord; size: (record: ExportRecord) => number }> {
  if (request.format === 'csv') {
    await entity.completeRows?.(ctx, rows, request.columns);
    const columns = request.columns;
    return {
      shape: (row) => {
        const record: ExportRecord = { record_id: Number(row.id) };
        for (const column of columns) record[column.key] = column.read(row, format);
        return record;
      },
      size: flatRecordBytes(['record_id', ...columns.map((c) => c.key)]),
    };
  }
  const modules = await entity.loadModules(ctx, rows, request.modules, format);
  return {
    shape: (row) => ({ record_id: Number(row.id), [entity.record.key]: entity.record.present(row, format), ...modules(row) }),
    size: jsonBytes,
  };
}
