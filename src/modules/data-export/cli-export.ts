import fs from 'node:fs';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream/promises';
import type { Ctx } from '../../core/context';
import { exportBatch, type ExportRecord } from './batch';
import { MAX_RECORDS } from './budgets';
import { csvLine } from './csv';
import { readBatchRequest } from './request';
import type { ExportBatchInput } from './schemas';
import type { AnyExportEntity, ExportFormat } from './types';

export interface ExportFileOptions {
  format: ExportFormat;
  out: string;
  /** CSV column keys; the entity's default columns when omitted. */
  columns?: string[];
  /** JSON module keys; every module when omitted. */
  modules?: string[];
  search?: string;
  activeView?: string;
  /** Resume after this record id: the file is appended to (no second CSV header). */
  cursor?: number;
  /** Records of the first batch; the next ones follow each answer's `next_max`. */
  max?: number;
}

export interface ExportProgress {
  records: number;
  total: number | null;
  cursor: number | null;
}

export interface ExportFileResult extends ExportProgress {
  /** False when the run was stopped (`signal`) before the last batch: `cursor` resumes it. */
  complete: boolean;
  seconds: number;
}

/** The batch request the file export sends, as a client of `POST /data-export/{entity}/batch` would. */
function fileExportBody(entity: AnyExportEntity, options: ExportFileOptions): ExportBatchInput {
  const filtered = options.search !== undefined || options.activeView !== undefined;
  return {
    format: options.format,
    scope: filtered ? 'search_results' : 'all',
    columns: options.columns ?? entity.columns.filter((c) => c.default_selected).map((c) => c.key),
    modules: options.modules ?? entity.modules.map((m) => m.key),
    ...(filtered ? { filters: { search: options.search, active_view: options.activeView } } : {}),
    max_records: options.max ?? MAX_RECORDS,
  };
}

function fileHasContent(path: string): boolean {
  try {
    return fs.statSync(path).size > 0;
  } catch {
    return false;
  }
}

/**
 * A file opened by its first write (with the first batch's answer, so a refused request leaves the file as it was),
 * written with backpressure; a write error fails the next write or the close.
 */
function lazyFile(path: string, flags: 'a' | 'w') {
  let stream: fs.WriteStream | null = null;
  let failure: Error | null = null;
  return {
    async write(chunk: string): Promise<void> {
      if (!stream) {
        stream = fs.createWriteStream(path, { flags });
        stream.on('error', (error) => (failure = error));
      }
      if (failure) throw failure;
      if (!stream.write(chunk)) await once(stream, 'drain');
    },
    async close(): Promise<void> {
      if (stream) await finished(stream.end());
    },
  };
}

/**
 * Writes an export to a file by driving the same batches as the HTTP clients: CSV with a header of the column labels,
 * or JSON Lines (one record a line). One batch is held in memory at a time and written before the next is read. A
 * stopped run (`signal`) ends after the batch in hand, with the cursor that resumes it.
 */
export async function exportToFile(
  ctx: Ctx,
  entity: AnyExportEntity,
  options: ExportFileOptions,
  hooks: { progress?: (state: ExportProgress) => void; signal?: AbortSignal } = {},
): Promise<ExportFileResult> {
  const started = performance.now();
  const body = fileExportBody(entity, options);
  const { columns } = readBatchRequest(entity, body, 'UTC');
  const resuming = options.cursor !== undefined && options.cursor > 0;
  const appending = resuming && fileHasContent(options.out);
  const file = lazyFile(options.out, appending ? 'a' : 'w');
  const line =
    options.format === 'csv'
      ? (record: ExportRecord) => csvLine(columns.map((c) => record[c.key] as string | number | null))
      : (record: ExportRecord) => `${JSON.stringify(record)}\n`;

  const state: ExportProgress = { records: 0, total: null, cursor: options.cursor ?? null };
  let complete = false;
  let header = options.format === 'csv' && !appending ? csvLine(columns.map((c) => c.label)) : '';
  try {
    let cursor = options.cursor ?? 0;
    let max = body.max_records;
    for (;;) {
      const batch = await exportBatch(ctx, entity, { ...body, cursor, max_records: max });
      if (batch.total !== null) state.total = batch.total;
      let chunk = header;
      header = '';
      for (const record of batch.records) chunk += line(record);
      await file.write(chunk);
      state.records += batch.records.length;
      if (batch.records.length) state.cursor = batch.records[batch.records.length - 1].record_id;
      hooks.progress?.(state);
      if (!batch.has_more) {
        complete = true;
        break;
      }
      if (hooks.signal?.aborted) break;
      cursor = batch.cursor!;
      max = batch.batch.next_max;
    }
  } finally {
    await file.close();
  }
  return { ...state, complete, seconds: (performance.now() - started) / 1000 };
}

/** A one-line progress bar redrawn in place (at most ten times a second), for a terminal. */
export function progressBar(out: NodeJS.WritableStream, what: string): { update(state: ExportProgress): void; done(state: ExportProgress): void } {
  const started = performance.now();
  let drawn = 0;
  const draw = (state: ExportProgress, now: number) => {
    drawn = now;
    const rate = Math.round(state.records / Math.max(0.001, (now - started) / 1000));
    const width = 30;
    const share = state.total ? Math.min(1, state.records / state.total) : null;
    const bar = share === null ? '' : `[${'#'.repeat(Math.round(share * width)).padEnd(width, '.')}] ${(share * 100).toFixed(1)}% `;
    const count = state.total ? `${state.records.toLocaleString('en-US')}/${state.total.toLocaleString('en-US')}` : state.records.toLocaleString('en-US');
    out.write(`\r${bar}${count} ${what}  ${rate.toLocaleString('en-US')}/s  cursor ${state.cursor ?? '-'}   `);
  };
  return {
    update(state) {
      const now = performance.now();
      if (now - drawn >= 100) draw(state, now);
    },
    done(state) {
      draw(state, performance.now());
      out.write('\n');
    },
  };
}
