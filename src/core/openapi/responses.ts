import type { Envelope } from '../envelopes';
import { ENVELOPE_SCHEMAS, schemaRef } from './components';
import type { JsonSchema } from './schema';

/** The error answers the route machinery gives (`routes.ts`, `envelopes.ts`), in the envelopes of the route's variants. */
const KINDS = {
  BadRequest: {
    description:
      'A request that cannot be read (`rest_invalid_request`: bad percent-encoding, a query or body beyond its limits; `rest_invalid_json`), or one not possible now.',
    schema: 'error',
  },
  Unauthorized: { description: 'Not logged in (no or wrong credentials): `rest_forbidden`.', schema: 'denied' },
  Forbidden: { description: 'Logged in without the permission (`rest_forbidden`), or a cookie request with a wrong nonce.', schema: 'denied' },
  NotFound: { description: 'A record the request names was not found.', schema: 'error' },
  Conflict: { description: 'The Idempotency-Key was used for another request, or its first request is still running.', schema: 'error' },
  PayloadTooLarge: { description: 'The body is larger than 2 MB after decompression (`rest_request_too_large`).', schema: 'error' },
  UnsupportedMediaType: {
    description: 'A body that is not UTF-8 JSON or form-encoded, or an unsupported Content-Encoding (`rest_invalid_request`).',
    schema: 'error',
  },
  ValidationFailed: { description: 'Invalid input: `{field: {rule: message}}`.', schema: 'validation' },
  ServerError: { description: 'An unexpected failure (the detail goes to the log only).', schema: 'error' },
} as const;

export type ResponseKind = keyof typeof KINDS;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const either = (schemas: JsonSchema[]): JsonSchema => (schemas.length === 1 ? schemas[0] : { anyOf: schemas });
const pascal = (word: string) => word[0].toUpperCase() + word.slice(1);

/** `components.responses`: each kind of answer once per combination of envelopes, referenced by the operations. */
export class ResponseCatalogue {
  private readonly components: Record<string, unknown> = {
    Success: { description: 'Success.', content: { 'application/json': {} } },
    TooManyRequests: {
      description: 'Too many requests; retry after `Retry-After` seconds.',
      headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 1 } } },
      content: json(schemaRef('TooManyRequests')),
    },
  };

  ref(kind: ResponseKind | 'Success' | 'TooManyRequests', envelopes: Envelope[] = []): { $ref: string } {
    const name = `${kind}${envelopes.map(pascal).join('')}`;
    if (!(name in this.components) && kind !== 'Success' && kind !== 'TooManyRequests') {
      const { description, schema } = KINDS[kind];
      const errors = envelopes.map((envelope) => schemaRef(ENVELOPE_SCHEMAS[envelope].error));
      const schemas = {
        error: errors,
        denied: [schemaRef('RestError'), ...errors],
        validation: envelopes.map((envelope) => schemaRef(ENVELOPE_SCHEMAS[envelope].validation)),
      }[schema];
      this.components[name] = { description, content: json(either(schemas)) };
    }
    return { $ref: `#/components/responses/${name}` };
  }

  /** A referenced response as an inline one that also allows `schema`: for answers a route gives outside its envelope. */
  widen(ref: { $ref: string } | undefined, description: string, schema: JsonSchema): unknown {
    const base = ref
      ? (this.components[ref.$ref.split('/').pop() ?? ''] as { description: string; content: Record<string, { schema: JsonSchema }> })
      : undefined;
    const baseSchema = base?.content['application/json'].schema;
    const schemas = baseSchema ? [...((baseSchema.anyOf as JsonSchema[] | undefined) ?? [baseSchema]), schema] : [schema];
    return { description: base ? `${base.description} Or: ${description}` : description, content: json(either(schemas)) };
  }

  /** The responses used, sorted by name. */
  all(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.components).sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}
