/**
 * The order lifecycle as data (spec: "Order and payment status values"; reference §2 and fact 8). Statuses are the
 * spec's spellings; payment statuses use hyphens (`partially-paid`), and the reference's underscore spellings are
 * accepted on input and in filters.
 */

export const ORDER_STATUSES = ['draft', 'pending', 'on-hold', 'processing', 'completed', 'canceled', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The statuses an admin may set through `change_order_status` (spec). */
export const SETTABLE_ORDER_STATUSES = ['completed', 'processing', 'on-hold', 'canceled'] as const;

export const PAYMENT_STATUSES = ['pending', 'authorized', 'paid', 'partially-paid', 'partially-refunded', 'refunded', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Input spellings of the reference system mapped to the stored ones. */
export const PAYMENT_STATUS_ALIASES: Record<string, PaymentStatus> = { partially_paid: 'partially-paid', partially_refunded: 'partially-refunded' };

export const SHIPPING_STATUSES = ['unshipped', 'shipped', 'delivered', 'unshippable'] as const;
export type ShippingStatus = (typeof SHIPPING_STATUSES)[number];

export const ORDER_TYPES = ['payment', 'subscription', 'renewal'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const FULFILLMENT_TYPES = ['digital', 'physical'] as const;
export type FulfillmentType = (typeof FULFILLMENT_TYPES)[number];

/** Orders that may be deleted: nothing was paid, or the order was given up (issue 5). */
export const DELETABLE = { orderStatuses: ['canceled', 'on-hold', 'draft', 'pending', 'failed'], paymentStatuses: ['pending', 'failed'] } as const;

/** Nothing was taken: the order's payment is still pending or failed. */
export function isUnpaid(paymentStatus: unknown): boolean {
  return (DELETABLE.paymentStatuses as readonly unknown[]).includes(paymentStatus);
}

/** The order status an order gets once paid: digital goods are delivered at once, physical ones still ship. */
export function statusWhenPaid(fulfillment: string): OrderStatus {
  return fulfillment === 'digital' ? 'completed' : 'processing';
}

/** Payment status from what was paid and refunded (cents): the ledger decides, never the client. */
export function paymentStatusOf(total: number, paid: number, refunded: number, current: PaymentStatus): PaymentStatus {
  if (refunded > 0 && refunded >= paid) return 'refunded';
  if (refunded > 0) return 'partially-refunded';
  if (paid > 0 && paid < total) return 'partially-paid';
  if (paid > 0) return 'paid';
  return current;
}

/** Payment statuses mark-as-paid refuses with 'Order has already been paid' (money was taken, whatever came after). */
export const SETTLED_PAYMENT_STATUSES = ['paid', 'partially-refunded', 'refunded'] as const;

/** Payment statuses of an order that may still give money back. */
export const REFUNDABLE_PAYMENT_STATUSES = ['paid', 'partially-paid', 'partially-refunded'] as const;
