import { CommandUsageError, type Host } from '../../host/contract';
import { systemCtx } from '../../core/context';
import type { RateLimits } from '../../core/ratelimit';
import { describeScaleReport, seedScale } from './scale';
import { DEMO_CUSTOMER_PASSWORD, seedDemo, storeIsEmpty } from './seed';

/** The largest `--scale` accepted (each customer is three rows; orders will add ten orders each). */
export const MAX_SCALE = 10_000_000;

function positiveInteger(flag: string, value: string | boolean | undefined, max: number): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new CommandUsageError(`--${flag} must be a whole number from 1 to ${max.toLocaleString('en-US')}`);
  return n;
}

/**
 * `npm run cli -- seed --demo`: the demo store (idempotent).
 * `npm run cli -- seed --scale N [--seed S]`: N generated customers with a billing and a shipping address each, in
 * bulk (see `scale.ts`); running it again adds N more.
 */
export function registerDemoCommands(host: Host, limits: RateLimits): void {
  host.commands.register('seed', {
    usage: 'seed --demo | --scale N [--seed S]',
    options: { demo: { type: 'boolean' }, scale: { type: 'string' }, seed: { type: 'string' } },
    async run(flags) {
      if (!flags.demo && flags.scale === undefined) return ['Nothing to seed: pass --demo.'];
      const ctx = systemCtx(host, limits);
      const output: string[] = [];
      if (flags.demo) {
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
      if (flags.scale !== undefined) {
        const customers = positiveInteger('scale', flags.scale, MAX_SCALE);
        const seed = flags.seed === undefined ? undefined : positiveInteger('seed', flags.seed, 0xffffffff);
        const report = await seedScale(ctx, { customers, seed, progress: (line) => host.logger.info({}, line.trim()) });
        output.push(...describeScaleReport(report));
      }
      return output;
    },
  });
}
