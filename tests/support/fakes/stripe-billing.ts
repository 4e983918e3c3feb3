import crypto from 'node:crypto';

type Json = Record<string, unknown>;
type Reply = [number, Json];

/** What the billing part borrows from the fake it belongs to: ids, payment intents and the clock. */
export interface BillingHost {
  id(): string;
  newIntent(body: Record<string, unknown>): Json;
  pay(intentId: string): Json;
  intent(intentId: string): Json | undefined;
  /** Now, in Unix seconds (Stripe's timestamps). */
  now(): number;
}

/** A Checkout Session line as the form body carries it. */
interface SessionLine {
  quantity: string;
  price_data: { currency: string; unit_amount: string; product_data?: { name: string }; recurring?: Json };
}

interface Request {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

const DAY = 24 * 3600;
const INTERVAL_SECONDS: Record<string, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };

const missing = (param: string): Reply => [
  400,
  { error: { type: 'invalid_request_error', code: 'parameter_missing', param, message: `Missing required param: ${param}.` } },
];
const noSuch = (id: string, param = 'id'): Reply => [
  404,
  { error: { type: 'invalid_request_error', code: 'resource_missing', param, message: `No such ${param === 'id' ? 'object' : param}: '${id}'` } },
];
const invalid = (message: string, param?: string): Reply => [400, { error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } }];

/** `expand[]` as the SDK sends it (`expand[0]=a&expand[1]=b`), parsed by qs into an array (or an object past 20). */
function expansions(params: Record<string, unknown>): string[] {
  const value = params.expand;
  if (Array.isArray(value)) return value.map(String);
  if (value && typeof value === 'object') return Object.values(value).map(String);
  return typeof value === 'string' ? [value] : [];
}

const list = (data: Json[], url: string): Json => ({ object: 'list', data, has_more: false, url });

/**
 * Stripe Billing in the fake, in the shapes of the pinned API version (`2026-10-28.endive`): customers, products,
 * coupons, payment methods attached to customers, subscriptions (create with inline `price_data`, retrieve, update
 * including `default_payment_method`, cancel), their invoices with a payment intent
 * each, setup intents for trials without a first charge, and Checkout Sessions in `subscription` mode. As on
 * Stripe, the invoice's subscription is under `parent.subscription_details`, its period dates are on the subscription
 * item, and `invoice.payments` / `invoice.confirmation_secret` appear only when expanded (never in an event).
 *
 * Helpers drive what Stripe would do on its own: `payInvoice` (the shopper confirmed the first payment), `renew`
 * (a billing cycle: a new invoice paid, or failed with `failed: true`), `completeSession` for hosted checkouts.
 */
export class FakeStripeBilling {
  readonly customers = new Map<string, Json>();
  readonly products = new Map<string, Json>();
  readonly subscriptions = new Map<string, Json>();
  readonly invoices = new Map<string, Json>();
  readonly setupIntents = new Map<string, Json>();
  readonly coupons = new Map<string, Json>();
  readonly paymentMethods = new Map<string, Json>();
  private readonly payments = new Map<string, Json[]>();
  private readonly sessionParams = new Map<string, { lines: SessionLine[]; data: Json; discounts: unknown }>();

  constructor(private readonly host: BillingHost) {}

  reset(): void {
    for (const map of [
      this.customers,
      this.products,
      this.subscriptions,
      this.invoices,
      this.setupIntents,
      this.coupons,
      this.paymentMethods,
      this.payments,
      this.sessionParams,
    ])
      map.clear();
  }

