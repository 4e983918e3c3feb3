import crypto from 'node:crypto';
import type { Order } from '@paypal/paypal-server-sdk';
import type { PayPalApi } from './client';
import { minorAmount, refusalOf } from './vendor';

/**
 * What capturing an approved PayPal order gave: the money (`captured`), a capture PayPal holds for review (`pending`,
 * settled later by `PAYMENT.CAPTURE.COMPLETED`), or a refusal (`declined`: the buyer's funding source was declined, or
 * the order cannot be captured).
 */
export type CaptureOutcome =
  | { kind: 'captured'; capture_id: string; currency: string; amount: number }
  | { kind: 'pending'; capture_id: string }
  | { kind: 'declined'; issue: string; message: string };

/** The capture an order holds, or null when it holds none. */
function captureOf(order: Order): CaptureOutcome | null {
  const capture = order.purchaseUnits?.[0]?.payments?.captures?.[0];
  if (!capture?.id) return null;
  if (capture.status === 'PENDING') return { kind: 'pending', capture_id: capture.id };
  const money = minorAmount(capture.amount?.currencyCode, capture.amount?.value);
  if (capture.status !== 'COMPLETED' || !money) {
    return { kind: 'declined', issue: String(capture.status ?? 'UNKNOWN'), message: `PayPal's capture ${capture.id} did not complete.` };
  }
  return { kind: 'captured', capture_id: capture.id, ...money };
}

/**
 * Captures an approved order, whoever asks (the shopper's return, the `CHECKOUT.ORDER.APPROVED` webhook, a reload
 * after a lost answer). PayPal captures an order once: a second capture is refused (`ORDER_ALREADY_CAPTURED`), and
 * after any refusal the order is read back, so every caller ends up with the one capture. Each call has its own
 * `PayPal-Request-Id`: PayPal answers a repeated id with the first call's result, which after a declined card would
 * keep refusing the funding source the shopper picked instead. Throws when PayPal did not answer (the outcome is
 * unknown; calling again is safe).
 */
export async function captureOrder(api: PayPalApi, paypalOrderId: string): Promise<CaptureOutcome> {
  let refusal;
  try {
    const { result } = await api.orders.captureOrder({ id: paypalOrderId, paypalRequestId: `capture-${crypto.randomUUID()}`, prefer: 'return=representation' });
    const outcome = captureOf(result);
    if (outcome) return outcome;
  } catch (error) {
    refusal = refusalOf(error);
    if (!refusal) throw error;
    if (refusal.issue === 'RESOURCE_NOT_FOUND' || refusal.status === 404) return { kind: 'declined', issue: refusal.issue, message: refusal.description };
  }
  const { result } = await api.orders.getOrder({ id: paypalOrderId });
  return (
    captureOf(result) ?? {
      kind: 'declined',
      issue: refusal?.issue ?? String(result.status ?? 'NO_CAPTURE'),
      message: refusal?.description ?? 'PayPal holds no capture for this order.',
    }
  );
}
