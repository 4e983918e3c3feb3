import { calculateDiscounts, couponStatusAt, type CartLine, type DiscountContext, type RejectionRule } from '../../src/modules/coupons/calculator';
import type { CalculatorCoupon } from '../../src/modules/coupons/types';
import { calculatorCoupon as coupon } from '../support/coupons';

const NOW = '2026-11-21 10:00:00';

/** Line `L<n>` of product `product` at `unit` cents × `quantity`. */
const line = (n: number, product: number, unit: number, quantity = 1): CartLine => ({
  id: `L${n}`,
  product_id: product,
  variation_id: product * 10,
  unit_price: unit,
  quantity,
});

interface Case {
  name: string;
  lines: CartLine[];
  coupons: CalculatorCoupon[];
  context?: Partial<DiscountContext>;
  /** Discount of each line, in cart order. */
  discounts: number[];
  /** Codes applied, in the order they applied, with their discount. */
  applied?: Array<[code: string, discount: number]>;
  rejected?: Array<[code: string, rule: RejectionRule, reason?: string]>;
}

function run(c: Pick<Case, 'lines' | 'coupons' | 'context'>) {
  return calculateDiscounts(c.lines, c.coupons, { now: NOW, ...c.context });
}

function check(c: Case) {
  const result = run(c);
  expect(result.lines.map((l) => l.discount)).toEqual(c.discounts);
  expect(result.discount_total).toBe(c.discounts.reduce((a, b) => a + b, 0));
  for (const l of result.lines) expect(l.total).toBe(l.subtotal - l.discount);
  if (c.applied) expect(result.applied.map((a) => [a.code, a.discount])).toEqual(c.applied);
  expect(result.rejected.map((r) => [r.code, r.rule])).toEqual((c.rejected ?? []).map(([code, rule]) => [code, rule]));
  for (const [code, , reason] of c.rejected ?? []) if (reason) expect(result.rejected.find((r) => r.code === code)?.reason).toBe(reason);
  return result;
}

describe('calculateDiscounts: percentage rounding', () => {
  it.each<Case>([
    {
      name: '10% of one line 3 × 333 = 999 → 100 (half up on the line subtotal, not 3 × 33 = 99 per unit)',
      lines: [line(1, 1, 333, 3)],
      coupons: [coupon(1)],
      discounts: [100],
    },
    {
      name: '10% of three lines of 333 → 33 each: each line rounds on its own, total 99',
      lines: [line(1, 1, 333), line(2, 2, 333), line(3, 3, 333)],
      coupons: [coupon(1)],
      discounts: [33, 33, 33],
    },
    {
      name: '10% half up: 4 → 0, 5 → 1, 15 → 2, 25 → 3',
      lines: [line(1, 1, 4), line(2, 1, 5), line(3, 1, 15), line(4, 1, 25)],
      coupons: [coupon(1)],
      discounts: [0, 1, 2, 3],
    },
    {
      name: '33.33% of 1-cent lines → 0 each (0.3333 rounds down)',
      lines: [line(1, 1, 1), line(2, 2, 1), line(3, 3, 1)],
      coupons: [coupon(1, { amount: 33.33 })],
      discounts: [0, 0, 0],
    },
    {
      name: '33.33% of 2 cents → 1 (0.6666 rounds up); of 3 cents → 1 (0.9999)',
      lines: [line(1, 1, 2), line(2, 1, 3)],
      coupons: [coupon(1, { amount: 33.33 })],
      discounts: [1, 1],
    },
    {
      name: '12.5% of 999 → 124.875 → 125; of 1 → 0.125 → 0; of 4 → 0.5 → 1',
      lines: [line(1, 1, 999), line(2, 1, 1), line(3, 1, 4)],
      coupons: [coupon(1, { amount: 12.5 })],
      discounts: [125, 0, 1],
    },
    {
      name: '100% takes each line to exactly 0',
      lines: [line(1, 1, 12345, 7), line(2, 2, 1)],
      coupons: [coupon(1, { amount: 100 })],
      discounts: [86415, 1],
    },
    {
      name: '0.01% of 4999 → 0.4999 → 0; of 5000 → 0.5 → 1',
      lines: [line(1, 1, 4999), line(2, 1, 5000)],
      coupons: [coupon(1, { amount: 0.01 })],
      discounts: [0, 1],
    },
    {
      name: 'a zero-price line gets 0',
      lines: [line(1, 1, 0, 3), line(2, 1, 1000)],
      coupons: [coupon(1)],
      discounts: [0, 100],
    },
  ])('$name', (c) => {
    check(c);
  });
});

