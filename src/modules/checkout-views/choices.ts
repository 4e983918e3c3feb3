import { addressRules, type AddressRules } from '../../core/address';
import type { Ctx } from '../../core/context';
import type { PricedShippingMethod } from '../shipping/types';
import { countryOf, destinationOf, type CountryQuery, type DestinationQuery } from './destination';
import { openCart } from './open-cart';
import { methodsFor, shippingItemsOf } from './shipping';

export interface ShippingChoices {
  country_code: string;
  /** What the destination offers, priced for the cart. */
  methods: PricedShippingMethod[];
  /** The cart's chosen method, if any. */
  chosen: number | null;
}

/** The shipping methods for the destination a query names, priced for the caller's cart when there is one; null without a country. */
export async function shippingChoices(ctx: Ctx, query: DestinationQuery, cartHash: string | undefined): Promise<ShippingChoices | null> {
  const destination = await destinationOf(query);
  if (!destination) return null;
  const cart = await openCart(ctx, cartHash);
  const items = cart ? await shippingItemsOf(ctx, cart) : [];
  return { country_code: destination.country, methods: await methodsFor(ctx, destination, items), chosen: cart?.checkout.shipping_method_id ?? null };
}

/** What an address form needs for the country a query names (states, labels, required fields); null without a country. */
export async function countryInfo(query: CountryQuery): Promise<AddressRules | null> {
  const country = await countryOf(query);
  return country ? addressRules(country) : null;
}
