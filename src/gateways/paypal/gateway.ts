import type { PaymentGateway } from '../gateway';
import { payPalOrderInfo, startPayPalPayment } from './checkout';
import { hasApiKeys, paypalCredentials } from './config';
import { lookupPayPalRefund, refundPayPalCapture } from './refunds';
import { cancelPayPalSubscription, fetchPayPalSubscription, lookupPayPalSubscription, startPayPalSubscription } from './subscriptions';
import { applyPayPalWebhook } from './webhook-apply';
import { verifyPayPalWebhook } from './webhook-verify';

/**
 * PayPal through `@paypal/paypal-server-sdk` (Orders v2, intent CAPTURE): checkout creates a PayPal order and sends
 * the shopper to approve it; the return route (`return-route.ts`) or a webhook captures it and settles the charge.
 * Subscriptions are PayPal billing plans and subscriptions (`subscriptions.ts`, `plans.ts`), renewed by sale webhooks.
 * Authorizations are not used, so there is nothing to capture later. The methods call through arrow functions because
 * the registry imports this module inside an import cycle (registry → here → settle → orders/payments → registry).
 */
export const paypalGateway: PaymentGateway = {
  key: 'paypal',
  title: 'PayPal',
  capabilities: { refund: true, capture: false, webhooks: true, subscriptions: true, verify_vendor_ids: true },
  async availableAtCheckout(ctx) {
    const credentials = await paypalCredentials(ctx.host);
    return credentials.enabled && hasApiKeys(credentials);
  },
  startPayment: (ctx, request) => startPayPalPayment(ctx, request),
  getOrderInfo: (ctx) => payPalOrderInfo(ctx),
  verifyWebhook: (ctx, delivery) => verifyPayPalWebhook(ctx, delivery),
  applyWebhook: (ctx, trx, afterCommit, event) => applyPayPalWebhook(ctx, trx, afterCommit, event),
  refund: (ctx, charge, amount, row) => refundPayPalCapture(ctx, charge, amount, row),
  lookupRefund: (ctx, refund, charge) => lookupPayPalRefund(ctx, refund, charge),
  startSubscription: (ctx, request) => startPayPalSubscription(ctx, request),
  cancelSubscription: (ctx, subscription) => cancelPayPalSubscription(ctx, subscription),
  fetchSubscription: (ctx, subscription) => fetchPayPalSubscription(ctx, subscription),
  lookupSubscription: (ctx, ids) => lookupPayPalSubscription(ctx, ids),
  capture: async () => ({ status: 'skipped', message: 'PayPal payments are captured when the shopper approves them; there is no authorization to capture.' }),
};
