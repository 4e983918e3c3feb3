/**
 * The tax engine answers the `store/order/tax` filter (every pricing: `POST /orders`, `POST /orders/{id}`, the cart,
 * the checkout summary, place-order), early enough that an extension's filter at the default priority can still
 * adjust the answer. With `tax_enabled` off it keeps the value it is given. The destination follows `tax_based_on`:
 * the shipping address (else the billing one), the billing address (else the shipping one), or the store's address;
 * without any address, the store's. A country whose collection is off (`tax_country_status`) pays no tax.
 */
import type { Host } from '../../host/contract';
import type { OrderTax, OrderTaxContext, TaxAddress } from '../orders/totals';
import { getStoreSettings } from '../settings/store-settings';
import type { StoreSettings } from '../settings/types';
import { calculateTax } from './calculator';
import { transactionOf } from '../../core/db';
import { isTaxCollectionEnabled } from '../tax-rates/country-status';
import { categoryOverrides, countryRates, productCategories, taxClasses } from './loader';
import { matchOverrides, matchRates } from './location';

/** Runs before the default priority (10), so extensions see and may change the engine's answer. */
const TAX_ENGINE_PRIORITY = 1;

const given = (address: TaxAddress | null) => (address && address.country.trim() ? address : null);

function taxDestination(settings: StoreSettings, context: Pick<OrderTaxContext, 'billing_address' | 'shipping_address'>): TaxAddress {
  const store = { country: settings.store_country, state: settings.store_state, city: settings.store_city, postcode: settings.store_postcode };
  const billing = given(context.billing_address);
  const shipping = given(context.shipping_address);
  const chosen = settings.tax_based_on === 'store' ? null : settings.tax_based_on === 'billing' ? (billing ?? shipping) : (shipping ?? billing);
  const address = chosen ?? store;
  return { ...address, country: address.country.trim().toUpperCase() };
}

async function taxOrder(host: Host, incoming: OrderTax, context: OrderTaxContext): Promise<OrderTax> {
  const { db } = context;
  const settings = await getStoreSettings(host, transactionOf(db));
  if (!settings.tax_enabled) return incoming;
  const destination = taxDestination(settings, context);
  const untaxed: OrderTax = {
    tax_total: 0,
    shipping_tax: 0,
    inclusive: settings.prices_include_tax,
    lines: context.items.map((item) => ({ cart_index: item.cart_index, tax_amount: 0 })),
    rates: [],
    tax_country: destination.country,
  };
  if (!(await isTaxCollectionEnabled(host, destination.country, transactionOf(db)))) return untaxed;
  const rates = matchRates(await countryRates(db, destination.country), destination);
  const overrides = matchOverrides(await categoryOverrides(db), destination);
  if (!rates.length && !overrides.length) return untaxed;

  const categories = overrides.length
    ? await productCategories(db, [...new Set(context.items.flatMap((item) => (item.product_id === null ? [] : [item.product_id])))])
    : new Map<number, number[]>();
  return calculateTax({
    prices_include_tax: settings.prices_include_tax,
    rounding: settings.tax_rounding,
    country: destination.country,
    classes: await taxClasses(db),
    lines: context.items.map((item) => ({
      cart_index: item.cart_index,
      amount: item.taxable,
      tax_class: item.tax_class,
      category_ids: item.product_id === null ? [] : (categories.get(item.product_id) ?? []),
    })),
    shipping: { amount: context.shipping_total, tax_class: settings.shipping_tax_class },
    rates,
    overrides,
  });
}

export function registerTaxEngine(host: Host): void {
  host.hooks.addFilter('store/order/tax', (tax, context) => taxOrder(host, tax, context), { priority: TAX_ENGINE_PRIORITY });
}
