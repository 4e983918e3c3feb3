import fc from 'fast-check';
import qs from 'qs';
import {
  AUTH_TWISTS,
  BAD_IDS,
  BODY_TWISTS,
  HOSTILE_SHAPES,
  hostileValue,
  INVALID_JSON,
  METHODS,
  RAW_QUERY_FRAGMENTS,
  type AuthTwist,
  type BodyTwist,
} from './hostile-values';
import { authHeaders, type Credentials } from './credentials';
import { nestedArrays, nestedObjects, objectWith, RawJson, toJsonText, withRawAsText } from './json-text';
import type { FuzzTarget } from './route-targets';
import { extraKey, fieldSites, hostileFor, MISSING, validValue, type JsonSchema } from './schema-arbitrary';

export const CALLERS = ['admin', 'shopper-app', 'shopper-cookie', 'anonymous'] as const;
export type Caller = (typeof CALLERS)[number];

type Part = 'query' | 'body';
type Path = Array<string | number>;

/** One way a request is broken. A case carries one to three. */
export type Mutation =
  | { kind: 'field'; part: Part; path: Path; value: unknown }
  | { kind: 'extra'; part: Part; path: Path; key: string; value: unknown }
  | { kind: 'whole-body'; value: unknown }
  | { kind: 'path-id'; param: string; segment: string }
  | { kind: 'raw-query'; fragment: string }
  | { kind: 'body'; twist: BodyTwist; raw?: string }
  | { kind: 'auth'; twist: AuthTwist }
  | { kind: 'method'; method: string };

/** A generated request, before credentials: what fast-check shrinks. */
export interface FuzzCase {
  target: FuzzTarget;
  caller: Caller;
  namespace: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  mutations: Mutation[];
}

/** The request on the wire. */
export interface HttpRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_BODY = 2 * 1024 * 1024;

function objectSites(schema: JsonSchema | undefined): Path[] {
  return [
    [],
    ...fieldSites(schema)
      .filter((site) => site.schema.type === 'object' || site.schema.anyOf?.some((b) => b.type === 'object'))
      .map((s) => s.path),
  ];
}

function fieldMutation(part: Part, schema: JsonSchema | undefined): fc.Arbitrary<Mutation> | null {
  const sites = fieldSites(schema);
  if (!sites.length) return null;
  const room = part === 'body' ? 'body' : 'url';
  return fc.oneof(...sites.map((site) => hostileFor(site.schema, room).map((value): Mutation => ({ kind: 'field', part, path: site.path, value }))));
}

function extraMutation(part: Part, schema: JsonSchema | undefined): fc.Arbitrary<Mutation> {
  const room = part === 'body' ? 'body' : 'url';
  return fc.record({
    kind: fc.constant('extra' as const),
    part: fc.constant(part),
    path: fc.constantFrom(...objectSites(schema)),
    key: extraKey(schema),
    value: hostileValue(room),
  });
}

const bodyMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BODY_TWISTS).map((twist): Mutation => ({ kind: 'body', twist })) },
  { weight: 2, arbitrary: fc.constantFrom(...INVALID_JSON).map((raw): Mutation => ({ kind: 'body', twist: 'invalid-json', raw })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('1', '"x"', 'null', 'true', '[]', '[{}]').map((raw): Mutation => ({ kind: 'body', twist: 'top-level-scalar', raw })),
  },
);

/** The mutations that make sense for a route: its declared fields, its path parameters, its body, its credentials. */
export function mutationFor(target: FuzzTarget): fc.Arbitrary<Mutation> {
  const mutating = MUTATING.has(target.method);
  const input = target.input ?? {};
  const options: Array<fc.WeightedArbitrary<Mutation>> = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Mutation> | null) => {
    if (arbitrary && weight > 0) options.push({ weight, arbitrary });
  };
  add(12, fieldMutation('body', input.body));
  add(6, fieldMutation('query', input.query));
  add(mutating ? 4 : 0, extraMutation('body', input.body));
  add(2, extraMutation('query', input.query));
  add(
    mutating ? 2 : 0,
    fc.constantFrom(...HOSTILE_SHAPES).map((value): Mutation => ({ kind: 'whole-body', value })),
  );
  add(
    6,
    target.params.length
      ? fc.record({ kind: fc.constant('path-id' as const), param: fc.constantFrom(...target.params), segment: fc.constantFrom(...BAD_IDS) })
      : null,
  );
  add(
    2,
    fc.constantFrom(...RAW_QUERY_FRAGMENTS).map((fragment): Mutation => ({ kind: 'raw-query', fragment })),
  );
  add(mutating ? 4 : 0, bodyMutation);
  add(
    4,
    fc.constantFrom(...AUTH_TWISTS).map((twist): Mutation => ({ kind: 'auth', twist })),
  );
  add(
    1,
    fc.constantFrom(...METHODS.filter((m) => m !== target.method)).map((method): Mutation => ({ kind: 'method', method })),
  );
  return fc.oneof(...options);
}

