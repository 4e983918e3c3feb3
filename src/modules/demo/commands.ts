import type { Host } from '../../host/contract';
import { systemCtx } from '../../core/context';
import type { RateLimits } from '../../core/ratelimit';
import { DEMO_CUSTOMER_PASSWORD, seedDemo, storeIsEmpty } from './seed';

/** `npm run cli -- seed --demo`: the demo store (idempotent). */
export function registerDemoCommands(host: Host, limits: RateLimits): void {
  host.commands.register('seed', {
    usage: 'seed --demo',
    options: { demo: { type: 'boolean' } },
    async run(flags) {
      if (!flags.demo) return ['Nothing to seed: pass --demo.'];
      const ctx = systemCtx(host, limits);
      // `npm start -- --demo` loads the demo only into a store that has no catalogue yet.
      if (flags.ifEmpty && !(await storeIsEmpty(ctx))) return ['The store already has products; the demo was not loaded.'];
      const report = await seedDemo(ctx);
      const added = Object.entries(report)
        .filter(([, n]) => n > 0)
        .map(([what, n]) => `${n} ${what.replace(/_/g, ' ')}`);
      return [
        added.length ? `Demo store seeded: ${added.join(', ')}.` : 'Demo store already present; nothing added.',
        `Demo customers (jane, oliver, lena) log in with the password "${DEMO_CUSTOMER_PASSWORD}".`,
      ];
    },
  });
}
