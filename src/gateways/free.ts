import type { PaymentGateway } from './gateway';

/**
 * The payment of an order whose total is zero: checkout marks it paid at once, whatever method the shopper chose, and
 * no gateway is called. Never offered as a choice; nothing to refund or capture.
 */
export const freeGateway: PaymentGateway = {
  key: 'free',
  title: 'Free order',
  capabilities: { refund: false, capture: false },
  availableAtCheckout: async () => false,
  refund: async () => ({ status: 'skipped', message: 'A free order took no money; the refund was recorded only.' }),
  capture: async () => ({ status: 'skipped', message: 'A free order has nothing to capture.' }),
};