function paramsFor(target: FuzzTarget): fc.Arbitrary<Record<string, string>> {
  const props = target.input?.params?.properties ?? {};
  return fc.record(
    Object.fromEntries(target.params.map((name) => [name, validValue(props[name] ?? { type: 'integer', minimum: 1 }, name).map((v) => String(v))])),
  ) as fc.Arbitrary<Record<string, string>>;
}

function caseFor(target: FuzzTarget): fc.Arbitrary<FuzzCase> {
  return fc.record({
    target: fc.constant(target),
    caller: fc.oneof({ weight: 5, arbitrary: fc.constant<Caller>('admin') }, { weight: 3, arbitrary: fc.constantFrom<Caller>(...CALLERS.slice(1)) }),
    namespace: target.aliases.length
      ? fc.oneof({ weight: 9, arbitrary: fc.constant(target.namespace) }, { weight: 1, arbitrary: fc.constantFrom(...target.aliases) })
      : fc.constant(target.namespace),
    params: paramsFor(target),
    query: (target.input?.query ? validValue(target.input.query) : fc.constant({})) as fc.Arbitrary<Record<string, unknown>>,
    body: target.input?.body ? validValue(target.input.body) : fc.constant(undefined),
    mutations: fc.array(mutationFor(target), { minLength: 1, maxLength: 3 }),
  });
}

/** A request to any route, each route as likely: valid values from its schemas, then one to three mutations. */
export function fuzzCase(targets: FuzzTarget[]): fc.Arbitrary<FuzzCase> {
  return fc.oneof(...targets.map(caseFor));
}

/* ------------------------------------------------------------------ materialising */

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RawJson);
}

/** A copy of `value` with the path set (or removed, for MISSING); containers on the way are copied, or created. */
function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (!path.length) return replacement === MISSING ? undefined : replacement;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const array = Array.isArray(value) ? [...value] : [];
    array[head] = setAt(array[head], rest, replacement);
    return array;
  }
  const object = isObject(value) ? objectWith(Object.entries(value)) : {};
  const next = setAt(object[head], rest, replacement);
  if (next === undefined) delete object[head];
  else Object.defineProperty(object, head, { value: next, enumerable: true, writable: true, configurable: true });
  return object;
}

const INVALID_UTF8 = Buffer.from([0xff, 0xfe, 0xc3, 0x28]);

/** The body on the wire and its headers, as the twist says. */
function bodyBytes(body: unknown, twist: BodyTwist, raw: string | undefined): { bytes: Buffer; headers: Record<string, string> } {
  const json = toJsonText(body ?? {});
  const asJson = (text: string | Buffer, extra: Record<string, string> = {}) => ({
    bytes: Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'),
    headers: { 'Content-Type': 'application/json', ...extra },
  });
  switch (twist) {
    case 'json':
      return asJson(json);
    case 'invalid-json':
    case 'top-level-scalar':
      return asJson(raw ?? '{');
    case 'form':
      return {
        bytes: Buffer.from(qs.stringify(withRawAsText(body ?? {}), { arrayFormat: 'brackets' })),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      };
    case 'text-plain':
      return { bytes: Buffer.from(json), headers: { 'Content-Type': 'text/plain' } };
    case 'no-content-type':
      return { bytes: Buffer.from(json), headers: {} };
    case 'xml':
      return {
        bytes: Buffer.from('<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>'),
        headers: { 'Content-Type': 'application/xml' },
      };
    case 'multipart':
      return {
        bytes: Buffer.from('--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n--x--\r\n'),
        headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
      };
    case 'encoding-x-foo':
      return asJson(json, { 'Content-Encoding': 'x-foo' });
    case 'gzip-label':
      return asJson(json, { 'Content-Encoding': 'gzip' });
    case 'deflate-label':
      return asJson(json, { 'Content-Encoding': 'deflate' });
    case 'charset-utf16':
      return { bytes: Buffer.from(json, 'utf16le'), headers: { 'Content-Type': 'application/json; charset=utf-16' } };
    case 'invalid-utf8':
      return asJson(Buffer.concat([Buffer.from(json.replace(/\}$/, json === '{}' ? '"title":"' : ',"title":"')), INVALID_UTF8, Buffer.from('"}')]));
    case 'bom':
      return asJson(`\ufeff${json}`);
    case 'empty':
      return asJson('');
    case 'too-large':
      return asJson(`{"title":"${'a'.repeat(MAX_BODY)}"}`);
    case 'deep-array':
      return asJson(nestedArrays(100_000).text);
    case 'deep-object':
      return asJson(nestedObjects(20_000).text);
  }
}

