import { StoreSensitivePolicy, StoreSettingsPolicy } from '../../core/policies';
import { IdParams } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { setCountryStatus } from './country-status';
import { CountryParams, CountryRatesQuery, CountryStatusBody, RateBody, ShippingOverrideBody } from './schemas';
import { countryRates, createRate, deleteRate, deleteShippingOverride, listRatesByRegion, saveShippingOverride, updateRate } from './service';

const read = { policy: StoreSettingsPolicy, permission: 'store/settings', envelope: 'message' } as const;
const write = { policy: StoreSensitivePolicy, permission: 'store/sensitive', envelope: 'message' } as const;

/** Tax rates by region and country, country collection status, and shipping overrides: read with `store/settings`, written with `store/sensitive`. */
export const taxRateRoutes: RouteDef[] = [
  route({
    ...read,
    method: 'GET',
    path: '/tax/rates',
    handler: async (ctx) => ({ tax_rates: await listRatesByRegion(ctx) }),
  }),
  route({
    ...read,
    method: 'GET',
    path: '/tax/rates/country/rates/:country_code',
    schema: { params: CountryParams, query: CountryRatesQuery },
    handler: (ctx, { params, query }) => countryRates(ctx, params.country_code, query.class_id),
  }),
  route({
    ...write,
    method: 'POST',
    path: '/tax/country-status/:country_code',
    schema: { params: CountryParams, body: CountryStatusBody },
    handler: async (ctx, { params, body }) => {
      const { enabled, message } = await setCountryStatus(ctx, params.country_code, body.enabled === 1 || body.enabled === '1' ? 1 : 0);
      return { enabled, message };
    },
  }),
  route({
    ...write,
    method: 'POST',
    path: '/tax/country/rate',
    schema: { body: RateBody },
    handler: async (ctx, { body }) => ({ tax_rate: await createRate(ctx, body), message: 'Tax rate has been created successfully' }),
  }),
  route({
    ...write,
    method: 'PUT',
    path: '/tax/country/rate/:id',
    schema: { params: IdParams, body: RateBody },
    handler: async (ctx, { params, body }) => ({ tax_rate: await updateRate(ctx, params.id, body), message: 'Tax rate has been updated successfully' }),
  }),
  route({
    ...write,
    method: 'DELETE',
    path: '/tax/country/rate/:id',
    schema: { params: IdParams },
    handler: async (ctx, { params }) => {
      await deleteRate(ctx, params.id);
      return { message: 'Tax rate has been deleted successfully' };
    },
  }),
  route({
    ...write,
    method: 'POST',
    path: '/tax/rates/country/override',
    schema: { body: ShippingOverrideBody },
    handler: async (ctx, { body }) => {
      await saveShippingOverride(ctx, Number(body.id), body.override_tax_rate);
      return { message: 'Tax override has been saved successfully' };
    },
  }),
  route({
    ...write,
    method: 'DELETE',
    path: '/tax/rates/country/override/:id',
    schema: { params: IdParams },
    handler: async (ctx, { params }) => {
      await deleteShippingOverride(ctx, params.id);
      return { message: 'Shipping override has been deleted successfully' };
    },
  }),
];
