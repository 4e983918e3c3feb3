import type { Host } from '../../host/contract';
import { getPaymentSettings } from '../../modules/settings/payment-settings';
import type { StoreMode } from '../../modules/settings/types';

/** What talking to PayPal in one mode takes: the REST app's credentials and the webhook registered for it. */
export interface PayPalCredentials {
  mode: StoreMode;
  client_id: string;
  client_secret: string;
  webhook_id: string;
}

/** PayPal's own API hosts; `PAYPAL_API_BASE` replaces both (a local fake in tests). */
export const VENDOR_BASES: Record<StoreMode, string> = { test: 'https://api-m.sandbox.paypal.com', live: 'https://api-m.paypal.com' };

const DEFAULT_TIMEOUT_MS = 15_000;

export function paypalApiBase(mode: StoreMode): string {
  return (process.env.PAYPAL_API_BASE || VENDOR_BASES[mode]).replace(/\/+$/, '');
}

/** How long one PayPal call may take before its outcome counts as unknown (`PAYPAL_TIMEOUT_MS`, default 15 s). */
export function paypalTimeoutMs(): number {
  const value = Number(process.env.PAYPAL_TIMEOUT_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

/**
 * The credentials of `mode` (default: the store's current mode) from the payment settings, each falling back to its
 * environment variable (`PAYPAL_CLIENT_ID`, `PAYPAL_CLIENT_SECRET`, `PAYPAL_WEBHOOK_ID`) when the setting is empty.
 */
export async function paypalCredentials(host: Host, mode?: StoreMode): Promise<PayPalCredentials & { enabled: boolean }> {
  const settings = await getPaymentSettings(host);
  const chosen = mode ?? settings.mode;
  const paypal = settings.gateways.paypal;
  return {
    mode: chosen,
    enabled: paypal.enabled,
    client_id: paypal[`${chosen}_client_id`] || process.env.PAYPAL_CLIENT_ID || '',
    client_secret: paypal[`${chosen}_client_secret`] || process.env.PAYPAL_CLIENT_SECRET || '',
    webhook_id: paypal[`${chosen}_webhook_id`] || process.env.PAYPAL_WEBHOOK_ID || '',
  };
}

export function hasApiKeys(credentials: PayPalCredentials): boolean {
  return credentials.client_id !== '' && credentials.client_secret !== '';
}

/** A stored `payment_mode` as a store mode (a charge made in live mode is refunded with the live app). */
export function modeOf(paymentMode: string): StoreMode {
  return paymentMode === 'live' ? 'live' : 'test';
}
