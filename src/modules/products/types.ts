export type ProductStatus = 'draft' | 'publish';
export type FulfillmentType = 'physical' | 'digital';
export type PaymentType = 'onetime' | 'subscription';
export type BillingInterval = 'yearly' | 'half_yearly' | 'quarterly' | 'monthly' | 'weekly' | 'daily';

export const PRODUCT_STATUSES: ProductStatus[] = ['draft', 'publish'];
export const FULFILLMENT_TYPES: FulfillmentType[] = ['physical', 'digital'];
export const PAYMENT_TYPES: PaymentType[] = ['onetime', 'subscription'];
/** Accepted on input (`one-time` is stored as `onetime`). */
export const PAYMENT_TYPE_INPUTS = ['onetime', 'one-time', 'subscription'] as const;
export type VariationStatus = 'active' | 'inactive';
export const VARIATION_STATUSES: VariationStatus[] = ['active', 'inactive'];
export const BILLING_INTERVALS: BillingInterval[] = ['yearly', 'half_yearly', 'quarterly', 'monthly', 'weekly', 'daily'];

export interface Category {
  id: number;
  name: string;
  slug: string;
  parent_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface Variation {
  id: number;
  product_id: number;
  title: string;
  sku: string | null;
  /** Cents. */
  price: number;
  compare_price: number | null;
  cost: number | null;
  manage_stock: 0 | 1;
  stock_quantity: number;
  stock_on_hold: number;
  /** `stock_quantity - stock_on_hold` when stock is managed, otherwise null (unlimited). */
  stock_available: number | null;
  stock_status: 'in_stock' | 'out_of_stock';
  payment_type: PaymentType;
  billing_interval: BillingInterval | null;
  trial_days: number;
  /** Installments; 0 = until cancelled. */
  bill_times: number;
  signup_fee: number;
  tax_class: string | null;
  shipping_class: string | null;
  position: number;
  status: VariationStatus;
  created_at: string;
  updated_at: string;
}

export interface Product {
  id: number;
  title: string;
  slug: string;
  status: ProductStatus;
  description: string;
  fulfillment_type: FulfillmentType;
  categories: Array<Pick<Category, 'id' | 'name' | 'slug'>>;
  /** Ordered by position, then id. */
  variations: Variation[];
  /** Lowest and highest price (cents) of the active variations; null when none is active. */
  min_price: number | null;
  max_price: number | null;
  /** Whether an active variation is a subscription. */
  has_subscription: boolean;
  created_at: string;
  updated_at: string;
}
