/**
 * The order totals calculator: a pure function of the order's lines, coupons, manual discount, shipping entries and
 * tax (no database, no ctx), in integer cents with exact rounding. The server computes every total with it; totals a
 * client sends are never used.
 *
 * The rules, in the order they run:
 *
 * 1. A line's `subtotal` is `unit_price × quantity`; the order's `subtotal` is their sum.
 * 2. Coupons go through the coupon calculator (`calculateDiscounts`: priority, stacking, caps, min spend, product
 *    lists, half-up percentages per line). Its rejections are reported, never silently dropped.
 * 3. The manual discount applies to what the coupons left of the order: `fixed` takes `amount` cents (at most what is
 *    left); `percentage` takes `basis_points / 10000` of what is left, rounded half up once for the order (10% of
 *    99.99 is 10.00). The amount is split over the lines in proportion to what is left of each (`allocate`: exact
 *    sum, no line below 0).
 * 4. `shipping_total` is the sum of the shipping entries; each line's `shipping_charge` is its share by physical
 *    quantity (evenly when no line is physical). A free-shipping coupon discounts the whole shipping total: that
 *    amount counts in `coupon_discount_total` and in the first free-shipping coupon's discount.
 * 5. Tax (`applyTax`, with what the `store/order/tax` filter answered; 0 without a tax module): each line's
 *    `tax_amount` is what the answer's `lines` say (a tax module knows exempt lines and per-class rates); an answer
 *    without `lines` has its `tax_total` split over the lines by their discounted amounts. Exclusive tax is added to
 *    the total; inclusive tax is already in the prices and only reported. `tax_behavior`: 0 none, 1 exclusive,
 *    2 inclusive.
 *
 * `total_amount = subtotal - manual_discount_total - coupon_discount_total + shipping_total (+ tax_total +
 * shipping_tax when exclusive)`, never below 0, and the coupons' discounts sum to `coupon_discount_total`.
 */
import type { Knex } from 'knex';
import { allocate, mulDivRound } from '../../core/money';
import { calculateDiscounts, type RejectedCoupon } from '../coupons/calculator';
import type { CalculatorCoupon } from '../coupons/types';
import type { CustomerRecord } from '../customers/types';

export interface TotalsLine {
  /** The line's position in the order (`cart_index`); unique within the order. */
  index: number;
  product_id: number;
  variation_id: number;
  /** Cents. */
  unit_price: number;
  quantity: number;
  fulfillment_type: 'physical' | 'digital';
}

/** The manual discount reduced to what the calculator needs: cents off, or a percentage in basis points (12.5% = 1250). */
export type ManualDiscount = { type: 'fixed'; amount: number } | { type: 'percentage'; basis_points: number };

export interface TotalsInput {
  lines: TotalsLine[];
  coupons?: CalculatorCoupon[];
  discount?: ManualDiscount | null;
  /** Cents of each shipping entry. */
  shipping?: number[];
  /** The moment coupons are checked at, UTC `YYYY-MM-DD HH:MM:SS`. */
  now: string;
  /** How often the customer already used each coupon, by coupon id. */
  customerUses?: Record<number, number>;
}

export interface PricedLine extends TotalsLine {
  subtotal: number;
  coupon_discount: number;
  manual_discount: number;
  discount_total: number;
  shipping_charge: number;
  tax_amount: number;
  /** `subtotal - discount_total`, plus `tax_amount` when tax is exclusive. */
  line_total: number;
}

/** What one kept coupon took off the order (cents, its share of free shipping included). */
export interface CouponOutcome {
  coupon_id: number;
  code: string;
  discount: number;
}

/** One tax rate's part of an order's tax (cents): what paying the order writes as an order tax record. */
export interface TaxRateShare {
  /** The `store_tax_rates` row, or null for a rate that is not a row (a product-category override's own rate). */
  tax_rate_id: number | null;
  name: string;
  /** Percentage as a decimal string, e.g. `"7.2500"`. */
  rate: string;
  country: string;
  state: string;
  is_compound: 0 | 1;
  /** The product-category override that supplied this rate, if one did. */
  override_id?: number;
  order_tax: number;
  shipping_tax: number;
}

