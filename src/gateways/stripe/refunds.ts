import type Stripe from 'stripe';
import type { Ctx } from '../../core/context';
import type { GatewayResult, GatewayTransaction, RefundLookup } from '../gateway';
import { stripeClient, stripeRefused } from './client';
import { storeMode, stripeConfig } from './config';

/** Stripe's refund statuses as the store's: `succeeded`; `failed` or `canceled` gave nothing back; the rest is pending. */
export function refundStatusOf(refund: Pick<Stripe.Refund, 'status'>): RefundLookup['status'] {
  if (refund.status === 'succeeded') return 'succeeded';
  if (refund.status === 'failed' || refund.status === 'canceled') return 'failed';
  return 'pending';
}

/** The client of the key of the mode the charge was made in (a test charge is refunded with the test key); null without one. */
async function clientOf(ctx: Ctx, transaction: GatewayTransaction): Promise<Stripe | null> {
  const config = await stripeConfig(ctx.host);
  const key = config.secretKey(storeMode(transaction.payment_mode));
  return key ? stripeClient(key) : null;
}

const noKey = (transaction: GatewayTransaction): GatewayResult => ({
  status: 'failed',
  message: `Stripe has no secret key for ${storeMode(transaction.payment_mode)} mode in the payment settings.`,
});

type StripePayment = { payment_intent: string } | { charge: string };

/**
 * Refunds and captures name the payment: a PaymentIntent (`pi_…`, every checkout payment), an older Charge, or an
 * Invoice (`in_…`: subscription renewals, and hosted subscription checkouts, are known by their invoice, see
 * `subscriptions-webhooks.ts`), whose paid payment is then asked of Stripe.
 */
function paymentOf(transaction: GatewayTransaction): StripePayment | { invoice: string } | null {
  const id = transaction.vendor_charge_id;
  if (id.startsWith('pi_')) return { payment_intent: id };
  if (id.startsWith('ch_') || id.startsWith('py_')) return { charge: id };
  if (id.startsWith('in_')) return { invoice: id };
  return null;
}

/** The payment of an invoice (its paid invoice payment); null when it has none. Throws what the SDK throws. */
async function invoicePayment(stripe: Stripe, invoiceId: string): Promise<StripePayment | null> {
  const invoice = await stripe.invoices.retrieve(invoiceId, { expand: ['payments'] });
  const paid = invoice.payments?.data.find((payment) => payment.status === 'paid');
  const intent = paid?.payment.payment_intent;
  if (intent) return { payment_intent: typeof intent === 'string' ? intent : intent.id };
  const charge = paid?.payment.charge;
  if (charge) return { charge: typeof charge === 'string' ? charge : charge.id };
  return null;
}

/**
 * Gives money back through `POST /v1/refunds`. The store's refund row's uuid is the idempotency key and goes into the
 * refund's metadata, so a retry never refunds twice and the refund's notifications name the row. A 4xx (already
 * refunded, amount too large, a bad key) is a refusal; no answer or a 5xx throws: the outcome is unknown.
 */
export async function refundStripeCharge(
  ctx: Ctx,
  transaction: GatewayTransaction,
  amount: number,
  row?: { id: number; uuid: string },
): Promise<GatewayResult> {
  const named = paymentOf(transaction);
  const noPayment: GatewayResult = { status: 'failed', message: `The charge has no Stripe payment id (${transaction.vendor_charge_id || 'none'}) to refund.` };
  if (!named) return noPayment;
  const stripe = await clientOf(ctx, transaction);
  if (!stripe) return noKey(transaction);
  let refund: Stripe.Refund;
  try {
    const payment = 'invoice' in named ? await invoicePayment(stripe, named.invoice) : named;
    if (!payment) return noPayment;
    const invoice: Record<string, string> = 'invoice' in named ? { invoice_id: named.invoice } : {};
    refund = await stripe.refunds.create(
      { ...payment, amount, metadata: { order_id: String(transaction.order_id), ...invoice, ...(row ? { transaction_uuid: row.uuid } : {}) } },
      row ? { idempotencyKey: `store-refund-${row.uuid}` } : undefined,
    );
  } catch (error) {
    if (stripeRefused(error)) return { status: 'failed', message: `Stripe refused the refund: ${error.message}` };
    throw error;
  }
  const status = refundStatusOf(refund);
  if (status === 'succeeded') return { status: 'success', message: `Refunded at Stripe (${refund.id}).`, vendor_id: refund.id };
  if (status === 'pending')
    return { status: 'pending', message: `Stripe accepted the refund (${refund.id}); it is still ${refund.status}.`, vendor_id: refund.id };
  return { status: 'failed', message: `Stripe could not make the refund (${refund.id}): ${refund.failure_reason ?? refund.status}.`, vendor_id: refund.id };
}

/** Captures an authorised PaymentIntent in full. */
export async function captureStripeCharge(ctx: Ctx, transaction: GatewayTransaction): Promise<GatewayResult> {
  const payment = paymentOf(transaction);
  if (!payment || !('payment_intent' in payment)) {
    return { status: 'failed', message: `The charge has no Stripe PaymentIntent (${transaction.vendor_charge_id || 'none'}) to capture.` };
  }
  const stripe = await clientOf(ctx, transaction);
  if (!stripe) return noKey(transaction);
  try {
    const intent = await stripe.paymentIntents.capture(payment.payment_intent, {}, { idempotencyKey: `store-capture-${transaction.id}` });
    if (intent.status !== 'succeeded') return { status: 'failed', message: `Stripe left the payment ${intent.id} ${intent.status}.` };
    return { status: 'success', message: `Captured at Stripe (${intent.id}).`, vendor_id: intent.id };
  } catch (error) {
    if (stripeRefused(error)) return { status: 'failed', message: `Stripe refused the capture: ${error.message}` };
    throw error;
  }
}

/**
 * What Stripe knows of a refund the store still holds as pending: by its refund id when the store has it; otherwise
 * among the payment's refunds, the one whose metadata names the row. None there means the refund call never reached
 * Stripe (the job asks only about refunds older than any call can run), so nothing was refunded: `failed`; unless a
 * refund of that amount names no store row (made before refunds carried one): that one may be it, so it stays pending.
 */
export async function lookupStripeRefund(ctx: Ctx, refund: GatewayTransaction, charge: GatewayTransaction): Promise<RefundLookup> {
  const stripe = await clientOf(ctx, charge);
  if (!stripe) throw new Error(noKey(charge).message);
  if (refund.vendor_charge_id) {
    const found = await stripe.refunds.retrieve(refund.vendor_charge_id);
    return { status: refundStatusOf(found), vendor_id: found.id };
  }
  const named = paymentOf(charge);
  const payment = named && 'invoice' in named ? await invoicePayment(stripe, named.invoice) : named;
  if (!payment || !refund.uuid) return { status: 'pending' };
  let unnamed = false;
  for await (const candidate of stripe.refunds.list({ ...payment, limit: 100 })) {
    if (candidate.metadata?.transaction_uuid === refund.uuid) return { status: refundStatusOf(candidate), vendor_id: candidate.id };
    if (!candidate.metadata?.transaction_uuid && candidate.amount === refund.total) unnamed = true;
  }
  return { status: unnamed ? 'pending' : 'failed' };
}
