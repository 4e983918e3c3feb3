import type { TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { fail, type FieldErrors } from './errors';

/** Added to every number and integer schema when a route's schemas are compiled (see `withSafeNumbers`). */
const SAFE_NUMBER = 'safeNumber';

/** A number the API accepts: finite, exact (at most `Number.MAX_SAFE_INTEGER` in size) and not -0. */
const isSafeNumber = (value: number) => Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER && !Object.is(value, -0);

/**
 * Schemas may carry `messages: {rule: text}` to replace the generated message for one field and rule,
 * e.g. `Type.String({ messages: { required: 'Transaction ID is required' } })`.
 * `strictNumbers` is off because with it ajv lets a coerced `Infinity` (from the text `1e400`) skip every number
 * keyword, `maximum` included; `safeNumber` refuses non-finite, inexact and -0 numbers instead.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    strict: true,
    strictNumbers: false,
    allowUnionTypes: true,
  });
  addFormats(ajv, ['email', 'date', 'date-time', 'uri', 'uuid']);
  ajv.addKeyword({ keyword: 'messages', metaSchema: { type: 'object', additionalProperties: { type: 'string' } } });
  ajv.addKeyword({ keyword: SAFE_NUMBER, type: 'number', schemaType: 'boolean', validate: (_: boolean, value: number) => isSafeNumber(value) });
  return ajv;
}

/** Keywords whose values are data, not schemas; and those whose values map names to schemas. */
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples', 'messages']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** A copy of a (trusted, finite) schema in which every number and integer schema, at any depth, also has `safeNumber`. */
function withSafeNumbers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withSafeNumbers);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withSafeNumbers(sub)]));
    } else copy[key] = DATA_KEYWORDS.has(key) ? value : withSafeNumbers(value);
  }
  const types = ([] as unknown[]).concat((schema as { type?: unknown }).type ?? []);
  // A literal (`const`/`enum`) holds only the values the code wrote.
  const literal = 'const' in schema || 'enum' in schema;
  if (!literal && (types.includes('number') || types.includes('integer'))) copy[SAFE_NUMBER] = true;
  return copy;
}

/** Query strings and path parameters are text, so their types are coerced; JSON bodies are taken as sent. */
const coercing = makeAjv(true);
const strict = makeAjv(false);

export function label(field: string): string {
  const last =
    field
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .pop() ?? field;
  return last.replace(/_/g, ' ');
}

function rule(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'required';
    case 'type': {
      const type = String((error.params as { type: string }).type).split(',')[0];
      return (
        ({ integer: 'integer', number: 'numeric', string: 'string', boolean: 'boolean', array: 'array', object: 'array' } as Record<string, string>)[type] ??
        type
      );
    }
    case 'format':
      return String((error.params as { format: string }).format);
    case 'maxLength':
    case 'maximum':
    case 'maxItems':
      return 'max';
    case 'minLength':
      // An empty string where at least one character is needed is a missing value, as the message says.
      return (error.params as { limit?: number }).limit === 1 ? 'required' : 'min';
    case 'minimum':
    case 'minItems':
      return 'min';
    case 'enum':
    case 'const':
      return 'in';
    case 'pattern':
      return 'regex';
    case 'additionalProperties':
      return 'unknown';
    case SAFE_NUMBER:
      return (error.parentSchema as { type?: unknown } | undefined)?.type === 'integer' ? 'integer' : 'numeric';
    default:
      return error.keyword;
  }
}

