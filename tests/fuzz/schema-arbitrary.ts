import fc from 'fast-check';
import { hostileString, hostileValue, PROTOTYPE_KEYS, type Room } from './hostile-values';
import { RawJson } from './json-text';

/** The JSON Schema keywords of the OpenAPI document's path, query and body schemas. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
  maxItems?: number;
}

/** Ids the demo store has: small positive integers. */
const existingId = fc.integer({ min: 1, max: 12 });
const MAX_DEPTH = 4;
/** Characters of a query value that keep a URL well under Node's 16 KB header limit. */
const URL_ROOM = 4000;

function isIdName(name: string): boolean {
  return /(^|_)ids?$|Id$|^(customer|order|product|variation|coupon|label|zone|method|parent)$/.test(name);
}

function typesOf(schema: JsonSchema): string[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function objectSchemaOf(schema: JsonSchema): JsonSchema | undefined {
  if (typesOf(schema).includes('object')) return schema;
  return schema.anyOf?.find((branch) => typesOf(branch).includes('object'));
}

function arraySchemaOf(schema: JsonSchema): JsonSchema | undefined {
  if (typesOf(schema).includes('array')) return schema;
  return schema.anyOf?.find((branch) => typesOf(branch).includes('array'));
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 24, 24));
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity);
  if (schema.format === 'email') return fc.emailAddress().filter(fits);
  if (schema.format === 'uri') return fc.webUrl().filter(fits);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' }).filter(fits);
  return fc.string({ unit: 'grapheme-ascii', minLength, maxLength });
}

function validNumber(schema: JsonSchema, name: string, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? 0;
  if (integer && isIdName(name)) return fc.integer({ min: Math.max(1, Math.ceil(min)), max: Math.max(12, Math.ceil(min)) });
  const max = Math.min(schema.maximum ?? min + 10_000, Number.MAX_SAFE_INTEGER);
  // Amounts are integer cents even where the schema says number: a fraction is one of the mutations, not a base value.
  if (integer || (Number.isInteger(min) && max - min >= 1)) return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function validObject(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  if (depth >= MAX_DEPTH) return fc.constant({});
  const model = Object.fromEntries(Object.entries(properties).map(([key, prop]) => [key, validValue(prop, key, depth + 1)]));
  const record = fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
  const open = schema.patternProperties ? Object.values(schema.patternProperties)[0] : undefined;
  if (!open || Object.keys(properties).length) return record;
  return fc.dictionary(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }), validValue(open, '', depth + 1), { maxKeys: 3 });
}

/** Values that pass the schema (mostly: a valid request gets past validation, so a mutation lands deep in the handler). */
export function validValue(schema: JsonSchema, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) {
    const branches = schema.anyOf.filter((branch) => !typesOf(branch).includes('null'));
    return branches.length ? fc.oneof(...branches.map((branch) => validValue(branch, name, depth))) : fc.constant(null);
  }
  const [type] = typesOf(schema);
  switch (type) {
    case 'object':
      return validObject(schema, depth);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
      return fc.array(validValue(schema.items ?? {}, name, depth + 1), { minLength, maxLength });
    }
    case 'string':
      return validString(schema);
    case 'integer':
      return validNumber(schema, name, true);
    case 'number':
      return validNumber(schema, name, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.oneof(fc.string({ maxLength: 8 }), existingId, fc.boolean());
  }
}

/** A place in a request part where a value can be replaced or removed: `['order_items', 0, 'quantity']`. */
export interface FieldSite {
  path: Array<string | number>;
  schema: JsonSchema;
}

/** Every declared field of a schema, nested objects and first array items included, down to `MAX_DEPTH`. */
export function fieldSites(schema: JsonSchema | undefined, prefix: Array<string | number> = []): FieldSite[] {
  if (!schema || prefix.length >= MAX_DEPTH) return [];
  const out: FieldSite[] = [];
  const object = objectSchemaOf(schema);
  for (const [key, prop] of Object.entries(object?.properties ?? {})) {
    out.push({ path: [...prefix, key], schema: prop }, ...fieldSites(prop, [...prefix, key]));
  }
  const array = arraySchemaOf(schema);
  if (array?.items) out.push({ path: [...prefix, 0], schema: array.items }, ...fieldSites(array.items, [...prefix, 0]));
  return out;
}

/** Just outside what the schema accepts: bounds ± 1, fractions, too long, too many, a near miss of an allowed value. */
function boundaryValues(schema: JsonSchema, room: Room): unknown[] {
  const out: unknown[] = [];
  const types = new Set([...typesOf(schema), ...(schema.anyOf ?? []).flatMap(typesOf)]);
  if (schema.minimum !== undefined) out.push(schema.minimum - 1, schema.minimum - 0.5);
  if (schema.maximum !== undefined) out.push(schema.maximum + 1, schema.maximum + 0.5);
  if (types.has('integer')) out.push(1.5, new RawJson('1.0'), new RawJson('1e400'), new RawJson('9223372036854775808'), '1');
  // A URL has room for about 16 KB (Node's header limit), so longer strings only go into bodies.
  if (schema.maxLength !== undefined && (room === 'body' || schema.maxLength < URL_ROOM)) out.push('x'.repeat(schema.maxLength + 1));
  if (schema.maxLength !== undefined && (room === 'body' || schema.maxLength * 12 < URL_ROOM)) out.push('😀'.repeat(schema.maxLength));
  if (schema.minLength) out.push('x'.repeat(schema.minLength - 1));
  if (schema.maxItems !== undefined) out.push(Array.from({ length: schema.maxItems + 1 }, () => 1));
  if (schema.minItems) out.push([]);
  const allowed = [schema.const, ...(schema.enum ?? []), ...(schema.anyOf ?? []).map((branch) => branch.const)].filter((v) => typeof v === 'string');
  for (const value of allowed.slice(0, 3) as string[]) out.push(value.toUpperCase(), ` ${value}`, `${value}\u0000`, [value]);
  if (allowed.length) out.push(...PROTOTYPE_KEYS);
  return out;
}

/** A sentinel for "leave the field out". */
export const MISSING = Symbol('missing');

/** What to put in a field: missing, null, wrong type, out of range, hostile, or a schema-specific near miss. */
export function hostileFor(schema: JsonSchema, room: Room): fc.Arbitrary<unknown> {
  const boundaries = boundaryValues(schema, room);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(MISSING) },
    { weight: 1, arbitrary: fc.constant(null) },
    ...(boundaries.length ? [{ weight: 3, arbitrary: fc.constantFrom(...boundaries) }] : []),
    { weight: 5, arbitrary: hostileValue(room) },
  );
}

/** Names for extra fields: prototype keys, hostile text, near misses of real field names. */
export function extraKey(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  const known = Object.keys(objectSchemaOf(schema ?? {})?.properties ?? {});
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
    { weight: 2, arbitrary: hostileString('url') },
    ...(known.length ? [{ weight: 1, arbitrary: fc.constantFrom(...known).map((key) => `${key}[]`) }] : []),
  );
}
