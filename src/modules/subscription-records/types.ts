/** The spec's status values, plus `completed` (an installment plan whose last installment was paid; decided in issue 11). */
export const SUBSCRIPTION_STATUSES = [
  'active',
  'pending',
  'intended',
  'paused',
  'trialing',
  'canceled',
  'failing',
  'expiring',
  'expired',
  'completed',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const BILLING_INTERVALS = ['yearly', 'half_yearly', 'quarterly', 'monthly', 'weekly', 'daily'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

/** The Subscription resource (spec), amounts in minor units of `currency`. */
export interface Subscription {
  id: number;
  uuid: string;
  status: SubscriptionStatus;
  item_name: string;
  parent_order_id: number | null;
  customer_id: number | null;
  product_id: number | null;
  variation_id: number | null;
  quantity: number;
  vendor_subscription_id: string;
  vendor_customer_id: string;
  vendor_plan_id: string;
  collection_method: string;
  current_payment_method: string;
  billing_interval: BillingInterval;
  currency: string;
  recurring_amount: number;
  recurring_tax_total: number;
  signup_fee: number;
  trial_days: number;
  bill_times: number;
  bill_count: number;
  next_billing_date: string | null;
  trial_ends_at: string | null;
  canceled_at: string | null;
  expire_at: string | null;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
