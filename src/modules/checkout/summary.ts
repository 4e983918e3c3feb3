/**
 * `GET /checkout/get-checkout-summary-view`: the order summary of the checkout page for the caller's cart, priced
 * as place-order will price it, with the shipping method of the query (or the one the cart chose). Shipping is priced
 * for the saved address the cart's checkout chose (shipping, else billing). Without one (a guest types the address
 * in), the page offered the method for the shopper's country, so it is priced for its own zone's country, else for
 * the store's country. Tax is computed for the saved addresses chosen (by the store's tax basis), else for the store's
 * address. Without a cart (or with an empty or completed one) the summary is empty: no lines, every
 * amount 0.
 */
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { AppError } from '../../core/errors';
import { formatMoney } from '../../core/money';
import { currentCart } from '../cart/current';
import { quoteCart } from '../cart/pricing';
import type { Cart } from '../cart/types';
import { getStoreSettings } from '../settings/store-settings';
import type { StoreSettings } from '../settings/types';
import { getMethod } from '../shipping/service';
import { ownCustomerId, savedAddresses } from './customer';

export interface CheckoutSummary {
  items: {
    views: string;
    subtotal: string;
    has_subscriptions: boolean;
    shipping_charge: number;
    unformatted_total: number;
    total: string;
    shipping_charge_formated: string;
    shipping_method_id: string;
  };
}

interface SummaryLine {
  title: string;
  quantity: number;
  /** Unit price × quantity, formatted. */
  amount: string;
}

const unlessMissing = (error: unknown): null => {
  if (error instanceof AppError && error.status === 404) return null;
  throw error;
};

/**
 * Where the cart ships: the saved address its checkout chose, when it is the caller's; else a country the chosen
 * method's zone ships to, unless that zone also covers the store's country (or lists no country: rest of world); else
 * the store's country. An unknown method is left to the pricing (422 on `shipping_method`). `addresses`: the chosen
 * saved billing and shipping addresses that are the caller's, for the tax (none: the tax is the store address's).
 */
async function destinationOf(
  ctx: Ctx,
  db: Knex,
  cart: Cart,
  settings: StoreSettings,
  methodId: number | null,
): Promise<{ country: string; state: string; addresses: Array<Record<string, unknown>> }> {
  const { billing_address_id: billingId, shipping_address_id: shippingId } = cart.checkout;
  const ownId = billingId === undefined && shippingId === undefined ? null : await ownCustomerId(db, ctx);
  const saved = await savedAddresses(db, ownId, [billingId, shippingId]);
  const billing = billingId === undefined ? undefined : saved.get(billingId);
  const shipping = shippingId === undefined ? undefined : saved.get(shippingId);
  const addresses = [...(billing ? [{ ...billing, type: 'billing' }] : []), ...(shipping ? [{ ...shipping, type: 'shipping' }] : [])];
  const row = shippingId !== undefined ? shipping : billing;
  if (row) return { country: row.country, state: row.state, addresses };
  const store = { country: settings.store_country, state: settings.store_state, addresses };
  const method = methodId === null ? null : await getMethod(ctx, methodId).catch(unlessMissing);
  if (!method?.countries.length || method.countries.includes(store.country)) return store;
  return { country: method.countries[0], state: method.states[0] ?? '', addresses };
}

export async function checkoutSummary(ctx: Ctx, input: { shippingMethodId?: number; cartHash: string | undefined }): Promise<CheckoutSummary> {
  const settings = await getStoreSettings(ctx.host);
  const money = (amount: number, currency = settings.currency) => formatMoney(amount, currency, settings);
  const cart = await currentCart(ctx, input.cartHash);
  if (!cart || cart.stage === 'completed' || !cart.data.items.length) {
    const views = ctx.host.views.render('checkout/summary', { items: [], subtotal: money(0), discount: '', shipping: null, tax: '', total: money(0) });
    const zero = money(0);
    return {
      items: {
        views,
        subtotal: zero,
        has_subscriptions: false,
        shipping_charge: 0,
        unformatted_total: 0,
        total: zero,
        shipping_charge_formated: zero,
        shipping_method_id: '',
      },
    };
  }

  const methodId = input.shippingMethodId ?? cart.checkout.shipping_method_id ?? null;
  const destination = await destinationOf(ctx, ctx.db, cart, settings, methodId);
  const { priced } = await quoteCart(ctx, ctx.db, cart, { shipping_method_id: methodId, ...destination });
  const { totals, currency } = priced;
  const lines: SummaryLine[] = priced.lines.map((line, i) => ({
    title: line.title && line.title !== line.post_title ? `${line.post_title} - ${line.title}` : line.post_title,
    quantity: line.quantity,
    amount: money(totals.lines[i].subtotal, currency),
  }));
  const discount = totals.coupon_discount_total + totals.manual_discount_total;
  const tax = totals.tax_total + totals.shipping_tax;
  const views = ctx.host.views.render('checkout/summary', {
    items: lines,
    subtotal: money(totals.subtotal, currency),
    discount: discount ? money(discount, currency) : '',
    shipping: priced.fulfillment === 'physical' ? money(totals.shipping_total, currency) : null,
    tax: tax ? money(tax, currency) : '',
    total: money(totals.total_amount, currency),
  });
  return {
    items: {
      views,
      subtotal: money(totals.subtotal, currency),
      has_subscriptions: priced.has_subscriptions,
      shipping_charge: totals.shipping_total,
      unformatted_total: totals.total_amount,
      total: money(totals.total_amount, currency),
      shipping_charge_formated: money(totals.shipping_total, currency),
      shipping_method_id: priced.shipping.method_id === null ? '' : String(priced.shipping.method_id),
    },
  };
}
