import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import Stripe from 'stripe';
import { FakeStripeBilling } from './stripe-billing';

/** One request as the fake received it: the form body parsed the way Stripe parses it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** The secret key of the `Authorization: Bearer` header. */
  key: string;
  idempotencyKey: string | null;
  stripeVersion: string | null;
}

/** A Stripe error object as the API sends it, with its HTTP status. */
export interface StripeErrorReply {
  status: number;
  error: { type: string; code?: string; message: string; decline_code?: string; param?: string };
}

type Json = Record<string, unknown>;

export const CARD_DECLINED: StripeErrorReply = {
  status: 402,
  error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
};

/**
 * A local stand-in for api.stripe.com that speaks its wire format: form-encoded bodies (`metadata[order_uuid]=…`),
 * JSON objects carrying `object`, error objects with their HTTP status, `Idempotency-Key` honoured (the same key
 * answers the same response; with other parameters it is a 400 `idempotency_error`). It keeps payment intents,
 * checkout sessions and refunds in memory and records every request.
 *
 * Billing (customers, subscriptions, invoices, subscription-mode sessions) lives in `billing` (`stripe-billing.ts`).
 *
 * Switches: `behaviour = 'hang'` never answers (the SDK times out), `'lose'` does what was asked but never answers
 * (the answer is lost on the way back), `'reset'` drops the connection, `'error500'` answers `api_error`;
 * `failNext(reply)` answers the next mutating request with that error; `refundStatus` is the status new refunds get.
 */
