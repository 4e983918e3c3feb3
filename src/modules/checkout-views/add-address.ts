import type { Static } from '@sinclair/typebox';
import { validateAddressFields } from '../../core/address';
import type { Ctx } from '../../core/context';
import { fail, type FieldErrors } from '../../core/errors';
import { label } from '../../core/validate';
import { createAddress, listAddresses, type AddressInput } from '../customers/addresses';
import { customerIdOf } from '../customers/owner';
import { fullName } from '../customers/presenter';
import type { Address, AddressType } from '../customers/types';
import { addressSelectorSelector, addressSelectorView } from './address-views';
import { openCart } from './open-cart';
import type { AddAddressBody } from './schemas';

export interface AddressCreated {
  message: 'Customer address created successfully!';
  fragment: Array<{ selector: string; content: string; type: 'replace' }>;
}

/** The fields a physical order's address needs besides the country's own rules (spec: address 1, city, country). */
const PHYSICAL_REQUIRED = ['address_1', 'city', 'country'] as const;
/** A digital order's billing address locates the buyer for tax only: country, then state and postcode as the country requires. */
const DIGITAL_REQUIRED = ['country'] as const;

type Prefixed = Record<string, string | null | undefined>;

/** The checks of the spec's body; messages name the prefixed field ("The billing city field is required."). */
async function check(type: AddressType, digital: boolean, value: (field: string) => string): Promise<void> {
  const errors: FieldErrors = {};
  for (const field of digital ? DIGITAL_REQUIRED : PHYSICAL_REQUIRED) {
    if (!value(field)) errors[`${type}_${field}`] = { required: `The ${label(`${type}_${field}`)} field is required.` };
  }
  const rules = await validateAddressFields(
    { country: value('country'), state: value('state'), postcode: value('postcode'), city: value('city') },
    `${type}_`,
    { cityOptional: digital },
  );
  const all = { ...errors, ...rules };
  const first = Object.values(all)[0];
  if (first) throw fail('validation_error', Object.values(first)[0], { errors: all });
}

/**
 * `POST /customers/add-address`: adds an address to the caller's customer record from the checkout's address form
 * (fields prefixed with the type; the prefix is stripped for storage). A physical order's address needs address 1,
 * city and country; a digital one (`product_type: digital`) only the country, and both need the state and postcode
 * where the country's rules do (a postcode, when given, must fit the country). The name and email default to the
 * customer's. The first address of a type becomes primary (the address service's rule). Answers the replacement of
 * the page's address list of that type, with the cart's chosen address (else the primary) checked. Null when the
 * caller has no customer record.
 */
export async function addCheckoutAddress(ctx: Ctx, body: Static<typeof AddAddressBody>, cartHash: string | undefined): Promise<AddressCreated | null> {
  const customerId = ctx.scope ? await customerIdOf(ctx.db, ctx.scope) : null;
  if (customerId === null) return null;
  const { type } = body;
  const digital = body.product_type === 'digital';
  const sent = body as unknown as Prefixed;
  const value = (field: string) => String(sent[`${type}_${field}`] ?? '').trim();
  await check(type, digital, value);

  const customer = (await ctx.db('store_customers').where({ id: customerId }).first('first_name', 'last_name', 'email')) as {
    first_name: string;
    last_name: string;
    email: string;
  };
  const input: AddressInput = {
    type,
    label: body.label ?? '',
    name: value('name') || fullName(customer),
    email: value('email') || customer.email,
    company_name: value('company_name'),
    address_1: value('address_1'),
    address_2: value('address_2'),
    city: value('city'),
    state: value('state'),
    postcode: value('postcode'),
    country: value('country'),
    phone: value('phone'),
  };
  await createAddress(ctx, customerId, input, { cityOptional: digital });

  const addresses = await listAddresses(ctx.db, customerId, type);
  const content = await addressSelectorView(ctx, type, addresses, await chosenAddress(ctx, type, addresses, cartHash));
  return { message: 'Customer address created successfully!', fragment: [{ selector: addressSelectorSelector(type), content, type: 'replace' }] };
}

/** The cart's chosen address of the type when it is still one of the customer's, else the primary. */
async function chosenAddress(ctx: Ctx, type: AddressType, addresses: Address[], cartHash: string | undefined): Promise<number | null> {
  const cart = await openCart(ctx, cartHash);
  const chosen = cart?.checkout[`${type}_address_id`];
  if (addresses.some((address) => address.id === chosen)) return chosen ?? null;
  return addresses.find((address) => address.is_primary === 1)?.id ?? null;
}
