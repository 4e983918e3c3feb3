import type { Knex } from 'knex';
import countries from 'i18n-iso-countries';
import type { Static } from '@sinclair/typebox';
import type { Host } from '../../host/contract';
import { transaction, type Ctx } from '../../core/context';
import { retryOnLockConflict } from '../../core/db';
import { fail, type FieldErrors } from '../../core/errors';
import { recordActivity } from '../activities/service';
import { missingTaxClassSlugs } from '../tax-classes/lookup';
import type { StoreSettingsPatch } from './schemas';
import { CHECKOUT_FIELDS, type CheckoutField, type FieldRule, type StoreSettings } from './types';

declare module '../../host/contract' {
  interface OptionMap {
    store_settings: Partial<StoreSettings>;
  }
}

const OPTIONAL: FieldRule = { enabled: true, required: false };
const REQUIRED: FieldRule = { enabled: true, required: true };

export const DEFAULT_STORE_SETTINGS: StoreSettings = {
  store_name: 'My Store',
  store_logo: '',
  store_address_1: '',
  store_address_2: '',
  store_city: '',
  store_state: '',
  store_postcode: '',
  store_country: 'US',
  currency: 'USD',
  currency_position: 'before',
  thousand_separator: ',',
  decimal_separator: '.',
  decimals: 2,
  name_mode: 'separate',
  checkout_fields: {
    ...(Object.fromEntries(CHECKOUT_FIELDS.map((f) => [f, OPTIONAL])) as Record<CheckoutField, FieldRule>),
    billing_address_1: REQUIRED,
    billing_city: REQUIRED,
    billing_postcode: REQUIRED,
  },
  terms_enabled: false,
  terms_url: '',
  account_creation: 'user_choice',
  invoice_prefix: 'INV-',
  min_receipt_number: 1,
  early_payment_enabled: false,
  vendor_id_editing_enabled: false,
  orders_per_page: 10,
  customers_per_page: 10,
  subscriptions_per_page: 10,
  unpaid_order_ttl_minutes: 60,
  tax_enabled: true,
  prices_include_tax: false,
  tax_based_on: 'shipping',
  tax_rounding: 'line',
  shipping_tax_class: 'standard',
  store_vat_number: '',
};

/** The store settings: what is saved, over the defaults. */
const withDefaults = (saved: Partial<StoreSettings>): StoreSettings => ({
  ...DEFAULT_STORE_SETTINGS,
  ...saved,
  checkout_fields: { ...DEFAULT_STORE_SETTINGS.checkout_fields, ...saved.checkout_fields },
});

export async function getStoreSettings(host: Host, via?: Knex.Transaction): Promise<StoreSettings> {
  return withDefaults(await host.options.get('store_settings', {}, via));
}

/** Whether the subscription vendor-id endpoints are on: the setting, through `store/subscription/vendor_id_editing_enabled`. */
export async function vendorIdEditingEnabled(ctx: Ctx): Promise<boolean> {
  const { vendor_id_editing_enabled } = await getStoreSettings(ctx.host);
  return ctx.hooks.applyFilters('store/subscription/vendor_id_editing_enabled', vendor_id_editing_enabled);
}

function check(settings: StoreSettings): FieldErrors {
  const errors: FieldErrors = {};
  if (!countries.isValid(settings.store_country)) errors.store_country = { country: 'The store country field must be a valid ISO 3166-1 alpha-2 code.' };
  if (!Intl.supportedValuesOf('currency').includes(settings.currency)) errors.currency = { currency: 'The currency field must be a valid ISO 4217 code.' };
  if (settings.thousand_separator === settings.decimal_separator) {
    errors.decimal_separator = { different: 'The decimal separator must differ from the thousand separator.' };
  }
  if (settings.terms_enabled && !settings.terms_url) errors.terms_url = { required: 'The terms url field is required when terms acceptance is enabled.' };
  for (const [field, rule] of Object.entries(settings.checkout_fields)) {
    if (rule.required && !rule.enabled) errors[`checkout_fields.${field}`] = { enabled: 'A required checkout field must be enabled.' };
  }
  return errors;
}

/** The rules that read the database: the shipping tax class must be a class (held until the save commits, see `missingTaxClassSlugs`). */
async function checkReferences(trx: Knex.Transaction, settings: StoreSettings): Promise<FieldErrors> {
  const missing = await missingTaxClassSlugs(trx, [settings.shipping_tax_class]);
  return missing.length ? { shipping_tax_class: { exists: 'The selected shipping tax class is invalid.' } } : {};
}

/** Saves in one transaction with its activity, so that a tax class delete cannot slip between the check and the write. */
export async function saveStoreSettings(ctx: Ctx, patch: Static<typeof StoreSettingsPatch>): Promise<StoreSettings> {
  // Two first saves (no row yet) can deadlock on MariaDB's gap locks: the loser runs again.
  return retryOnLockConflict(() => saveInTransaction(ctx, patch));
}

function saveInTransaction(ctx: Ctx, patch: Static<typeof StoreSettingsPatch>): Promise<StoreSettings> {
  return transaction(ctx, async (trx, afterCommit) => {
    const previous = withDefaults(await ctx.host.options.lock('store_settings', {}, trx));
    const next: StoreSettings = {
      ...previous,
      ...patch,
      store_country: (patch.store_country ?? previous.store_country).toUpperCase(),
      currency: (patch.currency ?? previous.currency).toUpperCase(),
      checkout_fields: { ...previous.checkout_fields, ...patch.checkout_fields },
    };
    const errors = { ...check(next), ...(await checkReferences(trx, next)) };
    if (Object.keys(errors).length) throw fail('validation_error', Object.values(Object.values(errors)[0])[0], { errors });
    const changed = Object.keys(patch).filter(
      (key) => JSON.stringify(previous[key as keyof StoreSettings]) !== JSON.stringify(next[key as keyof StoreSettings]),
    );
    await ctx.host.options.set('store_settings', next, trx);
    await recordActivity(trx, ctx, { object_type: 'settings', object_id: 0, title: 'Store settings updated', content: changed.join(', ') }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/settings/updated', next, previous));
    return next;
  });
}
