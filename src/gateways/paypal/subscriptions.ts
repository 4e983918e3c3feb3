import {
  ApplicationContextUserAction,
  ExperienceContextShippingPreference,
  SubscriptionStatus as PayPalStatus,
  TenureType,
  type Subscription as PayPalSubscription,
} from '@paypal/paypal-server-sdk';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import type { BillingInterval, SubscriptionStatus } from '../../modules/subscriptions/types';
import type { GatewayResult, GatewaySubscription, RemoteSubscription, SubscriptionStart, SubscriptionStartRequest } from '../gateway';
import { paypalApi, type PayPalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { getOrCreatePlan } from './plans';
import { askPayPal, describeRefusal, minorAmount, paypalMoney, refusalOf } from './vendor';

const NOT_SET_UP = 'PayPal is not set up to take payments.';

async function apiOfMode(ctx: Ctx, mode: string): Promise<PayPalApi> {
  const credentials = await paypalCredentials(ctx.host, modeOf(mode));
  if (!hasApiKeys(credentials)) throw fail('invalid_state', NOT_SET_UP, { status: 502 });
  return paypalApi(credentials);
}

/** Where PayPal sends the subscriber back: the return route with the order's uuid; PayPal appends `subscription_id`. */
function returnUrl(request: SubscriptionStartRequest): string {
  const url = new URL(request.urls.return_url);
  url.searchParams.set('order_hash', request.order.uuid);
  return url.toString();
}

function subscriberName(name: string): { givenName?: string; surname?: string } {
  const [given, ...rest] = name.trim().split(/\s+/);
  return { ...(given ? { givenName: given.slice(0, 140) } : {}), ...(rest.length ? { surname: rest.join(' ').slice(0, 140) } : {}) };
}

/**
 * What the subscriber pays on approving: the order's pending charge, which is the sign-up fee plus the first period
 * (or the fee alone during a trial) plus whatever else the order holds. PayPal takes it as the subscription's setup
 * fee (overriding the plan's), so PayPal's first payment is exactly the charge the order waits for.
 */
function setupFee(request: SubscriptionStartRequest): number {
  const { subscription, transaction } = request;
  const fee = transaction.total - (subscription.trial_days > 0 ? 0 : subscription.recurring_amount);
  if (fee < 0) throw fail('invalid_state', 'PayPal cannot take a first payment smaller than the recurring amount.', { status: 422 });
  return fee;
}

async function getSubscription(api: PayPalApi, id: string): Promise<PayPalSubscription> {
  const { result } = await api.subscriptions.getSubscription({ id, fields: 'plan' });
  return result;
}

/** A PayPal subscription by id (`fields=plan`); null when there is no id or PayPal does not know it (404). */
async function findSubscription(ctx: Ctx, api: PayPalApi, id: string): Promise<PayPalSubscription | null> {
  if (!id) return null;
  return askPayPal(ctx.host.logger, 'to show the subscription', async () => {
    try {
      return await getSubscription(api, id);
    } catch (error) {
      if (refusalOf(error)?.status === 404) return null;
      throw error;
    }
  });
}

const approveLink = (subscription: PayPalSubscription) => subscription.links?.find((link) => link.rel === 'approve')?.href;

/**
 * Starts a subscription at PayPal for a placed order: the plan of its terms (`getOrCreatePlan`), then `POST
 * /v1/billing/subscriptions` with `custom_id` the store subscription's uuid, the subscriber's email and name, the
 * first payment as the setup fee (see `setupFee`), and the return and cancel URLs (`user_action: SUBSCRIBE_NOW`, no
 * shipping asked: the store has the address). The shopper approves at PayPal's `approve` link. The PayPal
 * subscription id (`I-…`) is also the pending charge's `vendor_charge_id`: the first payment (the return,
 * `BILLING.SUBSCRIPTION.ACTIVATED` or the first `PAYMENT.SALE.COMPLETED`) finds the charge by it.
 *
 * The checkout placed again: a subscription of an earlier attempt still awaiting approval on the same plan and first
 * payment is offered again; one the shopper already approved sends them to the return route, which settles it (no
 * second subscription is billed); one PayPal ended (a declined first payment) is replaced by a new one. The
 * `PayPal-Request-Id` names the store subscription, the plan, the first payment and the subscription replaced, so a
 * retried call gets the same PayPal subscription back.
 */
export async function startPayPalSubscription(ctx: Ctx, request: SubscriptionStartRequest): Promise<SubscriptionStart> {
  const { subscription } = request;
  const api = await apiOfMode(ctx, request.order.mode);
  const plan = await getOrCreatePlan(ctx, {
    mode: modeOf(request.order.mode),
    amount: subscription.recurring_amount,
    currency: subscription.currency,
    interval: subscription.billing_interval as BillingInterval,
    product_name: subscription.item_name,
    trial_days: subscription.trial_days,
    bill_times: subscription.bill_times,
    signup_fee: subscription.signup_fee,
  });
  const fee = paypalMoney(setupFee(request), subscription.currency);
  const started = (id: string, redirect: string): SubscriptionStart => ({
    kind: 'redirect',
    redirect_url: redirect,
    vendor_subscription_id: id,
    vendor_plan_id: plan.id,
    vendor_charge_id: id,
  });

  const earlier = await findSubscription(ctx, api, subscription.vendor_subscription_id);
  if (earlier?.id) {
    const pending = approveLink(earlier);
    const sameTerms = earlier.planId === plan.id && earlier.plan?.paymentPreferences?.setupFee?.value === fee.value;
    if (earlier.status === PayPalStatus.ApprovalPending && pending && sameTerms) return started(earlier.id, pending);
    if (earlier.status === PayPalStatus.Active || earlier.status === PayPalStatus.Approved) {
      const back = new URL(returnUrl(request));
      back.searchParams.set('subscription_id', earlier.id);
      return started(earlier.id, back.toString());
    }
  }

  const replaces = earlier?.id ? `-after-${earlier.id}` : '';
  const { result } = await askPayPal(ctx.host.logger, 'the subscription', () =>
    api.subscriptions.createSubscription({
      paypalRequestId: `subscription-${subscription.uuid}-${plan.id}-${fee.value}${fee.currencyCode}${replaces}`,
      prefer: 'return=representation',
      body: {
        planId: plan.id,
        customId: subscription.uuid,
        subscriber: { emailAddress: request.customer.email, name: subscriberName(request.customer.name) },
        plan: { paymentPreferences: { setupFee: fee } },
        applicationContext: {
          brandName: ctx.host.site.title.slice(0, 127) || undefined,
          userAction: ApplicationContextUserAction.SubscribeNow,
          shippingPreference: ExperienceContextShippingPreference.NoShipping,
          returnUrl: returnUrl(request),
          cancelUrl: request.urls.cancel_url,
        },
      },
    }),
  );
  const approve = approveLink(result);
  if (!result.id || !approve) throw fail('invalid_state', 'PayPal gave no page to approve the subscription on. Please try again.', { status: 502 });
  return started(result.id, approve);
}

/** Whether an active PayPal subscription is still in its free trial: it has a trial cycle and no regular cycle was billed. */
function inTrial(subscription: PayPalSubscription): boolean {
  const executions = subscription.billingInfo?.cycleExecutions ?? [];
  const regular = executions.find((cycle) => cycle.tenureType === TenureType.Regular);
  return executions.some((cycle) => cycle.tenureType === TenureType.Trial) && (regular?.cyclesCompleted ?? 0) === 0;
}

/** Whether every installment of a finite plan was billed (PayPal then ends the subscription as EXPIRED). */
function installmentsDone(subscription: PayPalSubscription): boolean {
  const regular = subscription.billingInfo?.cycleExecutions?.find((cycle) => cycle.tenureType === TenureType.Regular);
  return !!regular?.totalCycles && regular.cyclesCompleted >= regular.totalCycles;
}

/**
 * PayPal's status as the store's: not yet approved → pending; ACTIVE → active (trialing during a free trial);
 * SUSPENDED → failing when payments failed (PayPal suspends after the plan's failure threshold), paused when the
 * merchant suspended it; CANCELLED → canceled; EXPIRED → completed when every installment was billed, else expired.
 */
export function storeStatusOf(subscription: PayPalSubscription): SubscriptionStatus {
  switch (subscription.status) {
    case PayPalStatus.Active:
      return inTrial(subscription) ? 'trialing' : 'active';
    case PayPalStatus.Suspended:
      return (subscription.billingInfo?.failedPaymentsCount ?? 0) > 0 ? 'failing' : 'paused';
    case PayPalStatus.Cancelled:
      return 'canceled';
    case PayPalStatus.Expired:
      return installmentsDone(subscription) ? 'completed' : 'expired';
    default:
      return 'pending';
  }
}

const timestampOf = (value: string | undefined): string | null => {
  const time = value ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? null : toTimestamp(new Date(time));
};

/** The recurring price: the plan's regular cycle (asked for with `fields=plan`), else the last payment. */
function priceOf(subscription: PayPalSubscription): { currency: string; amount: number } | null {
  const regular = subscription.plan?.billingCycles?.find((cycle) => cycle.tenureType === TenureType.Regular);
  const money = regular?.pricingScheme?.fixedPrice ?? subscription.billingInfo?.lastPayment?.amount;
  return money ? minorAmount(money.currencyCode, money.value) : null;
}

export function remoteOf(subscription: PayPalSubscription): RemoteSubscription {
  const status = storeStatusOf(subscription);
  const price = priceOf(subscription);
  return {
    id: subscription.id ?? '',
    status,
    customer_id: subscription.subscriber?.payerId ?? '',
    plan_id: subscription.planId ?? '',
    amount: price?.amount ?? 0,
    currency: price?.currency ?? '',
    next_billing_date: timestampOf(subscription.billingInfo?.nextBillingTime),
    canceled_at: status === 'canceled' ? timestampOf(subscription.statusUpdateTime) : null,
  };
}

/** `fetch`: the subscription as PayPal has it (`GET /v1/billing/subscriptions/{id}?fields=plan`); a 502 with PayPal's reason when it cannot. */
export async function fetchPayPalSubscription(ctx: Ctx, subscription: GatewaySubscription): Promise<RemoteSubscription> {
  if (!subscription.vendor_subscription_id) throw fail('invalid_state', 'The subscription has no PayPal subscription id.', { status: 422 });
  const api = await apiOfMode(ctx, subscription.mode);
  return remoteOf(await askPayPal(ctx.host.logger, 'to show the subscription', () => getSubscription(api, subscription.vendor_subscription_id)));
}

/**
 * `verify-vendor-ids`: the PayPal subscription with that id in the mode's REST app, or null when PayPal has none, or
 * when a `vendor_customer_id` is given and is not its subscriber (payer id). Writes nothing.
 */
export async function lookupPayPalSubscription(
  ctx: Ctx,
  ids: { vendor_subscription_id: string; vendor_customer_id: string; mode: string },
): Promise<RemoteSubscription | null> {
  const found = await findSubscription(ctx, await apiOfMode(ctx, ids.mode), ids.vendor_subscription_id);
  if (!found) return null;
  const remote = remoteOf(found);
  if (ids.vendor_customer_id && remote.customer_id && ids.vendor_customer_id !== remote.customer_id) return null;
  return remote;
}

/** PayPal's status of a subscription it ended (CANCELLED, EXPIRED); null when it has not, or cannot say now. */
async function endedAtPayPal(ctx: Ctx, api: PayPalApi, id: string): Promise<string | null> {
  const found = await findSubscription(ctx, api, id).catch(() => null);
  return found?.status === PayPalStatus.Cancelled || found?.status === PayPalStatus.Expired ? found.status : null;
}

/**
 * Ends the subscription at PayPal now (`POST /v1/billing/subscriptions/{id}/cancel` with a reason; 204). Refused
 * because PayPal already ended it (CANCELLED, or EXPIRED after a plan's last cycle): `skipped`, it is ended. Any other
 * refusal (unknown id …) is `failed` with PayPal's issue; no answer throws.
 */
export async function cancelPayPalSubscription(ctx: Ctx, subscription: GatewaySubscription, reason = 'Canceled by the store.'): Promise<GatewayResult> {
  if (!subscription.vendor_subscription_id) return { status: 'skipped', message: 'The subscription has no PayPal subscription id.' };
  const credentials = await paypalCredentials(ctx.host, modeOf(subscription.mode));
  if (!hasApiKeys(credentials)) return { status: 'failed', message: `PayPal's client id and secret are not set for ${credentials.mode} mode.` };
  const api = paypalApi(credentials);
  try {
    await api.subscriptions.cancelSubscription({ id: subscription.vendor_subscription_id, body: { reason: reason.slice(0, 128) } });
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    const ended = refusal.status === 422 ? await endedAtPayPal(ctx, api, subscription.vendor_subscription_id) : null;
    if (ended) return { status: 'skipped', message: `PayPal had already ended the subscription (${ended}).` };
    return { status: 'failed', message: describeRefusal(refusal) };
  }
  return { status: 'success', message: `Canceled at PayPal (${subscription.vendor_subscription_id}).`, vendor_id: subscription.vendor_subscription_id };
}