describe('calculateDiscounts: caps (max_discount_amount)', () => {
  it.each<Case>([
    {
      name: '50% of 3 × 1000 = 1500 capped at 1000 → 334 + 333 + 333 (exact sum, the extra cent to the first line)',
      lines: [line(1, 1, 1000), line(2, 2, 1000), line(3, 3, 1000)],
      coupons: [coupon(1, { amount: 50, max_discount_amount: 1000 })],
      discounts: [334, 333, 333],
    },
    {
      name: '20% of 999 / 501 / 7 (200 + 100 + 1 = 301) capped at 100 → 67 + 33 + 0, split in proportion to the uncapped parts',
      lines: [line(1, 1, 999), line(2, 1, 501), line(3, 1, 7)],
      coupons: [coupon(1, { amount: 20, max_discount_amount: 100 })],
      discounts: [67, 33, 0],
    },
    {
      name: 'a cap above the percentage changes nothing',
      lines: [line(1, 1, 1000)],
      coupons: [coupon(1, { amount: 10, max_discount_amount: 500 })],
      discounts: [100],
    },
    {
      name: 'a cap equal to the percentage changes nothing',
      lines: [line(1, 1, 1000), line(2, 1, 3)],
      coupons: [coupon(1, { amount: 10, max_discount_amount: 100 })],
      discounts: [100, 0],
    },
    {
      name: '10% of 7 lines of 1001 (100 each = 700) capped at 1 cent → one line gets it',
      lines: [1, 2, 3, 4, 5, 6, 7].map((n) => line(n, n, 1001)),
      coupons: [coupon(1, { amount: 10, max_discount_amount: 1 })],
      discounts: [1, 0, 0, 0, 0, 0, 0],
    },
    {
      name: 'fixed 1000 capped at 700 → 700',
      lines: [line(1, 1, 5000)],
      coupons: [coupon(1, { type: 'fixed', amount: 1000, max_discount_amount: 700 })],
      discounts: [700],
    },
  ])('$name', (c) => {
    check(c);
  });
});

describe('calculateDiscounts: fixed amounts', () => {
  it.each<Case>([
    {
      name: 'fixed 1000 over 3000 / 1000 / 1000 → 600 / 200 / 200 (in proportion to the lines)',
      lines: [line(1, 1, 1000, 3), line(2, 2, 1000), line(3, 3, 1000)],
      coupons: [coupon(1, { type: 'fixed', amount: 1000 })],
      discounts: [600, 200, 200],
    },
    {
      name: 'fixed 100 over three equal lines → 34 / 33 / 33 (the leftover cent to the earliest line)',
      lines: [line(1, 1, 500), line(2, 2, 500), line(3, 3, 500)],
      coupons: [coupon(1, { type: 'fixed', amount: 100 })],
      discounts: [34, 33, 33],
    },
    {
      name: 'fixed 10000 on a 2000 cart → the whole cart, nothing negative',
      lines: [line(1, 1, 1500), line(2, 2, 500)],
      coupons: [coupon(1, { type: 'fixed', amount: 10000 })],
      discounts: [1500, 500],
      applied: [['C1', 2000]],
    },
    {
      name: 'fixed 1 cent over two lines → the larger line',
      lines: [line(1, 1, 100), line(2, 2, 300)],
      coupons: [coupon(1, { type: 'fixed', amount: 1 })],
      discounts: [0, 1],
    },
  ])('$name', (c) => {
    check(c);
  });
});

