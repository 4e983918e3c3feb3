import { systemCtx, transaction } from '../../core/context';
import type { RateLimits } from '../../core/ratelimit';
import type { Host } from '../../host/contract';
import { recordActivity } from '../activities/service';
import { linkCustomerByEmail } from './owner';
import { presentCustomer, type CustomerRow } from './presenter';

/**
 * Verifying an email links the unlinked customer record with that address to the user (unless an administrator
 * detached them): the verified owner then sees their guest orders in the portal. Logged, and `store/customer/updated`.
 */
export function registerLinkOnVerify(host: Host, limits: RateLimits): void {
  host.hooks.addAction('host/user/email_verified', async (user) => {
    const ctx = systemCtx(host, limits, user);
    await transaction(ctx, async (trx, afterCommit) => {
      const id = await linkCustomerByEmail(trx, { user_id: user.id, email: user.email });
      if (id === null) return;
      const customer = presentCustomer((await trx('store_customers').where({ id }).first()) as CustomerRow);
      await recordActivity(
        trx,
        ctx,
        {
          object_type: 'customer',
          object_id: id,
          title: 'User attached',
          content: `Linked to the user ${user.login} (#${user.id}), who verified this email address.`,
        },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/customer/updated', customer, { ...customer, user_id: null }));
    });
  });
}
