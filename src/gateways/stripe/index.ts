import type { PaymentGateway } from '../gateway';
import { startStripePayment, stripeOrderInfo } from './checkout';
import { stripeConfig } from './config';
import { captureStripeCharge, lookupStripeRefund, refundStripeCharge } from './refunds';
import { applyStripeWebhook, verifyStripeWebhook } from './webhooks';

/**
 * The Stripe gateway (`stripe` SDK): on-site PaymentIntents or hosted Checkout Sessions, refunds, captures and
 * signed webhooks. The methods call through arrow functions, so the registry may build it while the order modules
 * these import are still loading (they import the registry in turn).
 */
export function stripeGateway(): PaymentGateway {
  return {
    key: 'stripe',
    title: 'Stripe',
    capabilities: { refund: true, capture: true, webhooks: true },
    availableAtCheckout: async (ctx) => {
      const config = await stripeConfig(ctx.host);
      const { mode } = config;
      const keys = config.secretKey(mode) !== '' && (config.settings.checkout_mode === 'hosted' || config.publishableKey(mode) !== '');
      return config.settings.enabled && keys;
    },
    startPayment: (ctx, request) => startStripePayment(ctx, request),
    getOrderInfo: (ctx) => stripeOrderInfo(ctx),
    verifyWebhook: (ctx, delivery) => verifyStripeWebhook(ctx, delivery),
    applyWebhook: (ctx, trx, afterCommit, event) => applyStripeWebhook(ctx, trx, afterCommit, event),
    refund: (ctx, transaction, amount, row) => refundStripeCharge(ctx, transaction, amount, row),
    capture: (ctx, transaction) => captureStripeCharge(ctx, transaction),
    lookupRefund: (ctx, refund, charge) => lookupStripeRefund(ctx, refund, charge),
  };
}
