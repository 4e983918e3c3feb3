import type { Ctx } from '../core/context';
import { fail } from '../core/errors';
import type { PaymentGateway } from './gateway';
import { freeGateway } from './free';
import { offlineGateway } from './offline';
import { paypalGateway } from './paypal/gateway';
import { stripeGateway } from './stripe';

let builtIn: PaymentGateway[] | null = null;

/**
 * Built on first use, not at load: the gateways import the order modules, which import this registry, so a list built
 * while the modules load could see a gateway module that has not finished loading.
 */
function builtInGateways(): PaymentGateway[] {
  builtIn ??= [
    offlineGateway('cod', 'Cash on delivery'),
    offlineGateway('bank_transfer', 'Bank transfer'),
    offlineGateway('offline', 'Offline payment'),
    offlineGateway('manual', 'Manual payment'),
    freeGateway,
    stripeGateway(),
    paypalGateway,
  ];
  return builtIn;
}

/** The gateways by key: the built-in ones plus those extensions add through `store/payment_gateways`, enabled or not. */
export function paymentGateways(ctx: Ctx): Map<string, PaymentGateway> {
  const all = ctx.hooks.applyFilters('store/payment_gateways', builtInGateways());
  return new Map(all.map((gateway) => [gateway.key, gateway]));
}

/**
 * The gateway of a payment method. A method no gateway answers for is treated as offline (recorded only) unless the
 * transaction carries a gateway id: money that went through a gateway must go back through it, so that is an error.
 */
export function gatewayFor(ctx: Ctx, method: string, vendorChargeId = ''): PaymentGateway {
  const gateway = paymentGateways(ctx).get(method);
  if (gateway) return gateway;
  if (vendorChargeId) throw fail('invalid_state', `The payment gateway "${method}" of this transaction is not available.`, { status: 400 });
  return offlineGateway(method || 'manual', method || 'Manual payment');
}
