import type { Ctx } from '../../core/context';
import { invalid } from '../../core/errors';
import type { OrderInfo } from '../../gateways/gateway';
import { paymentGateways } from '../../gateways/registry';

/**
 * `GET /checkout/get-order-info?method=<key>`: what the checkout page needs before it places an order with the
 * gateway (the gateway's own `getOrderInfo`). A method that is unknown or not offered at checkout now is a 422 on
 * `method`, like the same value sent to place-order; an offered gateway that needs nothing (cash on delivery) answers
 * an empty success.
 */
export async function orderInfo(ctx: Ctx, method: string): Promise<OrderInfo> {
  const gateway = paymentGateways(ctx).get(method);
  const offered = gateway?.availableAtCheckout ? await gateway.availableAtCheckout(ctx) : false;
  if (!gateway || !offered) throw invalid('method', 'in', 'The selected payment method is not available.');
  if (gateway.getOrderInfo) return gateway.getOrderInfo(ctx);
  return { status: 'success', message: `${gateway.title} needs no payment details at checkout.`, data: [], payment_args: {} };
}
