import { Type } from '@sinclair/typebox';
import { CustomerFrontendPolicy, PublicPolicy } from '../../core/policies';
import { hourlyClass } from '../../core/ratelimit';
import { Reply, route, type RouteDef } from '../../core/routes';
import { cartHashOf } from '../cart/current';
import { addCheckoutAddress } from './add-address';
import { countryInfo, shippingChoices } from './choices';
import { COUNTRY_REQUIRED } from './destination';
import { AddAddressBody, AddressSelectParams, AddressSelectQuery, CartQuery, CountryQuery, DestinationQuery } from './schemas';
import { selectAddress } from './select-address';
import { noShippingView, shippingListView } from './shipping';

const NoCountry = Type.Object({ status: Type.Literal(false), message: Type.Literal(COUNTRY_REQUIRED) });
const noCountry = () => new Reply({ status: false, message: COUNTRY_REQUIRED }, 422);
const noCountryAnswer = { 422: { description: 'Neither `country_code` nor `timezone` names a country (a zone such as UTC has none).', schema: NoCountry } };

const NO_ACCOUNT = "You don't have any associated account";
const NoAccount = Type.Object({ message: Type.Literal(NO_ACCOUNT) });

/**
 * The checkout page's views (`PublicPolicy`, errors `{status: 'failed', …}`) and the two cart-bound customer-portal
 * endpoints (`CustomerFrontendPolicy`). The cart is the `fct_cart_hash` query parameter, else the cookie, else the
 * logged-in user's open cart.
 */
export const checkoutViewRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/checkout/get-available-shipping-methods',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: DestinationQuery },
    envelope: 'checkout',
    answers: noCountryAnswer,
    handler: async (ctx, { query, raw }) => {
      const choices = await shippingChoices(ctx, query, cartHashOf(raw.headers, query));
      if (!choices) return noCountry();
      const { country_code, methods } = choices;
      if (!methods.length) return { status: false, country_code, view: noShippingView(ctx, country_code) };
      return { available_shipping_methods: methods, country_code };
    },
  }),
  route({
    method: 'GET',
    path: '/checkout/get-shipping-methods-list-view',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: DestinationQuery },
    envelope: 'checkout',
    answers: noCountryAnswer,
    handler: async (ctx, { query, raw }) => {
      const choices = await shippingChoices(ctx, query, cartHashOf(raw.headers, query));
      if (!choices) return noCountry();
      const { country_code, methods, chosen } = choices;
      if (!methods.length) return { status: false, country_code, view: noShippingView(ctx, country_code) };
      return { data: { status: true, view: await shippingListView(ctx, methods, chosen), country_code } };
    },
  }),
  route({
    method: 'GET',
    path: '/checkout/get-country-info',
    policy: PublicPolicy,
    permission: 'public',
    schema: { query: CountryQuery },
    envelope: 'checkout',
    answers: noCountryAnswer,
    handler: async (_ctx, { query }) => {
      const data = await countryInfo(query);
      return data ? { data } : noCountry();
    },
  }),
  route({
    method: 'GET',
    path: '/customers/:customerAddressId/update-address-select',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { params: AddressSelectParams, query: AddressSelectQuery },
    envelope: 'message',
    rateLimit: hourlyClass('customers', 'update', 'customers/manage'),
    handler: (ctx, { params, query, raw }) => selectAddress(ctx, params.customerAddressId, cartHashOf(raw.headers, query)),
  }),
  route({
    method: 'POST',
    path: '/customers/add-address',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    schema: { query: CartQuery, body: AddAddressBody },
    envelope: 'checkout',
    rateLimit: hourlyClass('customers', 'create', 'customers/manage'),
    answers: { 404: { description: 'The caller has no customer record.', schema: NoAccount } },
    handler: async (ctx, { query, body, raw }) =>
      (await addCheckoutAddress(ctx, body, cartHashOf(raw.headers, query))) ?? new Reply({ message: NO_ACCOUNT }, 404),
  }),
];
