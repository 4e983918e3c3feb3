import type { Ctx } from '../core/context';
import type { PaymentGateway } from './gateway';
import { offlineGateway } from './offline';

const BUILT_IN: PaymentGateway[] = [
  offlineGateway('cod', 'Cash on delivery'),
  offlineGateway('bank_transfer', 'Bank transfer'),
  offlineGateway('offline', 'Offline payment'),
  offlineGateway('manual', 'Manual payment'),
];

/** The gateways by key: the built-in ones plus those extensions add through `store/payment_gateways`. */
export function paymentGateways(ctx: Ctx): Map<string, PaymentGateway> {
  const all = ctx.hooks.applyFilters('store/payment_gateways', BUILT_IN);
  return new Map(all.map((gateway) => [gateway.key, gateway]));
}

/** The gateway of a payment method; an unknown method (or none) is treated as offline: recorded only. */
export function gatewayFor(ctx: Ctx, method: string): PaymentGateway {
  return paymentGateways(ctx).get(method) ?? offlineGateway(method || 'manual', method || 'Manual payment');
}
