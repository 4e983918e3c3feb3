import type { RestResponse } from '../host/contract';
import type { AppError } from './errors';

/**
 * The six error envelopes of the spec's Errors table; each route declares which one it answers in.
 * - `message`: orders, subscriptions, customer portal: `{message}` (+ `errors` on validation)
 * - `checkout`: `{status: 'failed', message}` or `{status: 'failed', errors}`
 * - `admin`: customer administration: `{code, message, data}`, `code` being the HTTP status
 * - `login`: `{success: false, data: {message, code}}`
 * - `legacy`: earlier-style responses: `{success: false, error: {code, message}}`
 * - `role`: roles and permissions: `{message, errors: [{code, message}]}`, `code` being the HTTP status (`{message, errors}`
 *   with the field errors on validation, as everywhere)
 */
export type Envelope = 'message' | 'checkout' | 'admin' | 'login' | 'legacy' | 'role';

export const ENVELOPES: readonly Envelope[] = ['message', 'checkout', 'admin', 'login', 'legacy', 'role'];

export function renderError(envelope: Envelope, error: AppError): RestResponse {
  return { ...renderBody(envelope, error), headers: error.details.headers };
}

function renderBody(envelope: Envelope, error: AppError): RestResponse {
  const { status, message, code } = error;
  const { errors, data } = error.details;
  // The spec gives these answers one flat shape whatever the route's envelope (out of stock: 422 `{message}`).
  if (code === 'rate_limited' || code === 'product_unavailable') return { status, body: { message } };
  if (code === 'invalid_nonce') return { status, body: { message, code } };
  switch (envelope) {
    case 'message':
      return { status, body: errors ? { message, errors } : { message, ...data } };
    case 'checkout':
      return { status, body: errors ? { status: 'failed', errors } : { status: 'failed', message, ...data } };
    case 'admin':
      return { status, body: { code: status, message, data: errors ?? data ?? {} } };
    case 'login':
      return { status, body: { success: false, data: { message, code, ...(errors ? { errors } : {}) } } };
    case 'legacy':
      return { status, body: { success: false, error: { code, message, ...(errors ? { errors } : {}) } } };
    case 'role':
      return { status, body: { message, errors: errors ?? [{ code: status, message }] } };
  }
}