describe('calculateDiscounts: several coupons apply in priority order on what is left', () => {
  it.each<Case>([
    {
      name: 'fixed 500 (priority 1) before 10% (priority 2) on 2000 → 500 + 150, whatever the order given',
      lines: [line(1, 1, 2000)],
      coupons: [coupon(1, { amount: 10, priority: 2 }), coupon(2, { type: 'fixed', amount: 500, priority: 1 })],
      discounts: [650],
      applied: [
        ['C2', 500],
        ['C1', 150],
      ],
    },
    {
      name: '10% (priority 1) before fixed 500 (priority 2) on 2000 → 200 + 500',
      lines: [line(1, 1, 2000)],
      coupons: [coupon(1, { type: 'fixed', amount: 500, priority: 2 }), coupon(2, { amount: 10, priority: 1 })],
      discounts: [700],
      applied: [
        ['C2', 200],
        ['C1', 500],
      ],
    },
    {
      name: 'equal priorities: the lower id first',
      lines: [line(1, 1, 2000)],
      coupons: [coupon(9, { amount: 10 }), coupon(3, { type: 'fixed', amount: 500 })],
      discounts: [650],
      applied: [
        ['C3', 500],
        ['C9', 150],
      ],
    },
    {
      name: '10% then 10% on 1000 → 100 + 90 (compounding on what is left, not 200)',
      lines: [line(1, 1, 1000)],
      coupons: [coupon(1, { priority: 1 }), coupon(2, { priority: 2 })],
      discounts: [190],
      applied: [
        ['C1', 100],
        ['C2', 90],
      ],
    },
    {
      name: '50% then fixed 1000 on 1000 + 200 → 600 + the 600 left (the fixed amount is capped at what is left)',
      lines: [line(1, 1, 1000), line(2, 2, 200)],
      coupons: [coupon(1, { amount: 50, priority: 1 }), coupon(2, { type: 'fixed', amount: 1000, priority: 2 })],
      discounts: [1000, 200],
      applied: [
        ['C1', 600],
        ['C2', 600],
      ],
    },
    {
      name: 'a fixed coupon that emptied the cart leaves 0 for a later percentage, which still counts as applied',
      lines: [line(1, 1, 300)],
      coupons: [coupon(1, { type: 'fixed', amount: 500, priority: 1 }), coupon(2, { amount: 50, priority: 2 })],
      discounts: [300],
      applied: [
        ['C1', 300],
        ['C2', 0],
      ],
    },
    {
      name: 'each coupon discounts only its own eligible lines',
      lines: [line(1, 1, 1000), line(2, 2, 1000)],
      coupons: [coupon(1, { amount: 50, included_products: [1], priority: 1 }), coupon(2, { type: 'fixed', amount: 300, priority: 2 })],
      // fixed 300 over what is left: 500 and 1000 → 100 and 200
      discounts: [600, 200],
      applied: [
        ['C1', 500],
        ['C2', 300],
      ],
    },
  ])('$name', (c) => {
    check(c);
  });
});