export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly paymentIntents = new Map<string, Json>();
  readonly sessions = new Map<string, Json>();
  readonly refunds = new Map<string, Json>();
  readonly billing = new FakeStripeBilling({
    id: () => this.id(),
    newIntent: (body) => this.newIntent(body),
    pay: (intentId) => this.pay(intentId),
    intent: (intentId) => this.paymentIntents.get(intentId),
    now: () => Math.floor(this.now().getTime() / 1000),
  });
  /** Stripe's clock (`created`, periods); tests set it to the store's clock. */
  now: () => Date = () => new Date();
  behaviour: 'normal' | 'hang' | 'lose' | 'reset' | 'error500' = 'normal';
  refundStatus: 'succeeded' | 'pending' | 'failed' = 'succeeded';
  /** Runs after a request was carried out and before it is answered (e.g. to deliver its webhook first). */
  beforeAnswer: ((request: RecordedRequest, body: Json) => Promise<void>) | null = null;
  private queuedErrors: StripeErrorReply[] = [];
  private readonly replies = new Map<string, { fingerprint: string; status: number; body: Json }>();
  private readonly hanging = new Set<http.ServerResponse>();
  private server: http.Server | null = null;
  private serial = 0;

  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Puts everything back as after `start`, keeping the port. */
  reset(): void {
    this.requests.length = 0;
    this.paymentIntents.clear();
    this.sessions.clear();
    this.refunds.clear();
    this.billing.reset();
    this.replies.clear();
    this.queuedErrors = [];
    this.behaviour = 'normal';
    this.refundStatus = 'succeeded';
    this.beforeAnswer = null;
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  failNext(reply: StripeErrorReply): void {
    this.queuedErrors.push(reply);
  }

  /** Requests to one endpoint, e.g. `calls('POST', '/v1/refunds')`. */
  calls(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /** A payment intent the shopper already paid (as if confirmed in the browser); returns it. */
  paidIntent(amount: number, currency = 'usd', metadata: Record<string, string> = {}): Json {
    const intent = this.newIntent({ amount: String(amount), currency, metadata });
    this.pay(String(intent.id));
    return this.paymentIntents.get(String(intent.id))!;
  }

  /** An intent confirmed with manual capture: authorised, waiting for `capture`. */
  authorizedIntent(amount: number, currency = 'usd'): Json {
    const intent = this.newIntent({ amount: String(amount), currency, capture_method: 'manual', metadata: {} });
    intent.status = 'requires_capture';
    return intent;
  }

  /** Confirms an intent as Stripe.js would: it succeeds with its whole amount and gets a charge. */
  pay(intentId: string): Json {
    const intent = this.paymentIntents.get(intentId);
    if (!intent) throw new Error(`no payment intent ${intentId}`);
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: `ch_${this.id()}` });
    return intent;
  }

  /** A refund made in the Stripe dashboard (not through the store). */
  dashboardRefund(intentId: string, amount: number, status: 'succeeded' | 'pending' = 'succeeded'): Json {
    const intent = this.paymentIntents.get(intentId);
    if (!intent) throw new Error(`no payment intent ${intentId}`);
    return this.newRefund(intent, amount, {}, status);
  }

  private id(): string {
    this.serial += 1;
    return `${this.serial.toString(36)}${crypto.randomBytes(6).toString('hex')}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://stripe.local');
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : null;
    };
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: qs.parse(url.search.slice(1)),
      body: qs.parse(raw),
      key: (header('authorization') ?? '').replace(/^Bearer /, ''),
      idempotencyKey: header('idempotency-key'),
      stripeVersion: header('stripe-version'),
    };
    this.requests.push(recorded);
    if (this.behaviour === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (this.behaviour === 'reset') {
      req.socket.destroy();
      return;
    }
    if (this.behaviour === 'error500') {
      this.send(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred.' } }, { 'Stripe-Should-Retry': 'false' });
      return;
    }
    if (!/^sk_(test|live)_\w+$/.test(recorded.key)) {
      this.send(res, 401, { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${recorded.key.slice(0, 8)}***` } });
      return;
    }
    const cacheKey = recorded.idempotencyKey && recorded.method === 'POST' ? `${recorded.key}:${recorded.idempotencyKey}` : null;
    const fingerprint = `${recorded.path}?${raw}`;
    if (cacheKey) {
      const earlier = this.replies.get(cacheKey);
      if (earlier && earlier.fingerprint !== fingerprint) {
        this.send(res, 400, {
          error: {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${recorded.idempotencyKey}' if you meant to execute a different request.`,
          },
        });
        return;
      }
      if (earlier && this.behaviour === 'lose') {
        this.hanging.add(res);
        return;
      }
      if (earlier) {
        this.send(res, earlier.status, earlier.body, { 'Idempotent-Replayed': 'true' });
        return;
      }
    }
    const queued = recorded.method === 'POST' ? this.queuedErrors.shift() : undefined;
    const [status, body] = queued ? [queued.status, { error: queued.error }] : this.route(recorded);
    if (cacheKey && status !== 500) this.replies.set(cacheKey, { fingerprint, status, body });
    if (this.behaviour === 'lose') {
      this.hanging.add(res);
      return;
    }
    if (this.beforeAnswer) {
      void this.beforeAnswer(recorded, body).then(() => this.send(res, status, body));
      return;
    }
    this.send(res, status, body);
  }

  private send(res: http.ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_${this.id()}`, ...headers });
    res.end(JSON.stringify(body));
  }

  private route(r: RecordedRequest): [number, Json] {
    const match = (pattern: RegExp) => pattern.exec(r.path);
    if (r.method === 'POST' && r.path === '/v1/payment_intents') return this.createIntent(r.body);
    let m = match(/^\/v1\/payment_intents\/([^/]+)$/);
    if (r.method === 'GET' && m) return this.found(this.paymentIntents.get(m[1]), m[1]);
    m = match(/^\/v1\/payment_intents\/([^/]+)\/capture$/);
    if (r.method === 'POST' && m) return this.capture(m[1], r.body);
    if (r.method === 'POST' && r.path === '/v1/checkout/sessions') return this.createSession(r.body);
    if (r.method === 'POST' && r.path === '/v1/refunds') return this.createRefund(r.body);
    if (r.method === 'GET' && r.path === '/v1/refunds') return this.listRefunds(r.query);
    m = match(/^\/v1\/refunds\/([^/]+)$/);
    if (r.method === 'GET' && m) return this.found(this.refunds.get(m[1]), m[1]);
    const billing = this.billing.route(r);
    if (billing) return billing;
    return [404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${r.method}: ${r.path}).` } }];
  }

  private found(object: Json | undefined, id: string): [number, Json] {
    if (object) return [200, object];
    return [404, { error: { type: 'invalid_request_error', code: 'resource_missing', param: 'id', message: `No such object: '${id}'` } }];
  }

  private missing(param: string): [number, Json] {
    return [400, { error: { type: 'invalid_request_error', code: 'parameter_missing', param, message: `Missing required param: ${param}.` } }];
  }

  private newIntent(body: Record<string, unknown>): Json {
    const id = `pi_${this.id()}`;
    const intent: Json = {
      id,
      object: 'payment_intent',
      amount: Number(body.amount),
      amount_received: 0,
      currency: body.currency,
      status: 'requires_payment_method',
      capture_method: body.capture_method ?? 'automatic',
      client_secret: `${id}_secret_${crypto.randomBytes(8).toString('hex')}`,
      metadata: body.metadata ?? {},
      receipt_email: body.receipt_email ?? null,
      description: body.description ?? null,
      latest_charge: null,
      livemode: false,
      created: Math.floor(this.now().getTime() / 1000),
    };
    this.paymentIntents.set(id, intent);
    return intent;
  }

  private createIntent(body: Record<string, unknown>): [number, Json] {
    if (body.amount === undefined) return this.missing('amount');
    if (body.currency === undefined) return this.missing('currency');
    if (!/^\d+$/.test(String(body.amount)) || Number(body.amount) < 1) {
      return [400, { error: { type: 'invalid_request_error', code: 'amount_too_small', param: 'amount', message: 'Amount must be at least 1.' } }];
    }
    return [200, this.newIntent(body)];
  }

  private capture(id: string, body: Record<string, unknown>): [number, Json] {
    const intent = this.paymentIntents.get(id);
    if (!intent) return this.found(undefined, id);
    if (intent.status !== 'requires_capture') {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'payment_intent_unexpected_state',
            message: `This PaymentIntent could not be captured because it has a status of ${String(intent.status)}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
          },
        },
      ];
    }
    const amount = body.amount_to_capture === undefined ? Number(intent.amount) : Number(body.amount_to_capture);
    Object.assign(intent, { status: 'succeeded', amount_received: amount, latest_charge: `ch_${this.id()}` });
    return [200, intent];
  }

  private createSession(body: Record<string, unknown>): [number, Json] {
    for (const param of ['mode', 'success_url', 'line_items']) if (body[param] === undefined) return this.missing(param);
    const lines = body.line_items as Array<{ quantity: string; price_data: { currency: string; unit_amount: string } }>;
    const id = `cs_test_${this.id()}`;
    const session: Json = {
      id,
      object: 'checkout.session',
      mode: body.mode,
      url: `https://checkout.stripe.com/c/pay/${id}`,
      status: 'open',
      payment_status: 'unpaid',
      amount_total: lines.reduce((sum, line) => sum + Number(line.price_data.unit_amount) * Number(line.quantity), 0),
      currency: lines[0]?.price_data.currency ?? null,
      client_reference_id: body.client_reference_id ?? null,
      customer_email: body.customer_email ?? null,
      success_url: body.success_url,
      cancel_url: body.cancel_url ?? null,
      metadata: body.metadata ?? {},
      payment_intent: null,
      livemode: false,
    };
    if (body.mode === 'subscription') {
      const refused = this.billing.adoptSession(session, body);
      if (refused) return refused;
    }
    this.sessions.set(id, session);
    return [200, session];
  }

  /**
   * Completes a hosted checkout as the shopper paying would: the session is paid through a new, succeeded intent (in
   * `subscription` mode: the subscription is created and its first invoice paid, see `billing.completeSession`).
   */
  completeSession(sessionId: string): Json {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.mode === 'subscription') return this.billing.completeSession(session);
    const intent = this.newIntent({ amount: String(session.amount_total), currency: session.currency, metadata: {} });
    this.pay(String(intent.id));
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intent.id });
    return session;
  }

  private intentOfCharge(chargeId: string): Json | undefined {
    return [...this.paymentIntents.values()].find((intent) => intent.latest_charge === chargeId);
  }

  private newRefund(intent: Json, amount: number, metadata: unknown, status: string): Json {
    const id = `re_${this.id()}`;
    const refund: Json = {
      id,
      object: 'refund',
      amount,
      currency: intent.currency,
      charge: intent.latest_charge,
      payment_intent: intent.id,
      status,
      metadata: metadata ?? {},
      created: Math.floor(Date.now() / 1000),
    };
    this.refunds.set(id, refund);
    return refund;
  }

  private refundedOf(intentId: string): number {
    return [...this.refunds.values()]
      .filter((refund) => refund.payment_intent === intentId && refund.status !== 'failed' && refund.status !== 'canceled')
      .reduce((sum, refund) => sum + Number(refund.amount), 0);
  }

  private createRefund(body: Record<string, unknown>): [number, Json] {
    const intent = body.payment_intent
      ? this.paymentIntents.get(String(body.payment_intent))
      : body.charge
        ? this.intentOfCharge(String(body.charge))
        : undefined;
    if (!body.payment_intent && !body.charge) return this.missing('charge');
    if (!intent) return this.found(undefined, String(body.payment_intent ?? body.charge));
    const left = Number(intent.amount_received) - this.refundedOf(String(intent.id));
    if (left <= 0) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'charge_already_refunded',
            message: `Charge ${String(intent.latest_charge)} has already been refunded.`,
          },
        },
      ];
    }
    const amount = body.amount === undefined ? left : Number(body.amount);
    if (amount > left) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'amount_too_large',
            param: 'amount',
            message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
          },
        },
      ];
    }
    return [200, this.newRefund(intent, amount, body.metadata, this.refundStatus)];
  }

  private listRefunds(query: Record<string, unknown>): [number, Json] {
    const data = [...this.refunds.values()]
      .filter((refund) => (query.payment_intent ? refund.payment_intent === query.payment_intent : true))
      .filter((refund) => (query.charge ? refund.charge === query.charge : true))
      .reverse();
    return [200, { object: 'list', data, has_more: false, url: '/v1/refunds' }];
  }
}

export async function startFakeStripe(): Promise<FakeStripe> {
  return new FakeStripe().start();
}

/**
 * A webhook delivery signed the way Stripe signs it (`Stripe-Signature: t=…,v1=HMAC-SHA256(t.body)`). `timestamp` is in
 * seconds; the body is the exact JSON string that was signed.
 */
export function signedEvent(
  event: { id: string; type: string; object: Json; livemode?: boolean },
  secret: string,
  timestamp: number,
): { body: string; signature: string } {
  const body = JSON.stringify({
    id: event.id,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: timestamp,
    livemode: event.livemode ?? false,
    type: event.type,
    data: { object: event.object },
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }) };
}
