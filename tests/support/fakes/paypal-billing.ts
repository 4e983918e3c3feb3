import { parseDecimalToCents } from '../../../src/core/money';

type Json = Record<string, unknown>;
type Reply = [number, Json | null];

/** The billing calls the fake answers (see `FakePayPal.failOn`). */
export const BILLING_OPERATIONS = [
  'create_product',
  'create_plan',
  'get_plan',
  'activate_plan',
  'create_subscription',
  'get_subscription',
  'list_transactions',
  'cancel_subscription',
] as const;
export type BillingOperation = (typeof BILLING_OPERATIONS)[number];

export const BILLING_ROUTES: Array<[string, RegExp, BillingOperation]> = [
  ['POST', /^\/v1\/catalogs\/products$/, 'create_product'],
  ['POST', /^\/v1\/billing\/plans$/, 'create_plan'],
  ['GET', /^\/v1\/billing\/plans\/([^/]+)$/, 'get_plan'],
  ['POST', /^\/v1\/billing\/plans\/([^/]+)\/activate$/, 'activate_plan'],
  ['POST', /^\/v1\/billing\/subscriptions$/, 'create_subscription'],
  ['GET', /^\/v1\/billing\/subscriptions\/([^/]+)$/, 'get_subscription'],
  ['GET', /^\/v1\/billing\/subscriptions\/([^/]+)\/transactions$/, 'list_transactions'],
  ['POST', /^\/v1\/billing\/subscriptions\/([^/]+)\/cancel$/, 'cancel_subscription'],
];

/** What the billing part borrows from the fake it belongs to. */
export interface PayPalBillingHost {
  /** A PayPal id: 17 upper-case letters and digits. */
  id(): string;
  error(name: string, issue: string, description: string, message?: string): Json;
  validValue(currency: string, value: unknown): boolean;
  digits(currency: string): number;
  now(): Date;
}

interface Cycle {
  frequency: { interval_unit: string; interval_count: number };
  tenure_type: 'TRIAL' | 'REGULAR';
  sequence: number;
  total_cycles: number;
  pricing_scheme?: { fixed_price: { currency_code: string; value: string }; version?: number };
}

interface FakePlan {
  id: string;
  product_id: string;
  name: string;
  description: string;
  status: 'CREATED' | 'ACTIVE' | 'INACTIVE';
  billing_cycles: Cycle[];
  payment_preferences: Json;
  create_time: string;
}

/** A subscription as the fake keeps it; `cycles[i]` counts the cycles billed of `plan.billing_cycles[i]`. */
export interface FakeSubscription {
  id: string;
  plan_id: string;
  status: 'APPROVAL_PENDING' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED' | 'EXPIRED';
  custom_id?: string;
  subscriber: Json;
  setup_fee: { currency_code: string; value: string } | null;
  return_url: string;
  cancel_url: string;
  ba_token: string;
  completed: number[];
  last_payment?: { amount: { currency_code: string; value: string }; time: string };
  last_failed_payment?: Json;
  next_billing_time?: string;
  failed_payments_count: number;
  status_update_time: string;
  status_change_note?: string;
  create_time: string;
  sales: string[];
}

const MAX_COUNT: Record<string, number> = { DAY: 365, WEEK: 52, MONTH: 12, YEAR: 1 };
const SANDBOX = 'https://api-m.sandbox.paypal.com';

const stamp = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function advance(from: Date, frequency: Cycle['frequency']): Date {
  const next = new Date(from);
  const n = frequency.interval_count;
  if (frequency.interval_unit === 'DAY') next.setUTCDate(next.getUTCDate() + n);
  else if (frequency.interval_unit === 'WEEK') next.setUTCDate(next.getUTCDate() + 7 * n);
  else if (frequency.interval_unit === 'MONTH') next.setUTCMonth(next.getUTCMonth() + n);
  else next.setUTCFullYear(next.getUTCFullYear() + n);
  return next;
}

