import crypto from 'node:crypto';
import {
  IntervalUnit,
  PlanRequestStatus,
  SetupFeeFailureAction,
  SubscriptionPlanStatus,
  TenureType,
  type PlanRequest,
  type SubscriptionBillingCycle,
} from '@paypal/paypal-server-sdk';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import type { BillingInterval } from '../../modules/subscriptions/types';
import type { StoreMode } from '../../modules/settings/types';
import { paypalApi, type PayPalApi } from './client';
import { hasApiKeys, paypalCredentials, type PayPalCredentials } from './config';
import { askPayPal, paypalMoney } from './vendor';

declare module '../../host/contract' {
  interface OptionMap {
    /** The catalog product the store's billing plans belong to, per REST app (`<mode>:<client id>`). */
    paypal_catalog_products: Record<string, string>;
  }
}

/** What a subscription is billed: amounts in minor units of `currency`. */
export interface PlanTerms {
  /** The REST app's mode; default the store's current mode. */
  mode?: StoreMode;
  amount: number;
  currency: string;
  interval: BillingInterval;
  /** Bills every `interval_count` intervals (default 1). */
  interval_count?: number;
  /** The plan's name at PayPal, which the subscriber sees when approving and in their account. */
  product_name: string;
  trial_days?: number;
  /** Installments; 0 (default) bills until canceled. */
  bill_times?: number;
  signup_fee?: number;
}

export interface PayPalPlan {
  /** PayPal's plan id (`P-…`). */
  id: string;
  amount: number;
  billing_cycle: BillingInterval;
  /** Whether this call created the plan; false when a plan with these terms was reused. */
  created: boolean;
}

/** The store's intervals as PayPal's billing frequencies. */
const FREQUENCIES: Record<BillingInterval, { unit: IntervalUnit; count: number }> = {
  yearly: { unit: IntervalUnit.Year, count: 1 },
  half_yearly: { unit: IntervalUnit.Month, count: 6 },
  quarterly: { unit: IntervalUnit.Month, count: 3 },
  monthly: { unit: IntervalUnit.Month, count: 1 },
  weekly: { unit: IntervalUnit.Week, count: 1 },
  daily: { unit: IntervalUnit.Day, count: 1 },
};

/** PayPal's largest `interval_count` per unit (one year), and its largest `total_cycles` of a regular cycle. */
const MAX_COUNT: Record<IntervalUnit, number> = { DAY: 365, WEEK: 52, MONTH: 12, YEAR: 1 };
const MAX_CYCLES = 999;
const NAME_MAX = 127;

interface NormalTerms {
  mode: StoreMode;
  amount: number;
  currency: string;
  interval: BillingInterval;
  interval_count: number;
  product_name: string;
  trial_days: number;
  bill_times: number;
  signup_fee: number;
}

const count = (value: number | undefined) => value ?? 0;
const unbillable = (message: string) => fail('invalid_state', `PayPal cannot bill this subscription: ${message}`, { status: 422 });

function normalise(terms: PlanTerms, mode: StoreMode): NormalTerms {
  const normal: NormalTerms = {
    mode,
    amount: terms.amount,
    currency: terms.currency.toUpperCase(),
    interval: terms.interval,
    interval_count: terms.interval_count ?? 1,
    product_name: terms.product_name.trim().slice(0, NAME_MAX) || 'Subscription',
    trial_days: count(terms.trial_days),
    bill_times: count(terms.bill_times),
    signup_fee: count(terms.signup_fee),
  };
  const integers = [normal.amount, normal.interval_count, normal.trial_days, normal.bill_times, normal.signup_fee];
  if (integers.some((value) => !Number.isSafeInteger(value) || value < 0)) throw unbillable('amounts and counts must be whole, non-negative numbers.');
  if (normal.amount === 0) throw unbillable('the recurring amount is zero.');
  if (!FREQUENCIES[normal.interval]) throw unbillable(`unknown billing interval ${String(normal.interval)}.`);
  const { unit, count: per } = FREQUENCIES[normal.interval];
  if (normal.interval_count < 1 || per * normal.interval_count > MAX_COUNT[unit]) throw unbillable('PayPal bills at least once a year.');
  if (normal.trial_days > MAX_COUNT.DAY) throw unbillable('a trial lasts at most 365 days.');
  if (normal.bill_times > MAX_CYCLES) throw unbillable(`at most ${MAX_CYCLES} installments.`);
  return normal;
}

