import { CommandUsageError, type Host } from '../../host/contract';

const FLAG = 'older-than-minutes';

/**
 * `npm run cli -- payments:reconcile [--older-than-minutes N]`: asks the gateways about refunds pending for N minutes
 * or more (default 60) and settles them. The payment modules load when it runs, not when it is registered, so other
 * commands start without them.
 */
export function registerPaymentCommands(host: Host): void {
  host.commands.register('payments:reconcile', {
    usage: `payments:reconcile [--${FLAG} N]`,
    options: { [FLAG]: { type: 'string' } },
    async run(flags) {
      const { RECONCILE_AFTER_MINUTES, describeReconcile, reconcilePendingRefunds } = require('./reconcile') as typeof import('./reconcile');
      const sent = flags[FLAG];
      const minutes = sent === undefined ? RECONCILE_AFTER_MINUTES : typeof sent === 'string' && /^\s*\d+\s*$/.test(sent) ? Number(sent) : NaN;
      // Younger refunds may still have their gateway call running: asked too early, a refund on its way looks absent.
      if (!Number.isSafeInteger(minutes) || minutes < 5 || minutes > 525_600)
        throw new CommandUsageError(`--${FLAG} must be a whole number of minutes from 5 to 525600`);
      const { systemCtx } = require('../../core/context') as typeof import('../../core/context');
      const { RateLimits } = require('../../core/ratelimit') as typeof import('../../core/ratelimit');
      const ctx = systemCtx(host, new RateLimits(host.db, (error) => host.logger.warn({ err: error }, 'rate-limit counter could not be written')));
      return describeReconcile(await reconcilePendingRefunds(ctx, minutes), minutes);
    },
  });
}