  /** Answers the billing endpoints; null for any other path. */
  route(r: Request): Reply | null {
    const match = (pattern: RegExp) => pattern.exec(r.path);
    const params = r.method === 'GET' || r.method === 'DELETE' ? { ...r.query, ...r.body } : r.body;
    if (r.method === 'POST' && r.path === '/v1/customers') return this.createCustomer(r.body);
    let m = match(/^\/v1\/customers\/([^/]+)$/);
    if (r.method === 'GET' && m) return this.customers.has(m[1]) ? [200, this.customers.get(m[1])!] : noSuch(m[1]);
    if (r.method === 'POST' && r.path === '/v1/products') return this.createProduct(r.body);
    if (r.method === 'POST' && r.path === '/v1/coupons') return this.createCoupon(r.body);
    m = match(/^\/v1\/payment_methods\/([^/]+)\/attach$/);
    if (r.method === 'POST' && m) return this.attachPaymentMethod(m[1], r.body);
    if (r.method === 'POST' && r.path === '/v1/subscriptions') return this.createSubscription(r.body);
    m = match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (m && r.method === 'GET') return this.subscriptions.has(m[1]) ? [200, this.subscriptionView(m[1], expansions(params))] : noSuch(m[1]);
    if (m && r.method === 'POST') return this.updateSubscription(m[1], r.body);
    if (m && r.method === 'DELETE') return this.cancelSubscription(m[1]);
    m = match(/^\/v1\/invoices\/([^/]+)$/);
    if (r.method === 'GET' && m) return this.invoices.has(m[1]) ? [200, this.invoiceView(m[1], expansions(params))] : noSuch(m[1]);
    return null;
  }

  private createCustomer(body: Record<string, unknown>): Reply {
    const id = `cus_${this.host.id()}`;
    const customer: Json = {
      id,
      object: 'customer',
      email: body.email ?? null,
      name: body.name ?? null,
      metadata: body.metadata ?? {},
      created: this.host.now(),
      livemode: false,
    };
    this.customers.set(id, customer);
    return [200, customer];
  }

  private createProduct(body: Record<string, unknown>): Reply {
    if (body.name === undefined) return missing('name');
    const id = typeof body.id === 'string' ? body.id : `prod_${this.host.id()}`;
    if (this.products.has(id)) {
      return [400, { error: { type: 'invalid_request_error', code: 'resource_already_exists', param: 'id', message: `Product already exists.` } }];
    }
    const product: Json = { id, object: 'product', name: body.name, active: true, metadata: body.metadata ?? {}, created: this.host.now(), livemode: false };
    this.products.set(id, product);
    return [200, product];
  }

  /**
   * Attaches a payment method to a customer. Stripe's test methods (`pm_card_visa`, `pm_card_mastercard` …) exist;
   * any other id is unknown (404), as a method never created would be.
   */
  private attachPaymentMethod(id: string, body: Record<string, unknown>): Reply {
    if (!body.customer) return missing('customer');
    if (!this.customers.has(String(body.customer))) return noSuch(String(body.customer), 'customer');
    if (!id.startsWith('pm_card_'))
      return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method', message: `No such PaymentMethod: '${id}'` } }];
    const method: Json = { id, object: 'payment_method', type: 'card', customer: body.customer, livemode: false };
    this.paymentMethods.set(id, method);
    return [200, method];
  }

  private createCoupon(body: Record<string, unknown>): Reply {
    if (body.duration === undefined) return missing('duration');
    if (body.amount_off !== undefined && body.currency === undefined) return missing('currency');
    const id = `coupon_${this.host.id()}`;
    const coupon: Json = {
      id,
      object: 'coupon',
      amount_off: body.amount_off === undefined ? null : Number(body.amount_off),
      percent_off: body.percent_off === undefined ? null : Number(body.percent_off),
      currency: body.currency ?? null,
      duration: body.duration,
      max_redemptions: body.max_redemptions === undefined ? null : Number(body.max_redemptions),
      name: body.name ?? null,
      valid: true,
      livemode: false,
    };
    this.coupons.set(id, coupon);
    return [200, coupon];
  }

