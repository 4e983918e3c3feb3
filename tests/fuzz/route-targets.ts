import Ajv, { type ValidateFunction } from 'ajv';
import type { HttpMethod } from '../../src/host/contract';
import type { JsonSchema } from './schema-arbitrary';

/** What a route takes, as its OpenAPI operation describes it (variants sharing a method and path merged). */
export interface RouteInput {
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
}

/** A mounted endpoint to fuzz: from the discovery index, with its OpenAPI operation when its namespace has one. */
export interface FuzzTarget {
  method: HttpMethod;
  namespace: string;
  /** Other namespaces answering the same routes (`store/v1` for `store/v2`). */
  aliases: string[];
  /** Path inside the namespace, `:name` for parameters. */
  path: string;
  params: string[];
  /** Null for an endpoint no OpenAPI document describes (the host's own): fuzzed without schemas. */
  input: RouteInput | null;
  /** The error bodies the operation documents (component schema names), and a check against them. */
  errors: { names: string[]; accepts(body: unknown): boolean };
  /** Whether a caller without credentials may get an answer (true when no document says). */
  anonymous: boolean;
}

/** The discovery index as `GET /wp-json/` answers it. */
export interface DiscoveryIndex {
  namespaces: string[];
  routes: Record<string, { namespace: string; endpoints: Array<{ methods: HttpMethod[] }> }>;
}

type Ref = { $ref: string };
interface Operation {
  /** `[]` or a `{}` entry: callable without credentials. */
  security?: Array<Record<string, unknown>>;
  parameters?: Array<Ref | { name: string; in: string; required?: boolean; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema | Ref }> };
  responses: Record<string, Ref | { content?: Record<string, { schema: JsonSchema | Ref }> }>;
}

/** The parts of an OpenAPI 3.1 document the fuzzer reads. */
export interface OpenApiDocument {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, { content?: Record<string, { schema: JsonSchema | Ref }> }> };
}

const SCHEMA_REF = '#/components/schemas/';

/** `/orders/(?P<order_id>[\d]+)` → `/orders/:order_id`. */
function templateOf(discoveredPath: string): string {
  return discoveredPath.replace(/\(\?P<([^>]+)>[^)]*\)/g, ':$1');
}

function versionless(namespace: string): string {
  return namespace.replace(/\/v\d+$/, '');
}

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && typeof (value as Ref).$ref === 'string';
}

/** The schema with every `#/components/schemas/…` reference replaced by what it names. */
function resolved(schema: unknown, components: Record<string, JsonSchema>, depth = 0): JsonSchema {
  if (depth > 20) throw new Error('OpenAPI schema references nest too deep');
  if (isRef(schema)) return resolved(components[schema.$ref.slice(SCHEMA_REF.length)], components, depth + 1);
  if (Array.isArray(schema)) return schema.map((item) => resolved(item, components, depth + 1)) as JsonSchema;
  if (typeof schema !== 'object' || schema === null) return schema as JsonSchema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolved(value, components, depth + 1)])) as JsonSchema;
}

function inputOf(operation: Operation, components: Record<string, JsonSchema>): RouteInput {
  const parameters = (operation.parameters ?? []).filter((p): p is Exclude<typeof p, Ref> => !isRef(p));
  const objectOf = (where: string): JsonSchema | undefined => {
    const list = parameters.filter((p) => p.in === where);
    if (!list.length) return undefined;
    return {
      type: 'object',
      properties: Object.fromEntries(list.map((p) => [p.name.replace(/\[\]$/, ''), resolved(p.schema, components)])),
      required: list.filter((p) => p.required).map((p) => p.name.replace(/\[\]$/, '')),
    };
  };
  const body = operation.requestBody?.content['application/json']?.schema;
  return { params: objectOf('path'), query: objectOf('query'), body: body ? resolved(body, components) : undefined };
}

/** Names of the component schemas an operation's 4xx and 5xx answers may take. */
function errorSchemaNames(operation: Operation, document: OpenApiDocument): string[] {
  const names = new Set<string>();
  const collect = (schema: unknown) => {
    if (isRef(schema)) names.add(schema.$ref.slice(SCHEMA_REF.length));
    else if (typeof schema === 'object' && schema !== null) for (const branch of (schema as { anyOf?: unknown[] }).anyOf ?? []) collect(branch);
  };
  for (const [status, answer] of Object.entries(operation.responses)) {
    if (Number(status) < 400) continue;
    const response = isRef(answer) ? document.components.responses[answer.$ref.split('/').pop()!] : answer;
    collect(response?.content?.['application/json']?.schema);
  }
  return [...names].sort();
}

