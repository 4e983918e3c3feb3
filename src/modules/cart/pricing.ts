/**
 * A cart priced the way its order will be: lines from the variations (`resolveLines`) as the first charge bills them
 * (`firstChargeLines`: a subscription in a trial at 0, its signup fee a line of its own), coupons by code
 * (`resolveCoupons`), the chosen shipping method for the destination, then `priceOrder`'s calculator and tax.
 *
 * The cart's own unpaid order (`cart.order_id`, when checkout placed it and it may be placed again) does not count
 * against the cart: the stock it holds is available to the cart, and its coupons keep the right to apply that their
 * use already counted (they come back as `coupons.kept`).
 */
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { fail, type FieldErrors } from '../../core/errors';
import { findCouponsByCodes } from '../coupons/service';
import type { CustomerRecord } from '../customers/types';
import { calculateOrderPrice } from '../orders/pricing';
import type { OrderTotals } from '../orders/totals';
import { resolveCoupons, type AppliedCouponEntry, type AppliedRow, type ResolvedCoupons } from '../orders/write-coupons';
import { resolveLines, type LineDraft } from '../orders/write-lines';
import { getStoreSettings } from '../settings/store-settings';
import { firstChargeLines } from './first-charge';
import { priceMethod } from '../shipping/service';
import { cartVariations, heldByOrder, UNPAID_STATUSES, type CartVariation } from './catalog';
import { GONE, insufficientStock, notPurchasable, unknownCoupon } from './messages';
import type { Cart, CartItem } from './types';

type Db = Knex | Knex.Transaction;

export interface PricedCart {
  lines: LineDraft[];
  totals: OrderTotals;
  coupons: ResolvedCoupons;
  /** One entry per coupon kept, `discounted_amount` filled from the totals: what `saveAppliedCoupons` takes. */
  entries: AppliedCouponEntry[];
  fulfillment: 'physical' | 'digital';
  has_subscriptions: boolean;
  currency: string;
  shipping: { method_id: number | null; charge: number; title: string };
}

export interface CartPricingOptions {
  /** The chosen method; it must be available for `country`/`state` (a 422 on `shipping_method` otherwise). Ignored when nothing ships. */
  shipping_method_id?: number | null;
  country?: string;
  state?: string;
  /** Who buys, for per-customer coupon limits and the tax module; null for a guest not known yet. */
  customer?: CustomerRecord | null;
  /** Billing and shipping address rows (`type`, `country`, `state`, `city`, `postcode`) for the tax module. */
  addresses?: Array<Record<string, unknown>>;
}

/** A cart line as quoted: its variation (null when deleted since) and, unless deleted, its priced line. */
export interface QuotedItem {
  item: CartItem;
  variation: CartVariation | null;
  /** Index in `priced.lines`; null when the variation no longer exists. */
  line: number | null;
  /** Why the line cannot be bought as it is; null when it can. */
  problem: string | null;
}

/** A cart coupon code as quoted: its discount, or why it does not apply. */
export interface QuotedCoupon {
  code: string;
  discount: number;
  /** The refusal rule and message (`exists` for an unknown code); null when the coupon applies. */
  problem: { rule: string; message: string } | null;
}

/** The cart priced as it stands, problems listed rather than thrown: what the cart API shows. */
export interface CartQuote {
  priced: PricedCart;
  items: QuotedItem[];
  coupons: QuotedCoupon[];
}

/** The cart's order when checkout may place it again (not canceled, not paid): its hold and coupons are the cart's own. */
async function openOrderOf(db: Db, orderId: number | null): Promise<number | null> {
  if (orderId === null) return null;
  const row = (await db('store_orders').where({ id: orderId }).whereNot('status', 'canceled').whereIn('payment_status', UNPAID_STATUSES).first('id')) as
    { id: number } | undefined;
  return row ? orderId : null;
}

const noShipping = (): PricedCart['shipping'] => ({ method_id: null, charge: 0, title: '' });

/** The chosen method priced for the destination (read through `db`: inside checkout's transaction on SQLite). */
async function chosenShipping(ctx: Ctx, db: Db, lines: LineDraft[], options: CartPricingOptions): Promise<PricedCart['shipping']> {
  if (options.shipping_method_id == null) return noShipping();
  const method = await priceMethod(
    { ...ctx, db },
    options.shipping_method_id,
    { country: options.country ?? '', state: options.state ?? null },
    lines.map((line) => ({ quantity: line.quantity, unit_price: line.unit_price, fulfillment_type: line.fulfillment_type })),
  );
  return method ? { method_id: method.id, charge: method.shipping_charge, title: method.title } : noShipping();
}

function problemOf(item: CartItem, variation: CartVariation | null): string | null {
  if (!variation) return GONE;
  if (!variation.purchasable) return notPurchasable(variation.label);
  if (variation.available !== null && item.quantity > variation.available) return insufficientStock(variation.label);
  return null;
}

