/**
 * Which store events queue which notifications. Each email job is written in the transaction of the change that
 * causes it, through the in-transaction order and subscription events: it commits with the change and never without it.
 */
import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import type { Host } from '../../../host/contract';
import { onOrderEvent, type OrderEvent } from '../../order-records/order-events';
import { onSubscriptionEvent, type SubscriptionChange } from '../../subscriptions/subscription-events';
import type { NotificationKey, SendEmailJob } from '../types';
import { enqueueNotification } from './enqueue';

type Occurrence = Omit<SendEmailJob, 'notification'>;

const SHIPPING_NOTIFICATIONS: Partial<Record<string, NotificationKey>> = {
  shipped: 'order_shipped_customer',
  delivered: 'order_delivered_customer',
};

async function enqueueEach(ctx: Ctx, trx: Knex.Transaction, keys: NotificationKey[], occurrence: Occurrence): Promise<void> {
  for (const notification of keys) await enqueueNotification(ctx, trx, { notification, ...occurrence });
}

/**
 * A renewal order's payment is told by the subscription's renewal email, not by the order emails: renewal orders get
 * no `order_paid_*`.
 */
async function onOrder(ctx: Ctx, trx: Knex.Transaction, event: OrderEvent): Promise<void> {
  if (event.type === 'changed') return;
  const order = { object_type: 'order', object_id: Number(event.order.id) } as const;
  switch (event.type) {
    case 'paid':
      if (event.order.type === 'renewal') return;
      // `order_paid_admin` is the spec's `order_paid_done`: its job, queued after the customer's, is the asynchronous
      // action after the payment.
      return enqueueEach(ctx, trx, ['order_paid_customer', 'order_paid_admin'], { ...order, event_key: 'paid', transaction_id: event.charge_id });
    case 'refunded':
      return enqueueEach(ctx, trx, ['order_refunded_customer', 'order_refunded_admin'], {
        ...order,
        event_key: `refunded:${event.refund_transaction_id}`,
        transaction_id: event.refund_transaction_id,
      });
    case 'shipping_status_changed': {
      const status = String(event.order.shipping_status ?? '');
      const notification = SHIPPING_NOTIFICATIONS[status];
      if (notification) await enqueueEach(ctx, trx, [notification], { ...order, event_key: status });
      return;
    }
    case 'placed_offline':
      return enqueueEach(ctx, trx, ['order_placed_customer', 'order_placed_admin'], { ...order, event_key: 'placed' });
  }
}

async function onSubscription(ctx: Ctx, trx: Knex.Transaction, change: SubscriptionChange): Promise<void> {
  const subscription = { object_type: 'subscription', object_id: change.subscription.id } as const;
  if (change.type === 'renewed') {
    await enqueueEach(ctx, trx, ['subscription_renewal_customer', 'subscription_renewal_admin'], {
      ...subscription,
      event_key: `renewed:${Number(change.order.id)}`,
    });
  } else {
    // Keyed by when: a subscription reactivated and canceled again is told again.
    await enqueueEach(ctx, trx, ['subscription_canceled_customer', 'subscription_canceled_admin'], {
      ...subscription,
      event_key: `canceled:${change.subscription.updated_at}`,
    });
  }
}

/** Binds the event-driven notifications to the order and subscription events. */
export function bindNotificationEvents(host: Host): void {
  onOrderEvent(host, onOrder);
  onSubscriptionEvent(host, onSubscription);
}
