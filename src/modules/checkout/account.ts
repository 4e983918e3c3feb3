/**
 * The account a guest asks for at checkout (`allow_create_account`, or always by the store's setting). The host user
 * is made after the order's transaction has committed (host-user calls never run inside a transaction: SQLite has one
 * connection), so a checkout that fails makes no user, and the customer exists before its user: no race can leave a
 * user without its customer. The new user is unverified and is mailed a verification link; only a customer record
 * this checkout created is linked to it, never an older record found by email.
 */
import { transaction, type Ctx } from '../../core/context';
import { invalid, type AppError } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { createHostUser } from '../customers/users-link';
import type { CheckoutCustomer } from './customer';
import type { CheckoutForm } from './form';

/**
 * A guest who wants an account but whose email already has one is asked to log in (nothing is made or linked);
 * 'made' when that account is the one an earlier attempt of this cart's checkout made (placed again after a gateway
 * failed), so there is nothing left to do.
 */
export async function accountProblem(ctx: Ctx, form: CheckoutForm, earlierUserId: number | null): Promise<AppError | 'made' | null> {
  const user = await ctx.host.users.findByEmail(form.email);
  if (!user) return null;
  if (user.id === earlierUserId) return 'made';
  return invalid('billing_email', 'unique', 'An account is already registered with your email address. Please log in.');
}

/** Creates the guest's host user and links it to the customer the checkout created; failures are logged, the order stands. */
export async function createCheckoutAccount(ctx: Ctx, customer: CheckoutCustomer, form: CheckoutForm): Promise<void> {
  try {
    const user = await createHostUser(ctx, { email: form.email, first_name: form.first_name, last_name: form.last_name });
    await transaction(ctx, async (trx, afterCommit) => {
      const linked = customer.created
        ? await trx('store_customers')
            .where({ id: customer.record.id })
            .whereNull('user_id')
            .update({ user_id: user.id, updated_at: toTimestamp(ctx.clock.now()) })
        : 0;
      await recordActivity(
        trx,
        ctx,
        {
          object_type: 'customer',
          object_id: customer.record.id,
          title: 'Account created at checkout',
          content: linked
            ? `The user ${user.login} (#${user.id}) was created and linked; the email address is not verified yet.`
            : `The user ${user.login} (#${user.id}) was created but not linked: this customer record existed before the checkout.`,
        },
        afterCommit,
      );
    });
    await ctx.host.users.requestEmailVerification(user.id);
  } catch (error) {
    ctx.host.logger.warn({ err: error, customer_id: customer.record.id }, 'checkout could not create the account');
  }
}
