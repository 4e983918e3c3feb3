import v8 from 'node:v8';
import { CommandError, CommandUsageError, type Host } from '../../host/contract';
import { EXPORT_ENTITY_NAMES } from './names';

const text = { type: 'string' } as const;
const HEAP_GROWING_PERCENT = 50;

function list(value: string | boolean | undefined): string[] | undefined {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;
}

function wholeNumber(flag: string, value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\s*\d{1,10}\s*$/.test(value)) throw new CommandUsageError(`--${flag} must be a whole number`);
  return Number(value);
}

/**
 * `npm run cli -- export <entity> --format csv|json --out FILE [--search S] [--active-view V] [--columns a,b]
 * [--modules a,b] [--cursor N] [--max N]`: the entity's export written to FILE (CSV, or JSON Lines) through the same
 * batches as `POST /data-export/{entity}/batch`, with a progress bar on a terminal. Ctrl-C stops after the batch in
 * hand and prints the cursor that resumes the export (`--cursor N` appends to FILE). The export modules load when
 * the command runs, not when it is registered.
 */
export function registerExportCommands(host: Host): void {
  for (const name of EXPORT_ENTITY_NAMES) {
    const usage = `export ${name} --format csv|json --out FILE [--search S] [--active-view V] [--columns a,b] [--modules a,b] [--cursor N] [--max N]`;
    host.commands.register(`export ${name}`, {
      usage,
      options: { format: text, out: text, search: text, 'active-view': text, columns: text, modules: text, cursor: text, max: text },
      async run(flags) {
        const format = flags.format ?? 'csv';
        if (format !== 'csv' && format !== 'json') throw new CommandUsageError('--format must be csv or json');
        if (typeof flags.out !== 'string' || !flags.out) throw new CommandUsageError('missing --out FILE');
        const { systemCtx } = require('../../core/context') as typeof import('../../core/context');
        const { RateLimits } = require('../../core/ratelimit') as typeof import('../../core/ratelimit');
        const { AppError } = require('../../core/errors') as typeof import('../../core/errors');
        const { EXPORT_ENTITIES } = require('./entities') as typeof import('./entities');
        const { exportToFile, progressBar } = require('./cli-export') as typeof import('./cli-export');
        const ctx = systemCtx(host, new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written')));
        const options = {
          format: format as 'csv' | 'json',
          out: flags.out,
          columns: list(flags.columns),
          modules: list(flags.modules),
          search: typeof flags.search === 'string' ? flags.search : undefined,
          activeView: typeof flags['active-view'] === 'string' ? flags['active-view'] : undefined,
          cursor: wholeNumber('cursor', flags.cursor),
          max: wholeNumber('max', flags.max),
        };
        // V8 lets the old generation grow to about four times what survived its last full collection: every batch
        // promotes some rows, so a long export settles ~150 MB above its start. Growing by half instead keeps this
        // process (whose only work is the export) within ~60 MB at no measurable cost (bench/data-export.ts).
        v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
        const bar = process.stderr.isTTY ? progressBar(process.stderr, name) : null;
        const stop = new AbortController();
        const interrupt = () => stop.abort();
        process.once('SIGINT', interrupt);
        let last = options.cursor ?? null;
        try {
          const result = await exportToFile(ctx, EXPORT_ENTITIES[name], options, {
            signal: stop.signal,
            progress: (state) => {
              last = state.cursor;
              bar?.update(state);
            },
          });
          bar?.done(result);
          const rate = Math.round(result.records / Math.max(result.seconds, 0.001));
          const summary = `${result.records} ${name} written to ${options.out} (${format}) in ${result.seconds.toFixed(1)} s, ${rate} records/s.`;
          if (result.complete) return [summary];
          return [`Interrupted: ${summary}`, `Resume: run the same command with --cursor ${result.cursor} (appends to ${options.out}).`];
        } catch (error) {
          const resume = last === null ? '' : ` Resume with --cursor ${last}.`;
          if (error instanceof AppError && error.status < 500) throw new CommandError(`${error.message}${resume}`);
          if (resume) host.logger.error({ err: error }, `export ${name} failed.${resume}`);
          throw error;
        } finally {
          process.removeListener('SIGINT', interrupt);
        }
      },
    });
  }
}
