import type { Ctx } from '../../core/context';
import { WebhookRejected, type VerifiedEvent, type WebhookDelivery } from '../gateway';
import { captureOrder, type CaptureOutcome } from './capture';
import { paypalApi, type PayPalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { findPayPalCharge } from './settle';
import { firstSaleIfPending, type PaidSale } from './subscriptions-settle';

/** The headers PayPal signs a delivery with; the verify call needs every one. */
const SIGNATURE_HEADERS = ['paypal-transmission-id', 'paypal-transmission-time', 'paypal-transmission-sig', 'paypal-cert-url', 'paypal-auth-algo'] as const;

/**
 * PayPal re-sends an unanswered notification for up to three days, and does not document whether a re-sent one carries
 * a new transmission time; so a delivery is stale only past that window (a replay inside it is harmless: the event id
 * is recorded once). A time more than five minutes ahead is refused as well.
 */
const MAX_AGE_MS = 3 * 24 * 60 * 60 * 1000;
const MAX_AHEAD_MS = 5 * 60 * 1000;

/**
 * A verified PayPal event: its resource; for an approved order the result of capturing it; for an activated
 * subscription whose parent order waits for its first payment, PayPal's first sale (null: none yet).
 */
export interface PayPalEventData {
  resource: Record<string, unknown>;
  capture?: CaptureOutcome;
  first_sale?: PaidSale | null;
}

function header(delivery: WebhookDelivery, name: string): string {
  const value = delivery.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function parseEvent(rawBody: Buffer): { id: string; event_type: string; resource: Record<string, unknown> } {
  let event: unknown;
  try {
    event = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookRejected('The PayPal notification is not valid JSON.');
  }
  const { id, event_type, resource } = (event ?? {}) as Record<string, unknown>;
  if (typeof id !== 'string' || !id || typeof event_type !== 'string' || !event_type || !resource || typeof resource !== 'object') {
    throw new WebhookRejected('The PayPal notification has no event id, type or resource.');
  }
  return { id, event_type, resource: resource as Record<string, unknown> };
}

/**
 * Asks PayPal whether it signed this delivery (`POST /v1/notifications/verify-webhook-signature`; the SDK has no call
 * for it). The event goes into the request as the exact bytes received, spliced into the JSON: PayPal checks a CRC of
 * the event text, which re-serialising could change. A refusal or `FAILURE` rejects the delivery; no answer throws,
 * so the delivery fails with a 5xx and PayPal sends it again.
 */
async function verifySignature(api: PayPalApi, signature: Record<string, string>, webhookId: string, rawBody: Buffer): Promise<void> {
  const fields = JSON.stringify({
    auth_algo: signature['paypal-auth-algo'],
    cert_url: signature['paypal-cert-url'],
    transmission_id: signature['paypal-transmission-id'],
    transmission_sig: signature['paypal-transmission-sig'],
    transmission_time: signature['paypal-transmission-time'],
    webhook_id: webhookId,
  });
  const body = `${fields.slice(0, -1)},"webhook_event":${rawBody.toString('utf8')}}`;
  const response = await fetch(`${api.base}/v1/notifications/verify-webhook-signature`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await api.accessToken()}`, 'Content-Type': 'application/json' },
    body,
    signal: AbortSignal.timeout(api.timeoutMs),
  });
  if (response.status >= 500) throw new Error(`PayPal's signature verification answered ${response.status}`);
  const answer = (await response.json().catch(() => ({}))) as { verification_status?: unknown };
  if (!response.ok) throw new WebhookRejected(`PayPal refused to verify the notification (HTTP ${response.status}).`);
  if (answer.verification_status !== 'SUCCESS') throw new WebhookRejected('The PayPal signature does not match the notification.');
}

/**
 * An approved order whose charge is still pending is captured here, after verification and before the transaction
 * that records the event: a PayPal call must not run inside a database transaction (on SQLite that would hold the
 * store's write lock for its whole duration). PayPal captures an order once and `captureOrder` reads a repeated
 * capture back, so a repeated delivery does no harm.
 */
async function captureIfPending(ctx: Ctx, resource: Record<string, unknown>): Promise<CaptureOutcome | undefined> {
  const paypalOrderId = typeof resource.id === 'string' ? resource.id : '';
  const charge = paypalOrderId ? await findPayPalCharge(ctx.db, [paypalOrderId]) : undefined;
  if (charge?.status !== 'pending') return undefined;
  const credentials = await paypalCredentials(ctx.host, modeOf(charge.payment_mode));
  return captureOrder(paypalApi(credentials), paypalOrderId);
}

/** `verifyWebhook` of the PayPal gateway: headers, age, PayPal's own verdict on the signature, then the event. */
export async function verifyPayPalWebhook(ctx: Ctx, delivery: WebhookDelivery): Promise<VerifiedEvent> {
  const signature = Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, header(delivery, name)]));
  const missing = SIGNATURE_HEADERS.filter((name) => !signature[name]);
  if (missing.length) throw new WebhookRejected(`The PayPal notification lacks the header(s) ${missing.join(', ')}.`);
  const sentAt = Date.parse(signature['paypal-transmission-time']);
  const now = ctx.clock.now().getTime();
  if (Number.isNaN(sentAt)) throw new WebhookRejected('The PayPal transmission time is not a date.');
  if (now - sentAt > MAX_AGE_MS || sentAt - now > MAX_AHEAD_MS) throw new WebhookRejected('The PayPal notification is stale.');
  const event = parseEvent(delivery.rawBody);
  const credentials = await paypalCredentials(ctx.host);
  if (!hasApiKeys(credentials) || !credentials.webhook_id) {
    throw new WebhookRejected(`PayPal webhooks are not configured for ${credentials.mode} mode (client id, secret and webhook id).`);
  }
  await verifySignature(paypalApi(credentials), signature, credentials.webhook_id, delivery.rawBody);
  const data: PayPalEventData = { resource: event.resource };
  if (event.event_type === 'CHECKOUT.ORDER.APPROVED') data.capture = await captureIfPending(ctx, event.resource);
  if (event.event_type === 'BILLING.SUBSCRIPTION.ACTIVATED') data.first_sale = await firstSaleIfPending(ctx, event.resource);
  return { id: event.id, type: event.event_type, data };
}
