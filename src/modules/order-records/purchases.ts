/**
 * Payment statuses that make an order a purchase (both spellings the spec and the reference use): what customer
 * statistics, customer filters and the order list's `purchases` scope count.
 */
export const PURCHASE_PAYMENT_STATUSES = ['paid', 'partially_paid', 'partially-paid', 'partially_refunded', 'partially-refunded', 'refunded'] as const;
