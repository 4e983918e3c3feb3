import { AdminPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { markTaxesFiled } from './filing';
import { listTaxRecords } from './list';
import { MarkFiledBody, TaxListQuery } from './schemas';

/** Spec: "Tax filing (prefix /taxes, policy AdminPolicy)": read with `orders/view`, marked filed with `orders/manage`. */
export const taxFilingRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/taxes',
    policy: AdminPolicy,
    permission: 'orders/view',
    schema: { query: TaxListQuery },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ taxes: await listTaxRecords(ctx, query) }),
  }),
  route({
    method: 'POST',
    path: '/taxes',
    policy: AdminPolicy,
    permission: 'orders/manage',
    schema: { body: MarkFiledBody },
    envelope: 'message',
    handler: (ctx, { body }) => markTaxesFiled(ctx, body),
  }),
];
