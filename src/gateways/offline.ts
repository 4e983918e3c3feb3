import type { PaymentGateway } from './gateway';

/** A payment taken outside the store (cash on delivery, bank transfer, a manual mark-as-paid): the store only records. */
export function offlineGateway(key: string, title: string): PaymentGateway {
  return {
    key,
    title,
    capabilities: { refund: false, capture: false },
    refund: async () => ({ status: 'skipped', message: `${title} refunds are made outside the store; the refund was recorded only.` }),
    capture: async () => ({ status: 'skipped', message: `${title} payments are collected outside the store.` }),
  };
}