/**
 * PayPal's Catalog Products and Subscriptions APIs (v1) in the fake, in PayPal's wire format: products, billing plans
 * (create, get, activate; a plan is used only while ACTIVE), subscriptions (create with an `approve` link, get with
 * `fields=plan`, list transactions between `start_time` and `end_time`, cancel). As at PayPal, a subscription's first payment is its setup fee plus, without a trial, the
 * first regular cycle, taken as one sale when the subscriber approves.
 *
 * Helpers drive what PayPal does on its own: `approve` (the subscriber approves; `paymentPending` leaves the
 * subscription ACTIVE with its first payment not yet taken, `takeFirstPayment` then takes it), `renew` (the next
 * cycle billed: a sale; the last installment expires the subscription), `failPayment` (a failed cycle; the plan's
 * failure threshold suspends it), `saleResource` and `subscriptionResource` (webhook resources).
 */
export class FakePayPalBilling {
  readonly products = new Map<string, Json>();
  readonly plans = new Map<string, FakePlan>();
  readonly subscriptions = new Map<string, FakeSubscription>();
  readonly sales = new Map<string, Json>();
  /** The subscriber's approval leaves the first payment pending (taken later by `takeFirstPayment`). */
  paymentPending = false;

  constructor(private readonly host: PayPalBillingHost) {}

  reset(): void {
    this.paymentPending = false;
  }

  answer(operation: BillingOperation, id: string, body: Json, query: URLSearchParams): Reply {
    switch (operation) {
      case 'create_product':
        return this.createProduct(body);
      case 'create_plan':
        return this.createPlan(body);
      case 'get_plan': {
        const plan = this.plans.get(id);
        return plan ? [200, this.planJson(plan)] : this.missing();
      }
      case 'activate_plan': {
        const plan = this.plans.get(id);
        if (!plan) return this.missing();
        plan.status = 'ACTIVE';
        return [204, null];
      }
      case 'create_subscription':
        return this.createSubscription(body);
      case 'get_subscription': {
        const subscription = this.subscriptions.get(id);
        return subscription ? [200, this.subscriptionJson(subscription, query.get('fields') === 'plan')] : this.missing();
      }
      case 'list_transactions':
        return this.transactions(id, query);
      case 'cancel_subscription':
        return this.cancel(id, body);
    }
  }

  /** The subscriber approves at PayPal: the subscription is ACTIVE and its first payment taken; returns where PayPal sends them back. */
  approve(subscriptionId: string): string {
    const subscription = this.must(subscriptionId);
    if (subscription.status === 'APPROVAL_PENDING') {
      subscription.status = 'ACTIVE';
      subscription.status_update_time = stamp(this.host.now());
      subscription.subscriber = { ...subscription.subscriber, payer_id: 'FAKEPAYER123' };
      this.startCycles(subscription);
      if (!this.paymentPending) this.takeFirstPayment(subscriptionId);
    }
    const back = new URL(subscription.return_url);
    back.searchParams.set('subscription_id', subscription.id);
    back.searchParams.set('ba_token', subscription.ba_token);
    back.searchParams.set('token', subscription.ba_token.replace(/^BA-/, ''));
    return back.toString();
  }

  /** The first payment of an approved subscription (setup fee, plus the first cycle without a trial); null when nothing is due. */
  takeFirstPayment(subscriptionId: string): Json | null {
    const subscription = this.must(subscriptionId);
    const plan = this.plans.get(subscription.plan_id)!;
    const first = plan.billing_cycles[0];
    const parts = [subscription.setup_fee, first.tenure_type === 'REGULAR' ? first.pricing_scheme!.fixed_price : null];
    return this.sale(subscription, parts);
  }

  /** The next regular cycle is billed: a completed sale; after the last installment the subscription EXPIRES. */
  renew(subscriptionId: string): Json {
    const subscription = this.must(subscriptionId);
    if (subscription.status !== 'ACTIVE') throw new Error(`cannot bill a ${subscription.status} subscription`);
    const plan = this.plans.get(subscription.plan_id)!;
    const index = plan.billing_cycles.findIndex((cycle, i) => cycle.tenure_type === 'REGULAR' || subscription.completed[i] < cycle.total_cycles);
    const cycle = plan.billing_cycles[index];
    subscription.completed[index] += 1;
    const sale = this.sale(subscription, [cycle.pricing_scheme?.fixed_price ?? null])!;
    subscription.failed_payments_count = 0;
    this.scheduleNext(subscription, index);
    return sale;
  }

