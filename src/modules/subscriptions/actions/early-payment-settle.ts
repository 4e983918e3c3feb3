import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { lockForUpdate, type AfterCommit } from '../../../core/db';
import { decimalWithCode } from '../../../core/money';
import { toTimestamp } from '../../../core/time';
import { recordActivity } from '../../activities/service';
import { presentOrder, type OrderRow } from '../../order-records/presenter';
import { nextStatus } from '../lifecycle';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import { transitionSubscription } from '../service';
import { emitSubscriptionEvent } from '../subscription-events';
import { earlyPaymentMarkOf } from './early-payment-order';
import { endAtGatewayLater } from './end-at-gateway';

/**
 * Inside mark-as-paid's transaction (a gateway's settlement or an admin's mark-as-paid), once an order became paid: an
 * early-payment order counts as the subscription's next installment. Mark-as-paid makes an order paid once (a
 * conditional update), so this runs once per order. `bill_count` + 1 (event `renew`: a `trialing` or `failing`
 * subscription becomes `active`); `next_billing_date` stays, since the gateway keeps its schedule; the order is added
 * to `config.early_payments`. The last installment completes the plan (`completed`) and ends the gateway's
 * subscription through a job. `store/subscription/renewed` fires after commit. Any other order: nothing.
 */
export async function countEarlyPayment(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, order: OrderRow): Promise<void> {
  const mark = earlyPaymentMarkOf(order);
  if (!mark) return;
  const orderId = Number(order.id);
  const row = (await lockForUpdate(trx('store_subscriptions').where({ id: mark.subscription_id }), trx).first()) as SubscriptionRow | undefined;
  if (!row) return;
  const subscription = presentSubscription(row);
  const billCount = subscription.bill_count + 1;
  const completes = subscription.bill_times > 0 && billCount >= subscription.bill_times && nextStatus(subscription.status, 'complete') !== null;
  const event = completes ? 'complete' : 'renew';
  if (nextStatus(subscription.status, event) === null) {
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'order',
        object_id: orderId,
        title: 'Early payment not counted',
        content: `Subscription #${subscription.id} is ${subscription.status}: this payment was not counted as an installment. Refund it or count it by hand.`,
        status: 'warning',
      },
      afterCommit,
    );
    return;
  }
  const paidRow = (await trx('store_orders').where({ id: orderId }).first()) as OrderRow;
  const paid = presentOrder(paidRow);
  const earlier = Array.isArray(subscription.config.early_payments) ? subscription.config.early_payments : [];
  const config = {
    ...subscription.config,
    early_payments: [...earlier, { order_id: orderId, amount: paid.total_paid, paid_at: toTimestamp(ctx.clock.now()) }],
  };
  const after = await transitionSubscription(
    ctx,
    trx,
    afterCommit,
    subscription.id,
    event,
    { bill_count: billCount, config, ...(completes ? { next_billing_date: null } : {}) },
    {
      note: `Early payment: order #${orderId} paid ${decimalWithCode(paid.total_paid, paid.currency)}, payment ${billCount}${
        subscription.bill_times > 0 ? ` of ${subscription.bill_times}` : ''
      }.`,
    },
  );
  if (completes) await endAtGatewayLater(ctx.host, trx, subscription.id);
  await emitSubscriptionEvent(ctx, trx, { type: 'renewed', subscription: after, order: paidRow });
  afterCommit(() => ctx.hooks.doAction('store/subscription/renewed', after, paid));
}
