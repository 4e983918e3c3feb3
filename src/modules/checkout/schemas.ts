import { Type, type Static } from '@sinclair/typebox';
import { Id, oneOf } from '../../core/schema';

export const LoginBody = Type.Object({
  user_login: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  remember_me: Type.Optional(Type.String()),
});

const text = (maxLength = 255) => Type.Optional(Type.String({ maxLength }));

/**
 * `POST /checkout/place-order`: the spec's field table. Which fields are required depends on the store settings (name
 * mode, checkout fields, terms) and on the cart, so the service checks that; the schema checks types and lengths.
 * Other fields a checkout form posts are ignored.
 */
export const PlaceOrderBody = Type.Object({
  /** Empty is not given: a guest is then told it is required, a logged-in user's own email is used anyway. */
  billing_email: Type.Optional(Type.Union([Type.String({ maxLength: 255, format: 'email' }), Type.Literal('')])),
  billing_full_name: text(),
  billing_first_name: text(),
  billing_last_name: text(),
  billing_company_name: text(),
  billing_country: text(45),
  billing_address_1: text(),
  billing_address_2: text(),
  billing_city: text(),
  billing_state: text(),
  billing_postcode: text(45),
  billing_phone: text(45),
  billing_tax_id: text(100),
  billing_address_id: Type.Optional(Id()),
  shipping_address_id: Type.Optional(Id()),
  ship_to_different: Type.Optional(oneOf(['yes', 'no'])),
  shipping_full_name: text(),
  shipping_country: text(45),
  shipping_address_1: text(),
  shipping_address_2: text(),
  shipping_city: text(),
  shipping_state: text(),
  shipping_postcode: text(45),
  shipping_phone: text(45),
  fc_selected_shipping_method: Type.Optional(Id()),
  payment_method: Type.String({ minLength: 1, maxLength: 50 }),
  order_notes: text(200),
  agree_terms: text(10),
  allow_create_account: text(10),
  user_tz: text(50),
  utm_source: text(191),
  utm_medium: text(191),
  utm_campaign: text(191),
  utm_term: text(191),
  utm_content: text(191),
  utm_id: text(191),
});
export type PlaceOrderBody = Static<typeof PlaceOrderBody>;

/** The cart may be named by a query parameter (instant carts) instead of the cookie. */
const cartHash = { fct_cart_hash: Type.Optional(Type.String({ maxLength: 64 })) };

export const PlaceOrderQuery = Type.Object(cartHash);

/** `GET /checkout/get-checkout-summary-view`. */
export const SummaryQuery = Type.Object({ shipping_method_id: Type.Optional(Id()), ...cartHash });

/** `GET /checkout/get-order-info`. */
export const OrderInfoQuery = Type.Object({ method: Type.String({ minLength: 1, maxLength: 50 }) });