/** What an order keeps of its tax breakdown (`store_orders.tax_data`); paying the order writes its tax records from it. */
export interface OrderTaxData {
  rates: TaxRateShare[];
  tax_country: string;
}

/** The value of the `store/order/tax` filter (cents). */
export interface OrderTax {
  tax_total: number;
  shipping_tax: number;
  /** True when the prices already contain the tax (it is reported, not added). */
  inclusive: boolean;
  /** Each line's tax by `cart_index`, summing to `tax_total`; without it `tax_total` is split by taxable amount. */
  lines?: Array<{ cart_index: number; tax_amount: number }>;
  /** The tax by rate; its `order_tax` sums to `tax_total` and its `shipping_tax` to `shipping_tax`. */
  rates?: TaxRateShare[];
  /** The country the tax was computed for (the destination or the store's). */
  tax_country?: string;
}

export const NO_TAX: OrderTax = { tax_total: 0, shipping_tax: 0, inclusive: false };

/** An address as a tax module reads it. */
export interface TaxAddress {
  country: string;
  state: string;
  city: string;
  postcode: string;
}

/** One line as a tax module sees it (cents); `taxable` is what is left after the discounts. */
export interface OrderTaxItem {
  cart_index: number;
  product_id: number | null;
  variation_id: number | null;
  tax_class: string | null;
  fulfillment_type: 'physical' | 'digital';
  quantity: number;
  unit_price: number;
  subtotal: number;
  discount_total: number;
  taxable: number;
}

/** The context of the `store/order/tax` filter. */
export interface OrderTaxContext {
  /** The transaction the order is written in, when there is one (a cart is priced outside any): read through it (on SQLite it holds the only connection). */
  db: Knex | Knex.Transaction;
  /** Null while the order is being created. */
  order_id: number | null;
  currency: string;
  items: OrderTaxItem[];
  /** Shipping the customer pays (after a free-shipping coupon), cents. */
  shipping_total: number;
  billing_address: TaxAddress | null;
  shipping_address: TaxAddress | null;
  /** Null while a guest's cart is priced (checkout has not yet said who is buying). */
  customer: CustomerRecord | null;
}

