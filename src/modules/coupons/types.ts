export type CouponType = 'fixed' | 'percentage' | 'free_shipping';
export type CouponStatus = 'active' | 'inactive';
export type CouponEffectiveStatus = 'active' | 'inactive' | 'scheduled' | 'expired';

export const COUPON_TYPES: CouponType[] = ['fixed', 'percentage', 'free_shipping'];
export const COUPON_STATUSES: CouponStatus[] = ['active', 'inactive'];

export interface Coupon {
  id: number;
  code: string;
  title: string;
  type: CouponType;
  /** Cents for `fixed`; a percentage (up to two decimals, e.g. 12.5) for `percentage`; 0 for `free_shipping`. */
  amount: number;
  status: CouponStatus;
  /** `active`, `inactive`, `scheduled` (before `starts_at`), `expired` (after `ends_at` or used up). */
  effective_status: CouponEffectiveStatus;
  starts_at: string | null;
  ends_at: string | null;
  min_purchase_amount: number | null;
  max_discount_amount: number | null;
  max_uses: number | null;
  max_per_customer: number | null;
  included_products: number[];
  excluded_products: number[];
  stackable: 0 | 1;
  priority: number;
  use_count: number;
  notes: string;
  created_at: string;
  updated_at: string;
}

/** What the discount calculator reads of a coupon (a presented `Coupon` fits). */
export type CalculatorCoupon = Pick<
  Coupon,
  | 'id'
  | 'code'
  | 'type'
  | 'amount'
  | 'status'
  | 'starts_at'
  | 'ends_at'
  | 'min_purchase_amount'
  | 'max_discount_amount'
  | 'max_uses'
  | 'max_per_customer'
  | 'included_products'
  | 'excluded_products'
  | 'stackable'
  | 'priority'
  | 'use_count'
>;
