import { CommandUsageError, type Host } from '../../host/contract';

/** The largest `--scale` accepted (each customer is three rows; orders will add ten orders each). */
export const MAX_SCALE = 10_000_000;

function positiveInteger(flag: string, value: string | boolean | undefined, max: number): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new CommandUsageError(`--${flag} must be a whole number from 1 to ${max.toLocaleString('en-US')}`);
  return n;
}

/**
 * `npm run cli -- seed --demo`: the demo store (idempotent).
 * `npm run cli -- seed --scale N [--seed S] [--customers-only]`: N generated customers with a billing and a shipping
 * address each, and ten orders and two subscriptions (with their orders) each unless `--customers-only`, in bulk (see
 * `scale.ts`); running it again adds N more.
 * The seeders load the store's services, so they are required when the command runs, not when it is registered:
 * every other CLI command starts without them.
 */
export function registerDemoCommands(host: Host): void {
  host.commands.register('seed', {
    usage: 'seed --demo | --scale N [--seed S] [--customers-only]',
    options: { demo: { type: 'boolean' }, scale: { type: 'string' }, seed: { type: 'string' }, 'customers-only': { type: 'boolean' } },
    async run(flags) {
      if (!flags.demo && flags.scale === undefined) return ['Nothing to seed: pass --demo.'];
      const scale =
        flags.scale === undefined
          ? undefined
          : {
              customers: positiveInteger('scale', flags.scale, MAX_SCALE),
              seed: flags.seed === undefined ? undefined : positiveInteger('seed', flags.seed, 0xffffffff),
              orders: !flags['customers-only'],
            };
      const { systemCtx } = require('../../core/context') as typeof import('../../core/context');
      const { RateLimits } = require('../../core/ratelimit') as typeof import('../../core/ratelimit');
      const ctx = systemCtx(host, new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written')));
      const output: string[] = [];
      if (flags.demo) {
        const { DEMO_CUSTOMER_PASSWORD, seedDemo, storeIsEmpty } = require('./seed') as typeof import('./seed');
        // `npm start -- --demo` loads the demo only into a store that has no catalogue yet.
        if (flags.ifEmpty && !(await storeIsEmpty(ctx))) {
          output.push('The store already has products; the demo was not loaded.');
        } else {
          const report = await seedDemo(ctx);
          const added = Object.entries(report)
            .filter(([, n]) => n > 0)
            .map(([what, n]) => `${n} ${what.replace(/_/g, ' ')}`);
          output.push(
            added.length ? `Demo store seeded: ${added.join(', ')}.` : 'Demo store already present; nothing added.',
            `Demo customers (jane, oliver, lena) log in with the password "${DEMO_CUSTOMER_PASSWORD}".`,
          );
        }
      }
      if (scale) {
        const { describeScaleReport, seedScale } = require('./scale') as typeof import('./scale');
        const report = await seedScale(ctx, { ...scale, progress: (line) => host.logger.info({}, line.trim()) });
        output.push(...describeScaleReport(report));
      }
      return output;
    },
  });
}
