/**
 * Subscription rows as the API shows them. A read model shared by the subscriptions module and the orders and customers
 * modules (whose answers embed an order's or a customer's subscriptions), so that imports run one way: subscriptions →
 * orders → customers, all of them → here (as `order-records` is for orders).
 */
import { parseJson } from '../../core/db';
import type { BillingInterval, Subscription, SubscriptionStatus } from './types';

/** A `store_subscriptions` row as either database returns it. */
export type SubscriptionRow = Record<string, unknown>;

const int = (value: unknown) => Number(value ?? 0);
const idOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));
const timeOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** Shapes a row into the Subscription resource: honest JSON types on both databases. */
export function presentSubscription(row: SubscriptionRow): Subscription {
  return {
    id: int(row.id),
    uuid: text(row.uuid),
    status: text(row.status) as SubscriptionStatus,
    item_name: text(row.item_name),
    parent_order_id: idOrNull(row.parent_order_id),
    customer_id: idOrNull(row.customer_id),
    product_id: idOrNull(row.product_id),
    variation_id: idOrNull(row.variation_id),
    quantity: int(row.quantity),
    vendor_subscription_id: text(row.vendor_subscription_id),
    vendor_customer_id: text(row.vendor_customer_id),
    vendor_plan_id: text(row.vendor_plan_id),
    collection_method: text(row.collection_method),
    current_payment_method: text(row.current_payment_method),
    billing_interval: text(row.billing_interval) as BillingInterval,
    currency: text(row.currency),
    recurring_amount: int(row.recurring_amount),
    recurring_tax_total: int(row.recurring_tax_total),
    signup_fee: int(row.signup_fee),
    trial_days: int(row.trial_days),
    bill_times: int(row.bill_times),
    bill_count: int(row.bill_count),
    next_billing_date: timeOrNull(row.next_billing_date),
    trial_ends_at: timeOrNull(row.trial_ends_at),
    canceled_at: timeOrNull(row.canceled_at),
    expire_at: timeOrNull(row.expire_at),
    config: parseJson<Record<string, unknown>>(row.config, {}),
    created_at: text(row.created_at),
    updated_at: text(row.updated_at),
  };
}
