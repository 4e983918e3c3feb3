import { StoreSensitivePolicy, StoreSettingsPolicy } from '../../core/policies';
import { IdParams } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { CountryParams, OverrideBody } from './schemas';
import { deleteOverride, listOverrides, saveOverride } from './service';

/** Product-category tax overrides: read with `store/settings`, written with `store/sensitive`. */
export const taxOverrideRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/tax/product-overrides/:country_code',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    schema: { params: CountryParams },
    envelope: 'message',
    handler: async (ctx, { params }) => ({ overrides: await listOverrides(ctx, params.country_code) }),
  }),
  route({
    method: 'POST',
    path: '/tax/product-overrides',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { body: OverrideBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ override: await saveOverride(ctx, body), message: 'Tax override has been saved successfully' }),
  }),
  route({
    method: 'DELETE',
    path: '/tax/product-overrides/override/:id',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteOverride(ctx, params.id);
      return { message: 'Tax override has been deleted successfully' };
    },
  }),
];