  /** A cycle's payment failed; at the plan's `payment_failure_threshold` PayPal suspends the subscription. */
  failPayment(subscriptionId: string): void {
    const subscription = this.must(subscriptionId);
    const plan = this.plans.get(subscription.plan_id)!;
    const regular = plan.billing_cycles.find((cycle) => cycle.tenure_type === 'REGULAR')!;
    subscription.failed_payments_count += 1;
    subscription.last_failed_payment = { amount: regular.pricing_scheme!.fixed_price, time: stamp(this.host.now()), reason_code: 'PAYMENT_DENIED' };
    const threshold = Number(plan.payment_preferences.payment_failure_threshold ?? 0);
    if (threshold && subscription.failed_payments_count >= threshold) this.setStatus(subscription, 'SUSPENDED');
  }

  /** The webhook resource of a sale (`PAYMENT.SALE.*`, Payments v1 format). */
  saleResource(saleId: string): Json {
    return this.sales.get(saleId)!;
  }

  /** The webhook resource of a subscription (`BILLING.SUBSCRIPTION.*`). */
  subscriptionResource(subscriptionId: string): Json {
    return this.subscriptionJson(this.must(subscriptionId), false);
  }

  private must(subscriptionId: string): FakeSubscription {
    const subscription = this.subscriptions.get(subscriptionId);
    if (!subscription) throw new Error(`no PayPal subscription ${subscriptionId}`);
    return subscription;
  }

  private missing(): Reply {
    return [404, this.host.error('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Requested resource ID was not found.')];
  }

  private unprocessable(issue: string, description: string): Reply {
    return [422, this.host.error('UNPROCESSABLE_ENTITY', issue, description)];
  }

  private badRequest(issue: string, description: string): Reply {
    return [400, this.host.error('INVALID_REQUEST', issue, description, 'Request is not well-formed, syntactically incorrect, or violates schema.')];
  }

  private setStatus(subscription: FakeSubscription, status: FakeSubscription['status'], note?: string): void {
    subscription.status = status;
    subscription.status_update_time = stamp(this.host.now());
    if (note) subscription.status_change_note = note;
  }

  private createProduct(body: Json): Reply {
    if (typeof body.name !== 'string' || !body.name) return this.badRequest('MISSING_REQUIRED_PARAMETER', 'name is required.');
    if (!['PHYSICAL', 'DIGITAL', 'SERVICE'].includes(String(body.type))) return this.badRequest('INVALID_PARAMETER_VALUE', 'type is invalid.');
    const id = `PROD-${this.host.id()}`;
    const time = stamp(this.host.now());
    const product = { id, name: body.name, description: body.description, type: body.type, create_time: time, update_time: time, links: [] };
    this.products.set(id, product);
    return [201, product];
  }

  private cycleError(cycle: Cycle): string | null {
    const { frequency } = cycle;
    if (!frequency || !(frequency.interval_unit in MAX_COUNT)) return 'billing_cycles[].frequency.interval_unit is invalid.';
    if (!Number.isInteger(frequency.interval_count) || frequency.interval_count < 1 || frequency.interval_count > MAX_COUNT[frequency.interval_unit]) {
      return `interval_count is out of range for ${frequency.interval_unit}.`;
    }
    if (cycle.tenure_type !== 'TRIAL' && cycle.tenure_type !== 'REGULAR') return 'tenure_type is invalid.';
    if (!Number.isInteger(cycle.total_cycles ?? 1) || (cycle.total_cycles ?? 1) < 0 || (cycle.total_cycles ?? 1) > 999) return 'total_cycles is out of range.';
    if (cycle.tenure_type === 'REGULAR') {
      const price = cycle.pricing_scheme?.fixed_price;
      if (!price || !this.host.validValue(price.currency_code, price.value)) return 'pricing_scheme.fixed_price is invalid for the currency.';
    }
    return null;
  }

