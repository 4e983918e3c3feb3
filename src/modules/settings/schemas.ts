import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { IntegerIn, MAX_ID, oneOf } from '../../core/schema';
import { CHECKOUT_FIELDS } from './types';
const text = (max = 255) => Type.String({ maxLength: max });

const FieldRule = Type.Object({ enabled: Type.Boolean(), required: Type.Boolean() }, { additionalProperties: false });

export const StoreSettingsPatch = Type.Partial(
  Type.Object(
    {
      store_name: Type.String({ minLength: 1, maxLength: 255 }),
      store_logo: text(2048),
      store_address_1: text(),
      store_address_2: text(),
      store_city: text(),
      store_state: text(),
      store_postcode: text(45),
      store_country: Type.String({ minLength: 2, maxLength: 2 }),
      currency: Type.String({ minLength: 3, maxLength: 3 }),
      currency_position: oneOf(['before', 'after', 'before_space', 'after_space']),
      thousand_separator: Type.String({ maxLength: 1 }),
      decimal_separator: Type.String({ minLength: 1, maxLength: 1 }),
      decimals: IntegerIn(0, 2),
      name_mode: oneOf(['full', 'separate']),
      checkout_fields: Type.Partial(
        Type.Object(Object.fromEntries(CHECKOUT_FIELDS.map((f) => [f, FieldRule])) as Record<string, TSchema>, { additionalProperties: false }),
      ),
      terms_enabled: Type.Boolean(),
      terms_url: text(2048),
      account_creation: oneOf(['never', 'user_choice', 'always']),
      invoice_prefix: Type.String({ maxLength: 20, pattern: '^[A-Za-z0-9_#/-]*$' }),
      min_receipt_number: IntegerIn(1, MAX_ID),
      early_payment_enabled: Type.Boolean(),
      vendor_id_editing_enabled: Type.Boolean(),
      orders_per_page: IntegerIn(1, 200),
      customers_per_page: IntegerIn(1, 199),
      subscriptions_per_page: IntegerIn(1, 200),
      unpaid_order_ttl_minutes: IntegerIn(0, 525600),
      tax_enabled: Type.Boolean(),
      prices_include_tax: Type.Boolean(),
      tax_based_on: oneOf(['shipping', 'billing', 'store']),
      tax_rounding: oneOf(['line', 'total']),
      shipping_tax_class: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9_-]+$' }),
      store_vat_number: text(45),
    },
    { additionalProperties: false },
  ),
);

const key = (max = 255) => Type.String({ maxLength: max, pattern: '^[A-Za-z0-9_.\\-]*$' });
const gateway = <F extends TProperties>(fields: F) =>
  Type.Partial(
    Type.Object(
      { enabled: Type.Boolean(), title: Type.String({ minLength: 1, maxLength: 100 }), description: text(500), ...fields },
      { additionalProperties: false },
    ),
  );

export const PaymentSettingsPatch = Type.Object(
  {
    mode: Type.Optional(oneOf(['test', 'live'])),
    gateways: Type.Optional(
      Type.Partial(
        Type.Object(
          {
            stripe: gateway({
              checkout_mode: oneOf(['onsite', 'hosted']),
              test_publishable_key: key(),
              live_publishable_key: key(),
              test_secret_key: key(),
              live_secret_key: key(),
              test_webhook_secret: key(),
              live_webhook_secret: key(),
            }),
            paypal: gateway({
              test_client_id: key(),
              live_client_id: key(),
              test_client_secret: key(),
              live_client_secret: key(),
              test_webhook_id: key(),
              live_webhook_id: key(),
            }),
            cod: gateway({ instructions: text(2000) }),
            bank_transfer: gateway({ instructions: text(2000) }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);
