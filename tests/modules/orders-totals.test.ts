import { applyTax, calculateTotals, NO_TAX, type OrderTotals, type TotalsInput, type TotalsLine } from '../../src/modules/orders/totals';
import { calculatorCoupon as coupon } from '../support/coupons';

const NOW = '2026-11-21 10:00:00';

const line = (index: number, unit: number, quantity = 1, over: Partial<TotalsLine> = {}): TotalsLine => ({
  index,
  product_id: 100 + index,
  variation_id: 1000 + index,
  unit_price: unit,
  quantity,
  fulfillment_type: 'physical',
  ...over,
});

const totals = (over: Partial<TotalsInput>) => calculateTotals({ lines: [line(0, 1000)], now: NOW, ...over });
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The identities every result must satisfy. */
function checkInvariants(t: OrderTotals) {
  const exclusive = t.tax_behavior === 1 ? t.tax_total + t.shipping_tax : 0;
  expect(t.total_amount).toBe(t.subtotal - t.manual_discount_total - t.coupon_discount_total + t.shipping_total + exclusive);
  expect(t.total_amount).toBeGreaterThanOrEqual(0);
  expect(t.subtotal).toBe(sum(t.lines.map((l) => l.subtotal)));
  expect(t.manual_discount_total).toBe(sum(t.lines.map((l) => l.manual_discount)));
  expect(t.coupon_discount_total).toBe(sum(t.lines.map((l) => l.coupon_discount)) + t.shipping_discount);
  expect(sum(t.coupons.map((c) => c.discount))).toBe(t.coupon_discount_total);
  expect(t.shipping_total).toBe(sum(t.lines.map((l) => l.shipping_charge)));
  expect(t.tax_total).toBe(sum(t.lines.map((l) => l.tax_amount)));
  for (const l of t.lines) {
    expect(l.subtotal).toBe(l.unit_price * l.quantity);
    expect(l.discount_total).toBe(l.coupon_discount + l.manual_discount);
    expect(l.discount_total).toBeLessThanOrEqual(l.subtotal);
    expect(l.line_total).toBe(l.subtotal - l.discount_total + (t.tax_behavior === 1 ? l.tax_amount : 0));
    for (const v of [l.discount_total, l.shipping_charge, l.tax_amount, l.line_total]) expect(Number.isSafeInteger(v) && v >= 0).toBe(true);
  }
}