  private createPlan(body: Json): Reply {
    const productId = String(body.product_id ?? '');
    if (!this.products.has(productId)) return this.badRequest('INVALID_PARAMETER_VALUE', `The product ${productId} does not exist.`);
    if (typeof body.name !== 'string' || !body.name || body.name.length > 127)
      return this.badRequest('INVALID_STRING_LENGTH', 'name is required, at most 127 characters.');
    const cycles = body.billing_cycles as Cycle[] | undefined;
    if (!Array.isArray(cycles) || !cycles.length) return this.badRequest('MISSING_REQUIRED_PARAMETER', 'billing_cycles is required.');
    if (cycles.filter((cycle) => cycle.tenure_type === 'REGULAR').length !== 1)
      return this.unprocessable('INVALID_BILLING_CYCLE', 'Exactly one REGULAR cycle is expected here.');
    for (const cycle of cycles) {
      const error = this.cycleError(cycle);
      if (error) return this.badRequest('INVALID_PARAMETER_VALUE', error);
    }
    const preferences = (body.payment_preferences ?? {}) as Json;
    const fee = preferences.setup_fee as { currency_code: string; value: string } | undefined;
    if (fee && !this.host.validValue(fee.currency_code, fee.value)) return this.badRequest('INVALID_PARAMETER_VALUE', 'setup_fee is invalid.');
    const id = `P-${this.host.id()}${this.host.id().slice(0, 7)}`;
    const plan: FakePlan = {
      id,
      product_id: productId,
      name: body.name,
      description: String(body.description ?? ''),
      status: (body.status as FakePlan['status']) ?? 'ACTIVE',
      billing_cycles: [...cycles].sort((a, b) => a.sequence - b.sequence).map((cycle) => ({ ...cycle, total_cycles: cycle.total_cycles ?? 1 })),
      payment_preferences: { auto_bill_outstanding: true, setup_fee_failure_action: 'CANCEL', payment_failure_threshold: 0, ...preferences },
      create_time: stamp(this.host.now()),
    };
    this.plans.set(id, plan);
    return [201, this.planJson(plan)];
  }

  private planJson(plan: FakePlan): Json {
    return {
      id: plan.id,
      product_id: plan.product_id,
      name: plan.name,
      status: plan.status,
      description: plan.description,
      usage_type: 'LICENSED',
      billing_cycles: plan.billing_cycles.map((cycle) => ({
        ...cycle,
        ...(cycle.pricing_scheme ? { pricing_scheme: { version: 1, ...cycle.pricing_scheme } } : {}),
      })),
      payment_preferences: plan.payment_preferences,
      quantity_supported: false,
      create_time: plan.create_time,
      update_time: plan.create_time,
      links: [{ href: `${SANDBOX}/v1/billing/plans/${plan.id}`, rel: 'self', method: 'GET' }],
    };
  }

  private createSubscription(body: Json): Reply {
    const plan = this.plans.get(String(body.plan_id ?? ''));
    if (!plan) return this.badRequest('INVALID_PARAMETER_VALUE', 'The specified plan_id does not exist.');
    if (plan.status !== 'ACTIVE')
      return this.unprocessable('PLAN_STATUS_INVALID', 'Invalid plan status. Subscription creation is allowed only for plans with ACTIVE status.');
    if (typeof body.custom_id === 'string' && body.custom_id.length > 127) return this.badRequest('INVALID_STRING_LENGTH', 'custom_id is too long.');
    const context = (body.application_context ?? {}) as Json;
    if (typeof context.return_url !== 'string' || typeof context.cancel_url !== 'string') {
      return this.badRequest('MISSING_REQUIRED_PARAMETER', 'application_context.return_url and cancel_url are required.');
    }
    const override = ((body.plan as Json | undefined)?.payment_preferences as Json | undefined)?.setup_fee as FakeSubscription['setup_fee'] | undefined;
    if (override && !this.host.validValue(override.currency_code, override.value))
      return this.badRequest('INVALID_PARAMETER_VALUE', 'plan.payment_preferences.setup_fee is invalid.');
    const time = stamp(this.host.now());
    const subscription: FakeSubscription = {
      id: `I-${this.host.id().slice(0, 12)}`,
      plan_id: plan.id,
      status: 'APPROVAL_PENDING',
      ...(typeof body.custom_id === 'string' ? { custom_id: body.custom_id } : {}),
      subscriber: (body.subscriber as Json | undefined) ?? {},
      setup_fee: override ?? (plan.payment_preferences.setup_fee as FakeSubscription['setup_fee']) ?? null,
      return_url: context.return_url,
      cancel_url: context.cancel_url,
      ba_token: `BA-${this.host.id()}`,
      completed: plan.billing_cycles.map(() => 0),
      failed_payments_count: 0,
      status_update_time: time,
      create_time: time,
      sales: [],
    };
    this.subscriptions.set(subscription.id, subscription);
    return [201, this.subscriptionJson(subscription, false)];
  }

