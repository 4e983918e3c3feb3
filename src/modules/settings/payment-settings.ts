import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { Host } from '../../host/contract';
import { transaction, type Ctx } from '../../core/context';
import { recordActivity } from '../activities/service';
import type { PaymentSettingsPatch } from './schemas';
import { SECRET_FIELDS, type GatewayKey, type PaymentSettings } from './types';

declare module '../../host/contract' {
  interface OptionMap {
    payment_settings: Partial<PaymentSettings>;
  }
}

const offline = (title: string, description: string) => ({ enabled: false, title, description, instructions: '' });

export const DEFAULT_PAYMENT_SETTINGS: PaymentSettings = {
  mode: 'test',
  gateways: {
    stripe: {
      enabled: false,
      title: 'Card',
      description: 'Pay with your credit or debit card.',
      checkout_mode: 'onsite',
      test_publishable_key: '',
      live_publishable_key: '',
      test_secret_key: '',
      live_secret_key: '',
      test_webhook_secret: '',
      live_webhook_secret: '',
    },
    paypal: {
      enabled: false,
      title: 'PayPal',
      description: 'Pay with your PayPal account.',
      test_client_id: '',
      live_client_id: '',
      test_client_secret: '',
      live_client_secret: '',
      test_webhook_id: '',
      live_webhook_id: '',
    },
    cod: offline('Cash on delivery', 'Pay with cash when your order is delivered.'),
    bank_transfer: offline('Bank transfer', 'Pay by bank transfer; your order ships once the payment arrives.'),
  },
};

export const GATEWAY_KEYS = Object.keys(DEFAULT_PAYMENT_SETTINGS.gateways) as GatewayKey[];

/** Payment settings as the API shows them: every secret replaced by `<field>_set: boolean`. */
export type PublicPaymentSettings = { mode: PaymentSettings['mode']; gateways: Record<GatewayKey, Record<string, unknown>> };

/** The full settings, secrets included: for gateways only, never for a response. */
export async function getPaymentSettings(host: Host, via?: Knex.Transaction): Promise<PaymentSettings> {
  const saved = await host.options.get('payment_settings', {}, via);
  const gateways = Object.fromEntries(GATEWAY_KEYS.map((key) => [key, { ...DEFAULT_PAYMENT_SETTINGS.gateways[key], ...saved.gateways?.[key] }]));
  return { mode: saved.mode ?? DEFAULT_PAYMENT_SETTINGS.mode, gateways: gateways as PaymentSettings['gateways'] };
}

export function redactPaymentSettings(settings: PaymentSettings): PublicPaymentSettings {
  const gateways = Object.fromEntries(
    GATEWAY_KEYS.map((key) => {
      const view: Record<string, unknown> = { ...settings.gateways[key] };
      for (const secret of SECRET_FIELDS[key]) {
        view[`${secret}_set`] = Boolean(view[secret]);
        delete view[secret];
      }
      return [key, view];
    }),
  );
  return { mode: settings.mode, gateways: gateways as PublicPaymentSettings['gateways'] };
}

/** Merges a partial update: omitted fields stay; an empty string clears a key or secret. */
export async function savePaymentSettings(ctx: Ctx, patch: Static<typeof PaymentSettingsPatch>): Promise<PublicPaymentSettings> {
  const current = await getPaymentSettings(ctx.host);
  const next: PaymentSettings = {
    mode: patch.mode ?? current.mode,
    gateways: Object.fromEntries(
      GATEWAY_KEYS.map((key) => [key, { ...current.gateways[key], ...(patch.gateways as Partial<Record<GatewayKey, object>> | undefined)?.[key] }]),
    ) as PaymentSettings['gateways'],
  };
  await ctx.host.options.set('payment_settings', next);
  const view = redactPaymentSettings(next);
  const changed = GATEWAY_KEYS.filter((key) => (patch.gateways as Record<string, unknown> | undefined)?.[key] !== undefined);
  await transaction(ctx, async (trx, afterCommit) => {
    const content = [patch.mode ? `mode: ${next.mode}` : '', changed.length ? `gateways: ${changed.join(', ')}` : ''].filter(Boolean).join('; ');
    await recordActivity(trx, ctx, { object_type: 'settings', object_id: 0, title: 'Payment settings updated', content }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/payment_settings/updated', view));
  });
  return view;
}