describe('calculateDiscounts: product restrictions and minimum spend', () => {
  it.each<Case>([
    {
      name: 'included_products: only those lines',
      lines: [line(1, 1, 1000), line(2, 2, 1000)],
      coupons: [coupon(1, { included_products: [1] })],
      discounts: [100, 0],
    },
    {
      name: 'excluded_products: every line but those',
      lines: [line(1, 1, 1000), line(2, 2, 1000), line(3, 3, 1000)],
      coupons: [coupon(1, { excluded_products: [2] })],
      discounts: [100, 0, 100],
    },
    {
      name: 'a product both included and excluded is excluded',
      lines: [line(1, 1, 1000), line(2, 2, 1000)],
      coupons: [coupon(1, { included_products: [1, 2], excluded_products: [2] })],
      discounts: [100, 0],
    },
    {
      name: 'no eligible line → rejected',
      lines: [line(1, 1, 1000)],
      coupons: [coupon(1, { included_products: [5] })],
      discounts: [0],
      rejected: [['C1', 'no_eligible_products', 'This coupon does not apply to any product in the cart.']],
    },
    {
      name: 'an empty cart → rejected',
      lines: [],
      coupons: [coupon(1)],
      discounts: [],
      rejected: [['C1', 'no_eligible_products']],
    },
    {
      name: 'min_purchase_amount 5000 with exactly 5000 → applies (equal passes)',
      lines: [line(1, 1, 2500, 2)],
      coupons: [coupon(1, { min_purchase_amount: 5000 })],
      discounts: [500],
    },
    {
      name: 'min_purchase_amount 5000 with 4999 → rejected with the amount as a decimal',
      lines: [line(1, 1, 4999)],
      coupons: [coupon(1, { min_purchase_amount: 5000 })],
      discounts: [0],
      rejected: [['C1', 'min_purchase', 'The minimum spend for this coupon is 50.00.']],
    },
    {
      name: 'the minimum counts only eligible lines: 4000 of product 1 (+ 2000 of product 2) < 5000',
      lines: [line(1, 1, 4000), line(2, 2, 2000)],
      coupons: [coupon(1, { min_purchase_amount: 5000, included_products: [1] })],
      discounts: [0, 0],
      rejected: [['C1', 'min_purchase', 'The minimum spend for this coupon is 50.00.']],
    },
    {
      name: 'the minimum is checked before any discount: a 10% coupon then one needing 1000 on a 1000 cart both apply',
      lines: [line(1, 1, 1000)],
      coupons: [coupon(1, { priority: 1 }), coupon(2, { type: 'fixed', amount: 100, min_purchase_amount: 1000, priority: 2 })],
      discounts: [200],
    },
    {
      name: 'a minimum of 5 cents reads 0.05',
      lines: [line(1, 1, 4)],
      coupons: [coupon(1, { min_purchase_amount: 5 })],
      discounts: [0],
      rejected: [['C1', 'min_purchase', 'The minimum spend for this coupon is 0.05.']],
    },
    {
      name: 'in a zero-decimal currency the minimum is whole units: 5000 yen reads 5000',
      lines: [line(1, 1, 4999)],
      coupons: [coupon(1, { min_purchase_amount: 5000 })],
      context: { currency: 'JPY' },
      discounts: [0],
      rejected: [['C1', 'min_purchase', 'The minimum spend for this coupon is 5000.']],
    },
    {
      name: 'in a three-decimal currency 5000 fils read 5.000',
      lines: [line(1, 1, 4999)],
      coupons: [coupon(1, { min_purchase_amount: 5000 })],
      context: { currency: 'KWD' },
      discounts: [0],
      rejected: [['C1', 'min_purchase', 'The minimum spend for this coupon is 5.000.']],
    },
  ])('$name', (c) => {
    check(c);
  });
});

describe('calculateDiscounts: status, dates and usage limits', () => {
  const cart = [line(1, 1, 1000)];
  it.each<Omit<Case, 'lines'>>([
    { name: 'starts_at equal to now → applies', coupons: [coupon(1, { starts_at: NOW })], discounts: [100] },
    {
      name: 'starts_at one second later → not active yet',
      coupons: [coupon(1, { starts_at: '2026-11-21 10:00:01' })],
      discounts: [0],
      rejected: [['C1', 'not_started', 'This coupon is not active yet.']],
    },
    { name: 'ends_at equal to now → still applies', coupons: [coupon(1, { ends_at: NOW })], discounts: [100] },
    {
      name: 'ends_at one second earlier → expired',
      coupons: [coupon(1, { ends_at: '2026-11-21 09:59:59' })],
      discounts: [0],
      rejected: [['C1', 'expired', 'This coupon has expired.']],
    },
    {
      name: 'inside its window → applies',
      coupons: [coupon(1, { starts_at: '2026-01-01 00:00:00', ends_at: '2026-12-31 23:59:59' })],
      discounts: [100],
    },
    {
      name: 'status inactive → rejected',
      coupons: [coupon(1, { status: 'inactive' })],
      discounts: [0],
      rejected: [['C1', 'inactive', 'This coupon is not active.']],
    },
    { name: 'use_count 4 of max_uses 5 → applies', coupons: [coupon(1, { max_uses: 5, use_count: 4 })], discounts: [100] },
    {
      name: 'use_count 5 of max_uses 5 → usage limit',
      coupons: [coupon(1, { max_uses: 5, use_count: 5 })],
      discounts: [0],
      rejected: [['C1', 'usage_limit', 'This coupon has reached its usage limit.']],
    },
    {
      name: 'the customer used it max_per_customer times → rejected',
      coupons: [coupon(1, { max_per_customer: 2 })],
      context: { customerUses: { 1: 2 } },
      discounts: [0],
      rejected: [['C1', 'customer_usage_limit', 'You have already used this coupon the maximum number of times.']],
    },
    {
      name: 'the customer used it fewer times → applies',
      coupons: [coupon(1, { max_per_customer: 2 })],
      context: { customerUses: { 1: 1, 7: 9 } },
      discounts: [100],
    },
    { name: 'max_per_customer without customer uses → applies', coupons: [coupon(1, { max_per_customer: 1 })], discounts: [100] },
    {
      name: 'the same coupon twice → applied once',
      coupons: [coupon(1), coupon(1)],
      discounts: [100],
      rejected: [['C1', 'duplicate', 'This coupon has already been applied.']],
    },
  ])('$name', (c) => {
    check({ ...c, lines: cart });
  });
});

