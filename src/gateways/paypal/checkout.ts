import { CheckoutPaymentIntent, PaypalExperienceUserAction, PaypalWalletContextShippingPreference, type Order } from '@paypal/paypal-server-sdk';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import type { OrderInfo, PaymentRequest, PaymentStart } from '../gateway';
import { paypalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { describeRefusal, paypalMoney, refusalOf } from './vendor';

/**
 * Where PayPal sends the shopper back after approving: the gateway's return route with the order's uuid added, so a
 * second visit (a reload, or after the webhook settled the payment) still finds the order. PayPal appends `token`.
 */
function returnUrl(request: PaymentRequest): string {
  const url = new URL(request.urls.return_url);
  url.searchParams.set('order_hash', request.order.uuid);
  return url.toString();
}

function approvalLink(order: Order): string | undefined {
  return order.links?.find((link) => link.rel === 'payer-action' || link.rel === 'approve')?.href;
}

/**
 * Starts paying a placed order: a PayPal order (intent CAPTURE) for the pending charge's amount in the order currency,
 * written with the currency's own decimals (`"19.99"` USD, `"1500"` JPY), `custom_id` and `invoice_id` the order's
 * uuid; the shopper is redirected to PayPal to approve it. The `PayPal-Request-Id` is the charge's uuid with the
 * amount, so a retried checkout gets the same PayPal order back and a changed amount a new one. A refusal carries
 * PayPal's reason; no answer asks to try again (the detail is logged).
 */
export async function startPayPalPayment(ctx: Ctx, request: PaymentRequest): Promise<PaymentStart> {
  const credentials = await paypalCredentials(ctx.host, modeOf(request.order.mode));
  if (!hasApiKeys(credentials)) throw fail('invalid_state', 'PayPal is not set up to take payments.', { status: 502 });
  const amount = paypalMoney(request.transaction.total, request.order.currency);
  let order: Order;
  try {
    ({ result: order } = await paypalApi(credentials).orders.createOrder({
      paypalRequestId: `order-${request.transaction.uuid}-${amount.value}${amount.currencyCode}`,
      prefer: 'return=representation',
      body: {
        intent: CheckoutPaymentIntent.Capture,
        purchaseUnits: [{ referenceId: request.order.uuid, customId: request.order.uuid, invoiceId: request.order.uuid, amount }],
        paymentSource: {
          paypal: {
            experienceContext: {
              returnUrl: returnUrl(request),
              cancelUrl: request.urls.cancel_url,
              userAction: PaypalExperienceUserAction.PayNow,
              shippingPreference: PaypalWalletContextShippingPreference.NoShipping,
            },
          },
        },
      },
    }));
  } catch (error) {
    ctx.host.logger.warn({ err: error, order_id: request.order.id }, 'PayPal payment could not be started');
    const refusal = refusalOf(error);
    if (refusal) throw fail('invalid_state', `PayPal refused the payment: ${describeRefusal(refusal)}`, { status: 502 });
    throw fail('invalid_state', 'PayPal could not be reached. Please try again in a moment.', { status: 502 });
  }
  const redirect = approvalLink(order);
  if (!order.id || !redirect) throw fail('invalid_state', 'PayPal gave no page to approve the payment on. Please try again.', { status: 502 });
  return { kind: 'redirect', redirect_url: redirect, vendor_charge_id: order.id };
}

/**
 * `GET /checkout/get-order-info?method=paypal`: PayPal pays by redirect (place-order answers the approval URL), so
 * `data` is empty as for Stripe's hosted mode; `payment_args` carries what PayPal's JS SDK would need to render its
 * buttons instead (the REST app's public client id, the mode and the intent).
 */
export async function payPalOrderInfo(ctx: Ctx): Promise<OrderInfo> {
  const credentials = await paypalCredentials(ctx.host);
  if (!hasApiKeys(credentials)) return { status: 'failed', message: 'PayPal is not set up to take payments.', data: [], payment_args: {} };
  return {
    status: 'success',
    message: 'PayPal is ready to take the payment.',
    data: [],
    payment_args: { checkout_mode: 'redirect', client_id: credentials.client_id, mode: credentials.mode, intent: 'capture' },
  };
}
