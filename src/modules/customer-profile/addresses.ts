import type { Static } from '@sinclair/typebox';
import { validateAddressFields } from '../../core/address';
import type { Ctx } from '../../core/context';
import { AppError, fail } from '../../core/errors';
import { toFlag } from '../customers/address-schemas';
import { createAddress, updateAddress, type AddressInput, type AddressPatch } from '../customers/addresses';
import { customerIdOf } from '../customers/owner';
import type { Address } from '../customers/types';
import type { CreateAddressBody, EditAddressBody } from './schemas';
import { ensureCustomer, scopeOf } from './service';

const NOT_YOURS = 'You are not authorized to update this address';

/** The optional text fields of the forms, only those sent (an edit leaves the others as they are). */
function sentFields(body: Static<typeof CreateAddressBody> | Static<typeof EditAddressBody>): AddressPatch {
  const out: AddressPatch = {};
  for (const key of ['label', 'company_name', 'address_1', 'address_2', 'city', 'state', 'phone', 'email'] as const) {
    if (body[key] !== undefined) out[key] = body[key];
  }
  return out;
}

/**
 * `POST /customer-profile/create-address`: adds an address to the caller's customer record (the address service applies
 * the country rules and the primary flag: `is_primary` 1, or the first address of its type, makes it primary). A
 * logged-in user without a customer record gets one, made from the account, once the address has passed the country
 * rules, so a refused address leaves nothing behind.
 */
export async function createProfileAddress(ctx: Ctx, body: Static<typeof CreateAddressBody>): Promise<{ is_created: Address; total_address_count: number }> {
  const input: AddressInput = {
    ...sentFields(body),
    type: body.type,
    name: body.name,
    email: body.email,
    address_1: body.address_1 ?? '',
    city: body.city ?? '',
    postcode: body.postcode,
    country: body.country,
    is_primary: toFlag(body.is_primary) ?? 0,
  };
  const errors = await validateAddressFields(input);
  const fields = Object.values(errors);
  if (fields.length) throw fail('validation_error', Object.values(fields[0])[0], { errors });

  const customerId = await ensureCustomer(ctx);
  const address = await createAddress(ctx, customerId, input);
  const counted = (await ctx.db('store_customer_addresses').where({ customer_id: customerId }).count({ n: '*' }).first()) as { n: number | string };
  return { is_created: address, total_address_count: Number(counted.n) };
}

/**
 * `POST /customer-profile/edit-address`: changes one of the caller's addresses. The address service finds it by id and
 * the caller's customer id in one WHERE clause; an address that is not the caller's, or does not exist, answers 403 with
 * the portal's message (the same answer for both, so ids of other customers' addresses cannot be probed).
 */
export async function editProfileAddress(ctx: Ctx, body: Static<typeof EditAddressBody>): Promise<Address> {
  const customerId = await customerIdOf(ctx.db, scopeOf(ctx));
  if (customerId === null) throw fail('rest_forbidden', NOT_YOURS);
  const patch: AddressPatch = { ...sentFields(body), type: body.type, name: body.name, postcode: body.postcode, country: body.country };
  try {
    return await updateAddress(ctx, customerId, body.id, patch);
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') throw fail('rest_forbidden', NOT_YOURS);
    throw error;
  }
}
