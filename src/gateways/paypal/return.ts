import { transaction, type Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { receiptUrl } from '../../modules/checkout/payment';
import { SETTLED_PAYMENT_STATUSES } from '../../modules/orders/state';
import { captureOrder, type CaptureOutcome } from './capture';
import { paypalApi } from './client';
import { hasApiKeys, modeOf, paypalCredentials } from './config';
import { PAYPAL, findPayPalCharge, recordDeclined, settleCapture } from './settle';

export interface PayPalReturn {
  /** The PayPal order id PayPal appends to the return URL. */
  token: string;
  /** The store order's uuid, which `startPayment` puts into the return URL. */
  order_hash?: string;
}

interface OrderRow {
  id: number;
  uuid: string;
  payment_status: string;
}

const NOT_FOUND = 'PayPal payment not found';

const isSettled = (order: OrderRow) => (SETTLED_PAYMENT_STATUSES as readonly string[]).includes(order.payment_status);

/** Where a shopper whose payment PayPal declined goes: back to the checkout, which says so and offers to pay again. */
function declinedUrl(ctx: Ctx): string {
  return `${ctx.host.site.url.replace(/\/+$/, '')}/checkout/?payment_error=paypal_declined`;
}

/**
 * An order paid through PayPal that the return URL names by its uuid, once the charge no longer carries the PayPal
 * order id (a reload after paying, or the webhook settled it first): the shopper goes to its receipt. The receipt is
 * public by uuid, so nothing more is revealed.
 */
async function paidByPayPal(ctx: Ctx, orderHash: string): Promise<OrderRow | undefined> {
  const order = (await ctx.db('store_orders').where({ uuid: orderHash }).first('id', 'uuid', 'payment_status')) as OrderRow | undefined;
  if (!order || !isSettled(order)) return undefined;
  const charge = await ctx.db('store_order_transactions').where({ order_id: order.id, payment_method: PAYPAL, status: 'succeeded' }).first('id');
  return charge ? order : undefined;
}

async function capture(ctx: Ctx, paymentMode: string, token: string): Promise<CaptureOutcome> {
  const credentials = await paypalCredentials(ctx.host, modeOf(paymentMode));
  if (!hasApiKeys(credentials)) throw fail('invalid_state', 'PayPal is not set up to take payments.', { status: 502 });
  try {
    return await captureOrder(paypalApi(credentials), token);
  } catch (error) {
    ctx.host.logger.warn({ err: error, paypal_order_id: token }, 'PayPal capture did not answer');
    throw fail('invalid_state', 'PayPal did not answer, so your payment is not confirmed yet. Please reload this page in a moment.', { status: 502 });
  }
}

/**
 * `GET /checkout/paypal/return?token=<PayPal order id>`: the shopper approved the payment at PayPal and comes back.
 * The order is captured (PayPal captures it once: a reload or a concurrent `CHECKOUT.ORDER.APPROVED` webhook gets the
 * same capture) and the charge settled in one transaction (`already_paid` when the webhook was first). The answer is
 * where to send the shopper: the receipt, or the checkout when PayPal declined (the order stays pending and can be
 * paid again). The capture runs outside any database transaction. An unknown token is a 404; PayPal not answering a
 * 502.
 */
export async function returnFromPayPal(ctx: Ctx, input: PayPalReturn): Promise<{ redirect_url: string }> {
  const charge = await findPayPalCharge(ctx.db, [input.token]);
  if (!charge) {
    const paid = input.order_hash ? await paidByPayPal(ctx, input.order_hash) : undefined;
    if (!paid) throw fail('not_found', NOT_FOUND, { status: 404 });
    return { redirect_url: receiptUrl(ctx, paid.uuid) };
  }
  const order = (await ctx.db('store_orders').where({ id: charge.order_id }).first('id', 'uuid', 'payment_status')) as OrderRow;
  if (input.order_hash && input.order_hash !== order.uuid) throw fail('not_found', NOT_FOUND, { status: 404 });
  if (charge.status !== 'pending' || isSettled(order)) return { redirect_url: receiptUrl(ctx, order.uuid) };

  const outcome = await capture(ctx, charge.payment_mode, input.token);
  if (outcome.kind === 'declined') {
    const reason = `PayPal declined the payment when the shopper returned (${outcome.issue}: ${outcome.message}).`;
    await transaction(ctx, (trx, afterCommit) => recordDeclined(ctx, trx, afterCommit, [input.token], reason));
    return { redirect_url: declinedUrl(ctx) };
  }
  if (outcome.kind === 'captured') await transaction(ctx, (trx, afterCommit) => settleCapture(ctx, trx, afterCommit, input.token, outcome));
  return { redirect_url: receiptUrl(ctx, order.uuid) };
}
