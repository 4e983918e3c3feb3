import { CommandError, type Host } from '../../host/contract';

/**
 * `npm run cli -- reports rebuild`: the report facts and summaries recomputed from the orders, with progress on
 * stderr. `npm run cli -- reports verify`: recomputes them in memory and compares with the stored tables; the
 * differences go to stderr and the command exits 1. The report modules load when a command runs.
 */
export function registerReportCommands(host: Host): void {
  const context = () => {
    const { systemCtx } = require('../../core/context') as typeof import('../../core/context');
    const { RateLimits } = require('../../core/ratelimit') as typeof import('../../core/ratelimit');
    return systemCtx(host, new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written')));
  };
  const seconds = (started: number) => ((performance.now() - started) / 1000).toFixed(1);

  host.commands.register('reports rebuild', {
    usage: 'reports rebuild',
    options: {},
    async run() {
      const { rebuildReports } = require('./sync/rebuild') as typeof import('./sync/rebuild');
      const { progressWriter } = require('./sync/progress') as typeof import('./sync/progress');
      const started = performance.now();
      const { orders, facts } = await rebuildReports(context(), { progress: progressWriter(process.stderr, 'orders') });
      return [`Reports rebuilt from ${orders} orders: ${facts} counted, in ${seconds(started)} s.`];
    },
  });

  host.commands.register('reports verify', {
    usage: 'reports verify',
    options: {},
    async run() {
      const { verifyReports } = require('./sync/verify') as typeof import('./sync/verify');
      const { progressWriter } = require('./sync/progress') as typeof import('./sync/progress');
      const started = performance.now();
      const result = await verifyReports(context(), { progress: progressWriter(process.stderr, 'orders') });
      if (result.differenceCount) {
        process.stderr.write(`${result.differences.join('\n')}\n`);
        const more = result.differenceCount - result.differences.length;
        if (more > 0) process.stderr.write(`… and ${more} more\n`);
        throw new CommandError(`${result.differenceCount} stored report rows differ from the orders; run "reports rebuild".`);
      }
      return [`Reports verified against ${result.orders} orders (${result.facts} counted) in ${seconds(started)} s: no differences.`];
    },
  });
}
