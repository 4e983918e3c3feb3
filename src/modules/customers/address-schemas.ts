import { Type, type TSchema } from '@sinclair/typebox';
import { Id, oneOf } from '../../core/schema';
import { ADDRESS_TYPES, type AddressType } from './types';

/** Address statuses accepted on input (the spec shows `active`, the default). */
export const ADDRESS_STATUSES = ['active', 'inactive', 'archived'] as const;
export type AddressStatus = (typeof ADDRESS_STATUSES)[number];

/** Column sizes of `store_customer_addresses`, so no value is ever cut or refused by the database. */
const MAX = { name: 255, email: 255, company_name: 255, address: 255, city: 255, state: 255, postcode: 45, country: 45, phone: 45, label: 15 } as const;

const blank = (field: string) => ({ regex: `The ${field} field must not be blank.` });

/** A required text: present, at least one non-space character, at most `max`. */
const requiredText = (max: number, field: string) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', messages: blank(field) });
/** An optional text; null is taken as empty. */
const optionalText = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));
const email = () => Type.String({ minLength: 1, maxLength: MAX.email, format: 'email' });

/** 0/1, also sent as '0'/'1' or a boolean by form clients. */
export const PrimaryFlag = Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal('0'), Type.Literal('1'), Type.Boolean()], {
  messages: { in: 'The is primary field must be 0 or 1.', boolean: 'The is primary field must be 0 or 1.' },
});
export type PrimaryFlagInput = 0 | 1 | '0' | '1' | boolean;
export const toFlag = (value: PrimaryFlagInput | undefined): 0 | 1 | undefined =>
  value === undefined ? undefined : value === 1 || value === '1' || value === true ? 1 : 0;

const Meta = Type.Record(Type.String(), Type.Unknown());
const OrderId = Type.Optional(Type.Union([Id(), Type.Null()]));

export const CustomerParams = Type.Object({ customerId: Id() });

export const AddressListQuery = Type.Object({ type: Type.Optional(oneOf(ADDRESS_TYPES)) });

/** `POST /customers/{customerId}/address` (administrative). */
export const AddressCreateBody = Type.Object({
  name: requiredText(MAX.name, 'name'),
  email: email(),
  address_1: requiredText(MAX.address, 'address 1'),
  address_2: optionalText(MAX.address),
  city: requiredText(MAX.city, 'city'),
  state: optionalText(MAX.state),
  postcode: optionalText(MAX.postcode),
  country: Type.String({ minLength: 1, maxLength: MAX.country }),
  phone: optionalText(MAX.phone),
  type: oneOf(ADDRESS_TYPES),
  label: optionalText(MAX.label),
  status: Type.Optional(oneOf(ADDRESS_STATUSES)),
  is_primary: Type.Optional(PrimaryFlag),
  company_name: optionalText(MAX.company_name),
  meta: Type.Optional(Meta),
  order_id: OrderId,
});

/** `PUT /customers/{customerId}/address` (administrative): the address `id` plus the fields to change. */
export const AddressUpdateBody = Type.Object({
  id: Id(),
  name: Type.Optional(requiredText(MAX.name, 'name')),
  email: Type.Optional(email()),
  address_1: Type.Optional(requiredText(MAX.address, 'address 1')),
  address_2: optionalText(MAX.address),
  city: Type.Optional(requiredText(MAX.city, 'city')),
  state: optionalText(MAX.state),
  postcode: optionalText(MAX.postcode),
  country: Type.Optional(Type.String({ minLength: 1, maxLength: MAX.country })),
  phone: optionalText(MAX.phone),
  type: Type.Optional(oneOf(ADDRESS_TYPES)),
  label: optionalText(MAX.label),
  status: Type.Optional(oneOf(ADDRESS_STATUSES)),
  is_primary: Type.Optional(PrimaryFlag),
  company_name: optionalText(MAX.company_name),
  meta: Type.Optional(Meta),
  order_id: OrderId,
});

/** `DELETE /customers/{customerId}/address` and `POST …/address/make-primary` (administrative). */
export const AddressIdBody = Type.Object({ address_id: Id() });

// ---- customer portal ----

const addressId = () => Id({ messages: { required: 'The address id field is required.' } });

/** The `address` object the portal sends; only its `id` (and `type` for make-primary) are read. */
export const PortalAddressRef = Type.Object({ address: Type.Object({ id: addressId() }) });

export const PortalMakePrimaryBody = Type.Object({
  address: Type.Object({
    id: addressId(),
    type: Type.Union(
      ADDRESS_TYPES.map((t) => Type.Literal(t)),
      { messages: { required: 'The address type field is required.', in: 'The selected address type is invalid.' } },
    ),
  }),
});

/** The type-prefixed fields of the portal's address form (`billing_city`, `shipping_city`…), all optional here. */
export function prefixedFields(type: AddressType): Record<string, TSchema> {
  return {
    [`${type}_label`]: optionalText(MAX.label),
    [`${type}_name`]: optionalText(MAX.name),
    [`${type}_company_name`]: optionalText(MAX.company_name),
    [`${type}_address_1`]: optionalText(MAX.address),
    [`${type}_address_2`]: optionalText(MAX.address),
    [`${type}_city`]: optionalText(MAX.city),
    [`${type}_state`]: optionalText(MAX.state),
    [`${type}_postcode`]: optionalText(MAX.postcode),
    [`${type}_country`]: optionalText(MAX.country),
    [`${type}_phone`]: optionalText(MAX.phone),
    [`${type}_email`]: Type.Optional(Type.Union([Type.String({ maxLength: MAX.email, format: 'email' }), Type.Literal(''), Type.Null()])),
  };
}

/**
 * `PUT /customers/{customerId}/address` (portal): `address.id`, `type`, and the fields prefixed with the type. Which
 * prefixed fields are required depends on `type`, so that part is checked by the route (`PORTAL_REQUIRED`).
 */
export const PortalUpdateBody = Type.Object({
  address: Type.Object({ id: addressId() }),
  type: oneOf(ADDRESS_TYPES),
  ...prefixedFields('billing'),
  ...prefixedFields('shipping'),
});

/** The prefixed fields the portal update requires (the spec: label, address 1, city, country). */
export const PORTAL_REQUIRED = ['label', 'address_1', 'city', 'country'] as const;
/** The prefixed fields the portal update reads, without their prefix. */
export const PORTAL_FIELDS = ['label', 'name', 'company_name', 'address_1', 'address_2', 'city', 'state', 'postcode', 'country', 'phone', 'email'] as const;