  /** What the discounts (`discounts[0][coupon]`) take off an amount; an unknown coupon is an error reply. */
  private discount(discounts: unknown, amount: number): number | Reply {
    let off = 0;
    for (const entry of (discounts ?? []) as Array<{ coupon?: string }>) {
      const coupon = entry.coupon ? this.coupons.get(entry.coupon) : undefined;
      if (!coupon) return noSuch(String(entry.coupon), 'coupon');
      off += coupon.amount_off === null ? Math.round((amount * Number(coupon.percent_off)) / 100) : Number(coupon.amount_off);
    }
    return Math.min(off, amount);
  }

  private newPrice(data: Record<string, unknown>, recurring: boolean): Json {
    const interval = (data.recurring ?? {}) as Record<string, unknown>;
    return {
      id: `price_${this.host.id()}`,
      object: 'price',
      currency: data.currency,
      unit_amount: Number(data.unit_amount),
      product: data.product,
      type: recurring ? 'recurring' : 'one_time',
      recurring: recurring ? { interval: interval.interval, interval_count: Number(interval.interval_count ?? 1) } : null,
      livemode: false,
    };
  }

  /** Checks an item's `price_data` as Stripe does; the error reply, or null when it holds. */
  private priceProblem(data: Record<string, unknown> | undefined, path: string, recurring: boolean): Reply | null {
    if (!data) return missing(`${path}[price]`);
    for (const field of ['currency', 'product']) if (data[field] === undefined) return missing(`${path}[price_data][${field}]`);
    if (!this.products.has(String(data.product))) return noSuch(String(data.product), `${path}[price_data][product]`);
    if (!/^\d+$/.test(String(data.unit_amount ?? ''))) return invalid('Invalid integer: unit_amount', `${path}[price_data][unit_amount]`);
    if (!recurring) return null;
    const interval = (data.recurring ?? {}) as Record<string, unknown>;
    if (!INTERVAL_SECONDS[String(interval.interval)]) return missing(`${path}[price_data][recurring][interval]`);
    return null;
  }

  private periodEnd(start: number, price: Json): number {
    const recurring = price.recurring as { interval: string; interval_count: number };
    return start + INTERVAL_SECONDS[recurring.interval] * recurring.interval_count;
  }

  private createSubscription(body: Record<string, unknown>): Reply {
    if (!body.customer) return missing('customer');
    if (!this.customers.has(String(body.customer))) return noSuch(String(body.customer), 'customer');
    const items = (body.items ?? []) as Array<Record<string, unknown>>;
    if (!items.length) return missing('items');
    const problem = this.priceProblem(items[0].price_data as Record<string, unknown> | undefined, 'items[0]', true);
    if (problem) return problem;
    const extras = (body.add_invoice_items ?? []) as Array<Record<string, unknown>>;
    for (const [i, extra] of extras.entries()) {
      const extraProblem = this.priceProblem(extra.price_data as Record<string, unknown> | undefined, `add_invoice_items[${i}]`, false);
      if (extraProblem) return extraProblem;
    }
    const trialDays = Number(body.trial_period_days ?? 0);
    const price = this.newPrice(items[0].price_data as Record<string, unknown>, true);
    const quantity = Number(items[0].quantity ?? 1);
    const now = this.host.now();
    const id = `sub_${this.host.id()}`;
    const periodEnd = trialDays > 0 ? now + trialDays * DAY : this.periodEnd(now, price);
    const subscription: Json = {
      id,
      object: 'subscription',
      customer: body.customer,
      status: trialDays > 0 ? 'trialing' : 'incomplete',
      currency: price.currency,
      collection_method: 'charge_automatically',
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      start_date: now,
      created: now,
      trial_start: trialDays > 0 ? now : null,
      trial_end: trialDays > 0 ? periodEnd : null,
      metadata: body.metadata ?? {},
      latest_invoice: null,
      pending_setup_intent: null,
      default_payment_method: null,
      items: list(
        [
          {
            id: `si_${this.host.id()}`,
            object: 'subscription_item',
            subscription: id,
            price,
            quantity,
            current_period_start: now,
            current_period_end: periodEnd,
          },
        ],
        `/v1/subscription_items?subscription=${id}`,
      ),
      livemode: false,
    };
    this.subscriptions.set(id, subscription);
    const recurringAmount = trialDays > 0 ? 0 : Number(price.unit_amount) * quantity;
    const fees = extras.reduce((sum, extra) => sum + Number((extra.price_data as Json).unit_amount) * Number(extra.quantity ?? 1), 0);
    const off = this.discount(body.discounts, recurringAmount + fees);
    if (typeof off !== 'number') return off;
    const invoice = this.newInvoice(subscription, 'subscription_create', recurringAmount + fees - off, now, periodEnd);
    if (Number(invoice.amount_due) === 0 && trialDays > 0) {
      const setupId = `seti_${this.host.id()}`;
      this.setupIntents.set(setupId, {
        id: setupId,
        object: 'setup_intent',
        client_secret: `${setupId}_secret_${crypto.randomBytes(8).toString('hex')}`,
        customer: body.customer,
        status: 'requires_payment_method',
        usage: 'off_session',
        livemode: false,
      });
      subscription.pending_setup_intent = setupId;
    }
    return [200, this.subscriptionView(id, expansions(body))];
  }

