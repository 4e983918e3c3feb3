/**
 * The coupon discount calculator: a pure function of a cart, coupons and a moment (no database, no ctx), in
 * integer cents with exact rounding.
 *
 * The rules, in the order they run:
 *
 * 1. Coupons are taken in priority order: `priority` ascending, then `id` ascending. The same coupon given twice
 *    is applied once (the repeat is rejected, rule `duplicate`).
 * 2. Each coupon is checked on its own: status `inactive` (rule `inactive`), `now` after `ends_at` (`expired`),
 *    `use_count >= max_uses` (`usage_limit`), `now` before `starts_at` (`not_started`), the customer's uses
 *    `>= max_per_customer` (`customer_usage_limit`). `starts_at` and `ends_at` are inclusive: a coupon is valid at
 *    exactly its start and its end second.
 * 3. Eligible lines: every line when `included_products` is empty, otherwise the lines whose `product_id` is listed;
 *    lines whose product is in `excluded_products` are then removed. No eligible line: rejected
 *    (`no_eligible_products`). `min_purchase_amount` is compared with the eligible lines' subtotal before any
 *    discount (equal passes; rule `min_purchase`).
 * 4. Combining ("individual use", as WooCommerce calls a non-stackable coupon): the coupons that passed 2 and 3 are
 *    walked in priority order. The first is always kept. A later coupon is kept only when it and every coupon kept
 *    so far are stackable; otherwise it is rejected with 'This coupon cannot be combined with other coupons.'
 *    (`not_stackable`). So a non-stackable coupon is never combined with another one: when it comes first it is
 *    kept alone and all the others are rejected; when a coupon comes before it, it is the one rejected. Stackable
 *    coupons always combine with each other. Where WooCommerce lets the last applied coupon win, priority decides.
 * 5. Kept coupons apply one after another on what is left of each line after the earlier ones, so no line is ever
 *    discounted below 0 and the discounts never exceed the subtotal.
 *    - percentage (basis points `bp`, 12.5% = 1250): each eligible line gets `mulDivRound(remaining, bp, 10000)`
 *      (half up, on the line's subtotal `unit_price × quantity`, not per unit). When the sum exceeds
 *      `max_discount_amount`, the cap is split with `allocate(cap, perLineDiscounts)`: the parts sum exactly to the
 *      cap and none exceeds its line's uncapped discount.
 *    - fixed: `min(amount, max_discount_amount, eligible remaining total)` split over the eligible lines in
 *      proportion to their remaining amounts with `allocate` (exact sum, largest remainders first, ties to the
 *      earlier line).
 *    - free_shipping: discounts no line (`discount` 0) and sets `free_shipping`; `shipping_discount` is then the
 *      context's `shippingTotal` (0 when not given).
 *    A kept coupon whose eligible lines are already fully discounted stays applied with a discount of 0.
 *
 * Invalid input (negative or fractional prices or quantities, duplicate line ids, a malformed `now`, a coupon
 * amount out of range) is a programming error and throws a RangeError.
 */
import { allocate, centsToDecimal, minorUnits, mulDivRound, parseDecimalToCents } from '../../core/money';
import type { CalculatorCoupon, CouponEffectiveStatus } from './types';

export interface CartLine {
  id: string | number;
  product_id: number;
  variation_id: number;
  /** Cents. */
  unit_price: number;
  quantity: number;
}

export interface DiscountContext {
  /** The moment of the calculation, UTC `YYYY-MM-DD HH:MM:SS`. */
  now: string;
  /** How many times the customer has already used each coupon, by coupon id. */
  customerUses?: Record<string | number, number>;
  /** Cents; reported back as `shipping_discount` when a free-shipping coupon applies. */
  shippingTotal?: number;
  /** The cart's currency (ISO 4217), for writing amounts in messages with its own decimals; two decimals without it. */
  currency?: string;
}

export interface LineDiscount {
  id: string | number;
  subtotal: number;
  discount: number;
  total: number;
}

export interface AppliedDiscount {
  coupon_id: number;
  code: string;
  type: CalculatorCoupon['type'];
  /** Cents taken off the lines by this coupon. */
  discount: number;
  free_shipping: boolean;
  /** Line id → cents, for every eligible line (zeros included). */
  line_discounts: Record<string, number>;
}