describe('calculateDiscounts: non-stackable coupons (individual use)', () => {
  const cart = [line(1, 1, 1000)];
  const NOT_COMBINABLE = 'This coupon cannot be combined with other coupons.';
  it.each<Omit<Case, 'lines'>>([
    { name: 'a non-stackable coupon alone applies', coupons: [coupon(1, { stackable: 0 })], discounts: [100] },
    {
      name: 'non-stackable first in priority: kept alone, every other coupon rejected',
      coupons: [coupon(1, { priority: 2 }), coupon(2, { stackable: 0, priority: 1 }), coupon(3, { priority: 3 })],
      discounts: [100],
      applied: [['C2', 100]],
      rejected: [
        ['C1', 'not_stackable', NOT_COMBINABLE],
        ['C3', 'not_stackable', NOT_COMBINABLE],
      ],
    },
    {
      name: 'a stackable coupon first: the non-stackable one is rejected, stackable ones still combine',
      coupons: [coupon(1, { priority: 1 }), coupon(2, { priority: 2 }), coupon(3, { stackable: 0, priority: 3 })],
      discounts: [190],
      applied: [
        ['C1', 100],
        ['C2', 90],
      ],
      rejected: [['C3', 'not_stackable', NOT_COMBINABLE]],
    },
    {
      name: 'two non-stackable coupons: the first in priority wins',
      coupons: [coupon(1, { stackable: 0, priority: 5 }), coupon(2, { stackable: 0, type: 'fixed', amount: 300, priority: 4 })],
      discounts: [300],
      applied: [['C2', 300]],
      rejected: [['C1', 'not_stackable']],
    },
    {
      name: 'a non-stackable coupon that is itself refused (expired) blocks nothing',
      coupons: [coupon(1, { stackable: 0, priority: 1, ends_at: '2026-01-01 00:00:00' }), coupon(2, { priority: 2 }), coupon(3, { priority: 3 })],
      discounts: [190],
      rejected: [['C1', 'expired']],
    },
    {
      name: 'a non-stackable coupon below its minimum blocks nothing',
      coupons: [coupon(1, { stackable: 0, priority: 1, min_purchase_amount: 100000 }), coupon(2, { priority: 2 })],
      discounts: [100],
      rejected: [['C1', 'min_purchase']],
    },
  ])('$name', (c) => {
    check({ ...c, lines: cart });
  });
});

describe('calculateDiscounts: free shipping', () => {
  it('discounts no line and reports free shipping with the shipping total', () => {
    const result = run({ lines: [line(1, 1, 1000)], coupons: [coupon(1, { type: 'free_shipping', amount: 0 })], context: { shippingTotal: 499 } });
    expect(result).toEqual({
      lines: [{ id: 'L1', subtotal: 1000, discount: 0, total: 1000 }],
      applied: [{ coupon_id: 1, code: 'C1', type: 'free_shipping', discount: 0, free_shipping: true, line_discounts: { L1: 0 } }],
      rejected: [],
      discount_total: 0,
      free_shipping: true,
      shipping_discount: 499,
    });
  });

  it('combines with a percentage coupon', () => {
    const result = run({ lines: [line(1, 1, 1000)], coupons: [coupon(1, { type: 'free_shipping', amount: 0 }), coupon(2)] });
    expect(result.free_shipping).toBe(true);
    expect(result.shipping_discount).toBe(0);
    expect(result.discount_total).toBe(100);
  });

  it('below its minimum spend: no free shipping', () => {
    const result = run({
      lines: [line(1, 1, 1000)],
      coupons: [coupon(1, { type: 'free_shipping', amount: 0, min_purchase_amount: 2000 })],
      context: { shippingTotal: 499 },
    });
    expect(result.free_shipping).toBe(false);
    expect(result.shipping_discount).toBe(0);
    expect(result.rejected).toEqual([{ coupon_id: 1, code: 'C1', reason: 'The minimum spend for this coupon is 20.00.', rule: 'min_purchase' }]);
  });
});

