import { transaction, type Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { findCartById, updateCart } from '../cart/repo';
import type { Cart } from '../cart/types';
import { presentAddress, type AddressRow } from '../customers/addresses';
import { customerIdOf } from '../customers/owner';
import type { Address } from '../customers/types';
import { addressCardView, addressInfoSelector, addressInfoView } from './address-views';
import { openCart } from './open-cart';
import { methodsFor, needsShipping, noShippingView, SHIPPING_METHODS_SELECTOR, shippingItemsOf, shippingListView } from './shipping';

export interface AddressAttached {
  message: 'Address Attached';
  /** The address card. */
  data: string;
  /** CSS selector → HTML to put there. */
  fragments: Record<string, string>;
}

/** The caller's address by id: 404 when no address has the id, 403 when it is another customer's. */
async function ownAddress(ctx: Ctx, addressId: number): Promise<Address> {
  const row = (await ctx.db('store_customer_addresses').where({ id: addressId }).first()) as AddressRow | undefined;
  if (!row) throw fail('not_found', 'Address not found', { status: 404 });
  const own = ctx.scope ? await customerIdOf(ctx.db, ctx.scope) : null;
  if (own === null || own !== Number(row.customer_id)) throw fail('rest_forbidden', 'You are not authorized to view this address', { status: 403 });
  return presentAddress(row);
}

/** Records the address as the cart's billing or shipping choice; the cart row is locked so parallel choices both stay. */
async function attach(ctx: Ctx, cart: Cart, address: Address): Promise<Cart> {
  return transaction(ctx, async (trx) => {
    const locked = (await findCartById(trx, cart.id, true)) ?? cart;
    const checkout = { ...locked.checkout, [`${address.type}_address_id`]: address.id };
    await updateCart(trx, cart.id, { checkout, now: toTimestamp(ctx.clock.now()) });
    return { ...locked, checkout };
  });
}

/**
 * `GET /customers/{customerAddressId}/update-address-select`: the caller's saved address becomes the billing or
 * shipping address (by its type) of their current cart's checkout, unless that cart is completed; without a cart
 * nothing is stored. Answers the address card, and the fragments the checkout page replaces: the chosen-address part of
 * that type and, when the address is where the cart ships to (a shipping address, or a billing address while no
 * shipping address is chosen) and the cart holds something to ship, the shipping methods for it.
 */
export async function selectAddress(ctx: Ctx, addressId: number, cartHash: string | undefined): Promise<AddressAttached> {
  const address = await ownAddress(ctx, addressId);
  const found = await openCart(ctx, cartHash);
  const cart = found ? await attach(ctx, found, address) : null;

  const fragments: Record<string, string> = { [addressInfoSelector(address.type)]: await addressInfoView(ctx, address) };
  const shipsHere = address.type === 'shipping' || !cart?.checkout.shipping_address_id;
  const items = cart && shipsHere ? await shippingItemsOf(ctx, cart) : [];
  if (cart && needsShipping(items)) {
    const methods = await methodsFor(ctx, { country: address.country, state: address.state }, items);
    fragments[SHIPPING_METHODS_SELECTOR] = methods.length
      ? await shippingListView(ctx, methods, cart.checkout.shipping_method_id)
      : noShippingView(ctx, address.country);
  }
  return { message: 'Address Attached', data: await addressCardView(ctx, address), fragments };
}
