export type NameMode = 'full' | 'separate';
export type AccountCreation = 'never' | 'user_choice' | 'always';
export type CurrencyPosition = 'before' | 'after' | 'before_space' | 'after_space';

/** Checkout fields whose presence and requirement the store owner chooses. Email and country are always asked. */
export const CHECKOUT_FIELDS = [
  'billing_last_name',
  'billing_company_name',
  'billing_address_1',
  'billing_address_2',
  'billing_city',
  'billing_state',
  'billing_postcode',
  'billing_phone',
  'billing_tax_id',
  'shipping_phone',
  'order_notes',
] as const;
export type CheckoutField = (typeof CHECKOUT_FIELDS)[number];

export interface FieldRule {
  enabled: boolean;
  required: boolean;
}

export interface StoreSettings {
  store_name: string;
  store_logo: string;
  store_address_1: string;
  store_address_2: string;
  store_city: string;
  store_state: string;
  store_postcode: string;
  store_country: string;
  currency: string;
  currency_position: CurrencyPosition;
  thousand_separator: string;
  decimal_separator: string;
  /** Digits after the decimal separator when formatting (amounts are always stored in cents). */
  decimals: number;
  name_mode: NameMode;
  checkout_fields: Record<CheckoutField, FieldRule>;
  terms_enabled: boolean;
  terms_url: string;
  account_creation: AccountCreation;
  invoice_prefix: string;
  min_receipt_number: number;
  early_payment_enabled: boolean;
  vendor_id_editing_enabled: boolean;
  orders_per_page: number;
  customers_per_page: number;
  subscriptions_per_page: number;
  /** Minutes after which an unpaid checkout order (online payment) is canceled and its stock released; 0 = never. */
  unpaid_order_ttl_minutes: number;
  /** Off: no order is taxed, whatever the rates say. */
  tax_enabled: boolean;
  /** Prices (and shipping charges) are entered with the tax in them; the tax is then reported, not added. */
  prices_include_tax: boolean;
  /** Which address decides the tax: the shipping address (the billing one when there is none), the billing address, or the store's. */
  tax_based_on: TaxBasis;
  /** Round each line's tax per rate (`line`), or each rate's tax once for the whole order (`total`). */
  tax_rounding: TaxRounding;
  /** The class whose rates tax shipping (a class slug). */
  shipping_tax_class: string;
  /** Printed on order tax records (`meta.store_vat_number`). */
  store_vat_number: string;
}

export type TaxBasis = 'shipping' | 'billing' | 'store';
export type TaxRounding = 'line' | 'total';

export type StoreMode = 'test' | 'live';

export interface StripeSettings {
  enabled: boolean;
  title: string;
  description: string;
  checkout_mode: 'onsite' | 'hosted';
  test_publishable_key: string;
  live_publishable_key: string;
  test_secret_key: string;
  live_secret_key: string;
  test_webhook_secret: string;
  live_webhook_secret: string;
}

export interface PaypalSettings {
  enabled: boolean;
  title: string;
  description: string;
  test_client_id: string;
  live_client_id: string;
  test_client_secret: string;
  live_client_secret: string;
  test_webhook_id: string;
  live_webhook_id: string;
}

export interface OfflineSettings {
  enabled: boolean;
  title: string;
  description: string;
  instructions: string;
}

export interface PaymentSettings {
  mode: StoreMode;
  gateways: {
    stripe: StripeSettings;
    paypal: PaypalSettings;
    cod: OfflineSettings;
    bank_transfer: OfflineSettings;
  };
}

export type GatewayKey = keyof PaymentSettings['gateways'];

/** Write-only fields: never returned, only whether they are set (`<field>_set`). */
export const SECRET_FIELDS: Record<GatewayKey, string[]> = {
  stripe: ['test_secret_key', 'live_secret_key', 'test_webhook_secret', 'live_webhook_secret'],
  paypal: ['test_client_secret', 'live_client_secret'],
  cod: [],
  bank_transfer: [],
};