  /**
   * An invoice of the subscription for `amount`: paid at once when nothing is due, otherwise open with a payment intent
   * (its default invoice payment). The subscription's `latest_invoice` points at it.
   */
  private newInvoice(subscription: Json, reason: string, amount: number, periodStart: number, periodEnd: number): Json {
    const id = `in_${this.host.id()}`;
    const paid = amount === 0;
    const invoice: Json = {
      id,
      object: 'invoice',
      customer: subscription.customer,
      status: paid ? 'paid' : 'open',
      billing_reason: reason,
      collection_method: 'charge_automatically',
      currency: subscription.currency,
      amount_due: amount,
      amount_paid: 0,
      amount_remaining: amount,
      attempt_count: 0,
      attempted: false,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
      },
      period_start: periodStart,
      period_end: periodEnd,
      status_transitions: { finalized_at: this.host.now(), paid_at: paid ? this.host.now() : null },
      created: this.host.now(),
      livemode: false,
    };
    this.invoices.set(id, invoice);
    subscription.latest_invoice = id;
    if (!paid) {
      const intent = this.host.newIntent({ amount: String(amount), currency: subscription.currency, metadata: {}, description: `Invoice ${id}` });
      this.payments.set(id, [
        {
          id: `inpay_${this.host.id()}`,
          object: 'invoice_payment',
          invoice: id,
          amount_paid: null,
          amount_requested: amount,
          currency: subscription.currency,
          is_default: true,
          payment: { type: 'payment_intent', payment_intent: intent.id },
          status: 'open',
          status_transitions: { canceled_at: null, paid_at: null },
          created: this.host.now(),
          livemode: false,
        },
      ]);
    }
    return invoice;
  }

  /** The payment intent of an invoice's default payment (undefined for an invoice that asked for nothing). */
  intentOfInvoice(invoiceId: string): string | undefined {
    const payment = this.payments.get(invoiceId)?.find((p) => p.is_default);
    return payment ? String((payment.payment as Json).payment_intent) : undefined;
  }

  /** The invoice as the API answers it: `payments` and `confirmation_secret` only when expanded (never in events). */
  invoiceView(invoiceId: string, expand: string[] = []): Json {
    const invoice = { ...this.invoices.get(invoiceId)! };
    const intentId = this.intentOfInvoice(invoiceId);
    if (expand.includes('payments')) invoice.payments = list(this.payments.get(invoiceId) ?? [], `/v1/invoices/${invoiceId}/payments`);
    if (expand.includes('confirmation_secret')) {
      const intent = intentId ? this.host.intent(intentId) : undefined;
      invoice.confirmation_secret = intent && invoice.status === 'open' ? { client_secret: intent.client_secret, type: 'payment_intent' } : null;
    }
    return invoice;
  }

  /** The subscription as the API answers it, with `latest_invoice[.x]` and `pending_setup_intent` expanded when asked. */
  subscriptionView(subscriptionId: string, expand: string[] = []): Json {
    const subscription = { ...this.subscriptions.get(subscriptionId)! };
    const invoiceExpands = expand.filter((path) => path.startsWith('latest_invoice'));
    if (invoiceExpands.length && subscription.latest_invoice) {
      const nested = invoiceExpands.map((path) => path.slice('latest_invoice.'.length)).filter(Boolean);
      subscription.latest_invoice = this.invoiceView(String(subscription.latest_invoice), nested);
    }
    if (expand.includes('pending_setup_intent') && subscription.pending_setup_intent) {
      subscription.pending_setup_intent = this.setupIntents.get(String(subscription.pending_setup_intent)) ?? null;
    }
    return subscription;
  }

  private updateSubscription(id: string, body: Record<string, unknown>): Reply {
    const subscription = this.subscriptions.get(id);
    if (!subscription) return noSuch(id);
    if (subscription.status === 'canceled') return invalid('A canceled subscription can only update its cancellation_details and metadata.');
    if (body.cancel_at_period_end !== undefined) subscription.cancel_at_period_end = body.cancel_at_period_end === 'true';
    if (body.default_payment_method !== undefined) subscription.default_payment_method = body.default_payment_method;
    if (body.metadata && typeof body.metadata === 'object') subscription.metadata = { ...(subscription.metadata as Json), ...(body.metadata as Json) };
    return [200, this.subscriptionView(id, expansions(body))];
  }

  private cancelSubscription(id: string): Reply {
    const subscription = this.subscriptions.get(id);
    if (!subscription) return noSuch(id);
    if (subscription.status === 'canceled') return invalid(`This subscription has already been canceled: ${id}.`);
    Object.assign(subscription, {
      status: 'canceled',
      canceled_at: this.host.now(),
      ended_at: this.host.now(),
      cancellation_details: { reason: 'cancellation_requested', comment: null, feedback: null },
    });
    return [200, this.subscriptionView(id)];
  }

  private item(subscription: Json): Json {
    return ((subscription.items as Json).data as Json[])[0];
  }

  /** The shopper paid an open invoice (the first one, confirmed in the browser): its intent succeeds, the subscription becomes active. */
  payInvoice(invoiceId: string): Json {
    const invoice = this.invoices.get(invoiceId);
    if (!invoice) throw new Error(`no invoice ${invoiceId}`);
    const intentId = this.intentOfInvoice(invoiceId);
    if (intentId) this.host.pay(intentId);
    const now = this.host.now();
    Object.assign(invoice, { status: 'paid', amount_paid: invoice.amount_due, amount_remaining: 0, attempted: true, attempt_count: 1 });
    (invoice.status_transitions as Json).paid_at = now;
    for (const payment of this.payments.get(invoiceId) ?? []) {
      Object.assign(payment, { status: 'paid', amount_paid: payment.amount_requested });
      (payment.status_transitions as Json).paid_at = now;
    }
    const subscription = this.subscriptions.get(String((invoice.parent as { subscription_details: Json }).subscription_details.subscription));
    if (subscription && ['incomplete', 'past_due', 'unpaid'].includes(String(subscription.status))) subscription.status = 'active';
    return this.invoiceView(invoiceId);
  }

  /**
   * A billing cycle: the subscription's next period starts with a new invoice (`subscription_cycle`) for the price ×
   * quantity, paid at once; `failed: true` leaves it open with a declined intent and the subscription `past_due`.
   * Returns the invoice as an event carries it.
   */
  renew(subscriptionId: string, options: { failed?: boolean } = {}): Json {
    const subscription = this.subscriptions.get(subscriptionId);
    if (!subscription) throw new Error(`no subscription ${subscriptionId}`);
    const item = this.item(subscription);
    const price = item.price as Json;
    const start = Number(item.current_period_end);
    const end = this.periodEnd(start, price);
    const invoice = this.newInvoice(subscription, 'subscription_cycle', Number(price.unit_amount) * Number(item.quantity), start, end);
    Object.assign(item, { current_period_start: start, current_period_end: end });
    if (subscription.status === 'trialing') subscription.status = 'active';
    if (!options.failed) return this.payInvoice(String(invoice.id));
    const intent = this.host.intent(this.intentOfInvoice(String(invoice.id))!)!;
    intent.last_payment_error = { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' };
    Object.assign(invoice, { attempted: true, attempt_count: 1, next_payment_attempt: start + 3 * DAY });
    subscription.status = 'past_due';
    return this.invoiceView(String(invoice.id));
  }

  /**
   * A Checkout Session in `subscription` mode (the fake's session object, built by the caller): Stripe refuses
   * `payment_intent_data` there; the amount due now leaves out the recurring lines during a trial. The lines and
   * `subscription_data` are kept for `completeSession`. Returns the error reply, or null when the session stands.
   */
  adoptSession(session: Json, body: Record<string, unknown>): Reply | null {
    if (body.payment_intent_data !== undefined) return invalid('You can not pass `payment_intent_data` in `subscription` mode.', 'payment_intent_data');
    const lines = body.line_items as SessionLine[];
    const recurring = lines.filter((line) => line.price_data.recurring);
    if (recurring.length !== 1) return invalid('`line_items` must contain one recurring price in `subscription` mode.', 'line_items');
    const data = (body.subscription_data ?? {}) as Json;
    if (body.customer && !this.customers.has(String(body.customer))) return noSuch(String(body.customer), 'customer');
    const trial = Number(data.trial_period_days ?? 0) > 0;
    const due = lines.filter((line) => !(trial && line.price_data.recurring));
    const subtotal = due.reduce((sum, line) => sum + Number(line.price_data.unit_amount) * Number(line.quantity), 0);
    const off = this.discount(body.discounts, subtotal);
    if (typeof off !== 'number') return off;
    Object.assign(session, {
      amount_total: subtotal - off,
      customer: body.customer ?? null,
      subscription: null,
      invoice: null,
    });
    this.sessionParams.set(String(session.id), { lines, data, discounts: body.discounts });
    return null;
  }

  /**
   * Completes a Checkout Session in `subscription` mode as the shopper paying would: a customer (the session's, or a
   * new one with its email), the subscription with `subscription_data` (trial, metadata), its first invoice paid.
   * Updates and returns the session.
   */
  completeSession(session: Json): Json {
    const { lines, data, discounts } = this.sessionParams.get(String(session.id))!;
    const customer = session.customer ? String(session.customer) : String(this.createCustomer({ email: session.customer_email })[1].id);
    const product = (line: SessionLine) => {
      const id = `prod_${this.host.id()}`;
      this.products.set(id, { id, object: 'product', name: line.price_data.product_data?.name ?? 'Item', active: true, metadata: {}, livemode: false });
      return id;
    };
    const recurring = lines.find((line) => line.price_data.recurring)!;
    const extras = lines.filter((line) => !line.price_data.recurring);
    const [, created] = this.createSubscription({
      customer,
      items: [{ quantity: recurring.quantity, price_data: { ...recurring.price_data, product: product(recurring) } }],
      add_invoice_items: extras.map((line) => ({ quantity: line.quantity, price_data: { ...line.price_data, product: product(line) } })),
      trial_period_days: data.trial_period_days,
      metadata: data.metadata,
      discounts,
    });
    const subscription = this.subscriptions.get(String(created.id))!;
    const invoice = this.invoices.get(String(subscription.latest_invoice))!;
    if (invoice.status === 'open') this.payInvoice(String(invoice.id));
    Object.assign(session, {
      status: 'complete',
      payment_status: Number(invoice.amount_due) > 0 ? 'paid' : 'no_payment_required',
      customer,
      subscription: subscription.id,
      invoice: invoice.id,
    });
    return session;
  }
}