  private cancel(id: string, body: Json): Reply {
    const subscription = this.subscriptions.get(id);
    if (!subscription) return this.missing();
    if (typeof body.reason !== 'string' || !body.reason) return this.badRequest('MISSING_REQUIRED_PARAMETER', 'reason is required.');
    if (subscription.status !== 'ACTIVE' && subscription.status !== 'SUSPENDED') {
      return this.unprocessable(
        'SUBSCRIPTION_STATUS_INVALID',
        'Invalid subscription status for cancel action; subscription status should be active or suspended.',
      );
    }
    this.setStatus(subscription, 'CANCELLED', body.reason);
    subscription.next_billing_time = undefined;
    return [204, null];
  }

  private transactions(id: string, query: URLSearchParams): Reply {
    const subscription = this.subscriptions.get(id);
    if (!subscription) return this.missing();
    const [start, end] = [Date.parse(query.get('start_time') ?? ''), Date.parse(query.get('end_time') ?? '')];
    if (Number.isNaN(start) || Number.isNaN(end)) return this.badRequest('MISSING_REQUIRED_PARAMETER', 'start_time and end_time are required.');
    const name = (subscription.subscriber.name ?? {}) as Json;
    const transactions = subscription.sales
      .map((saleId) => this.sales.get(saleId)!)
      .filter((sale) => Date.parse(String(sale.create_time)) >= start && Date.parse(String(sale.create_time)) <= end)
      .map((sale) => {
        const amount = sale.amount as { total: string; currency: string };
        const money = { currency_code: amount.currency, value: amount.total };
        return {
          status: 'COMPLETED',
          id: sale.id,
          amount_with_breakdown: { gross_amount: money, fee_amount: { currency_code: amount.currency, value: '0.30' }, net_amount: money },
          payer_name: { given_name: name.given_name, surname: name.surname },
          payer_email: subscription.subscriber.email_address,
          time: sale.create_time,
        };
      });
    return [200, { transactions, links: [] }];
  }

  /** At approval the first cycle starts: a trial runs its days, a regular cycle is billed with the first payment. */
  private startCycles(subscription: FakeSubscription): void {
    subscription.completed[0] = 1;
    this.scheduleNext(subscription, 0);
  }

  private scheduleNext(subscription: FakeSubscription, index: number): void {
    const plan = this.plans.get(subscription.plan_id)!;
    const cycle = plan.billing_cycles[index];
    const finished = cycle.total_cycles > 0 && subscription.completed[index] >= cycle.total_cycles;
    if (finished && index === plan.billing_cycles.length - 1) {
      this.setStatus(subscription, 'EXPIRED');
      subscription.next_billing_time = undefined;
      return;
    }
    subscription.next_billing_time = stamp(advance(new Date(subscription.next_billing_time ?? this.host.now()), cycle.frequency));
  }

