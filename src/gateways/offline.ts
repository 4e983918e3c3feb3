import type { Ctx } from '../core/context';
import { getPaymentSettings, GATEWAY_KEYS } from '../modules/settings/payment-settings';
import type { GatewayKey } from '../modules/settings/types';
import type { PaymentGateway } from './gateway';

const isSettingsKey = (key: string): key is GatewayKey => (GATEWAY_KEYS as readonly string[]).includes(key);

/**
 * A payment taken outside the store (cash on delivery, bank transfer, a manual mark-as-paid): the store only records.
 * Shoppers may choose one at checkout while the payment settings enable it (`cod`, `bank_transfer`); the others are
 * for admins only.
 */
export function offlineGateway(key: string, title: string): PaymentGateway {
  return {
    key,
    title,
    capabilities: { refund: false, capture: false },
    availableAtCheckout: async (ctx: Ctx) => isSettingsKey(key) && (await getPaymentSettings(ctx.host)).gateways[key].enabled,
    refund: async () => ({ status: 'skipped', message: `${title} refunds are made outside the store; the refund was recorded only.` }),
    capture: async () => ({ status: 'skipped', message: `${title} payments are collected outside the store.` }),
  };
}
