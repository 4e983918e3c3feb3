import { CaptureStatus } from '@paypal/paypal-server-sdk';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { centsToDecimal, minorUnits } from '../../core/money';
import { recordActivity } from '../../modules/activities/service';
import { settleGatewayPayment } from '../../modules/payments/settle';
import { presentSubscription, type SubscriptionRow } from '../../modules/subscriptions/presenter';
import { subscriptionForVendor } from '../../modules/subscriptions/service';
import type { Subscription } from '../../modules/subscriptions/types';
import { paypalApi, type PayPalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { PAYPAL } from './settle';
import { minorAmount } from './vendor';

type Db = Knex | Knex.Transaction;

/** The parent order's pending charge of a PayPal subscription (`store_order_transactions`). */
export interface ParentCharge {
  id: number;
  order_id: number;
  status: string;
  currency: string;
  payment_mode: string;
  vendor_charge_id: string;
}

/** A payment PayPal took for a subscription: the sale's id and the money, in minor units of its currency. */
export interface PaidSale {
  id: string;
  currency: string;
  amount: number;
}

/**
 * The store subscription of a PayPal subscription id, its row locked (MySQL) before anything else of it is read, so
 * every notification of one subscription is applied after the one before it committed, and reads after the lock see
 * that commit.
 */
export async function lockPayPalSubscription(trx: Knex.Transaction, vendorSubscriptionId: string): Promise<Subscription | null> {
  if (!vendorSubscriptionId) return null;
  const row = (await lockForUpdate(
    trx('store_subscriptions').where({ current_payment_method: PAYPAL, vendor_subscription_id: vendorSubscriptionId }),
    trx,
  ).first()) as SubscriptionRow | undefined;
  return row ? presentSubscription(row) : null;
}

/**
 * The parent order's charge that still waits for the subscription's first payment: checkout stores the PayPal
 * subscription id (`I-…`) on it; the first payment replaces it with the sale's id (what refunds need), so once paid
 * it is no longer found here.
 */
export async function pendingParentCharge(db: Db, subscription: Subscription): Promise<ParentCharge | undefined> {
  if (subscription.parent_order_id === null || !subscription.vendor_subscription_id) return undefined;
  const row = (await db('store_order_transactions')
    .where({ order_id: subscription.parent_order_id, payment_method: PAYPAL, vendor_charge_id: subscription.vendor_subscription_id, status: 'pending' })
    .first('id', 'order_id', 'status', 'currency', 'payment_mode', 'vendor_charge_id')) as ParentCharge | undefined;
  return row && { ...row, id: Number(row.id), order_id: Number(row.order_id) };
}

/** Sales that took the money (refunded later or not); declined, failed and pending ones did not. */
const TAKEN: ReadonlySet<string> = new Set([CaptureStatus.Completed, CaptureStatus.PartiallyRefunded, CaptureStatus.Refunded]);
const HOUR_MS = 3_600_000;

/**
 * PayPal's first sale of a subscription (`GET /v1/billing/subscriptions/{id}/transactions` from an hour before it was
 * created to an hour from now): its first payment, or null while PayPal has taken none. Throws when PayPal does not
 * answer.
 */
export async function firstSale(api: PayPalApi, id: string, createdAt: string | undefined, now: Date): Promise<PaidSale | null> {
  const since = Date.parse(createdAt ?? '');
  const { result } = await api.subscriptions.listSubscriptionTransactions({
    id,
    startTime: new Date((Number.isNaN(since) ? now.getTime() - 24 * HOUR_MS : since) - HOUR_MS).toISOString(),
    endTime: new Date(now.getTime() + HOUR_MS).toISOString(),
  });
  const [first] = (result.transactions ?? []).filter((sale) => sale.status && TAKEN.has(sale.status)).sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const money = first && minorAmount(first.amountWithBreakdown.grossAmount.currencyCode, first.amountWithBreakdown.grossAmount.value);
  return first && money ? { id: first.id, ...money } : null;
}

/**
 * For `BILLING.SUBSCRIPTION.ACTIVATED`, after verification and before the event's transaction (no PayPal call inside a
 * database transaction): the first sale of a subscription whose parent order still waits for it; undefined when no
 * charge waits.
 */
export async function firstSaleIfPending(ctx: Ctx, resource: Record<string, unknown>): Promise<PaidSale | null | undefined> {
  const id = typeof resource.id === 'string' ? resource.id : '';
  const subscription = await subscriptionForVendor(ctx.db, PAYPAL, id);
  const charge = subscription ? await pendingParentCharge(ctx.db, subscription) : undefined;
  if (!charge) return undefined;
  const credentials = await paypalCredentials(ctx.host, modeOf(charge.payment_mode));
  if (!hasApiKeys(credentials)) return undefined;
  const createdAt = typeof resource.create_time === 'string' ? resource.create_time : undefined;
  return firstSale(paypalApi(credentials), id, createdAt, ctx.clock.now());
}

/**
 * The first payment of a PayPal subscription settles its parent order, in the caller's transaction
 * (`settleGatewayPayment`: paid with the amount taken, the order's subscription started); the charge takes the sale's
 * id. Money in another currency than the charge's is not booked (its minor units would mean another amount): an
 * activity says so.
 */
export async function settleFirstPayment(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, charge: ParentCharge, sale: PaidSale): Promise<string> {
  if (charge.currency.toUpperCase() !== sale.currency) {
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: charge.order_id,
        title: 'PayPal payment in another currency',
        content: `PayPal took ${centsToDecimal(sale.amount, minorUnits(sale.currency))} ${sale.currency} (sale ${sale.id}) for the subscription ${charge.vendor_charge_id}, whose charge is in ${charge.currency}; the order was not marked paid. Check the payment in PayPal.`,
        status: 'warning',
      },
      afterCommit,
    );
    return 'currency_mismatch';
  }
  return settleGatewayPayment(ctx, trx, afterCommit, {
    method: PAYPAL,
    vendor_charge_id: charge.vendor_charge_id,
    settled_charge_id: sale.id,
    amount: sale.amount,
  });
}