export type RejectionRule =
  'duplicate' | 'inactive' | 'expired' | 'usage_limit' | 'not_started' | 'customer_usage_limit' | 'no_eligible_products' | 'min_purchase' | 'not_stackable';

export interface RejectedCoupon {
  coupon_id: number;
  code: string;
  /** A sentence for the shopper. */
  reason: string;
  rule: RejectionRule;
}

export interface DiscountResult {
  lines: LineDiscount[];
  applied: AppliedDiscount[];
  rejected: RejectedCoupon[];
  /** Sum of all line discounts, cents. */
  discount_total: number;
  free_shipping: boolean;
  /** `shippingTotal` when a free-shipping coupon applies, otherwise 0. */
  shipping_discount: number;
}

export const REJECTION_MESSAGES: Record<Exclude<RejectionRule, 'min_purchase'>, string> = {
  duplicate: 'This coupon has already been applied.',
  inactive: 'This coupon is not active.',
  expired: 'This coupon has expired.',
  usage_limit: 'This coupon has reached its usage limit.',
  not_started: 'This coupon is not active yet.',
  customer_usage_limit: 'You have already used this coupon the maximum number of times.',
  no_eligible_products: 'This coupon does not apply to any product in the cart.',
  not_stackable: 'This coupon cannot be combined with other coupons.',
};

export function minPurchaseMessage(amount: number, currency?: string): string {
  return `The minimum spend for this coupon is ${centsToDecimal(amount, currency ? minorUnits(currency) : 2)}.`;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/**
 * A coupon's status at `now` (UTC `YYYY-MM-DD HH:MM:SS`) and, when it cannot be used, why: `inactive` by its
 * status; `expired` after `ends_at` or once `use_count` reaches `max_uses`; `scheduled` before `starts_at`.
 */
export function couponStatusAt(
  coupon: Pick<CalculatorCoupon, 'status' | 'starts_at' | 'ends_at' | 'max_uses' | 'use_count'>,
  now: string,
): { status: CouponEffectiveStatus; rule?: Extract<RejectionRule, 'inactive' | 'expired' | 'usage_limit' | 'not_started'> } {
  if (coupon.status !== 'active') return { status: 'inactive', rule: 'inactive' };
  if (coupon.ends_at !== null && now > coupon.ends_at) return { status: 'expired', rule: 'expired' };
  if (coupon.max_uses !== null && coupon.use_count >= coupon.max_uses) return { status: 'expired', rule: 'usage_limit' };
  if (coupon.starts_at !== null && now < coupon.starts_at) return { status: 'scheduled', rule: 'not_started' };
  return { status: 'active' };
}

/** The percentage of a coupon in basis points (12.5 → 1250), from its presented amount. */
export function percentageBasisPoints(amount: number): number {
  const bp = parseDecimalToCents(amount);
  if (bp === null || bp <= 0 || bp > 10000) throw new RangeError(`percentage coupon amount must be 0 < p <= 100 with 2 decimals, got ${amount}`);
  return bp;
}

function checkInput(lines: CartLine[], context: DiscountContext): number[] {
  if (typeof context.now !== 'string' || !TIMESTAMP.test(context.now))
    throw new RangeError(`now must be a UTC YYYY-MM-DD HH:MM:SS timestamp, got ${context.now}`);
  const ids = new Set<string>();
  return lines.map((line) => {
    if (ids.has(String(line.id))) throw new RangeError(`duplicate cart line id ${line.id}`);
    ids.add(String(line.id));
    if (!Number.isSafeInteger(line.unit_price) || line.unit_price < 0) throw new RangeError(`line ${line.id}: unit_price must be non-negative cents`);
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 0) throw new RangeError(`line ${line.id}: quantity must be a non-negative integer`);
    const subtotal = line.unit_price * line.quantity;
    if (!Number.isSafeInteger(subtotal)) throw new RangeError(`line ${line.id}: subtotal is too large`);
    return subtotal;
  });
}

interface Candidate {
  coupon: CalculatorCoupon;
  eligible: number[];
}