/** Validates bodies against a document's component schemas, each compiled once. */
function errorChecker(document: OpenApiDocument): (names: string[]) => FuzzTarget['errors'] {
  const ajv = new Ajv({ strict: false, validateFormats: false });
  const defs = JSON.parse(JSON.stringify(document.components.schemas).replaceAll(SCHEMA_REF, '#/$defs/')) as Record<string, JsonSchema>;
  const compiled = new Map<string, ValidateFunction>();
  const validator = (name: string) => {
    let validate = compiled.get(name);
    if (!validate) compiled.set(name, (validate = ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` })));
    return validate;
  };
  return (names) => ({ names, accepts: (body) => names.some((name) => validator(name)(body)) });
}

export const NO_ERRORS: FuzzTarget['errors'] = { names: [], accepts: () => false };

/**
 * Every endpoint the running app lists, with the schemas its namespace's OpenAPI document gives it. An operation the
 * index does not list is an error (the fuzzer would silently skip it); an endpoint no document describes is fuzzed
 * without schemas. Namespaces that only alias a documented one (same name, another version) become aliases.
 */
export function fuzzTargets(index: DiscoveryIndex, documents: Record<string, OpenApiDocument>): FuzzTarget[] {
  const targets = new Map<string, FuzzTarget>();
  const documented = Object.keys(documents);
  const aliasOf = (namespace: string) => documented.find((ns) => ns !== namespace && versionless(ns) === versionless(namespace));

  for (const [key, route] of Object.entries(index.routes)) {
    if (aliasOf(route.namespace) && !documents[route.namespace]) continue;
    const path = templateOf(key.slice(route.namespace.length + 1)) || '/';
    const aliases = index.namespaces.filter((ns) => aliasOf(ns) === route.namespace && !documents[ns]);
    const params = [...path.matchAll(/:([^/]+)/g)].map((match) => match[1]);
    for (const method of route.endpoints.flatMap((endpoint) => endpoint.methods)) {
      targets.set(`${method} ${route.namespace}${path}`, {
        method,
        namespace: route.namespace,
        aliases,
        path,
        params,
        input: null,
        errors: NO_ERRORS,
        anonymous: true,
      });
    }
  }
  for (const [namespace, document] of Object.entries(documents)) {
    const errors = errorChecker(document);
    for (const [openApiPath, operations] of Object.entries(document.paths)) {
      const path = openApiPath.replace(/\{([^}]+)\}/g, ':$1');
      for (const [method, operation] of Object.entries(operations)) {
        const target = targets.get(`${method.toUpperCase()} ${namespace}${path}`);
        if (!target) throw new Error(`${method.toUpperCase()} /${namespace}${path} is in the OpenAPI document but not in the discovery index`);
        target.input = inputOf(operation, document.components.schemas);
        target.errors = errors(errorSchemaNames(operation, document));
        target.anonymous = !operation.security || operation.security.length === 0 || operation.security.some((entry) => !Object.keys(entry).length);
      }
    }
  }
  return [...targets.values()];
}

/**
 * The endpoint that answers `target`'s path (its parameters filled with ids) under another method, as the router
 * picks it: literal segments before parameters, left to right. Null when none does (404 `rest_no_route`).
 */
export function answeringTarget(targets: FuzzTarget[], target: FuzzTarget, method: string): FuzzTarget | null {
  if (method === target.method) return target;
  const segments = target.path.split('/');
  const fits = (candidate: FuzzTarget) => {
    const other = candidate.path.split('/');
    return (
      candidate.method === method &&
      candidate.namespace === target.namespace &&
      other.length === segments.length &&
      segments.every((segment, i) => (segment.startsWith(':') ? other[i].startsWith(':') : other[i] === segment || other[i].startsWith(':')))
    );
  };
  const literalFirst = (a: FuzzTarget, b: FuzzTarget) => {
    const [x, y] = [a.path.split('/'), b.path.split('/')];
    const i = x.findIndex((segment, j) => segment.startsWith(':') !== y[j].startsWith(':'));
    return i < 0 ? 0 : x[i].startsWith(':') ? 1 : -1;
  };
  return targets.filter(fits).sort(literalFirst)[0] ?? null;
}
