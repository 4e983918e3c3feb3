import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { centsToDecimal, minorUnits } from '../../core/money';
import { recordActivity } from '../../modules/activities/service';
import { settleGatewayPayment } from '../../modules/payments/settle';

export const PAYPAL = 'paypal';

interface ChargeRow {
  id: number;
  order_id: number;
  status: string;
  payment_mode: string;
  currency: string;
  vendor_charge_id: string;
}

/**
 * The PayPal charge a PayPal order or capture belongs to. The pending charge carries the PayPal order id from
 * checkout; once settled it carries the capture id (what refunds need), so both are looked for.
 */
export async function findPayPalCharge(db: Knex | Knex.Transaction, ids: string[]): Promise<ChargeRow | undefined> {
  const wanted = ids.filter(Boolean);
  if (!wanted.length) return undefined;
  return (await db('store_order_transactions')
    .where({ payment_method: PAYPAL })
    .whereIn('vendor_charge_id', wanted)
    .first('id', 'order_id', 'status', 'payment_mode', 'currency', 'vendor_charge_id')) as ChargeRow | undefined;
}

export interface CapturedMoney {
  capture_id: string;
  currency: string;
  amount: number;
}

/**
 * Settles the charge of a PayPal order with its completed capture, in the caller's transaction: the return route and
 * the webhooks all come here, and whichever arrives second finds the charge settled (`already_paid`). A capture in a
 * currency other than the charge's is not booked: its minor units would mean another amount.
 */
export async function settleCapture(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, paypalOrderId: string, capture: CapturedMoney): Promise<string> {
  const charge = await findPayPalCharge(trx, [paypalOrderId, capture.capture_id]);
  if (!charge) return 'unknown_charge';
  if (charge.vendor_charge_id === capture.capture_id) return 'already_paid';
  if (charge.currency.toUpperCase() !== capture.currency) {
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: Number(charge.order_id),
        title: 'PayPal payment in another currency',
        content: `PayPal captured ${centsToDecimal(capture.amount, minorUnits(capture.currency))} ${capture.currency} (capture ${capture.capture_id}) for a charge in ${charge.currency}; the order was not marked paid. Check the payment in PayPal.`,
        status: 'warning',
      },
      afterCommit,
    );
    return 'currency_mismatch';
  }
  const outcome = await settleGatewayPayment(ctx, trx, afterCommit, {
    method: PAYPAL,
    vendor_charge_id: paypalOrderId,
    settled_charge_id: capture.capture_id,
    amount: capture.amount,
  });
  // Settled by a concurrent delivery between the two reads: its charge now carries the capture id.
  return outcome === 'unknown_charge' ? 'already_paid' : outcome;
}

/** A payment PayPal refused (declined funding source, denied capture): noted on the order, which stays pending. */
export async function recordDeclined(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, ids: string[], reason: string): Promise<boolean> {
  const charge = await findPayPalCharge(trx, ids);
  if (!charge) return false;
  await recordActivity(
    trx,
    ctx,
    {
      object_type: 'order',
      object_id: Number(charge.order_id),
      title: 'PayPal payment declined',
      content: `${reason} The order stays unpaid; the shopper can pay again from the checkout.`,
      status: 'error',
    },
    afterCommit,
  );
  return true;
}