export interface OrderTotals {
  lines: PricedLine[];
  coupons: CouponOutcome[];
  rejected: RejectedCoupon[];
  subtotal: number;
  manual_discount_total: number;
  /** Line discounts of the coupons plus the shipping a free-shipping coupon waived. */
  coupon_discount_total: number;
  shipping_total: number;
  /** The part of `coupon_discount_total` that waived shipping. */
  shipping_discount: number;
  tax_total: number;
  shipping_tax: number;
  tax_behavior: 0 | 1 | 2;
  /** The tax by rate (empty without tax); written to the order as `tax_data`. */
  tax_rates: TaxRateShare[];
  tax_country: string;
  total_amount: number;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function assertCents(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be non-negative cents, got ${value}`);
}

function manualDiscountAmount(discount: ManualDiscount | null | undefined, left: number): number {
  if (!discount) return 0;
  if (discount.type === 'fixed') {
    assertCents(discount.amount, 'manual discount');
    return Math.min(discount.amount, left);
  }
  const bp = discount.basis_points;
  if (!Number.isSafeInteger(bp) || bp < 0 || bp > 10000) throw new RangeError(`manual discount percentage must be 0..10000 basis points, got ${bp}`);
  return Math.min(mulDivRound(left, bp, 10000), left);
}

function withTotal(totals: Omit<OrderTotals, 'total_amount'>): OrderTotals {
  const tax = totals.tax_behavior === 1 ? totals.tax_total + totals.shipping_tax : 0;
  const total_amount = totals.subtotal - totals.manual_discount_total - totals.coupon_discount_total + totals.shipping_total + tax;
  return { ...totals, total_amount };
}

/** Lines, discounts and shipping priced, tax 0; see the rules at the top of this file. */
export function calculateTotals(input: TotalsInput): OrderTotals {
  const { lines } = input;
  const shipping = input.shipping ?? [];
  shipping.forEach((price, i) => assertCents(price, `shipping entry ${i}`));

  const coupons = calculateDiscounts(
    lines.map((line) => ({
      id: line.index,
      product_id: line.product_id,
      variation_id: line.variation_id,
      unit_price: line.unit_price,
      quantity: line.quantity,
    })),
    input.coupons ?? [],
    { now: input.now, customerUses: input.customerUses, shippingTotal: sum(shipping) },
  );
  const left = coupons.lines.map((line) => line.total);
  const manual = manualDiscountAmount(input.discount, sum(left));
  const manualParts = allocate(manual, left);

  const shippingTotal = sum(shipping);
  const physical = lines.map((line) => (line.fulfillment_type === 'physical' ? line.quantity : 0));
  const shippingParts = allocate(shippingTotal, physical);

  const priced: PricedLine[] = lines.map((line, i) => {
    const { subtotal, discount } = coupons.lines[i];
    const discount_total = discount + manualParts[i];
    return {
      ...line,
      subtotal,
      coupon_discount: discount,
      manual_discount: manualParts[i],
      discount_total,
      shipping_charge: shippingParts[i],
      tax_amount: 0,
      line_total: subtotal - discount_total,
    };
  });

  const firstFreeShipping = coupons.applied.find((coupon) => coupon.free_shipping)?.coupon_id;
  const outcomes = coupons.applied.map((coupon) => ({
    coupon_id: coupon.coupon_id,
    code: coupon.code,
    discount: coupon.discount + (coupon.coupon_id === firstFreeShipping ? coupons.shipping_discount : 0),
  }));

  return withTotal({
    lines: priced,
    coupons: outcomes,
    rejected: coupons.rejected,
    subtotal: sum(priced.map((line) => line.subtotal)),
    manual_discount_total: manual,
    coupon_discount_total: coupons.discount_total + coupons.shipping_discount,
    shipping_total: shippingTotal,
    shipping_discount: coupons.shipping_discount,
    tax_total: 0,
    shipping_tax: 0,
    tax_behavior: 0,
    tax_rates: [],
    tax_country: '',
  });
}

function lineTaxes(totals: OrderTotals, tax: OrderTax): number[] {
  if (!tax.lines)
    return allocate(
      tax.tax_total,
      totals.lines.map((line) => line.subtotal - line.discount_total),
    );
  const byIndex = new Map(tax.lines.map((line) => [line.cart_index, line.tax_amount]));
  const parts = totals.lines.map((line) => byIndex.get(line.index) ?? 0);
  parts.forEach((part, i) => assertCents(part, `tax_amount of line ${totals.lines[i].index}`));
  if (sum(parts) !== tax.tax_total) throw new RangeError(`store/order/tax: the lines' tax sums to ${sum(parts)}, not tax_total ${tax.tax_total}`);
  return parts;
}

function checkRates(tax: OrderTax): TaxRateShare[] {
  const rates = tax.rates ?? [];
  rates.forEach((rate) => {
    assertCents(rate.order_tax, `order_tax of rate ${rate.name}`);
    assertCents(rate.shipping_tax, `shipping_tax of rate ${rate.name}`);
  });
  if (rates.length && (sum(rates.map((r) => r.order_tax)) !== tax.tax_total || sum(rates.map((r) => r.shipping_tax)) !== tax.shipping_tax)) {
    throw new RangeError('store/order/tax: the rates do not sum to tax_total and shipping_tax');
  }
  return rates;
}

/** The totals with the tax a tax module computed: split over the lines, added to the total when exclusive. */
export function applyTax(totals: OrderTotals, tax: OrderTax): OrderTotals {
  assertCents(tax.tax_total, 'tax_total');
  assertCents(tax.shipping_tax, 'shipping_tax');
  const taxed = tax.tax_total + tax.shipping_tax > 0;
  const exclusive = taxed && !tax.inclusive;
  const parts = lineTaxes(totals, tax);
  const lines = totals.lines.map((line, i) => ({
    ...line,
    tax_amount: parts[i],
    line_total: line.subtotal - line.discount_total + (exclusive ? parts[i] : 0),
  }));
  return withTotal({
    ...totals,
    lines,
    tax_total: tax.tax_total,
    shipping_tax: tax.shipping_tax,
    tax_behavior: !taxed ? 0 : exclusive ? 1 : 2,
    tax_rates: checkRates(tax),
    tax_country: tax.tax_country ?? '',
  });
}
