/**
 * Pricing an order, one way for `POST /orders`, the cart, the checkout summary and place-order: the calculator
 * (`totals.ts`: lines, manual discount, coupons, shipping), then the tax the `store/order/tax` filter answers.
 */
import { throwIfAny } from '../../core/errors';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { toTimestamp } from '../../core/time';
import type { CustomerRecord } from '../customers/types';
import { applyTax, calculateTotals, NO_TAX, type ManualDiscount, type OrderTax, type OrderTotals, type TaxAddress } from './totals';
import { rejectionErrors, type ResolvedCoupons } from './write-coupons';
import type { LineDraft } from './write-lines';

export interface PricingInput {
  lines: LineDraft[];
  coupons: ResolvedCoupons;
  discount: ManualDiscount | null;
  /** Shipping charges, cents. */
  shipping: number[];
  /** Null before checkout knows who is buying (a guest's cart). */
  customer: CustomerRecord | null;
  /** Order or customer address rows; the `billing` and `shipping` ones are handed to the tax module. */
  addresses: Array<Record<string, unknown>>;
  currency: string;
  orderId: number | null;
}

export const taxAddress = (row: Record<string, unknown> | undefined): TaxAddress | null =>
  row ? { country: String(row.country ?? ''), state: String(row.state ?? ''), city: String(row.city ?? ''), postcode: String(row.postcode ?? '') } : null;

function checkTax(value: OrderTax): OrderTax {
  const cents = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!value || !cents(value.tax_total) || !cents(value.shipping_tax))
    throw new RangeError(`store/order/tax must answer {tax_total, shipping_tax} in cents, got ${JSON.stringify(value)}`);
  return { ...value, inclusive: value.inclusive === true };
}

/**
 * The order's totals with the coupons the calculator refused left out (listed in `rejected`), and the tax of the
 * `store/order/tax` filter. `db` is the transaction the order is written in, when there is one: the tax module reads
 * through it (on SQLite it holds the only connection).
 */
export async function calculateOrderPrice(ctx: Ctx, db: Knex | Knex.Transaction, input: PricingInput): Promise<OrderTotals> {
  const totals = calculateTotals({
    lines: input.lines.map((line, index) => ({
      index,
      product_id: line.product_id ?? 0,
      variation_id: line.variation_id ?? 0,
      unit_price: line.unit_price,
      quantity: line.quantity,
      fulfillment_type: line.fulfillment_type,
    })),
    coupons: input.coupons.coupons,
    discount: input.discount,
    shipping: input.shipping,
    now: toTimestamp(ctx.clock.now()),
    customerUses: input.coupons.customerUses,
  });
  const byType = (type: string) => taxAddress(input.addresses.find((address) => address.type === type));
  const tax = await ctx.hooks.applyFiltersAsync('store/order/tax', NO_TAX, {
    db,
    order_id: input.orderId,
    currency: input.currency,
    items: totals.lines.map((line, i) => ({
      cart_index: line.index,
      product_id: input.lines[i].product_id,
      variation_id: input.lines[i].variation_id,
      tax_class: input.lines[i].tax_class,
      fulfillment_type: line.fulfillment_type,
      quantity: line.quantity,
      unit_price: line.unit_price,
      subtotal: line.subtotal,
      discount_total: line.discount_total,
      taxable: line.subtotal - line.discount_total,
    })),
    shipping_total: totals.shipping_total - totals.shipping_discount,
    billing_address: byType('billing'),
    shipping_address: byType('shipping'),
    customer: input.customer,
  });
  return applyTax(totals, checkTax(tax));
}

/** Prices the order like `calculateOrderPrice`; a coupon the calculator refuses is a 422 on its `applied_coupon` entry. */
export async function priceOrder(ctx: Ctx, db: Knex | Knex.Transaction, input: PricingInput): Promise<OrderTotals> {
  const totals = await calculateOrderPrice(ctx, db, input);
  throwIfAny(rejectionErrors(totals.rejected, input.coupons.entries));
  return totals;
}
