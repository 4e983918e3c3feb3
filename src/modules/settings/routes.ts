import { StoreSensitivePolicy, StoreSettingsPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { getPaymentSettings, redactPaymentSettings, savePaymentSettings } from './payment-settings';
import { PaymentSettingsPatch, StoreSettingsPatch } from './schemas';
import { getStoreSettings, saveStoreSettings } from './store-settings';

export const settingsRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/settings/store',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    envelope: 'message',
    handler: async (ctx) => ({ settings: await getStoreSettings(ctx.host) }),
  }),
  route({
    method: 'PUT',
    path: '/settings/store',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { body: StoreSettingsPatch },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Store settings saved successfully', settings: await saveStoreSettings(ctx, body) }),
  }),
  route({
    method: 'GET',
    path: '/settings/payment-methods',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    envelope: 'message',
    handler: async (ctx) => ({ settings: redactPaymentSettings(await getPaymentSettings(ctx.host)) }),
  }),
  route({
    method: 'PUT',
    path: '/settings/payment-methods',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { body: PaymentSettingsPatch },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ message: 'Payment settings saved successfully', settings: await savePaymentSettings(ctx, body) }),
  }),
];
