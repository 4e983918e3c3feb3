import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { settleGatewayRefund } from '../../modules/payments/refund-settle';
import type { VerifiedEvent } from '../gateway';
import { refundStatusOf } from './refunds';
import { applyPayPalSubscriptionEvent } from './subscriptions-webhooks';
import { PAYPAL, recordDeclined, settleCapture } from './settle';
import { minorAmount } from './vendor';
import type { PayPalEventData } from './webhook-verify';

type Resource = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (value: unknown): Resource => (value && typeof value === 'object' ? (value as Resource) : {});

/** The PayPal order a capture belongs to (`supplementary_data.related_ids.order_id`). */
function orderIdOfCapture(capture: Resource): string {
  return text(record(record(capture.supplementary_data).related_ids).order_id);
}

/** The capture a refund gives money back from: its `up` link, `…/v2/payments/captures/{id}`. */
function captureIdOfRefund(refund: Resource): string {
  const links = Array.isArray(refund.links) ? refund.links.map(record) : [];
  const up = links.find((link) => link.rel === 'up' && /\/v2\/payments\/captures\/[^/]+$/.test(text(link.href)));
  return up ? decodeURIComponent(text(up.href).split('/').pop() ?? '') : '';
}

function moneyOf(resource: Resource): { currency: string; amount: number } | null {
  const amount = record(resource.amount);
  return minorAmount(amount.currency_code, amount.value);
}

async function onApproved(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, order: Resource, data: PayPalEventData): Promise<string> {
  const { capture } = data;
  if (!capture) return 'not_pending';
  if (capture.kind === 'pending') return 'capture_pending';
  if (capture.kind === 'declined') {
    const reason = `PayPal declined capturing order ${text(order.id)} (${capture.issue}: ${capture.message}).`;
    return (await recordDeclined(ctx, trx, afterCommit, [text(order.id)], reason)) ? 'capture_declined' : 'unknown_charge';
  }
  return settleCapture(ctx, trx, afterCommit, text(order.id), capture);
}

async function onCaptureCompleted(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, capture: Resource): Promise<string> {
  const money = moneyOf(capture);
  if (text(capture.status) !== 'COMPLETED' || !text(capture.id) || !money) return 'ignored_incomplete_capture';
  return settleCapture(ctx, trx, afterCommit, orderIdOfCapture(capture), { capture_id: text(capture.id), ...money });
}

async function onCaptureDenied(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, capture: Resource): Promise<string> {
  const reason = `PayPal denied capture ${text(capture.id)} of order ${orderIdOfCapture(capture)}.`;
  return (await recordDeclined(ctx, trx, afterCommit, [orderIdOfCapture(capture), text(capture.id)], reason)) ? 'capture_denied' : 'unknown_charge';
}

async function onRefund(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, refund: Resource): Promise<string> {
  const money = moneyOf(refund);
  if (!text(refund.id) || !money) return 'ignored_unreadable_refund';
  const outcome = await settleGatewayRefund(ctx, trx, afterCommit, {
    method: PAYPAL,
    charge_vendor_id: captureIdOfRefund(refund),
    refund_vendor_id: text(refund.id),
    amount: money.amount,
    status: refundStatusOf(refund.status),
    transaction_uuid: text(refund.custom_id) || undefined,
  });
  return `refund_${outcome}`;
}

/**
 * `applyWebhook` of the PayPal gateway, inside the transaction that records the event id:
 * - `CHECKOUT.ORDER.APPROVED`: the shopper approved but may never come back; the capture made at verification settles
 *   the charge (a declined one is noted on the order, which stays pending);
 * - `PAYMENT.CAPTURE.COMPLETED`: settles the charge of the capture's PayPal order with the captured amount;
 * - `PAYMENT.CAPTURE.DENIED`: noted on the order, which stays pending (the shopper can pay again);
 * - `PAYMENT.CAPTURE.REFUNDED` and `PAYMENT.REFUND.*`: settle the store's refund (`settleGatewayRefund`);
 * - `PAYMENT.SALE.COMPLETED` and `BILLING.SUBSCRIPTION.*`: subscriptions' payments and status (`subscriptions-webhooks.ts`);
 * - anything else is recorded as `ignored`.
 */
export async function applyPayPalWebhook(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, event: VerifiedEvent): Promise<string> {
  const data = event.data as PayPalEventData;
  if (event.type === 'CHECKOUT.ORDER.APPROVED') return onApproved(ctx, trx, afterCommit, data.resource, data);
  if (event.type === 'PAYMENT.CAPTURE.COMPLETED') return onCaptureCompleted(ctx, trx, afterCommit, data.resource);
  if (event.type === 'PAYMENT.CAPTURE.DENIED') return onCaptureDenied(ctx, trx, afterCommit, data.resource);
  if (event.type === 'PAYMENT.CAPTURE.REFUNDED' || event.type.startsWith('PAYMENT.REFUND.')) return onRefund(ctx, trx, afterCommit, data.resource);
  return applyPayPalSubscriptionEvent(ctx, trx, afterCommit, event.type, data) ?? 'ignored';
}
