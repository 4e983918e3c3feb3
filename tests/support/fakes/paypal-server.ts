import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDecimalToCents } from '../../../src/core/money';
import { BILLING_ROUTES, FakePayPalBilling, type BillingOperation } from './paypal-billing';

type Json = Record<string, unknown>;

/** One request as the fake received it. */
export interface RecordedPayPalRequest {
  method: string;
  path: string;
  body: Json;
  /** `Basic …` or `Bearer …`. */
  authorization: string;
  requestId: string | null;
}

/** The calls the fake answers, for `failOn`. */
export type PayPalOperation = 'token' | 'create' | 'get_order' | 'capture' | 'refund' | 'get_refund' | 'get_capture' | 'verify' | BillingOperation;

/**
 * How a call fails: never answered (`hang`: the SDK times out, nothing was done), done but never answered
 * (`lose-answer`: PayPal acted, the store cannot know), the connection dropped, or a 500 `INTERNAL_SERVER_ERROR`.
 */
export type PayPalFailure = 'hang' | 'lose-answer' | 'reset' | 'error500';

/** A webhook delivery as PayPal sends it: the signing headers and the exact JSON text. */
export interface PayPalDelivery {
  headers: Record<string, string>;
  body: string;
}

interface FakeOrder {
  id: string;
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED';
  unit: Json;
  /** The order's `experience_context.return_url`, where PayPal sends the shopper after approving. */
  returnUrl: string;
  captures: Json[];
  refunds: Json[];
  created: string;
}

interface Transmission {
  sig: string;
  time: string;
  certUrl: string;
  authAlgo: string;
  webhookId: string;
  event: string;
}

const SANDBOX = 'https://api-m.sandbox.paypal.com';