/** The request on the wire for a case, with the caller's current credentials. */
export function materialize(fuzzCase: FuzzCase, creds: Credentials): HttpRequest {
  const { target } = fuzzCase;
  let query: unknown = fuzzCase.query;
  let body: unknown = fuzzCase.body;
  let method: string = target.method;
  let twist: { twist: BodyTwist; raw?: string } | null = body === undefined ? null : { twist: 'json' };
  const twists: AuthTwist[] = [];
  const badSegments: Record<string, string> = {};
  const rawQuery: string[] = [];
  for (const mutation of fuzzCase.mutations) {
    switch (mutation.kind) {
      case 'field':
        if (mutation.part === 'query') query = setAt(query, mutation.path, mutation.value);
        else body = setAt(body ?? {}, mutation.path, mutation.value);
        break;
      case 'extra':
        if (mutation.part === 'query') query = setAt(query, [...mutation.path, mutation.key], mutation.value);
        else body = setAt(body ?? {}, [...mutation.path, mutation.key], mutation.value);
        break;
      case 'whole-body':
        body = mutation.value;
        twist ??= { twist: 'json' };
        break;
      case 'path-id':
        badSegments[mutation.param] = mutation.segment;
        break;
      case 'raw-query':
        rawQuery.push(mutation.fragment);
        break;
      case 'body':
        twist = { twist: mutation.twist, raw: mutation.raw };
        break;
      case 'auth':
        twists.push(mutation.twist);
        break;
      case 'method':
        method = mutation.method;
        break;
    }
  }
  const headers = authHeaders(fuzzCase.caller, twists, creds, rawQuery);
  const segments = target.path.replace(/:([^/]+)/g, (_, name: string) => badSegments[name] ?? encodeURIComponent(fuzzCase.params[name]));
  const search = [qs.stringify(withRawAsText(query ?? {}), { arrayFormat: 'brackets' }), ...rawQuery].filter(Boolean).join('&');
  const path = `/wp-json/${fuzzCase.namespace}${segments === '/' ? '' : segments}${search ? `?${search}` : ''}`;
  if (!twist || method === 'GET' || method === 'OPTIONS') return { method, path, headers };
  const wire = bodyBytes(body, twist.twist, twist.raw);
  return { method, path, headers: { ...headers, ...wire.headers }, body: wire.bytes };
}

/* ------------------------------------------------------------------ describing */

/** A value as JSON text, long strings cut: how a failing request is printed. */
export function preview(value: unknown, max = 300): string {
  if (value === MISSING) return '(missing)';
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : toJsonText(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

export function describeMutation(mutation: Mutation): string {
  switch (mutation.kind) {
    case 'field':
      return `${mutation.part}.${mutation.path.join('.')} = ${preview(mutation.value, 80)}`;
    case 'extra':
      return `${mutation.part}.${[...mutation.path, preview(mutation.key, 40)].join('.')} added = ${preview(mutation.value, 80)}`;
    case 'whole-body':
      return `body = ${preview(mutation.value, 80)}`;
    case 'path-id':
      return `path :${mutation.param} = ${mutation.segment.slice(0, 40)}`;
    case 'raw-query':
      return `query += ${mutation.fragment.slice(0, 60)}`;
    case 'body':
      return `body sent as ${mutation.twist}${mutation.raw !== undefined ? ` ${JSON.stringify(mutation.raw)}` : ''}`;
    case 'auth':
      return `credentials: ${mutation.twist}`;
    case 'method':
      return `method ${mutation.method}`;
  }
}

/** The request as sent, for replaying by hand: request line, headers, body (cut when long). */
export function describeRequest(request: HttpRequest): string {
  const lines = [`${request.method} ${request.path.length > 2000 ? `${request.path.slice(0, 2000)}… (${request.path.length} characters)` : request.path}`];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`${name}: ${value.length > 200 ? `${value.slice(0, 200)}… (${value.length} characters)` : value}`);
  if (request.body) {
    const text = request.body.toString('utf8');
    const shown = text.length > 2000 ? `${text.slice(0, 2000)}… (${request.body.length} bytes)` : text;
    lines.push(
      '',
      /^[\x20-\x7e\s]*$/.test(shown)
        ? shown
        : `${JSON.stringify(shown)}   (as a JS string; base64: ${request.body.length > 2000 ? '(long)' : request.body.toString('base64')})`,
    );
  }
  return lines.join('\n');
}
