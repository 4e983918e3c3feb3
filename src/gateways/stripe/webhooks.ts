import type { Knex } from 'knex';
import Stripe from 'stripe';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { decimalWithCode } from '../../core/money';
import { recordActivity } from '../../modules/activities/service';
import { settleGatewayRefund, type RefundSettleOutcome } from '../../modules/payments/refund-settle';
import { settleGatewayPayment, type SettleOutcome } from '../../modules/payments/settle';
import { WebhookRejected, type VerifiedEvent, type WebhookDelivery } from '../gateway';
import { stripeClient } from './client';
import { stripeConfig } from './config';
import { refundStatusOf } from './refunds';
import { idOf } from './subscriptions';
import { invoiceFailed, invoicePaid, subscriptionDeleted, subscriptionSessionCompleted, subscriptionUpdated } from './subscriptions-webhooks';

const METHOD = 'stripe';

/** What `verifyWebhook` hands to `applyWebhook`: the event, and for `charge.refunded` the charge's refunds. */
interface StripeDelivery {
  event: Stripe.Event;
  refunds?: Stripe.Refund[];
}

/**
 * Checks `Stripe-Signature` against the exact bytes with `stripe.webhooks.constructEvent` (HMAC of timestamp and body,
 * 300 s tolerance, measured on the store's clock) and each signing secret the store has (the current mode's first:
 * events of payments made before a mode switch still arrive). A `charge.refunded` event carries the charge without
 * its refunds (API versions since 2022-11-15), so they are fetched here, before the database transaction, not in it.
 */
export async function verifyStripeWebhook(ctx: Ctx, delivery: WebhookDelivery): Promise<VerifiedEvent> {
  const header = delivery.headers['stripe-signature'];
  if (typeof header !== 'string' || !header) throw new WebhookRejected('The Stripe-Signature header is missing.');
  const config = await stripeConfig(ctx.host);
  const secrets = config.webhookSecrets();
  if (!secrets.length) throw new WebhookRejected('No Stripe webhook signing secret is configured.');
  let event: Stripe.Event | null = null;
  let reason = '';
  for (const secret of secrets) {
    try {
      event = Stripe.webhooks.constructEvent(delivery.rawBody, header, secret, undefined, undefined, ctx.clock.now().getTime());
      break;
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeSignatureVerificationError)) throw new WebhookRejected('The Stripe event could not be read.');
      reason = error.message;
    }
  }
  if (!event) throw new WebhookRejected(`The Stripe signature does not match: ${reason}`);
  const data: StripeDelivery = { event };
  if (event.type === 'charge.refunded') {
    const charge = event.data.object;
    data.refunds = charge.refunds?.data;
    if (!data.refunds) {
      const stripe = stripeClient(config.secretKey(event.livemode ? 'live' : 'test'));
      data.refunds = [];
      for await (const refund of stripe.refunds.list({ charge: charge.id, limit: 100 })) data.refunds.push(refund);
    }
  }
  return { id: event.id, type: event.type, data };
}

async function settleRefund(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, refund: Stripe.Refund): Promise<RefundSettleOutcome> {
  // The store keeps a checkout payment's PaymentIntent id on its charge; older, admin-recorded charges may hold the charge
  // id, and subscription invoices' charges the invoice id, which the store's refunds of them carry in their metadata.
  for (const chargeId of [idOf(refund.payment_intent), idOf(refund.charge), refund.metadata?.invoice_id ?? ''].filter(Boolean)) {
    const outcome = await settleGatewayRefund(ctx, trx, afterCommit, {
      method: METHOD,
      charge_vendor_id: chargeId,
      refund_vendor_id: refund.id,
      amount: refund.amount,
      status: refundStatusOf(refund),
      transaction_uuid: refund.metadata?.transaction_uuid || undefined,
    });
    if (outcome !== 'unknown') return outcome;
  }
  return 'unknown';
}

/**
 * A PaymentIntent succeeded: the pending charge holding its id settles the order with `amount_received`. A hosted
 * checkout's intent is unknown by id (its charge holds the Checkout Session's id) but names the charge in its
 * metadata: then that charge settles, now under the intent's id.
 */