  private sale(subscription: FakeSubscription, parts: Array<{ currency_code: string; value: string } | null>): Json | null {
    const present = parts.filter((part): part is { currency_code: string; value: string } => !!part);
    if (!present.length) return null;
    const currency = present[0].currency_code;
    const digits = this.host.digits(currency);
    const minor = present.reduce((sum, part) => sum + (parseDecimalToCents(part.value, digits) ?? 0), 0);
    if (!minor) return null;
    const total = digits ? `${Math.floor(minor / 10 ** digits)}.${String(minor % 10 ** digits).padStart(digits, '0')}` : String(minor);
    const id = this.host.id();
    const time = stamp(this.host.now());
    const sale: Json = {
      id,
      state: 'completed',
      amount: { total, currency, details: { subtotal: total } },
      payment_mode: 'INSTANT_TRANSFER',
      protection_eligibility: 'ELIGIBLE',
      transaction_fee: { value: '0.30', currency },
      billing_agreement_id: subscription.id,
      ...(subscription.custom_id ? { custom: subscription.custom_id } : {}),
      create_time: time,
      update_time: time,
      links: [
        { href: `${SANDBOX}/v1/payments/sale/${id}`, rel: 'self', method: 'GET' },
        { href: `${SANDBOX}/v1/payments/sale/${id}/refund`, rel: 'refund', method: 'POST' },
      ],
    };
    this.sales.set(id, sale);
    subscription.sales.push(id);
    subscription.last_payment = { amount: { currency_code: currency, value: total }, time };
    return sale;
  }

  private subscriptionJson(subscription: FakeSubscription, withPlan: boolean): Json {
    const plan = this.plans.get(subscription.plan_id)!;
    const currency = plan.billing_cycles.find((cycle) => cycle.tenure_type === 'REGULAR')!.pricing_scheme!.fixed_price.currency_code;
    const started = subscription.status !== 'APPROVAL_PENDING';
    return {
      id: subscription.id,
      plan_id: subscription.plan_id,
      status: subscription.status,
      ...(subscription.status_change_note ? { status_change_note: subscription.status_change_note } : {}),
      status_update_time: subscription.status_update_time,
      ...(subscription.custom_id ? { custom_id: subscription.custom_id } : {}),
      start_time: subscription.create_time,
      quantity: '1',
      subscriber: subscription.subscriber,
      ...(started
        ? {
            billing_info: {
              outstanding_balance: { currency_code: currency, value: this.host.digits(currency) ? '0.00' : '0' },
              cycle_executions: plan.billing_cycles.map((cycle, i) => ({
                tenure_type: cycle.tenure_type,
                sequence: cycle.sequence,
                cycles_completed: subscription.completed[i],
                cycles_remaining: cycle.total_cycles ? cycle.total_cycles - subscription.completed[i] : 0,
                total_cycles: cycle.total_cycles,
              })),
              ...(subscription.last_payment ? { last_payment: subscription.last_payment } : {}),
              ...(subscription.last_failed_payment ? { last_failed_payment: subscription.last_failed_payment } : {}),
              ...(subscription.next_billing_time ? { next_billing_time: subscription.next_billing_time } : {}),
              failed_payments_count: subscription.failed_payments_count,
            },
          }
        : {}),
      ...(withPlan ? { plan_overridden: !!subscription.setup_fee, plan: this.planDetails(plan, subscription) } : {}),
      create_time: subscription.create_time,
      update_time: subscription.status_update_time,
      links: [
        ...(subscription.status === 'APPROVAL_PENDING'
          ? [{ href: `https://www.sandbox.paypal.com/webapps/billing/subscriptions?ba_token=${subscription.ba_token}`, rel: 'approve', method: 'GET' }]
          : []),
        { href: `${SANDBOX}/v1/billing/subscriptions/${subscription.id}`, rel: 'edit', method: 'PATCH' },
        { href: `${SANDBOX}/v1/billing/subscriptions/${subscription.id}`, rel: 'self', method: 'GET' },
      ],
    };
  }

  private planDetails(plan: FakePlan, subscription: FakeSubscription): Json {
    const { billing_cycles, payment_preferences } = this.planJson(plan) as { billing_cycles: Json[]; payment_preferences: Json };
    return {
      product_id: plan.product_id,
      name: plan.name,
      billing_cycles,
      payment_preferences: { ...payment_preferences, ...(subscription.setup_fee ? { setup_fee: subscription.setup_fee } : {}) },
    };
  }
}
