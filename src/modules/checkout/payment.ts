/**
 * How a placed order's payment goes on, per gateway. A zero total is paid at once (`free`, no gateway call). An
 * offline method (cash on delivery, bank transfer: a gateway without `startPayment`) leaves the order on-hold and
 * pending for an admin to mark paid. An online gateway is called after the order's commit; what it answers (a page to
 * send the shopper to, or a client secret to pay on the checkout page) becomes the answer, and its payment id is kept
 * on the pending charge. A gateway that fails or does not answer leaves the order pending and the cart `intended`, so
 * placing the cart again reuses the order.
 *
 * A subscription (one per order) is billed by its gateway: `startSubscription` is called instead of `startPayment`
 * (its first payment included) and the gateway's ids are stored on the subscription. A first charge of zero (a trial
 * without signup fee) is paid at once like a free order, the subscription starts `trialing` in the same transaction,
 * and `startSubscription` is still called after the commit so the gateway can charge when the trial ends; the shopper
 * is sent where the gateway says (to leave a card), and when the gateway fails the order stays paid and the
 * subscription unbilled: logged on it, answered with the receipt (the expiry sweep ends it after the trial).
 */
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { AppError, fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import type { PaymentGateway, PaymentRequest, PaymentStart } from '../../gateways/gateway';
import { recordActivity } from '../activities/service';
import { completeCartOfOrder } from '../cart/repo';
import type { Order, OrderRow } from '../order-records/presenter';
import { TRANSACTION_STATUS } from '../orders/ledger';
import { emitOrderEvent } from '../order-records/order-events';
import { markPaidInTransaction } from '../orders/payments';
import type { PricedCart } from '../cart/pricing';
import { billsSubscriptions, saveVendorIds, toGatewaySubscription } from '../subscriptions/checkout';
import type { Subscription } from '../subscriptions/types';
import type { CheckoutForm } from './form';
import type { WrittenOrder } from './order-write';

export const FREE_METHOD = 'free';

export type PaymentPath = 'free' | 'offline' | 'online';

export const pathOf = (method: string, gateway: PaymentGateway): PaymentPath => (method === FREE_METHOD ? 'free' : gateway.startPayment ? 'online' : 'offline');

const ORDER_PLACED = 'Order placed successfully.';

export interface CheckoutAnswer {
  status: 'success';
  message: string;
  redirect_url?: string;
  payment_args?: { client_secret: string; checkout_mode: 'onsite' };
  order_id?: number;
}

export function receiptUrl(ctx: Ctx, uuid: string): string {
  return `${ctx.host.site.url.replace(/\/+$/, '')}/receipt/?order_hash=${encodeURIComponent(uuid)}`;
}

/** Inside the order's transaction: a free order is paid (its subscription started), and a free or offline order's cart is done. */
export async function settleAtCheckout(trx: Knex.Transaction, ctx: Ctx, afterCommit: AfterCommit, path: PaymentPath, written: WrittenOrder): Promise<void> {
  const orderId = written.order.id;
  if (path === 'online') return;
  if (path === 'free') {
    await markPaidInTransaction(ctx, trx, afterCommit, orderId, { payment_method: written.order.payment_method, transaction_id: written.charge.id, amount: 0 });
  } else {
    const row = (await trx('store_orders').where({ id: orderId }).first()) as OrderRow;
    await emitOrderEvent(ctx, trx, { type: 'placed_offline', order: row });
    afterCommit(() => ctx.hooks.doAction('store/order/placed_offline', written.order));
  }
  await completeCartOfOrder(trx, orderId, toTimestamp(ctx.clock.now()));
}

function paymentRequest(ctx: Ctx, written: WrittenOrder, form: CheckoutForm, priced: PricedCart, customerId: number): PaymentRequest {
  const { order, charge } = written;
  const site = ctx.host.site.url.replace(/\/+$/, '');
  return {
    order: { id: order.id, uuid: order.uuid, currency: order.currency, total_amount: order.total_amount, mode: order.mode },
    transaction: { id: charge.id, uuid: charge.uuid, total: charge.total },
    customer: { id: customerId, email: form.email, name: [form.first_name, form.last_name].filter(Boolean).join(' ') },
    items: priced.lines.map((line, i) => ({
      title: line.title && line.title !== line.post_title ? `${line.post_title} - ${line.title}` : line.post_title,
      quantity: line.quantity,
      unit_price: line.unit_price,
      line_total: priced.totals.lines[i].line_total,
    })),
    urls: {
      success_url: receiptUrl(ctx, order.uuid),
      cancel_url: `${site}/checkout/`,
      return_url: `${site}/wp-json/${ctx.host.manifest.namespace}/checkout/${encodeURIComponent(order.payment_method)}/return`,
    },
  };
}

/** The answer of a free or offline order: off to its receipt. */
export function placedAnswer(ctx: Ctx, order: Order): CheckoutAnswer {
  return { status: 'success', redirect_url: receiptUrl(ctx, order.uuid), message: ORDER_PLACED };
}

/** The gateway's start of a placed order's payment: its subscription's billing (ids stored on it) when it has one. */
async function startAtGateway(ctx: Ctx, gateway: PaymentGateway, request: PaymentRequest, subscription: Subscription | null): Promise<PaymentStart> {
  if (!subscription || !billsSubscriptions(gateway)) return (gateway.startPayment as NonNullable<PaymentGateway['startPayment']>)(ctx, request);
  const { trial_days, signup_fee, item_name } = subscription;
  const started = await gateway.startSubscription(ctx, {
    ...request,
    subscription: { ...toGatewaySubscription(subscription, request.order.mode), trial_days, signup_fee, item_name },
  });
  await saveVendorIds(ctx, subscription.id, started);
  return started;
}

/**
 * After the commit: asks the online gateway to start collecting the payment (or billing the subscription). Its failure
 * is a 502 in the checkout envelope; the order stays pending and is reused when the cart is placed again.
 */
export async function startOnlinePayment(
  ctx: Ctx,
  gateway: PaymentGateway,
  written: WrittenOrder,
  form: CheckoutForm,
  priced: PricedCart,
  customerId: number,
  subscription: Subscription | null = null,
): Promise<CheckoutAnswer> {
  let start;
  try {
    start = await startAtGateway(ctx, gateway, paymentRequest(ctx, written, form, priced, customerId), subscription);
  } catch (error) {
    ctx.host.logger.warn({ err: error, order_id: written.order.id, gateway: gateway.key }, 'the payment gateway could not start the payment');
    throw fail('invalid_state', `${gateway.title} could not start the payment. Your order is saved: please try again.`, { status: 502 });
  }
  if (start.kind !== 'offline' && start.vendor_charge_id) {
    const vendorChargeId = start.vendor_charge_id;
    await transaction(ctx, async (trx) => {
      const updated = await trx('store_order_transactions')
        .where({ id: written.charge.id, status: TRANSACTION_STATUS.pending })
        .update({ vendor_charge_id: vendorChargeId });
      if (updated) await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [written.order.id] });
    });
  }
  switch (start.kind) {
    case 'redirect':
      return { status: 'success', redirect_url: start.redirect_url, message: `Redirecting to ${gateway.title} to pay.` };
    case 'onsite':
      return {
        status: 'success',
        payment_args: { client_secret: start.client_secret, checkout_mode: 'onsite' },
        order_id: written.order.id,
        message: 'Order placed: complete the payment.',
      };
    case 'offline':
      return placedAnswer(ctx, written.order);
  }
}

/**
 * The free path's subscription (a trial without signup fee: the order is paid and the subscription trialing already):
 * the gateway is asked to bill it from the trial's end. When it fails the shopper still gets the receipt; the failure
 * is logged on the subscription.
 */
export async function startTrialBilling(
  ctx: Ctx,
  gateway: PaymentGateway,
  written: WrittenOrder,
  form: CheckoutForm,
  priced: PricedCart,
  customerId: number,
  subscription: Subscription,
): Promise<CheckoutAnswer> {
  try {
    return await startOnlinePayment(ctx, gateway, written, form, priced, customerId, subscription);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 502) throw error;
    await transaction(ctx, (trx, afterCommit) =>
      recordActivity(
        trx,
        ctx,
        {
          object_type: 'subscription',
          object_id: subscription.id,
          title: 'Billing could not be set up at the gateway',
          content: `${gateway.title} did not answer at checkout: nothing will charge this subscription when its trial ends.`,
          status: 'error',
        },
        afterCommit,
      ),
    );
    return placedAnswer(ctx, written.order);
  }
}