describe('calculateDiscounts: result shape', () => {
  it('reports each line, each applied coupon with its per-line parts, and rejections', () => {
    const result = run({
      lines: [line(1, 1, 333, 3), { id: 7, product_id: 2, variation_id: 20, unit_price: 250, quantity: 2 }],
      coupons: [coupon(1, { code: 'TENOFF', priority: 1 }), coupon(2, { code: 'OLD', ends_at: '2020-01-01 00:00:00' })],
    });
    expect(result).toEqual({
      lines: [
        { id: 'L1', subtotal: 999, discount: 100, total: 899 },
        { id: 7, subtotal: 500, discount: 50, total: 450 },
      ],
      applied: [{ coupon_id: 1, code: 'TENOFF', type: 'percentage', discount: 150, free_shipping: false, line_discounts: { L1: 100, '7': 50 } }],
      rejected: [{ coupon_id: 2, code: 'OLD', reason: 'This coupon has expired.', rule: 'expired' }],
      discount_total: 150,
      free_shipping: false,
      shipping_discount: 0,
    });
  });

  it.each([
    ['a malformed now', [line(1, 1, 100)], { now: '2026-11-21T10:00:00Z' }],
    ['a negative price', [line(1, 1, -1)], { now: NOW }],
    ['a fractional price', [line(1, 1, 1.5)], { now: NOW }],
    ['a fractional quantity', [line(1, 1, 100, 0.5)], { now: NOW }],
    ['duplicate line ids', [line(1, 1, 100), line(1, 2, 100)], { now: NOW }],
  ])('throws a RangeError on %s', (_name, lines, context) => {
    expect(() => calculateDiscounts(lines, [coupon(1)], context)).toThrow(RangeError);
  });

  it('throws on a percentage out of range', () => {
    expect(() => calculateDiscounts([line(1, 1, 100)], [coupon(1, { amount: 100.01 })], { now: NOW })).toThrow(RangeError);
    expect(() => calculateDiscounts([line(1, 1, 100)], [coupon(1, { amount: 12.345 })], { now: NOW })).toThrow(RangeError);
  });
});

describe('couponStatusAt', () => {
  it.each<[string, Partial<CalculatorCoupon>, string]>([
    ['active', {}, 'active'],
    ['inactive', { status: 'inactive' }, 'inactive'],
    ['before starts_at', { starts_at: '2026-11-21 10:00:01' }, 'scheduled'],
    ['after ends_at', { ends_at: '2026-11-21 09:59:59' }, 'expired'],
    ['used up', { max_uses: 2, use_count: 2 }, 'expired'],
    ['inactive wins over expired', { status: 'inactive', ends_at: '2020-01-01 00:00:00' }, 'inactive'],
  ])('%s', (_name, over, status) => {
    expect(couponStatusAt(coupon(1, over), NOW).status).toBe(status);
  });
});

