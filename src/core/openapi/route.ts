import { PublicPolicy } from '../policies';
import { Reply, route, type RouteDef, type RouteRegistry } from '../routes';
import { buildOpenApiDocument, type OpenApiDocument } from './document';

const DESCRIPTION =
  'Money is integer cents; timestamps are UTC `YYYY-MM-DD HH:MM:SS`; lists answer `{current_page, data, per_page, total, last_page, from, to}`. ' +
  'Each route answers errors in its own envelope (see its description). Generated from the route declarations.';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every route mounted in `namespace` with `registry` (this one
 * included). Built on the first request, once all routes are mounted, and kept for the life of the process.
 */
export function openApiRoute(registry: RouteRegistry, namespace: string): RouteDef {
  let document: OpenApiDocument | null = null;
  return route({
    method: 'GET',
    path: '/openapi.json',
    policy: PublicPolicy,
    permission: 'public',
    envelope: 'message',
    handler: async (ctx) => {
      document ??= buildOpenApiDocument(namespace, registry.routes(namespace), {
        title: 'Store REST API',
        version: ctx.host.manifest.version,
        description: DESCRIPTION,
      });
      return new Reply(document, 200, { 'Cache-Control': 'public, max-age=300' });
    },
  });
}
