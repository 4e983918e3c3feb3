import Stripe from 'stripe';
import { fail } from '../../core/errors';

/** Stripe's own API, unless `STRIPE_API_BASE` points elsewhere (a local fake in tests, a proxy). */
function apiTarget(): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  const base = process.env.STRIPE_API_BASE;
  if (!base) return {};
  const url = new URL(base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`STRIPE_API_BASE must be an http(s) URL, got ${base}`);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: Number(url.port || (protocol === 'http' ? 80 : 443)), protocol };
}

/** Milliseconds a Stripe call may take before it counts as unanswered (each of the SDK's tries). */
function timeout(): number {
  const value = Number(process.env.STRIPE_TIMEOUT_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : 15_000;
}

const clients = new Map<string, Stripe>();

/**
 * The SDK client of one secret key, built once per key and API target. It retries a failed connection twice (POSTs
 * carry an idempotency key, so a retry never pays or refunds twice), sends the pinned API version and no telemetry.
 */
export function stripeClient(secretKey: string): Stripe {
  if (!secretKey) throw fail('invalid_state', 'Stripe is not configured: its secret key is missing.');
  const target = apiTarget();
  const ms = timeout();
  const cacheKey = `${secretKey}\n${target.protocol ?? ''}://${target.host ?? ''}:${target.port ?? ''}\n${ms}`;
  let client = clients.get(cacheKey);
  if (!client) {
    client = new Stripe(secretKey, { apiVersion: '2026-10-28.endive', maxNetworkRetries: 2, timeout: ms, telemetry: false, ...target });
    clients.set(cacheKey, client);
  }
  return client;
}

/**
 * Whether Stripe answered that it did not do what was asked (a 4xx: declined, invalid, refused), as opposed to an
 * outcome that is unknown (no answer, a timeout, a 5xx, or a 409 for a request with the same key still running).
 */
export function stripeRefused(error: unknown): error is Stripe.errors.StripeError {
  if (!(error instanceof Stripe.errors.StripeError)) return false;
  const status = error.statusCode ?? 0;
  return status >= 400 && status < 500 && status !== 409;
}
