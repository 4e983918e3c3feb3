import { countryName } from '../../core/address';
import type { Ctx } from '../../core/context';
import { formatMoney } from '../../core/money';
import type { Cart } from '../cart/types';
import { catalogVariations } from '../orders/write-lines';
import { getStoreSettings } from '../settings/store-settings';
import { shippingOptions } from '../shipping/service';
import type { PricedShippingMethod, ShippingItem } from '../shipping/types';
import type { Destination } from './destination';

/** The CSS selector of the shipping-method list on the checkout page: both views below are that element. */
export const SHIPPING_METHODS_SELECTOR = '[data-fct-shipping-methods]';

/** Stands for a cart that is not known yet, or ships nothing: one physical unit worth nothing. */
const ONE_UNIT: ShippingItem[] = [{ quantity: 1, unit_price: 0, fulfillment_type: 'physical' }];

/** The cart's lines as the shipping calculator sees them; lines whose variation was deleted are left out. */
export async function shippingItemsOf(ctx: Ctx, cart: Cart): Promise<ShippingItem[]> {
  const variations = await catalogVariations(
    ctx.db,
    cart.data.items.map((item) => item.variation_id),
  );
  return cart.data.items.flatMap((item) => {
    const variation = variations.get(item.variation_id);
    return variation ? [{ quantity: item.quantity, unit_price: variation.price, fulfillment_type: variation.fulfillment_type }] : [];
  });
}

/** Whether the cart holds something to ship. */
export const needsShipping = (items: ShippingItem[]): boolean => items.some((item) => item.fulfillment_type === 'physical' && item.quantity > 0);

/**
 * The shipping methods offered for a destination, priced (`shipping_charge`, cents) for the cart's `items` when they
 * hold something to ship (per-item charges and free-shipping thresholds follow the lines). Otherwise (no cart yet, or
 * nothing physical in it) they are priced for one unit worth nothing: per-item methods show their charge per unit, and
 * a free method with a threshold is not offered.
 */
export async function methodsFor(ctx: Ctx, destination: Destination, items: ShippingItem[]): Promise<PricedShippingMethod[]> {
  return (await shippingOptions(ctx, destination, needsShipping(items) ? items : ONE_UNIT)).methods;
}

/**
 * The list view: a radio input per method (`fc_selected_shipping_method`), its title and its charge written the
 * store's way ("Free" when nothing). The cart's chosen method is checked when offered, else the first.
 */
export async function shippingListView(ctx: Ctx, methods: PricedShippingMethod[], chosen: number | null | undefined): Promise<string> {
  const settings = await getStoreSettings(ctx.host);
  const checked = methods.some((method) => method.id === chosen) ? chosen : methods[0]?.id;
  return ctx.host.views.render('checkout/shipping-methods', {
    methods: methods.map((method) => ({
      id: method.id,
      title: method.title,
      charge: method.shipping_charge === 0 ? 'Free' : formatMoney(method.shipping_charge, settings.currency, settings),
      checked: method.id === checked,
    })),
  });
}

/** The notice shown where the list would be when no method ships to the country. */
export function noShippingView(ctx: Ctx, country: string): string {
  return ctx.host.views.render('checkout/no-shipping-methods', { country: countryName(country) });
}
