/**
 * Early installment payments (spec: "Early-payment conditions"): the admin generates a link, the shopper opens it and
 * pays the next installment of an installment plan before it is due; once paid it counts as that installment.
 */
import type { Ctx } from '../../../core/context';
import { fail, type AppError } from '../../../core/errors';
import type { Host } from '../../../host/contract';
import { getStoreSettings } from '../../settings/store-settings';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import type { Subscription } from '../types';
import { SUBSCRIPTION_NOT_FOUND } from './lookup';

export const EARLY_PAYMENT = {
  disabled: 'Early payment is not enabled for this site.',
  wrongOrder: 'Invalid subscription for the specified order.',
  notInstallments: 'Early payment is only available for installment subscriptions.',
  notActive: 'Subscription must be active to make early payments.',
  allPaid: 'All installments have already been paid.',
  generated: 'Early payment link generated.',
} as const;

export const EARLY_PAYMENT_PATH = '/early-payment/';

/** How long a link stays valid. */
export const LINK_TTL_SECONDS = 7 * 24 * 3600;
const PURPOSE = 'subscription-early-payment';

/** Conditions 3 to 5 (the site switch and the order are checked first): what stops paying the next installment early. */
export function installmentRefusal(subscription: Subscription): AppError | null {
  if (subscription.bill_times <= 0) return fail('invalid_state', EARLY_PAYMENT.notInstallments);
  if (subscription.status !== 'active' && subscription.status !== 'trialing') return fail('invalid_state', EARLY_PAYMENT.notActive);
  if (subscription.bill_times - subscription.bill_count <= 0) return fail('invalid_state', EARLY_PAYMENT.allPaid);
  return null;
}

export async function earlyPaymentEnabled(host: Host): Promise<boolean> {
  return (await getStoreSettings(host)).early_payment_enabled;
}

/** `<expiry>.<mac>`: the MAC (host signer) binds the subscription's uuid to the expiry, in epoch seconds. */
function tokenFor(ctx: Ctx, uuid: string): string {
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + LINK_TTL_SECONDS;
  return `${expires}.${ctx.host.signer.sign(PURPOSE, `${uuid}.${expires}`)}`;
}

/** Whether `token` was issued for this subscription and has not expired. */
export function tokenValid(host: Host, uuid: string, token: unknown, now: Date): boolean {
  if (typeof token !== 'string') return false;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{1,100})$/.exec(token);
  if (!match) return false;
  const expires = Number(match[1]);
  return expires * 1000 > now.getTime() && host.signer.verify(PURPOSE, `${uuid}.${expires}`, match[2]);
}

export function paymentUrl(ctx: Ctx, uuid: string): string {
  const site = ctx.host.site.url.replace(/\/+$/, '');
  return `${site}${EARLY_PAYMENT_PATH}?subscription_hash=${encodeURIComponent(uuid)}&token=${encodeURIComponent(tokenFor(ctx, uuid))}`;
}

/**
 * `POST /orders/{order}/subscriptions/{subscription}/early-payment-link`: the five conditions in the spec's order, each
 * with its message: the site switch (400), the subscription's parent order is `{order}` (404, as every route naming
 * both; a subscription that does not exist at all is 404 'Subscription not found'), an installment plan, `active` or
 * `trialing`, an installment left (400). Writes nothing: the link is signed, valid for 7 days.
 */
export async function earlyPaymentLink(ctx: Ctx, orderId: number, subscriptionId: number): Promise<{ message: string; payment_url: string }> {
  if (!(await earlyPaymentEnabled(ctx.host))) throw fail('invalid_state', EARLY_PAYMENT.disabled);
  const row = (await ctx.db('store_subscriptions').where({ id: subscriptionId }).first()) as SubscriptionRow | undefined;
  if (!row) throw fail('not_found', SUBSCRIPTION_NOT_FOUND);
  const subscription = presentSubscription(row);
  if (subscription.parent_order_id !== orderId) throw fail('not_found', EARLY_PAYMENT.wrongOrder);
  const refusal = installmentRefusal(subscription);
  if (refusal) throw refusal;
  return { message: EARLY_PAYMENT.generated, payment_url: paymentUrl(ctx, subscription.uuid) };
}
