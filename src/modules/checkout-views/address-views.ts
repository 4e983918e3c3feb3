import type { Ctx } from '../../core/context';
import { formatFullAddress } from '../../core/address';
import type { Address, AddressType } from '../customers/types';

/** The CSS selectors of a checkout page's address parts, by address type. */
export const addressInfoSelector = (type: AddressType) => `[data-fct-address-info="${type}"]`;
export const addressSelectorSelector = (type: AddressType) => `[data-fct-address-selector="${type}"]`;

interface AddressCard {
  label: string;
  name: string;
  phone: string;
  /** The address on one line in its country's order, without the name. */
  address: string;
}

async function cardOf(address: Address): Promise<AddressCard> {
  const { country, state, city, postcode, address_1, address_2, company_name } = address;
  const line = await formatFullAddress({ country, state, city, postcode, address_1, address_2, company_name });
  return { label: address.label, name: address.name, phone: address.phone, address: line };
}

/** An address as a card: label, name, phone and the address line. */
export async function addressCardView(ctx: Ctx, address: Address): Promise<string> {
  return ctx.host.views.render('checkout/address-card', { ...(await cardOf(address)) });
}

/** The checkout page's chosen-address part for the address's type, holding its card. */
export async function addressInfoView(ctx: Ctx, address: Address): Promise<string> {
  return ctx.host.views.render('checkout/address-info', { type: address.type, card: await cardOf(address) });
}

/** The saved addresses of one type to choose from (`<type>_address_id` radio inputs), `chosen` checked. */
export async function addressSelectorView(ctx: Ctx, type: AddressType, addresses: Address[], chosen: number | null): Promise<string> {
  const options = await Promise.all(addresses.map(async (address) => ({ id: address.id, checked: address.id === chosen, card: await cardOf(address) })));
  return ctx.host.views.render('checkout/address-selector', { type, addresses: options });
}
