import type { TSchema } from '@sinclair/typebox';

/** A plain JSON Schema (2020-12) object, as it appears in the OpenAPI document. */
export type JsonSchema = { [keyword: string]: unknown };

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** Keywords whose value is a map of subschemas (the map's keys are names, not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
/** Keywords whose value is one subschema. */
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems']);
/** Keywords of our own validator (`validate.ts`), not JSON Schema. */
const PRIVATE_KEYWORDS = new Set(['messages']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clean(schema: unknown, where: string): unknown {
  if (typeof schema === 'boolean') return schema;
  if (!isObject(schema)) throw new Error(`${where}: a schema must be an object`);
  // Object.entries skips TypeBox's symbol keys (Kind, OptionalKind, ...).
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (PRIVATE_KEYWORDS.has(keyword)) continue;
    if (keyword === 'type') {
      const unknown = ([] as unknown[]).concat(value).filter((type) => typeof type !== 'string' || !JSON_TYPES.has(type));
      if (unknown.length) throw new Error(`${where}: ${unknown.map((t) => JSON.stringify(t)).join(', ')} is not a JSON Schema type`);
    }
    if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, clean(sub, `${where}.${name}`)]));
    } else if (SCHEMA_VALUES.has(keyword) && (isObject(value) || typeof value === 'boolean')) {
      out[keyword] = clean(value, `${where}.${keyword}`);
    } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) {
      out[keyword] = value.map((sub, i) => clean(sub, `${where}.${keyword}[${i}]`));
    } else {
      out[keyword] = structuredClone(value);
    }
  }
  return out;
}

/**
 * A TypeBox schema as plain JSON Schema: without TypeBox's symbol keys and without our validator's own keywords.
 * A TypeBox type with no JSON Schema form (`Type.Date`, `Type.Undefined`, ...) is an error naming `where`.
 */
export function toJsonSchema(schema: TSchema, where: string): JsonSchema {
  return clean(schema, where) as JsonSchema;
}
