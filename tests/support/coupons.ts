import type { CalculatorCoupon } from '../../src/modules/coupons/types';

/** A calculator coupon with harmless defaults: active, no dates, no limits, stackable, priority 10. */
export function calculatorCoupon(id: number, over: Partial<CalculatorCoupon> = {}): CalculatorCoupon {
  return {
    id,
    code: `C${id}`,
    type: 'percentage',
    amount: 10,
    status: 'active',
    starts_at: null,
    ends_at: null,
    min_purchase_amount: null,
    max_discount_amount: null,
    max_uses: null,
    max_per_customer: null,
    included_products: [],
    excluded_products: [],
    stackable: 1,
    priority: 10,
    use_count: 0,
    ...over,
  };
}