async function intentSucceeded(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, intent: Stripe.PaymentIntent): Promise<SettleOutcome> {
  const outcome = await settleGatewayPayment(ctx, trx, afterCommit, {
    method: METHOD,
    vendor_charge_id: intent.id,
    amount: intent.amount_received,
    currency: intent.currency,
  });
  const uuid = intent.metadata?.transaction_uuid;
  if (outcome !== 'unknown_charge' || !uuid) return outcome;
  const charge = (await trx('store_order_transactions').where({ uuid, payment_method: METHOD }).first('vendor_charge_id')) as
    { vendor_charge_id: string } | undefined;
  if (!charge?.vendor_charge_id) return outcome;
  return settleGatewayPayment(ctx, trx, afterCommit, {
    method: METHOD,
    vendor_charge_id: charge.vendor_charge_id,
    settled_charge_id: intent.id,
    amount: intent.amount_received,
    currency: intent.currency,
  });
}

/** A payment attempt failed: the order stays pending and the checkout can be tried again; the reason goes on the order. */
async function intentFailed(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, intent: Stripe.PaymentIntent): Promise<string> {
  const charge = (await trx('store_order_transactions').where({ payment_method: METHOD, vendor_charge_id: intent.id }).first('order_id', 'id')) as
    { order_id: number; id: number } | undefined;
  if (!charge) return 'unknown_charge';
  const reason = (intent.last_payment_error?.message ?? 'the payment was declined').replace(/\.$/, '');
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: Number(charge.order_id),
      title: 'Payment failed',
      content: `Stripe payment ${intent.id} of ${decimalWithCode(intent.amount, intent.currency.toUpperCase())} failed: ${reason}. The order stays pending; the shopper may try again.`,
      status: 'error',
    },
    afterCommit,
  );
  return 'payment_failed';
}

/**
 * Applies a verified event inside the webhook transaction (which also records the event id, so it is applied once):
 * payments settle the order (`payment_intent.succeeded`, a paid `checkout.session.completed` or
 * `checkout.session.async_payment_succeeded`), a failed attempt is noted, refunds settle their rows
 * (`charge.refunded`, `refund.created`, `refund.updated`, `refund.failed`, `charge.refund.updated`), subscriptions
 * renew, fail, change and end (`subscriptions-webhooks.ts`); anything else is `ignored`. Returns the outcome kept
 * with the event.
 */
export async function applyStripeWebhook(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, verified: VerifiedEvent): Promise<string> {
  const { event, refunds } = verified.data as StripeDelivery;
  switch (event.type) {
    case 'payment_intent.succeeded':
      return intentSucceeded(ctx, trx, afterCommit, event.data.object);
    case 'payment_intent.payment_failed':
      return intentFailed(ctx, trx, afterCommit, event.data.object);
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      if (session.mode === 'subscription') return subscriptionSessionCompleted(ctx, trx, afterCommit, session);
      if (session.payment_status !== 'paid' || session.amount_total === null) return 'awaiting_payment';
      return settleGatewayPayment(ctx, trx, afterCommit, {
        method: METHOD,
        vendor_charge_id: session.id,
        settled_charge_id: idOf(session.payment_intent) || undefined,
        amount: session.amount_total,
        currency: session.currency ?? undefined,
      });
    }
    case 'charge.refunded': {
      const outcomes: string[] = [];
      for (const refund of refunds ?? []) outcomes.push(await settleRefund(ctx, trx, afterCommit, refund));
      return [...new Set(outcomes)].join(',') || 'no_refunds';
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
    case 'charge.refund.updated':
      return settleRefund(ctx, trx, afterCommit, event.data.object);
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      return invoicePaid(ctx, trx, afterCommit, event.data.object);
    case 'invoice.payment_failed':
      return invoiceFailed(ctx, trx, afterCommit, event.data.object);
    case 'customer.subscription.updated':
      return subscriptionUpdated(ctx, trx, afterCommit, event.data.object);
    case 'customer.subscription.deleted':
      return subscriptionDeleted(ctx, trx, afterCommit, event.data.object);
    default:
      return 'ignored';
  }
}
