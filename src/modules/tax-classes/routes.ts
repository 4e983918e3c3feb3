import { StoreSensitivePolicy, StoreSettingsPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { IdParams } from '../../core/schema';
import { TaxClassBody } from './schemas';
import { createTaxClass, deleteTaxClass, getTaxClasses } from './service';

/** Tax classes: read with `store/settings`, written with `store/sensitive`. */
export const taxClassRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/tax/classes',
    policy: StoreSettingsPolicy,
    permission: 'store/settings',
    envelope: 'message',
    handler: (ctx) => getTaxClasses(ctx),
  }),
  route({
    method: 'POST',
    path: '/tax/classes',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { body: TaxClassBody },
    envelope: 'message',
    handler: async (ctx, { body }) => ({ class: await createTaxClass(ctx, body), message: 'Tax class created successfully' }),
  }),
  route({
    method: 'DELETE',
    path: '/tax/classes/:id',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    schema: { params: IdParams },
    envelope: 'message',
    handler: async (ctx, { params }) => {
      await deleteTaxClass(ctx, params.id);
      return { message: 'Tax class deleted successfully' };
    },
  }),
];