function message(error: ErrorObject, field: string, ruleName: string): string {
  const name = label(field);
  const params = error.params as { limit?: number };
  switch (error.keyword) {
    case 'required':
      return `The ${name} field is required.`;
    case 'type':
      return ruleName === 'numeric'
        ? `The ${name} field must be a number.`
        : `The ${name} field must be ${/^[aeiou]/.test(ruleName) ? 'an' : 'a'} ${ruleName}.`;
    case 'format':
      return ruleName === 'email' ? `The ${name} field must be a valid email address.` : `The ${name} field must be a valid ${ruleName}.`;
    case 'maxLength':
      return `The ${name} field must not be greater than ${params.limit} characters.`;
    case 'minLength':
      return params.limit === 1 ? `The ${name} field is required.` : `The ${name} field must be at least ${params.limit} characters.`;
    case 'maximum':
      return `The ${name} field must not be greater than ${params.limit}.`;
    case 'minimum':
      return `The ${name} field must be at least ${params.limit}.`;
    case 'maxItems':
      return `The ${name} field must not have more than ${params.limit} items.`;
    case 'minItems':
      return `The ${name} field must have at least ${params.limit} items.`;
    case 'enum':
    case 'const':
      return `The selected ${name} is invalid.`;
    case 'pattern':
      return `The ${name} field format is invalid.`;
    case 'additionalProperties':
      return `The ${name} field is not recognised.`;
    case SAFE_NUMBER:
      return Object.is(error.data, -0)
        ? `The ${name} field must not be -0.`
        : `The ${name} field must be ${ruleName === 'integer' ? 'an integer' : 'a number'} between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}.`;
    default:
      return `The ${name} field is invalid.`;
  }
}

type MessageSchema = { messages?: Record<string, string>; properties?: Record<string, { messages?: Record<string, string> }> };

/**
 * ajv errors → `{field: {rule: message}}`, the first error of each field, custom messages from the schema. A union
 * (`Type.Union([Type.Literal('a'), Type.Literal('b')], { messages })`) reports its branches' errors first, so the
 * union's own `messages` are consulted when the failing branch has none.
 */
export function toFieldErrors(errors: ErrorObject[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  const unions = new Map<string, MessageSchema>();
  for (const error of errors) {
    if ((error.keyword === 'anyOf' || error.keyword === 'oneOf') && error.parentSchema) unions.set(error.instancePath, error.parentSchema as MessageSchema);
  }
  for (const error of errors) {
    let path = error.instancePath.split('/').filter(Boolean);
    let schema = error.parentSchema as MessageSchema | undefined;
    let union: MessageSchema | undefined = unions.get(error.instancePath);
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      path = [...path, missing];
      schema = schema?.properties?.[missing];
      union = undefined;
    }
    if (error.keyword === 'additionalProperties') {
      path = [...path, (error.params as { additionalProperty: string }).additionalProperty];
      schema = undefined;
      union = undefined;
    }
    if (error.keyword === 'anyOf' && errors.some((e) => e !== error && e.instancePath === error.instancePath)) continue;
    const field = [prefix, ...path].filter(Boolean).join('.') || prefix || 'body';
    if (out[field]) continue;
    const ruleName = rule(error);
    out[field] = { [ruleName]: schema?.messages?.[ruleName] ?? union?.messages?.[ruleName] ?? message(error, field, ruleName) };
  }
  return out;
}

export interface RouteSchemas {
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
}

export interface RouteInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** A form-encoded body is text, coerced like the query; a JSON body is taken as sent. */
  bodyIsForm?: boolean;
}

type Part = keyof RouteSchemas;

/** Compiles a route's schemas once, at start-up; the returned function validates (and coerces) one request. */
export function compileValidator(schemas: RouteSchemas): (input: RouteInput) => RouteInput {
  const compiled: Array<[Part, ValidateFunction]> = [];
  for (const part of ['params', 'query'] as const) {
    const schema = schemas[part];
    if (schema) compiled.push([part, coercing.compile(withSafeNumbers(schema) as TSchema)]);
  }
  const body = schemas.body && (withSafeNumbers(schemas.body) as TSchema);
  const jsonBody = body && strict.compile(body);
  const formBody = body && coercing.compile(body);
  return (input) => {
    const out: RouteInput = { params: { ...input.params }, query: { ...input.query }, body: input.body };
    let errors: FieldErrors = {};
    const validators = compiled.concat(jsonBody && formBody ? [['body', input.bodyIsForm ? formBody : jsonBody]] : []);
    for (const [part, validate] of validators) {
      if (part === 'body' && out.body === undefined) out.body = {};
      if (!validate(out[part])) errors = { ...toFieldErrors(validate.errors ?? []), ...errors };
    }
    if (Object.keys(errors).length) {
      const first = Object.values(errors)[0];
      throw fail('validation_error', Object.values(first)[0], { errors });
    }
    return out;
  };
}