/** The billing cycles of the terms: a free TRIAL of `trial_days` days first when there is one, then the REGULAR one. */
function billingCycles(terms: NormalTerms): SubscriptionBillingCycle[] {
  const { unit, count: per } = FREQUENCIES[terms.interval];
  const regular: SubscriptionBillingCycle = {
    frequency: { intervalUnit: unit, intervalCount: per * terms.interval_count },
    tenureType: TenureType.Regular,
    sequence: terms.trial_days ? 2 : 1,
    totalCycles: terms.bill_times,
    pricingScheme: { fixedPrice: paypalMoney(terms.amount, terms.currency) },
  };
  if (!terms.trial_days) return [regular];
  return [
    { frequency: { intervalUnit: IntervalUnit.Day, intervalCount: terms.trial_days }, tenureType: TenureType.Trial, sequence: 1, totalCycles: 1 },
    regular,
  ];
}

/** How PayPal shows the terms (the plan's description). */
function describe(terms: NormalTerms): string {
  const price = `${paypalMoney(terms.amount, terms.currency).value} ${terms.currency}`;
  const every = terms.interval_count > 1 ? `every ${terms.interval_count} × ${terms.interval}` : terms.interval;
  const parts = [`${price} ${every.replace('_', '-')}`];
  if (terms.trial_days) parts.push(`${terms.trial_days}-day free trial`);
  if (terms.signup_fee) parts.push(`sign-up fee ${paypalMoney(terms.signup_fee, terms.currency).value} ${terms.currency}`);
  if (terms.bill_times) parts.push(`${terms.bill_times} payments`);
  return parts.join(', ').slice(0, NAME_MAX);
}

/**
 * The plan request: a subscription that fails its sign-up fee is canceled (`setup_fee_failure_action: CANCEL`), an
 * unpaid cycle is billed again with the next one (`auto_bill_outstanding`), and PayPal suspends it after three failed
 * payments in a row.
 */
function planRequest(productId: string, terms: NormalTerms): PlanRequest {
  return {
    productId,
    name: terms.product_name,
    description: describe(terms),
    status: PlanRequestStatus.Active,
    billingCycles: billingCycles(terms),
    paymentPreferences: {
      autoBillOutstanding: true,
      ...(terms.signup_fee ? { setupFee: paypalMoney(terms.signup_fee, terms.currency) } : {}),
      setupFeeFailureAction: SetupFeeFailureAction.Cancel,
      paymentFailureThreshold: 3,
    },
  };
}