/** mulberry32: a small seeded generator, so a failing random case can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: T[]): T => values[int(0, values.length - 1)];
  return { int, pick, chance: (p: number) => next() < p };
}

describe('calculateDiscounts: properties over 200 random carts and coupon sets', () => {
  const seeds = Array.from({ length: 200 }, (_, i) => i + 1);
  const seen = { applied: 0, discounted: 0, capped: 0, fixedSpread: 0, rules: new Set<string>() };

  it.each(seeds)('seed %i', (seed) => {
    const r = random(seed);
    const lines = Array.from({ length: r.int(0, 6) }, (_, i) => line(i + 1, r.int(1, 5), r.pick([0, 1, 2, 3, 7, 99, 333, 999, r.int(0, 50000)]), r.int(1, 5)));
    const coupons: CalculatorCoupon[] = Array.from({ length: r.int(1, 4) }, (_, i) => {
      const type = r.pick(['fixed', 'percentage', 'percentage', 'free_shipping'] as const);
      const amount = type === 'fixed' ? r.int(1, 30000) : type === 'percentage' ? r.int(1, 10000) / 100 : 0;
      return coupon(i + 1, {
        type,
        amount,
        priority: r.int(0, 3),
        stackable: r.chance(0.8) ? 1 : 0,
        max_discount_amount: r.chance(0.3) ? r.int(1, 5000) : null,
        min_purchase_amount: r.chance(0.2) ? r.int(0, 20000) : null,
        included_products: r.chance(0.3) ? [r.int(1, 5), r.int(1, 5)] : [],
        excluded_products: r.chance(0.2) ? [r.int(1, 5)] : [],
        ends_at: r.chance(0.1) ? '2026-01-01 00:00:00' : null,
        max_uses: r.chance(0.1) ? 1 : null,
        use_count: r.chance(0.1) ? 1 : 0,
      });
    });
    if (r.chance(0.1)) coupons.push(coupons[0]); // the same coupon twice
    const result = calculateDiscounts(lines, coupons, { now: NOW, shippingTotal: 500 });

    expect(result.lines).toHaveLength(lines.length);
    for (const [i, l] of result.lines.entries()) {
      expect(Number.isInteger(l.discount)).toBe(true);
      expect(l.subtotal).toBe(lines[i].unit_price * lines[i].quantity);
      expect(l.discount).toBeGreaterThanOrEqual(0);
      expect(l.discount).toBeLessThanOrEqual(l.subtotal);
      expect(l.total).toBe(l.subtotal - l.discount);
    }
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    expect(sum(result.lines.map((l) => l.discount))).toBe(result.discount_total);
    expect(sum(result.applied.map((a) => a.discount))).toBe(result.discount_total);
    // every coupon given is either applied or rejected, once
    expect(result.applied.length + result.rejected.length).toBe(coupons.length);
    const byId = new Map(coupons.map((c) => [c.id, c]));
    for (const a of result.applied) {
      const c = byId.get(a.coupon_id)!;
      const parts = Object.values(a.line_discounts);
      for (const part of parts) expect(Number.isInteger(part) && part >= 0).toBe(true);
      expect(sum(parts)).toBe(a.discount);
      if (c.max_discount_amount !== null) expect(a.discount).toBeLessThanOrEqual(c.max_discount_amount);
      if (c.type === 'fixed') expect(a.discount).toBeLessThanOrEqual(c.amount);
      if (c.type === 'free_shipping') expect(a.discount).toBe(0);
    }
    // priority order, and a non-stackable coupon never combined
    const applied = result.applied.map((a) => byId.get(a.coupon_id)!);
    for (let i = 1; i < applied.length; i++) {
      expect(applied[i - 1].priority * 100 + applied[i - 1].id).toBeLessThan(applied[i].priority * 100 + applied[i].id);
    }
    if (applied.length > 1) expect(applied.every((c) => c.stackable === 1)).toBe(true);
    expect(result.free_shipping).toBe(applied.some((c) => c.type === 'free_shipping'));
    expect(result.shipping_discount).toBe(result.free_shipping ? 500 : 0);

    seen.applied += result.applied.length;
    if (result.discount_total > 0) seen.discounted++;
    for (const a of result.applied) {
      const c = byId.get(a.coupon_id)!;
      if (c.max_discount_amount !== null && a.discount === c.max_discount_amount) seen.capped++;
      if (c.type === 'fixed' && Object.values(a.line_discounts).filter((part) => part > 0).length > 1) seen.fixedSpread++;
    }
    for (const rej of result.rejected) seen.rules.add(rej.rule);
  });

  it('the random cases went through every path (caps binding, fixed spreads, each kind of refusal)', () => {
    expect(seen.discounted).toBeGreaterThan(100);
    expect(seen.capped).toBeGreaterThan(10);
    expect(seen.fixedSpread).toBeGreaterThan(10);
    expect([...seen.rules].sort()).toEqual(['duplicate', 'expired', 'min_purchase', 'no_eligible_products', 'not_stackable', 'usage_limit']);
  });
});
