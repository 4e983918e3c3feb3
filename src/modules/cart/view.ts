/** The cart as the cart API shows it: lines with what can still be bought, coupons, totals in cents and formatted. */
import type { Ctx } from '../../core/context';
import { formatMoney } from '../../core/money';
import { getStoreSettings } from '../settings/store-settings';
import { quoteCart } from './pricing';
import { callerCustomer } from './service';
import type { Cart, CartStage } from './types';

export interface CartItemView {
  variation_id: number;
  product_id: number;
  title: string;
  post_title: string;
  quantity: number;
  /** Cents. */
  unit_price: number;
  subtotal: number;
  line_total: number;
  fulfillment_type: 'physical' | 'digital';
  payment_type: string;
  /** Units that can be bought (0 when the product is no longer on sale); null when stock is not managed. */
  available_quantity: number | null;
  /** Why the line cannot be bought as it is; null when it can. */
  message: string | null;
}

export interface CartView {
  /** Null when the caller has no cart yet. */
  cart_hash: string | null;
  stage: CartStage;
  items: CartItemView[];
  /** `message` says why a coupon does not apply (it then takes nothing off); null when it applies. */
  coupons: Array<{ code: string; discount: number; message: string | null }>;
  subtotal: number;
  coupon_discount_total: number;
  shipping_total: number;
  tax_total: number;
  total_amount: number;
  formatted: { subtotal: string; total: string };
  currency: string;
  item_count: number;
  expires_at: string | null;
}

/** `{cart}` for the caller's cart; no cart, or a completed one (the next write starts a new cart), shows an empty cart. */
export async function presentCart(ctx: Ctx, cart: Cart | null): Promise<{ cart: CartView }> {
  const settings = await getStoreSettings(ctx.host);
  const money = (amount: number) => formatMoney(amount, settings.currency, settings);
  if (!cart || cart.stage === 'completed') {
    return {
      cart: {
        cart_hash: null,
        stage: 'draft',
        items: [],
        coupons: [],
        subtotal: 0,
        coupon_discount_total: 0,
        shipping_total: 0,
        tax_total: 0,
        total_amount: 0,
        formatted: { subtotal: money(0), total: money(0) },
        currency: settings.currency,
        item_count: 0,
        expires_at: null,
      },
    };
  }
  const quote = await quoteCart(ctx, ctx.db, cart, { customer: await callerCustomer(ctx, ctx.db) });
  const { lines, totals } = quote.priced;
  const items = quote.items.flatMap(({ item, variation, line, problem }): CartItemView[] => {
    if (line === null || !variation) return [];
    const draft = lines[line];
    const priced = totals.lines[line];
    return [
      {
        variation_id: item.variation_id,
        product_id: variation.product_id,
        title: draft.title,
        post_title: draft.post_title,
        quantity: item.quantity,
        unit_price: draft.unit_price,
        subtotal: priced.subtotal,
        line_total: priced.line_total,
        fulfillment_type: draft.fulfillment_type,
        payment_type: draft.payment_type,
        available_quantity: variation.purchasable ? variation.available : 0,
        message: problem,
      },
    ];
  });
  return {
    cart: {
      cart_hash: cart.cart_hash,
      stage: cart.stage,
      items,
      coupons: quote.coupons.map((coupon) => ({ code: coupon.code, discount: coupon.discount, message: coupon.problem?.message ?? null })),
      subtotal: totals.subtotal,
      coupon_discount_total: totals.coupon_discount_total,
      shipping_total: totals.shipping_total,
      tax_total: totals.tax_total,
      total_amount: totals.total_amount,
      formatted: { subtotal: money(totals.subtotal), total: money(totals.total_amount) },
      currency: quote.priced.currency,
      item_count: items.reduce((sum, item) => sum + item.quantity, 0),
      expires_at: cart.expires_at,
    },
  };
}