const appKey = (credentials: PayPalCredentials) => `${credentials.mode}:${credentials.client_id}`;
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The catalog product every plan of the store belongs to (one per REST app, named after the site), created on first
 * need through `POST /v1/catalogs/products` (the SDK has no catalog calls: a plain `fetch` with the SDK's token) and
 * kept in the option `paypal_catalog_products`. Its `PayPal-Request-Id` is derived from the app, so processes creating
 * it at once get the same product back.
 */
async function catalogProduct(ctx: Ctx, api: PayPalApi, credentials: PayPalCredentials): Promise<string> {
  const key = appKey(credentials);
  const known = await ctx.host.options.get('paypal_catalog_products', {});
  if (known[key]) return known[key];
  const response = await askPayPal(ctx.host.logger, 'to create the catalog product', async () =>
    fetch(`${api.base}/v1/catalogs/products`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${await api.accessToken()}`,
        'Content-Type': 'application/json',
        'PayPal-Request-Id': `store-product-${sha256(key)}`,
        Prefer: 'return=representation',
      },
      body: JSON.stringify({ name: ctx.host.site.title.slice(0, NAME_MAX) || 'Store', type: 'SERVICE', description: 'Subscriptions' }),
      signal: AbortSignal.timeout(api.timeoutMs),
    }),
  );
  const answer = (await response.json().catch(() => ({}))) as { id?: unknown; name?: unknown; details?: Array<{ issue?: string; description?: string }> };
  if (response.status >= 500) throw fail('invalid_state', 'PayPal could not be reached. Please try again in a moment.', { status: 502 });
  if (!response.ok || typeof answer.id !== 'string') {
    const detail = answer.details?.[0];
    throw fail(
      'invalid_state',
      `PayPal refused to create the catalog product: ${detail?.issue ?? String(answer.name ?? response.status)}: ${detail?.description ?? ''}`.trim(),
      {
        status: 502,
      },
    );
  }
  await ctx.host.options.set('paypal_catalog_products', { ...(await ctx.host.options.get('paypal_catalog_products', {})), [key]: answer.id });
  return answer.id;
}

interface PlanRow {
  vendor_plan_id: string;
}

/**
 * The PayPal billing plan of a subscription's terms, created on first need and reused after (`store_paypal_plans`,
 * keyed by the REST app and the terms, the product name included: it is the plan's name, which the subscriber sees).
 * Intervals map to PayPal's frequencies (yearly YEAR/1, half-yearly MONTH/6, quarterly MONTH/3, monthly MONTH/1, weekly
 * WEEK/1, daily DAY/1, times `interval_count`), `bill_times` to the regular cycle's `total_cycles` (0: until canceled),
 * a trial to a free TRIAL cycle of `trial_days` days, the sign-up fee to `payment_preferences.setup_fee`. The plan is
 * created ACTIVE (activated when PayPal answers otherwise); its `PayPal-Request-Id` is derived from the key, so two
 * checkouts creating it at once get one plan. Terms PayPal cannot bill are a 422; PayPal refusing or not answering a
 * 502.
 */
export async function getOrCreatePlan(ctx: Ctx, terms: PlanTerms): Promise<PayPalPlan> {
  const credentials = await paypalCredentials(ctx.host, terms.mode);
  if (!hasApiKeys(credentials)) throw fail('invalid_state', 'PayPal is not set up to take payments.', { status: 502 });
  const normal = normalise(terms, credentials.mode);
  const { mode, ...rest } = normal;
  const key = sha256(JSON.stringify([appKey(credentials), rest]));
  const answer = (plan: string, created: boolean): PayPalPlan => ({ id: plan, amount: normal.amount, billing_cycle: normal.interval, created });
  const stored = (await ctx.db('store_paypal_plans').where({ terms_key: key }).first('vendor_plan_id')) as PlanRow | undefined;
  if (stored) return answer(stored.vendor_plan_id, false);

  const api = paypalApi(credentials);
  const productId = await catalogProduct(ctx, api, credentials);
  const { result: plan } = await askPayPal(ctx.host.logger, 'to create the billing plan', () =>
    api.subscriptions.createBillingPlan({ paypalRequestId: `store-plan-${key}`, prefer: 'return=representation', body: planRequest(productId, normal) }),
  );
  if (!plan.id) throw fail('invalid_state', 'PayPal created no billing plan. Please try again.', { status: 502 });
  const planId = plan.id;
  if (plan.status !== SubscriptionPlanStatus.Active) {
    await askPayPal(ctx.host.logger, 'to activate the billing plan', () => api.subscriptions.activateBillingPlan(planId));
  }
  await ctx
    .db('store_paypal_plans')
    .insert({
      terms_key: key,
      mode,
      vendor_plan_id: planId,
      vendor_product_id: productId,
      product_name: normal.product_name,
      currency: normal.currency,
      amount: normal.amount,
      billing_interval: normal.interval,
      interval_count: normal.interval_count,
      trial_days: normal.trial_days,
      bill_times: normal.bill_times,
      signup_fee: normal.signup_fee,
      created_at: toTimestamp(ctx.clock.now()),
    })
    .onConflict('terms_key')
    .ignore();
  return answer(planId, true);
}
