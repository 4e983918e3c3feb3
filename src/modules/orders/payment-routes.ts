import { OrderPolicy } from '../../core/policies';
import { Reply, route, type RouteDef } from '../../core/routes';
import { MarkPaidBody, MarkPaidParams, RefundAnswer, RefundBody, RefundParams } from './payment-schemas';
import { markOrderPaid } from './payments';
import { refundOrder } from './refunds';

/** Spec: `POST /orders/{order}/mark-as-paid` and `POST /orders/{order_id}/refund`. */
export const orderPaymentRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/orders/:order/mark-as-paid',
    policy: OrderPolicy,
    permission: 'orders/manage',
    schema: { params: MarkPaidParams, body: MarkPaidBody },
    envelope: 'message',
    handler: (ctx, { params, body }) => markOrderPaid(ctx, params.order, body),
  }),
  route({
    method: 'POST',
    path: '/orders/:order_id/refund',
    policy: OrderPolicy,
    permission: 'orders/can_refund',
    schema: { params: RefundParams, body: RefundBody },
    envelope: 'message',
    answers: { 502: { description: 'The gateway refused the refund, or its outcome is unknown (the refund stays pending).', schema: RefundAnswer } },
    handler: async (ctx, { params, body }) => {
      const outcome = await refundOrder(ctx, params.order_id, body.refund_info ?? {});
      return new Reply(outcome.answer, outcome.status);
    },
  }),
];