/** Computes the discount of each line for a set of coupons; see the rules at the top of this file. */
export function calculateDiscounts(lines: CartLine[], coupons: CalculatorCoupon[], context: DiscountContext): DiscountResult {
  const subtotals = checkInput(lines, context);
  const remaining = [...subtotals];
  const rejected: RejectedCoupon[] = [];
  const reject = (coupon: CalculatorCoupon, rule: RejectionRule, reason = REJECTION_MESSAGES[rule as Exclude<RejectionRule, 'min_purchase'>]) =>
    rejected.push({ coupon_id: coupon.id, code: coupon.code, reason, rule });

  const ordered = [...coupons].sort((a, b) => a.priority - b.priority || a.id - b.id);
  const seen = new Set<number>();
  const candidates: Candidate[] = [];
  for (const coupon of ordered) {
    if (seen.has(coupon.id)) {
      reject(coupon, 'duplicate');
      continue;
    }
    seen.add(coupon.id);
    const { rule } = couponStatusAt(coupon, context.now);
    if (rule) {
      reject(coupon, rule);
      continue;
    }
    const used = Number(context.customerUses?.[coupon.id] ?? 0);
    if (coupon.max_per_customer !== null && used >= coupon.max_per_customer) {
      reject(coupon, 'customer_usage_limit');
      continue;
    }
    const included = new Set(coupon.included_products);
    const excluded = new Set(coupon.excluded_products);
    const eligible = lines.flatMap((line, i) => ((included.size === 0 || included.has(line.product_id)) && !excluded.has(line.product_id) ? [i] : []));
    if (!eligible.length) {
      reject(coupon, 'no_eligible_products');
      continue;
    }
    const eligibleSubtotal = eligible.reduce((sum, i) => sum + subtotals[i], 0);
    if (coupon.min_purchase_amount !== null && eligibleSubtotal < coupon.min_purchase_amount) {
      reject(coupon, 'min_purchase', minPurchaseMessage(coupon.min_purchase_amount, context.currency));
      continue;
    }
    candidates.push({ coupon, eligible });
  }

  const kept: Candidate[] = [];
  for (const candidate of candidates) {
    const combinable = kept.length === 0 || (candidate.coupon.stackable === 1 && kept.every((k) => k.coupon.stackable === 1));
    if (combinable) kept.push(candidate);
    else reject(candidate.coupon, 'not_stackable');
  }

  const applied: AppliedDiscount[] = [];
  let freeShipping = false;
  for (const { coupon, eligible } of kept) {
    const parts = discountParts(
      coupon,
      eligible.map((i) => remaining[i]),
    );
    const lineDiscounts: Record<string, number> = {};
    eligible.forEach((lineIndex, k) => {
      remaining[lineIndex] -= parts[k];
      lineDiscounts[String(lines[lineIndex].id)] = parts[k];
    });
    if (coupon.type === 'free_shipping') freeShipping = true;
    applied.push({
      coupon_id: coupon.id,
      code: coupon.code,
      type: coupon.type,
      discount: parts.reduce((a, b) => a + b, 0),
      free_shipping: coupon.type === 'free_shipping',
      line_discounts: lineDiscounts,
    });
  }

  const out = lines.map((line, i) => ({ id: line.id, subtotal: subtotals[i], discount: subtotals[i] - remaining[i], total: remaining[i] }));
  return {
    lines: out,
    applied,
    rejected,
    discount_total: out.reduce((sum, line) => sum + line.discount, 0),
    free_shipping: freeShipping,
    shipping_discount: freeShipping ? Math.max(0, context.shippingTotal ?? 0) : 0,
  };
}

/** One coupon's discount on each eligible line, given what is left of those lines. */
function discountParts(coupon: CalculatorCoupon, remaining: number[]): number[] {
  const cap = coupon.max_discount_amount;
  switch (coupon.type) {
    case 'free_shipping':
      return remaining.map(() => 0);
    case 'percentage': {
      const bp = percentageBasisPoints(coupon.amount);
      const raw = remaining.map((left) => mulDivRound(left, bp, 10000));
      const sum = raw.reduce((a, b) => a + b, 0);
      return cap !== null && sum > cap ? allocate(Math.max(0, cap), raw) : raw;
    }
    case 'fixed': {
      if (!Number.isSafeInteger(coupon.amount) || coupon.amount < 0) throw new RangeError(`fixed coupon amount must be cents, got ${coupon.amount}`);
      const left = remaining.reduce((a, b) => a + b, 0);
      const amount = Math.min(coupon.amount, left, cap ?? Number.MAX_SAFE_INTEGER);
      return allocate(Math.max(0, amount), remaining);
    }
  }
}
