import type { Refund } from '@paypal/paypal-server-sdk';
import type { Ctx } from '../../core/context';
import type { GatewayResult, GatewayTransaction, RefundLookup } from '../gateway';
import { paypalApi, type PayPalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { describeRefusal, minorAmount, paypalMoney, refusalOf } from './vendor';

/** PayPal's refund statuses as the store's: `COMPLETED` gave the money back; `FAILED`/`CANCELLED` did not; the rest waits. */
export function refundStatusOf(status: unknown): RefundLookup['status'] {
  if (status === 'COMPLETED') return 'succeeded';
  if (status === 'FAILED' || status === 'CANCELLED') return 'failed';
  return 'pending';
}

/** The API of the mode the charge was made in: a sandbox payment is refunded by the sandbox app. */
async function apiOf(ctx: Ctx, charge: GatewayTransaction): Promise<PayPalApi | null> {
  const credentials = await paypalCredentials(ctx.host, modeOf(charge.payment_mode));
  return hasApiKeys(credentials) ? paypalApi(credentials) : null;
}

/**
 * Gives money back through `POST /v2/payments/captures/{capture id}/refund` (a settled PayPal charge carries its
 * capture id). The store's refund row's uuid is the `PayPal-Request-Id` (a retry never refunds twice) and the refund's
 * `custom_id` (so a lookup finds it). A 4xx is a refusal; no answer, a 5xx or a 409 throws: the outcome is unknown.
 */
export async function refundPayPalCapture(ctx: Ctx, charge: GatewayTransaction, amount: number, row?: { id: number; uuid: string }): Promise<GatewayResult> {
  const api = await apiOf(ctx, charge);
  if (!api) return { status: 'failed', message: `PayPal's client id and secret are not set for ${modeOf(charge.payment_mode)} mode.` };
  if (!charge.vendor_charge_id) return { status: 'failed', message: 'The charge has no PayPal capture id to refund.' };
  let refund: Refund;
  try {
    ({ result: refund } = await api.payments.refundCapturedPayment({
      captureId: charge.vendor_charge_id,
      paypalRequestId: row ? `store-refund-${row.uuid}` : undefined,
      prefer: 'return=representation',
      body: { amount: paypalMoney(amount, charge.currency), customId: row?.uuid },
    }));
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return { status: 'failed', message: `PayPal refused the refund: ${describeRefusal(refusal)}` };
    throw error;
  }
  const id = refund.id ?? '';
  const status = refundStatusOf(refund.status);
  if (status === 'succeeded') return { status: 'success', message: `Refunded at PayPal (${id}).`, vendor_id: id };
  if (status === 'pending')
    return { status: 'pending', message: `PayPal accepted the refund (${id}); it is still ${refund.status ?? 'pending'}.`, vendor_id: id };
  return { status: 'failed', message: `PayPal could not make the refund (${id}): ${refund.status}.`, vendor_id: id };
}

/** Every refund PayPal lists on the order a capture belongs to. */
async function refundsOfCapture(api: PayPalApi, captureId: string): Promise<Refund[] | null> {
  const { result: capture } = await api.payments.getCapturedPayment({ captureId });
  const orderId = capture.supplementaryData?.relatedIds?.orderId;
  if (!orderId) return null;
  const { result: order } = await api.orders.getOrder({ id: orderId });
  return (order.purchaseUnits ?? []).flatMap((unit) => unit.payments?.refunds ?? []);
}

/**
 * What PayPal knows of a refund the store still holds as pending: by its refund id when the store has it; otherwise
 * among the refunds of the capture's order, the one whose `custom_id` names the row. None there means the refund call
 * never reached PayPal (the job asks only about refunds older than any call can run), so nothing was refunded:
 * `failed`; unless a refund of that amount names no row, which may be it: it stays pending. Throws when PayPal cannot
 * be asked.
 */
export async function lookupPayPalRefund(ctx: Ctx, refund: GatewayTransaction, charge: GatewayTransaction): Promise<RefundLookup> {
  const api = await apiOf(ctx, charge);
  if (!api) throw new Error(`PayPal's client id and secret are not set for ${modeOf(charge.payment_mode)} mode.`);
  if (refund.vendor_charge_id) {
    const { result } = await api.payments.getRefund({ refundId: refund.vendor_charge_id });
    return { status: refundStatusOf(result.status), vendor_id: result.id };
  }
  if (!refund.uuid || !charge.vendor_charge_id) return { status: 'pending' };
  const candidates = await refundsOfCapture(api, charge.vendor_charge_id);
  if (!candidates) return { status: 'pending' };
  const named = candidates.find((candidate) => candidate.customId === refund.uuid);
  if (named) return { status: refundStatusOf(named.status), vendor_id: named.id };
  const unnamed = candidates.some(
    (candidate) => !candidate.customId && minorAmount(candidate.amount?.currencyCode, candidate.amount?.value)?.amount === refund.total,
  );
  return { status: unnamed ? 'pending' : 'failed' };
}
