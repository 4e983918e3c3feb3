import type { TSchema } from '@sinclair/typebox';
import type { HttpMethod } from '../../host/contract';
import type { RouteDef } from '../routes';
import { AUTHENTICATED, ENVELOPE_SCHEMAS, PARAMETERS, SCHEMAS, SECURITY_SCHEMES, schemaRef } from './components';
import { ResponseCatalogue } from './responses';
import { toJsonSchema, type JsonSchema } from './schema';

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
}

/** The parts of an OpenAPI 3.1 document the generator writes; operations are plain JSON. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: OpenApiInfo;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, unknown>;
    parameters: typeof PARAMETERS;
    securitySchemes: typeof SECURITY_SCHEMES;
  };
}

export type Operation = { [field: string]: unknown };

/** OpenAPI's order of operations inside a path item, which the document keeps. */
const METHOD_ORDER: HttpMethod[] = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];
const MUTATING = new Set<HttpMethod>(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');

/** `GET /customers/:customerId/orders` → `getCustomersByCustomerIdOrders`. */
function operationId(method: HttpMethod, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment)));
  return method.toLowerCase() + words.join('');
}

const unique = <T>(items: T[]): T[] => [...new Set(items)];

/** The distinct schemas (by their JSON), as one schema: itself, or `anyOf` them. */
function either(schemas: JsonSchema[]): JsonSchema {
  const distinct = unique(schemas.map((s) => JSON.stringify(s))).map((s) => JSON.parse(s) as JsonSchema);
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}

type ObjectSchema = { properties?: Record<string, TSchema>; required?: string[] };

function partOf(def: RouteDef, part: 'params' | 'query' | 'body'): ObjectSchema | undefined {
  return def.schema?.[part] as ObjectSchema | undefined;
}

function access(def: RouteDef): string {
  const policy = `\`${def.policy.name}\``;
  if (def.permission === 'public') return `\`public\`, no login needed (${policy})`;
  if (def.permission === 'authenticated') return `\`authenticated\`, any logged-in user (${policy})`;
  const permissions = ([] as string[]).concat(def.permission).map((p) => `\`${p}\``);
  return `${permissions.length > 1 ? 'any of the permissions' : 'permission'} ${permissions.join(', ')} (${policy})`;
}

function describeAccess(variants: RouteDef[]): string {
  if (variants.length === 1) return `Access: ${access(variants[0])}. Errors: ${ENVELOPE_SCHEMAS[variants[0].envelope].shape}.`;
  const lines = variants.map((def, i) => `${i + 1}. ${access(def)}; errors: ${ENVELOPE_SCHEMAS[def.envelope].shape}`);
  return ['Variants, tried in order (the first whose policy admits the caller answers):', '', ...lines].join('\n');
}

function pathParameters(path: string, variants: RouteDef[], where: string): Operation[] {
  return path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => {
      const name = segment.slice(1);
      const declared = variants.flatMap((def) => partOf(def, 'params')?.properties?.[name] ?? []);
      const schema = declared.length ? either(declared.map((s) => toJsonSchema(s, `${where} params.${name}`))) : { type: 'string' };
      return { name, in: 'path', required: true, schema };
    });
}

/**
 * Each property of the query schemas is a parameter. Query strings are parsed with qs (`src/host/app.ts`): an array is
 * sent as `name[]=a&name[]=b` (a single `name=a` is accepted too), an object as `name[key]=value` (deepObject).
 */
function queryParameters(variants: RouteDef[], where: string): Operation[] {
  const names = unique(variants.flatMap((def) => Object.keys(partOf(def, 'query')?.properties ?? {})));
  return names.map((name) => {
    const schemas = variants.flatMap((def) => {
      const property = partOf(def, 'query')?.properties?.[name];
      return property ? [toJsonSchema(property, `${where} query.${name}`)] : [];
    });
    const required = variants.every((def) => partOf(def, 'query')?.required?.includes(name) ?? false);
    const type = schemas.every((s) => s.type === 'array') ? 'array' : schemas.every((s) => s.type === 'object') ? 'object' : 'scalar';
    return {
      name: type === 'array' ? `${name}[]` : name,
      in: 'query',
      required,
      style: type === 'object' ? 'deepObject' : 'form',
      explode: true,
      schema: either(schemas),
    };
  });
}

function requestBody(variants: RouteDef[], where: string): { schema: JsonSchema; required: boolean } | null {
  const bodies = variants.flatMap((def) => def.schema?.body ?? []);
  if (!bodies.length) return null;
  const required = bodies.every((body) => ((body as ObjectSchema).required ?? []).length > 0);
  return { schema: either(bodies.map((body) => toJsonSchema(body, `${where} body`))), required };
}