describe('order totals calculator', () => {
  it('prices lines as unit price × quantity in exact cents (3 × 33.33 = 99.99)', () => {
    const t = totals({ lines: [line(0, 3333, 3), line(1, 1, 7)] });
    expect(t.lines.map((l) => l.subtotal)).toEqual([9999, 7]);
    expect(t.subtotal).toBe(10006);
    expect(t.total_amount).toBe(10006);
    expect(t.tax_behavior).toBe(0);
    checkInvariants(t);
  });

  it('rounds a percentage manual discount half up once for the order and splits it exactly over the lines', () => {
    const ten = totals({ lines: [line(0, 3333, 3)], discount: { type: 'percentage', basis_points: 1000 } });
    expect(ten.manual_discount_total).toBe(1000); // 999.9 → 1000
    expect(ten.total_amount).toBe(8999);
    const eighth = totals({ lines: [line(0, 3333, 3)], discount: { type: 'percentage', basis_points: 1250 } });
    expect(eighth.manual_discount_total).toBe(1250); // 1249.875 → 1250
    const half = totals({ lines: [line(0, 5), line(1, 5), line(2, 5)], discount: { type: 'percentage', basis_points: 1000 } });
    expect(half.manual_discount_total).toBe(2); // 1.5 → 2, never 3 × round(0.5)
    expect(half.lines.map((l) => l.manual_discount)).toEqual([1, 1, 0]);
    const down = totals({ lines: [line(0, 1001)], discount: { type: 'percentage', basis_points: 1 } });
    expect(down.manual_discount_total).toBe(0); // 0.1001 → 0
    for (const t of [ten, eighth, half, down]) checkInvariants(t);
  });

  it('caps a fixed manual discount at what is left and never takes a line below zero', () => {
    const t = totals({ lines: [line(0, 300), line(1, 100, 2)], discount: { type: 'fixed', amount: 10_000 } });
    expect(t.manual_discount_total).toBe(500);
    expect(t.lines.map((l) => l.line_total)).toEqual([0, 0]);
    expect(t.total_amount).toBe(0);
    const part = totals({ lines: [line(0, 300), line(1, 100)], discount: { type: 'fixed', amount: 101 } });
    expect(part.lines.map((l) => l.manual_discount)).toEqual([76, 25]); // 75.75 + 25.25, remainder to the larger fraction
    checkInvariants(t);
    checkInvariants(part);
  });

  it('runs coupons through the coupon calculator first and the manual discount on what they left', () => {
    const t = totals({
      lines: [line(0, 3333, 3), line(1, 2000)],
      coupons: [coupon(1, { amount: 10 }), coupon(2, { type: 'fixed', amount: 500, priority: 20 })],
      discount: { type: 'percentage', basis_points: 5000 },
    });
    // 10% per line: 1000 + 200; then 500 fixed split 7999:1800 → 408 + 92
    expect(t.coupons).toEqual([
      { coupon_id: 1, code: 'C1', discount: 1200 },
      { coupon_id: 2, code: 'C2', discount: 500 },
    ]);
    expect(t.coupon_discount_total).toBe(1700);
    // half of the 10299 left, half up
    expect(t.manual_discount_total).toBe(5150);
    expect(t.total_amount).toBe(11999 - 1700 - 5150);
    checkInvariants(t);
  });

  it('reports coupons the calculator refuses', () => {
    const t = totals({
      lines: [line(0, 1000)],
      coupons: [coupon(1, { stackable: 0, priority: 1 }), coupon(2, { priority: 2 }), coupon(3, { min_purchase_amount: 5000 })],
    });
    expect(t.coupons.map((c) => c.code)).toEqual(['C1']);
    expect(t.rejected.map((r) => [r.code, r.rule])).toEqual([
      ['C3', 'min_purchase'],
      ['C2', 'not_stackable'],
    ]);
  });

  it('adds the shipping entries and splits them over the physical lines by quantity', () => {
    const t = totals({
      lines: [line(0, 1000, 3), line(1, 500, 1, { fulfillment_type: 'digital' }), line(2, 200, 1)],
      shipping: [700, 300],
    });
    expect(t.shipping_total).toBe(1000);
    expect(t.lines.map((l) => l.shipping_charge)).toEqual([750, 0, 250]);
    expect(t.total_amount).toBe(3700 + 1000);
    checkInvariants(t);
  });

  it('lets a free-shipping coupon waive the whole shipping total as part of the coupon discount', () => {
    const t = totals({ lines: [line(0, 1000)], shipping: [450], coupons: [coupon(1, { type: 'free_shipping', amount: 0 }), coupon(2, { amount: 10 })] });
    expect(t.shipping_discount).toBe(450);
    expect(t.coupon_discount_total).toBe(550);
    expect(t.coupons).toEqual([
      { coupon_id: 1, code: 'C1', discount: 450 },
      { coupon_id: 2, code: 'C2', discount: 100 },
    ]);
    expect(t.total_amount).toBe(900);
    checkInvariants(t);
  });

  it('adds exclusive tax to the total and splits it over the lines by their discounted amounts', () => {
    const base = totals({ lines: [line(0, 1000), line(1, 3000)], discount: { type: 'fixed', amount: 1000 }, shipping: [500] });
    const t = applyTax(base, { tax_total: 301, shipping_tax: 50, inclusive: false });
    expect(t.lines.map((l) => l.tax_amount)).toEqual([75, 226]); // 750 : 2250
    expect(t.tax_behavior).toBe(1);
    expect(t.total_amount).toBe(4000 - 1000 + 500 + 301 + 50);
    checkInvariants(t);
  });

  it('reports inclusive tax without adding it, and no tax as behaviour 0', () => {
    const base = totals({ lines: [line(0, 1190)] });
    const t = applyTax(base, { tax_total: 190, shipping_tax: 0, inclusive: true });
    expect(t.total_amount).toBe(1190);
    expect(t.tax_behavior).toBe(2);
    expect(t.lines[0].tax_amount).toBe(190);
    expect(t.lines[0].line_total).toBe(1190);
    expect(applyTax(base, NO_TAX)).toEqual(base);
    checkInvariants(t);
  });

  it('refuses tax that is not whole non-negative cents, and lines that are not', () => {
    const base = totals({});
    expect(() => applyTax(base, { tax_total: 1.5, shipping_tax: 0, inclusive: false })).toThrow(RangeError);
    expect(() => applyTax(base, { tax_total: 0, shipping_tax: -1, inclusive: false })).toThrow(RangeError);
    expect(() => totals({ lines: [line(0, 10.5)] })).toThrow(RangeError);
    expect(() => totals({ shipping: [-1] })).toThrow(RangeError);
    expect(() => totals({ discount: { type: 'percentage', basis_points: 10001 } })).toThrow(RangeError);
  });

  it('keeps every identity for random orders (property test, 200 cases)', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 200; run++) {
      const lines = Array.from({ length: 1 + rand(5) }, (_, i) =>
        line(i, rand(20000), 1 + rand(5), { product_id: 1 + rand(3), fulfillment_type: rand(3) ? 'physical' : 'digital' }),
      );
      const coupons = [
        coupon(1, { amount: 1 + rand(100), max_discount_amount: rand(2) ? null : 1 + rand(3000) }),
        coupon(2, { type: 'fixed', amount: rand(5000), included_products: rand(2) ? [] : [1] }),
        coupon(3, { type: 'free_shipping', amount: 0 }),
      ].filter(() => rand(2) === 1);
      const discount =
        rand(3) === 0 ? null : rand(2) ? { type: 'fixed' as const, amount: rand(10000) } : { type: 'percentage' as const, basis_points: rand(10001) };
      const base = totals({ lines, coupons, discount, shipping: Array.from({ length: rand(3) }, () => rand(2000)) });
      checkInvariants(base);
      checkInvariants(applyTax(base, { tax_total: rand(3000), shipping_tax: rand(200), inclusive: rand(2) === 1 }));
    }
  });
});
