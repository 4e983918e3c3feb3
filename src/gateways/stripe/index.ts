import type { PaymentGateway } from '../gateway';
import { startStripePayment, stripeOrderInfo } from './checkout';
import { stripeConfig } from './config';
import { captureStripeCharge, lookupStripeRefund, refundStripeCharge } from './refunds';
import { cancelStripeSubscription, fetchStripeSubscription, lookupStripeSubscription, startStripeSubscription } from './subscriptions';
import { applyStripeWebhook, verifyStripeWebhook } from './webhooks';

/**
 * The Stripe gateway (`stripe` SDK): on-site PaymentIntents or hosted Checkout Sessions, refunds, captures, signed
 * webhooks, and subscriptions (Stripe Billing: created at checkout, renewed by invoice webhooks, canceled, fetched). The methods call through arrow functions, so the registry may build it while the order modules
 * these import are still loading (they import the registry in turn).
 */
export function stripeGateway(): PaymentGateway {
  return {
    key: 'stripe',
    title: 'Stripe',
    capabilities: { refund: true, capture: true, webhooks: true, subscriptions: true, verify_vendor_ids: true },
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
    startSubscription: (ctx, request) => startStripeSubscription(ctx, request),
    cancelSubscription: (ctx, subscription) => cancelStripeSubscription(ctx, subscription),
    fetchSubscription: (ctx, subscription) => fetchStripeSubscription(ctx, subscription),
    lookupSubscription: (ctx, ids) => lookupStripeSubscription(ctx, ids),
  };
}
