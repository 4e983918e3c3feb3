import { transaction, type Ctx } from '../../../core/context';
import { fail, invalid } from '../../../core/errors';
import { decimalWithCode } from '../../../core/money';
import { toTimestamp } from '../../../core/time';
import { gatewayFor, paymentGateways } from '../../../gateways/registry';
import { subscriptionForVendor } from '../service';
import type { Subscription } from '../types';
import { atGateway, gatewaySubscriptionOf, refusedBy } from './gateway-calls';
import { assertChangeable, gatewayTitle, switchableMethods, switchTarget } from './methods';
import { ownSubscription } from './own';
import { issueToken, readToken } from './tokens';
import { chargePerPeriod } from './views';
import { writePortalChange } from './write';

/** How long a switch waits for its confirmation (the customer approves the new subscription at the other gateway meanwhile). */
const SWITCH_TTL_SECONDS = 30 * 60;

/** A switch asked for and not yet confirmed (`config.pending_switch`); `jti` is its token's id: only that token confirms it. */
interface PendingSwitch {
  jti: string;
  payment_method: string;
  payment_method_id: string;
  payment_method_type: string;
  expires_at: string;
}

function pendingSwitchOf(config: Record<string, unknown>): PendingSwitch | null {
  const pending = config.pending_switch as Partial<PendingSwitch> | undefined;
  return pending && typeof pending.jti === 'string' && typeof pending.payment_method === 'string' && typeof pending.payment_method_id === 'string'
    ? (pending as PendingSwitch)
    : null;
}

const tokenRefused = () => invalid('confirmation_token', 'invalid', 'The token is invalid or has expired.');

/** The unique key on (payment method, gateway subscription id): another subscription already has that id there. */
function isVendorIdTaken(error: unknown): boolean {
  const { code, message = '' } = error as { code?: string; message?: string };
  return (
    (code === 'ER_DUP_ENTRY' && message.includes('store_subscriptions_vendor_unique')) ||
    (!!code?.startsWith('SQLITE_CONSTRAINT') && message.includes('vendor_subscription_key'))
  );
}

const alreadyUsed = (title: string, id: string) => fail('payment_method_invalid', `The ${title} subscription ${id} already belongs to another subscription.`);

/**
 * `POST …/switch-payment-method`: asks to move the subscription to another gateway (one of its
 * `switchable_payment_methods`, named by `payment_method_type`: the gateway key or a kind it takes, e.g. `card` for
 * Stripe). `new_payment_method_id` is the subscription the customer set up at that gateway (PayPal: the approved
 * `I-…` subscription on the plan from `get-or-create-plan`). Nothing moves yet: the request is kept in
 * `config.pending_switch` and answered with a signed confirmation token (30 minutes) for `confirm-subscription-switch`.
 */
export async function switchPaymentMethod(ctx: Ctx, uuid: string, body: { new_payment_method_id: string; payment_method_type: string }) {
  const subscription = await ownSubscription(ctx, uuid);
  assertChangeable(subscription);
  const switchable = await switchableMethods(ctx, subscription);
  const target = switchTarget(switchable, body.payment_method_type);
  if (!target) {
    throw fail(
      'payment_method_invalid',
      switchable.length
        ? `This subscription can move to ${switchable.join(', ')}; none of them takes ${body.payment_method_type} payment methods.`
        : 'No other payment method can take over this subscription now.',
    );
  }
  const issued = issueToken(ctx, 'subscription-switch', subscription.id, SWITCH_TTL_SECONDS);
  const expiresAt = toTimestamp(issued.expiresAt);
  const updated = await transaction(ctx, async (trx, afterCommit) => {
    const current = await ownSubscription(ctx, uuid, { db: trx, lock: true });
    assertChangeable(current);
    const pending: PendingSwitch = {
      jti: issued.jti,
      payment_method: target,
      payment_method_id: body.new_payment_method_id,
      payment_method_type: body.payment_method_type,
      expires_at: expiresAt,
    };
    return writePortalChange(
      ctx,
      trx,
      afterCommit,
      current,
      { config: { ...current.config, pending_switch: pending } },
      {
        title: 'Payment method switch requested by the customer',
        content: `To ${gatewayTitle(ctx, target)} (${body.payment_method_type} ${body.new_payment_method_id}), to be confirmed by ${expiresAt}.`,
      },
    );
  });
  return {
    subscription: { id: updated.id, payment_method_id: body.new_payment_method_id, updated_at: updated.updated_at },
    payment_method: target,
    confirmation_token: issued.token,
    expires_at: expiresAt,
  };
}