/** Prices the cart as it stands: lines that can no longer be bought are priced (or left out when deleted) and flagged. */
export async function quoteCart(ctx: Ctx, db: Db, cart: Cart, options: CartPricingOptions = {}): Promise<CartQuote> {
  const now = ctx.clock.now();
  const orderId = await openOrderOf(db, cart.order_id);
  const variations = await cartVariations(
    db,
    cart.data.items.map((item) => item.variation_id),
    await heldByOrder(db, orderId),
  );

  const known = cart.data.items.filter((item) => variations.has(item.variation_id));
  const { lines: cartLines } = await resolveLines(
    db,
    known.map((item) => ({ variation_id: item.variation_id, quantity: item.quantity })),
    null,
    [],
  );
  const lines = firstChargeLines(cartLines);
  let next = 0;
  const items = cart.data.items.map((item): QuotedItem => {
    const variation = variations.get(item.variation_id) ?? null;
    return { item, variation, line: variation ? next++ : null, problem: problemOf(item, variation) };
  });

  const found = new Map((await findCouponsByCodes(db, cart.data.coupons, now)).map((coupon) => [coupon.code.toLowerCase(), coupon]));
  const entries: AppliedCouponEntry[] = [];
  for (const code of cart.data.coupons) {
    const coupon = found.get(code.toLowerCase());
    if (coupon) entries.push({ coupon_id: coupon.id, code: coupon.code, discounted_amount: 0, stackable: coupon.stackable });
  }
  const stored = orderId === null ? [] : ((await db('store_applied_coupons').where({ order_id: orderId }).orderBy('id')) as AppliedRow[]);
  // No customer has id 0: a guest has no earlier uses.
  const coupons = await resolveCoupons(db, entries, stored, options.customer?.id ?? 0, now);

  const fulfillment = lines.some((line) => line.fulfillment_type === 'physical') ? 'physical' : 'digital';
  const shipping = fulfillment === 'physical' ? await chosenShipping(ctx, db, lines, options) : noShipping();

  const currency = (await getStoreSettings(ctx.host, db.isTransaction ? (db as Knex.Transaction) : undefined)).currency;
  const totals = await calculateOrderPrice(ctx, db, {
    lines,
    coupons,
    discount: null,
    shipping: shipping.method_id === null ? [] : [shipping.charge],
    customer: options.customer ?? null,
    addresses: options.addresses ?? [],
    currency,
    orderId,
  });

  const outcomes = new Map(totals.coupons.map((outcome) => [outcome.coupon_id, outcome.discount]));
  const rejections = new Map(totals.rejected.map((rejection) => [rejection.coupon_id, rejection]));
  const quotedCoupons = cart.data.coupons.map((code): QuotedCoupon => {
    const coupon = found.get(code.toLowerCase());
    if (!coupon) return { code, discount: 0, problem: { rule: 'exists', message: unknownCoupon(code) } };
    const rejection = rejections.get(coupon.id);
    return {
      code: coupon.code,
      discount: outcomes.get(coupon.id) ?? 0,
      problem: rejection ? { rule: rejection.rule, message: rejection.reason } : null,
    };
  });
  return {
    priced: {
      lines,
      totals,
      coupons,
      entries: entries
        .filter((entry) => outcomes.has(entry.coupon_id))
        .map((entry) => ({ ...entry, discounted_amount: outcomes.get(entry.coupon_id) as number })),
      fulfillment,
      has_subscriptions: lines.some((line) => line.payment_type === 'subscription'),
      currency,
      shipping,
    },
    items,
    coupons: quotedCoupons,
  };
}

/**
 * The cart priced for checkout. A cart that cannot be bought as it stands is a 422: the first line that cannot
 * (`invalid_state`: 'A product in your cart is no longer available.', '<Product - Variation> is not available for
 * purchase.', 'Insufficient stock for <Product - Variation>.'), else every coupon that does not apply
 * (`validation_error`, errors on `coupons.<index>` with the calculator's rule and message), or a shipping method not
 * available for the destination (`validation_error` on `shipping_method`).
 */
export async function priceCart(ctx: Ctx, db: Db, cart: Cart, options: CartPricingOptions): Promise<PricedCart> {
  const quote = await quoteCart(ctx, db, cart, options);
  const problem = quote.items.find((item) => item.problem !== null)?.problem;
  if (problem) throw fail('invalid_state', problem, { status: 422 });
  const errors: FieldErrors = {};
  quote.coupons.forEach((coupon, index) => {
    if (coupon.problem) errors[`coupons.${index}`] = { [coupon.problem.rule]: coupon.problem.message };
  });
  const first = Object.values(errors)[0];
  if (first) throw fail('validation_error', Object.values(first)[0], { errors });
  return quote.priced;
}
