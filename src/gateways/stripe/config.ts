import type { Knex } from 'knex';
import type { Host } from '../../host/contract';
import { getPaymentSettings } from '../../modules/settings/payment-settings';
import type { StoreMode, StripeSettings } from '../../modules/settings/types';

/** The Stripe settings of the store and the keys of one mode, settings first, then the environment's. */
export interface StripeConfig {
  settings: StripeSettings;
  /** The store's current payment mode (new payments use it). */
  mode: StoreMode;
  secretKey(mode: StoreMode): string;
  publishableKey(mode: StoreMode): string;
  /** Every signing secret a notification may be signed with: the current mode's first, then the other mode's. */
  webhookSecrets(): string[];
}

export function storeMode(value: string): StoreMode {
  return value === 'live' ? 'live' : 'test';
}

export async function stripeConfig(host: Host, via?: Knex.Transaction): Promise<StripeConfig> {
  const payment = await getPaymentSettings(host, via);
  const settings = payment.gateways.stripe;
  const env = process.env;
  const secretKey = (mode: StoreMode) => settings[`${mode}_secret_key`] || env.STRIPE_SECRET_KEY || '';
  const webhookSecret = (mode: StoreMode) => settings[`${mode}_webhook_secret`] || env.STRIPE_WEBHOOK_SECRET || '';
  const other: StoreMode = payment.mode === 'live' ? 'test' : 'live';
  return {
    settings,
    mode: payment.mode,
    secretKey,
    publishableKey: (mode) => settings[`${mode}_publishable_key`] || env.STRIPE_PUBLISHABLE_KEY || '',
    webhookSecrets: () => [...new Set([webhookSecret(payment.mode), webhookSecret(other)].filter(Boolean))],
  };
}