function operation(
  id: string,
  { method, path, variants }: { method: HttpMethod; path: string; variants: RouteDef[] },
  bodySchemas: Record<string, JsonSchema>,
  catalogue: ResponseCatalogue,
): Operation {
  const where = `${method} ${path}`;
  const publicOnly = variants.every((def) => def.policy.requires === 'public');
  const anonymousAllowed = variants.some((def) => def.policy.requires === 'public');
  const idempotent = MUTATING.has(method) && !publicOnly;
  const permissions = unique(variants.flatMap((def) => ([] as string[]).concat(def.permission)));

  const parameters = [
    ...pathParameters(path, variants, where),
    ...queryParameters(variants, where),
    ...(idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];
  const body = requestBody(variants, where);
  if (body) bodySchemas[`${pascal(id)}Body`] = body.schema;
  const hasInput = parameters.length > 0 || body !== null;

  const envelopes = unique(variants.map((def) => def.envelope));
  const responses: Record<number, unknown> = {
    200: catalogue.ref('Success'),
    400: catalogue.ref('BadRequest', envelopes),
    ...(!publicOnly && { 401: catalogue.ref('Unauthorized', envelopes), 403: catalogue.ref('Forbidden', envelopes) }),
    ...((path.includes(':') || MUTATING.has(method)) && { 404: catalogue.ref('NotFound', envelopes) }),
    ...(idempotent && { 409: catalogue.ref('Conflict', envelopes) }),
    ...(MUTATING.has(method) && { 413: catalogue.ref('PayloadTooLarge', envelopes), 415: catalogue.ref('UnsupportedMediaType', envelopes) }),
    ...((hasInput || idempotent) && { 422: catalogue.ref('ValidationFailed', envelopes) }),
    429: catalogue.ref('TooManyRequests'),
    500: catalogue.ref('ServerError', envelopes),
  };
  for (const def of variants) {
    for (const [status, answer] of Object.entries(def.answers ?? {})) {
      if (!answer) continue;
      const name = `${pascal(id)}${status}Answer`;
      bodySchemas[name] = toJsonSchema(answer.schema, `${where} answers.${status}`);
      responses[Number(status)] = catalogue.widen(responses[Number(status)] as { $ref: string } | undefined, answer.description, schemaRef(name));
    }
  }

  return {
    operationId: id,
    description: describeAccess(variants),
    'x-policy': variants.length === 1 ? variants[0].policy.name : variants.map((def) => def.policy.name),
    'x-permission': permissions.length === 1 ? permissions[0] : permissions,
    security: publicOnly ? [] : anonymousAllowed ? [{}, ...AUTHENTICATED] : AUTHENTICATED,
    ...(parameters.length > 0 && { parameters }),
    ...(body && {
      requestBody: {
        required: body.required,
        description:
          'JSON, or form-encoded with qs brackets (`name[]=a&name[]=b`, `name[key]=value`). Form values are text and are coerced to the schema types as query values are; JSON values are taken as sent.',
        content: { [JSON_TYPE]: { schema: schemaRef(`${pascal(id)}Body`) }, [FORM_TYPE]: { schema: schemaRef(`${pascal(id)}Body`) } },
      },
    }),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of one namespace, generated from its mounted route declarations. Declarations sharing a
 * method and path (variants) make one operation. Paths are sorted, so the document does not depend on mount order.
 */
export function buildOpenApiDocument(namespace: string, defs: readonly RouteDef[], info: OpenApiInfo): OpenApiDocument {
  const groups = new Map<string, { method: HttpMethod; path: string; openApiPath: string; variants: RouteDef[] }>();
  for (const def of defs) {
    const key = `${def.method} ${def.path}`;
    const openApiPath = def.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') || '/';
    const group = groups.get(key) ?? { method: def.method, path: def.path, openApiPath, variants: [] };
    group.variants.push(def);
    groups.set(key, group);
  }
  const sorted = [...groups.values()].sort((a, b) =>
    a.openApiPath === b.openApiPath ? METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method) : a.openApiPath < b.openApiPath ? -1 : 1,
  );

  const paths: OpenApiDocument['paths'] = {};
  const bodySchemas: Record<string, JsonSchema> = {};
  const catalogue = new ResponseCatalogue();
  const ids = new Set<string>();
  for (const group of sorted) {
    const id = operationId(group.method, group.path);
    if (ids.has(id)) throw new Error(`OpenAPI: operationId ${id} of ${group.method} ${group.path} is not unique`);
    ids.add(id);
    paths[group.openApiPath] = { ...paths[group.openApiPath], [group.method.toLowerCase()]: operation(id, group, bodySchemas, catalogue) };
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: `/wp-json/${namespace}` }],
    paths,
    components: { schemas: { ...SCHEMAS, ...bodySchemas }, responses: catalogue.all(), parameters: PARAMETERS, securitySchemes: SECURITY_SCHEMES },
  };
}
