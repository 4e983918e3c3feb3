import type { Ctx } from '../../core/context';
import { ReportPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';

/** A report: `GET /reports/<path>` answered by `service(ctx, query)`; bad parameters are 422 `{message, errors}`. */
export const reportRoute = (path: string, service: (ctx: Ctx, query: Record<string, unknown>) => Promise<unknown>): RouteDef =>
  route({
    method: 'GET',
    path: `/reports/${path}`,
    policy: ReportPolicy,
    permission: 'reports/view',
    envelope: 'message',
    handler: (ctx, { query }) => service(ctx, query as Record<string, unknown>),
  });