/** PayPal's ids: 17 upper-case letters and digits. */
function paypalId(): string {
  const alphabet = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
  return Array.from(crypto.randomBytes(17), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** Decimal digits PayPal accepts per currency (zero-decimal currencies take whole numbers only). */
const ZERO_DECIMAL = new Set(['JPY', 'HUF', 'TWD']);

function validValue(currency: string, value: unknown): boolean {
  return typeof value === 'string' && (ZERO_DECIMAL.has(currency) ? /^\d+$/ : /^\d+(\.\d{1,2})?$/).test(value);
}

/** PayPal's error object. */
function paypalError(name: string, issue: string, description: string, message = 'The requested action could not be performed.'): Json {
  return { name, message, debug_id: crypto.randomBytes(6).toString('hex'), details: [{ issue, description }], links: [] };
}

/**
 * A local stand-in for PayPal's REST API (`api-m.sandbox.paypal.com`) speaking its wire format: OAuth client
 * credentials (Basic auth, form body), Orders v2 (create with `PayPal-Request-Id` idempotency, get, capture), Payments
 * v2 (captures, refunds), and `verify-webhook-signature`, with errors as PayPal's `{name, message, debug_id, details}`.
 * It keeps everything in memory and records each request.
 *
 * Webhooks: `deliver(event)` signs a notification the way PayPal does (transmission id, time, signature, certificate
 * URL, algorithm) and remembers the transmission; verification answers `SUCCESS` only for a transmission it issued,
 * with the same headers, webhook id and event, so forged or tampered deliveries `FAILURE`.
 *
 * Billing (catalog products, plans, subscriptions and their sales) lives in `billing` (`paypal-billing.ts`).
 *
 * Switches: `approveOnCreate` (the shopper approves at once), `captureResult` (`declined`: 422 `INSTRUMENT_DECLINED`),
 * `refundStatus`, `refundRefusal` (422 of the next refunds), `failOn[operation]` (see `PayPalFailure`).
 */
export class FakePayPal {
  readonly requests: RecordedPayPalRequest[] = [];
  readonly orders = new Map<string, FakeOrder>();
  readonly refunds = new Map<string, Json>();
  readonly clientId = `client-${crypto.randomBytes(4).toString('hex')}`;
  readonly clientSecret = `secret-${crypto.randomBytes(8).toString('hex')}`;
  readonly webhookId = paypalId();
  readonly billing = new FakePayPalBilling({
    id: paypalId,
    error: paypalError,
    validValue,
    digits: (currency) => (ZERO_DECIMAL.has(currency) ? 0 : 2),
    now: () => this.now(),
  });
  /** PayPal's clock (times of subscriptions and sales); tests may set it to the store's clock. */
  now: () => Date = () => new Date();
  approveOnCreate = false;
  captureResult: 'completed' | 'pending' | 'declined' = 'completed';
  refundStatus: 'COMPLETED' | 'PENDING' | 'FAILED' = 'COMPLETED';
  refundRefusal: { issue: string; description: string } | null = null;
  failOn: Partial<Record<PayPalOperation, PayPalFailure>> = {};
  url = '';
  private readonly tokens = new Set<string>();
  private readonly replies = new Map<string, { status: number; body: Json | null }>();
  private readonly transmissions = new Map<string, Transmission>();
  private readonly captureOrders = new Map<string, string>();
  private readonly hanging = new Set<http.ServerResponse>();
  private server: http.Server | null = null;

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

  /** Forgets the switches and recorded requests (orders, captures and refunds stay). */
  resetSwitches(): void {
    this.requests.length = 0;
    this.approveOnCreate = false;
    this.captureResult = 'completed';
    this.refundStatus = 'COMPLETED';
    this.refundRefusal = null;
    this.failOn = {};
    this.billing.reset();
  }

  /** The shopper approves the payment on PayPal's page; returns where PayPal sends them back (`token`, `PayerID` added). */
  approve(orderId: string): string {
    const order = this.orders.get(orderId);
    if (!order) throw new Error(`no PayPal order ${orderId}`);
    if (order.status === 'PAYER_ACTION_REQUIRED') order.status = 'APPROVED';
    const back = new URL(order.returnUrl);
    back.searchParams.set('token', order.id);
    back.searchParams.set('PayerID', 'FAKEPAYER123');
    return back.toString();
  }

  /** A completed capture, made without the store (as if captured in PayPal's dashboard): returns its id. */
  captureDirectly(orderId: string): string {
    this.approve(orderId);
    return this.capture(this.orders.get(orderId)!, 'COMPLETED').id as string;
  }

  /** The webhook resource of a capture (`PAYMENT.CAPTURE.*`): the capture with its PayPal order id. */
  captureResource(captureId: string): Json {
    const orderId = this.captureOrders.get(captureId)!;
    const capture = this.orders.get(orderId)!.captures.find((c) => c.id === captureId)!;
    return { ...capture, supplementary_data: { related_ids: { order_id: orderId } } };
  }

  /** The webhook resource of an order (`CHECKOUT.ORDER.*`). */
  orderResource(orderId: string): Json {
    return this.orderJson(this.orders.get(orderId)!);
  }

  /** A webhook event around a resource, as PayPal writes it. */
  event(
    type: string,
    resource: Json,
    resourceType = type.startsWith('CHECKOUT.ORDER')
      ? 'checkout-order'
      : type.startsWith('BILLING.SUBSCRIPTION')
        ? 'subscription'
        : type.startsWith('PAYMENT.SALE')
          ? 'sale'
          : type.includes('REFUND')
            ? 'refund'
            : 'capture',
  ): Json {
    const id = `WH-${paypalId()}`;
    return {
      id,
      event_version: '1.0',
      create_time: new Date().toISOString(),
      resource_type: resourceType,
      resource_version: '2.0',
      event_type: type,
      summary: `${type} notification`,
      resource,
      links: [{ href: `${SANDBOX}/v1/notifications/webhooks-events/${id}`, rel: 'self', method: 'GET' }],
    };
  }

  /** Signs a notification for delivery: the headers PayPal sends and the JSON text. */
  deliver(event: Json, options: { time?: Date; webhookId?: string } = {}): PayPalDelivery {
    const body = JSON.stringify(event);
    const transmissionId = crypto.randomUUID();
    const time = (options.time ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const transmission: Transmission = {
      sig: crypto.randomBytes(64).toString('base64'),
      time,
      certUrl: `${SANDBOX}/v1/notifications/certs/CERT-360caa42-fca2a594-${crypto.randomBytes(4).toString('hex')}`,
      authAlgo: 'SHA256withRSA',
      webhookId: options.webhookId ?? this.webhookId,
      event: body,
    };
    this.transmissions.set(transmissionId, transmission);
    return {
      body,
      headers: {
        'paypal-transmission-id': transmissionId,
        'paypal-transmission-time': time,
        'paypal-transmission-sig': transmission.sig,
        'paypal-cert-url': transmission.certUrl,
        'paypal-auth-algo': transmission.authAlgo,
      },
    };
  }

  calls(operationPath: RegExp, method = 'POST'): RecordedPayPalRequest[] {
    return this.requests.filter((r) => r.method === method && operationPath.test(r.path));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, text: string): void {
    const [path, search = ''] = (req.url ?? '/').split('?');
    const method = req.method ?? 'GET';
    const authorization = String(req.headers.authorization ?? '');
    const requestId = typeof req.headers['paypal-request-id'] === 'string' ? req.headers['paypal-request-id'] : null;
    let body: Json = {};
    if (text) {
      try {
        body = String(req.headers['content-type']).includes('json') ? (JSON.parse(text) as Json) : Object.fromEntries(new URLSearchParams(text));
      } catch {
        return this.send(res, 400, paypalError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The request JSON is not well formed.'));
      }
    }
    this.requests.push({ method, path, body, authorization, requestId });
    const routed = this.route(method, path);
    const operation = routed?.operation;
    const failure = operation ? this.failOn[operation] : undefined;
    if (failure === 'hang') return void this.hanging.add(res);
    if (failure === 'reset') return void req.socket.destroy();
    if (failure === 'error500') return this.send(res, 500, { name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error has occurred.', debug_id: 'x' });
    if (operation === 'token') return this.token(res, authorization, body);
    if (!routed) return this.send(res, 404, paypalError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'No such endpoint.'));
    if (!this.tokens.has(authorization.replace(/^Bearer /, ''))) {
      return this.send(res, 401, {
        name: 'AUTHENTICATION_FAILURE',
        message: 'Authentication failed due to invalid authentication credentials or a missing Authorization header.',
      });
    }
    const key = requestId ? `${method} ${path} ${requestId}` : null;
    const stored = key ? this.replies.get(key) : undefined;
    if (stored) return this.send(res, stored.status, stored.body);
    const [status, reply] = this.answer(routed.operation, routed.id, body, new URLSearchParams(search));
    if (key && status < 500) this.replies.set(key, { status, body: reply });
    if (failure === 'lose-answer') return void this.hanging.add(res);
    this.send(res, status, reply);
  }

  private static readonly ROUTES: Array<[string, RegExp, PayPalOperation]> = [
    ['POST', /^\/v1\/oauth2\/token$/, 'token'],
    ['POST', /^\/v1\/notifications\/verify-webhook-signature$/, 'verify'],
    ['POST', /^\/v2\/checkout\/orders$/, 'create'],
    ['GET', /^\/v2\/checkout\/orders\/([^/]+)$/, 'get_order'],
    ['POST', /^\/v2\/checkout\/orders\/([^/]+)\/capture$/, 'capture'],
    ['POST', /^\/v2\/payments\/captures\/([^/]+)\/refund$/, 'refund'],
    ['GET', /^\/v2\/payments\/captures\/([^/]+)$/, 'get_capture'],
    ['GET', /^\/v2\/payments\/refunds\/([^/]+)$/, 'get_refund'],
    ...BILLING_ROUTES,
  ];

  /** The call a request makes, and the id in its path. */
  private route(method: string, path: string): { operation: PayPalOperation; id: string } | null {
    for (const [verb, pattern, operation] of FakePayPal.ROUTES) {
      const match = verb === method ? pattern.exec(path) : null;
      if (match) return { operation, id: decodeURIComponent(match[1] ?? '') };
    }
    return null;
  }

  private answer(operation: PayPalOperation, id: string, body: Json, query: URLSearchParams): [number, Json | null] {
    const missing: [number, Json] = [404, paypalError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.')];
    switch (operation) {
      case 'create':
        return this.createOrder(body);
      case 'get_order': {
        const order = this.orders.get(id);
        return order ? [200, this.orderJson(order)] : missing;
      }
      case 'capture':
        return this.captureOrder(id);
      case 'refund':
        return this.refundCapture(id, body);
      case 'get_capture':
        return this.captureOrders.has(id) ? [200, this.captureResource(id)] : missing;
      case 'get_refund': {
        const refund = this.refunds.get(id);
        return refund ? [200, refund] : missing;
      }
      case 'verify':
        return this.verify(body);
      case 'token':
        throw new Error('token requests are answered before');
      default:
        return this.billing.answer(operation, id, body, query);
    }
  }

  private token(res: http.ServerResponse, authorization: string, body: Json): void {
    const expected = `Basic ${Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64')}`;
    if (authorization !== expected) return this.send(res, 401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
    if (body.grant_type !== 'client_credentials') return this.send(res, 400, { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' });
    const token = `A21AA${crypto.randomBytes(24).toString('hex')}`;
    this.tokens.add(token);
    this.send(res, 200, {
      scope: 'https://uri.paypal.com/services/payments/payment',
      access_token: token,
      token_type: 'Bearer',
      app_id: 'APP-80W284485P519543T',
      expires_in: 32400,
      nonce: crypto.randomUUID(),
    });
  }

  private createOrder(body: Json): [number, Json] {
    const units = body.purchase_units as Json[] | undefined;
    const amount = (units?.[0]?.amount ?? {}) as Json;
    const currency = String(amount.currency_code ?? '');
    if (body.intent !== 'CAPTURE' && body.intent !== 'AUTHORIZE')
      return [400, paypalError('INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'intent is required.')];
    if (!units?.length || !/^[A-Z]{3}$/.test(currency))
      return [400, paypalError('INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'purchase_units[0].amount is required.')];
    if (!validValue(currency, amount.value)) {
      return [
        422,
        paypalError(
          'UNPROCESSABLE_ENTITY',
          'DECIMAL_PRECISION',
          `If the currency supports decimals, only two decimal place precision is supported; ${currency} takes ${ZERO_DECIMAL.has(currency) ? 'none' : 'two'}.`,
        ),
      ];
    }
    const order: FakeOrder = {
      id: paypalId(),
      status: this.approveOnCreate ? 'APPROVED' : 'PAYER_ACTION_REQUIRED',
      unit: {
        reference_id: units[0].reference_id ?? 'default',
        amount: { currency_code: currency, value: amount.value },
        custom_id: units[0].custom_id,
        invoice_id: units[0].invoice_id,
        payee: { merchant_id: 'FAKEMERCHANT1' },
      },
      returnUrl: String(
        (body.payment_source as { paypal?: { experience_context?: { return_url?: string } } } | undefined)?.paypal?.experience_context?.return_url ?? '',
      ),
      captures: [],
      refunds: [],
      created: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    this.orders.set(order.id, order);
    return [200, this.orderJson(order)];
  }

  private orderJson(order: FakeOrder): Json {
    const payments = order.captures.length ? { payments: { captures: order.captures, ...(order.refunds.length ? { refunds: order.refunds } : {}) } } : {};
    return {
      id: order.id,
      intent: 'CAPTURE',
      status: order.status,
      payment_source: { paypal: {} },
      purchase_units: [{ ...order.unit, ...payments }],
      create_time: order.created,
      links: [
        { href: `${SANDBOX}/v2/checkout/orders/${order.id}`, rel: 'self', method: 'GET' },
        ...(order.status === 'PAYER_ACTION_REQUIRED'
          ? [{ href: `https://www.sandbox.paypal.com/checkoutnow?token=${order.id}`, rel: 'payer-action', method: 'GET' }]
          : []),
      ],
    };
  }

  private capture(order: FakeOrder, status: 'COMPLETED' | 'PENDING'): Json {
    const id = paypalId();
    const unit = order.unit as { amount: Json; custom_id?: string; invoice_id?: string };
    const capture: Json = {
      id,
      status,
      amount: unit.amount,
      final_capture: true,
      custom_id: unit.custom_id,
      invoice_id: unit.invoice_id,
      links: [
        { href: `${SANDBOX}/v2/payments/captures/${id}`, rel: 'self', method: 'GET' },
        { href: `${SANDBOX}/v2/payments/captures/${id}/refund`, rel: 'refund', method: 'POST' },
        { href: `${SANDBOX}/v2/checkout/orders/${order.id}`, rel: 'up', method: 'GET' },
      ],
      create_time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    order.captures.push(capture);
    order.status = 'COMPLETED';
    this.captureOrders.set(id, order.id);
    return capture;
  }

  private captureOrder(orderId: string): [number, Json] {
    const order = this.orders.get(orderId);
    if (!order) return [404, paypalError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.')];
    if (order.status === 'COMPLETED') return [422, paypalError('UNPROCESSABLE_ENTITY', 'ORDER_ALREADY_CAPTURED', 'Order already captured.')];
    if (order.status !== 'APPROVED')
      return [422, paypalError('UNPROCESSABLE_ENTITY', 'ORDER_NOT_APPROVED', 'Payer has not yet approved the Order for payment.')];
    if (this.captureResult === 'declined') {
      return [
        422,
        paypalError(
          'UNPROCESSABLE_ENTITY',
          'INSTRUMENT_DECLINED',
          "The instrument presented was either declined by the processor or bank, or it can't be used for this payment.",
        ),
      ];
    }
    this.capture(order, this.captureResult === 'pending' ? 'PENDING' : 'COMPLETED');
    return [201, this.orderJson(order)];
  }

  private refundCapture(captureId: string, body: Json): [number, Json] {
    const orderId = this.captureOrders.get(captureId);
    if (!orderId) return [404, paypalError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.')];
    if (this.refundRefusal) return [422, paypalError('UNPROCESSABLE_ENTITY', this.refundRefusal.issue, this.refundRefusal.description)];
    const order = this.orders.get(orderId)!;
    const capture = order.captures.find((c) => c.id === captureId)!;
    const captured = capture.amount as { currency_code: string; value: string };
    const digits = ZERO_DECIMAL.has(captured.currency_code) ? 0 : 2;
    const minor = (value: unknown) => parseDecimalToCents(value, digits) ?? NaN;
    const asked = (body.amount as Json | undefined) ?? captured;
    if (asked.currency_code !== captured.currency_code || !validValue(captured.currency_code, asked.value)) {
      return [422, paypalError('UNPROCESSABLE_ENTITY', 'DECIMAL_PRECISION', 'The refund amount is not valid for the currency.')];
    }
    // One capture per order here, so every refund of the order is one of this capture.
    const refunded = order.refunds.filter((r) => r.status !== 'FAILED').reduce((sum, r) => sum + minor((r.amount as Json).value), 0);
    if (minor(asked.value) > minor(captured.value) - refunded) {
      return [
        422,
        paypalError(
          'UNPROCESSABLE_ENTITY',
          'REFUND_AMOUNT_EXCEEDED',
          'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
        ),
      ];
    }
    const id = paypalId();
    const refund: Json = {
      id,
      status: this.refundStatus,
      amount: { currency_code: captured.currency_code, value: asked.value },
      ...(body.custom_id ? { custom_id: body.custom_id } : {}),
      invoice_id: capture.invoice_id,
      create_time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      links: [
        { href: `${SANDBOX}/v2/payments/refunds/${id}`, rel: 'self', method: 'GET' },
        { href: `${SANDBOX}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' },
      ],
    };
    this.refunds.set(id, refund);
    order.refunds.push(refund);
    if (this.refundStatus !== 'FAILED') capture.status = minor(asked.value) + refunded >= minor(captured.value) ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return [201, refund];
  }

  private verify(body: Json): [number, Json] {
    const fields = ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id'];
    const missing = fields.filter((field) => typeof body[field] !== 'string' || !body[field]);
    if (missing.length || !body.webhook_event || typeof body.webhook_event !== 'object') {
      return [
        400,
        paypalError('VALIDATION_ERROR', 'MISSING_REQUIRED_PARAMETER', `Missing ${missing.join(', ') || 'webhook_event'}.`, 'Invalid request - see details.'),
      ];
    }
    const sent = this.transmissions.get(String(body.transmission_id));
    const ok =
      !!sent &&
      sent.sig === body.transmission_sig &&
      sent.time === body.transmission_time &&
      sent.certUrl === body.cert_url &&
      sent.authAlgo === body.auth_algo &&
      sent.webhookId === body.webhook_id &&
      body.webhook_id === this.webhookId &&
      JSON.stringify(JSON.parse(sent.event)) === JSON.stringify(body.webhook_event);
    return [200, { verification_status: ok ? 'SUCCESS' : 'FAILURE' }];
  }

  private send(res: http.ServerResponse, status: number, body: Json | null): void {
    if (body === null) {
      res.writeHead(status, { 'Paypal-Debug-Id': 'f00dfeed' });
      return void res.end();
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Paypal-Debug-Id': 'f00dfeed' });
    res.end(text);
  }
}