/** Checks the subscription the customer set up at the new gateway: it exists there, bills, and bills what this one does. */
async function adoptable(ctx: Ctx, subscription: Subscription, pending: PendingSwitch) {
  const target = gatewayFor(ctx, pending.payment_method);
  const title = target.title;
  if (!target.lookupSubscription) throw fail('payment_method_invalid', `${title} cannot take over subscriptions.`);
  const lookup = target.lookupSubscription.bind(target);
  const { mode } = await gatewaySubscriptionOf(ctx.db, subscription);
  const remote = await atGateway(ctx, title, () => lookup(ctx, { vendor_subscription_id: pending.payment_method_id, vendor_customer_id: '', mode }));
  if (!remote) throw fail('payment_method_invalid', `${title} has no subscription ${pending.payment_method_id}.`);
  if (remote.status !== 'active' && remote.status !== 'trialing') {
    throw fail('payment_method_invalid', `The ${title} subscription ${pending.payment_method_id} is ${remote.status}; approve it at ${title} first.`);
  }
  const expected = chargePerPeriod(subscription);
  if (remote.currency.toUpperCase() !== subscription.currency.toUpperCase() || remote.amount !== expected) {
    throw fail(
      'payment_method_invalid',
      `The ${title} subscription bills ${decimalWithCode(remote.amount, remote.currency || subscription.currency)}, not ${decimalWithCode(expected, subscription.currency)}.`,
    );
  }
  const owner = await subscriptionForVendor(ctx.db, target.key, remote.id);
  if (owner && owner.id !== subscription.id) throw alreadyUsed(title, remote.id);
  return { target, remote };
}

/** The columns a switch moves, as they are before it (to put back when the old gateway cannot end its subscription). */
const billingColumns = (subscription: Subscription) => ({
  current_payment_method: subscription.current_payment_method,
  vendor_subscription_id: subscription.vendor_subscription_id,
  vendor_customer_id: subscription.vendor_customer_id,
  vendor_plan_id: subscription.vendor_plan_id,
  next_billing_date: subscription.next_billing_date,
  config: subscription.config,
});

/**
 * `POST …/confirm-subscription-switch`: applies the switch its token names, once (the token must be the pending
 * switch's, which the confirmation removes). The new gateway must show the subscription the customer set up there as
 * active (or trialing), billing this subscription's amount and currency, and not taken by another subscription. The
 * record then takes the new gateway, its ids and payment method, and commits before the old gateway's subscription is
 * ended, so the old gateway's cancellation notice no longer finds it. When the old gateway refuses or does not answer,
 * the switch is put back (502 `gateway_error`; the token stays valid for a retry).
 */
export async function confirmSubscriptionSwitch(ctx: Ctx, uuid: string, body: { confirmation_token: string }) {
  const subscription = await ownSubscription(ctx, uuid);
  const claims = readToken(ctx, 'subscription-switch', body.confirmation_token, subscription.id, 'confirmation_token');
  const pending = pendingSwitchOf(subscription.config);
  if (!pending || pending.jti !== claims.jti) throw tokenRefused();
  assertChangeable(subscription);
  if (!(await switchableMethods(ctx, subscription)).includes(pending.payment_method)) {
    throw fail('payment_method_invalid', `${gatewayTitle(ctx, pending.payment_method)} can no longer take over this subscription.`);
  }
  const { target, remote } = await adoptable(ctx, subscription, pending);
  const oldGateway = paymentGateways(ctx).get(subscription.current_payment_method);
  const oldRemote = await gatewaySubscriptionOf(ctx.db, subscription);
  const now = toTimestamp(ctx.clock.now());

  let before: Subscription;
  let switched: Subscription;
  try {
    [before, switched] = await transaction(ctx, async (trx, afterCommit) => {
      const current = await ownSubscription(ctx, uuid, { db: trx, lock: true });
      if (pendingSwitchOf(current.config)?.jti !== claims.jti) throw tokenRefused();
      assertChangeable(current);
      const { pending_switch: _confirmed, ...config } = current.config;
      const after = await writePortalChange(
        ctx,
        trx,
        afterCommit,
        current,
        {
          current_payment_method: target.key,
          vendor_subscription_id: remote.id,
          vendor_customer_id: remote.customer_id,
          vendor_plan_id: remote.plan_id,
          next_billing_date: remote.next_billing_date ?? current.next_billing_date,
          config: {
            ...config,
            payment_method_id: pending.payment_method_id,
            payment_method_type: pending.payment_method_type,
            payment_method_switched_at: now,
            switched_from: { payment_method: current.current_payment_method, vendor_subscription_id: current.vendor_subscription_id },
          },
        },
        {
          title: 'Payment method switched by the customer',
          content: `From ${gatewayTitle(ctx, current.current_payment_method)} (${current.vendor_subscription_id || 'no gateway id'}) to ${target.title} (${remote.id}).`,
        },
      );
      return [current, after];
    });
  } catch (error) {
    if (isVendorIdTaken(error)) throw alreadyUsed(target.title, remote.id);
    throw error;
  }

  if (oldGateway?.cancelSubscription && oldRemote.vendor_subscription_id) {
    const cancel = oldGateway.cancelSubscription.bind(oldGateway);
    try {
      const result = await atGateway(ctx, oldGateway.title, () => cancel(ctx, oldRemote));
      if (result.status === 'failed') throw refusedBy(oldGateway.title, result);
    } catch (error) {
      await transaction(ctx, async (trx, afterCommit) => {
        const current = await ownSubscription(ctx, uuid, { db: trx, lock: true });
        if (current.current_payment_method !== target.key || current.vendor_subscription_id !== remote.id) return;
        await writePortalChange(ctx, trx, afterCommit, current, billingColumns(before), {
          title: 'Payment method switch undone',
          content: `${oldGateway.title} could not end its subscription ${oldRemote.vendor_subscription_id}: ${(error as Error).message}`,
        });
      });
      throw error;
    }
  }
  return {
    id: switched.id,
    status: switched.status,
    payment_method_switched: true,
    updated_at: switched.updated_at,
    payment_method: switched.current_payment_method,
  };
}
