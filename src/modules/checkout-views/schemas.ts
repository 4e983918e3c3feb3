import { Type } from '@sinclair/typebox';
import { Id, oneOf } from '../../core/schema';
import { prefixedFields } from '../customers/address-schemas';
import { ADDRESS_TYPES } from '../customers/types';

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/** `country_code` or `timezone` (one is needed; the code wins), and the cart (`fct_cart_hash`, else the cookie). */
export const CountryQuery = Type.Object({
  country_code: text(10),
  timezone: text(64),
  fct_cart_hash: text(64),
});

/** The shipping views' query: the country's, plus `state` (its code or name). */
export const DestinationQuery = Type.Object({
  ...CountryQuery.properties,
  state: text(255),
});

export const AddressSelectParams = Type.Object({ customerAddressId: Id() });

/** `with[]` is accepted as the reference sends it; the answer's shape does not depend on it. */
export const AddressSelectQuery = Type.Object({
  with: Type.Optional(Type.Array(Type.String({ maxLength: 50 }), { maxItems: 10 })),
  fct_cart_hash: text(64),
});

/** The cart whose chosen address the new address list shows checked. */
export const CartQuery = Type.Object({ fct_cart_hash: text(64) });

const PRODUCT_TYPES = ['physical', 'digital'] as const;

/**
 * `POST /customers/add-address`: `type`, `product_type` (default `physical`), `label`, and the fields prefixed with the
 * type (`billing_city`…); the other type's prefixed fields are accepted and ignored.
 */
export const AddAddressBody = Type.Object({
  type: oneOf(ADDRESS_TYPES),
  product_type: Type.Optional(oneOf(PRODUCT_TYPES)),
  label: Type.Optional(Type.Union([Type.String({ maxLength: 15 }), Type.Null()])),
  ...prefixedFields('billing'),
  ...prefixedFields('shipping'),
});
