import type { Envelope } from '../envelopes';
import type { JsonSchema } from './schema';

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const text: JsonSchema = { type: 'string' };

/** Each envelope (`envelopes.ts`): its shape in prose, and its component schemas for an error and a validation error (422). */
export const ENVELOPE_SCHEMAS: Record<Envelope, { shape: string; error: string; validation: string }> = {
  message: { shape: '`{message}`', error: 'MessageError', validation: 'MessageValidationError' },
  checkout: { shape: '`{status: "failed", message}`', error: 'CheckoutError', validation: 'CheckoutValidationError' },
  admin: { shape: '`{code, message, data}`', error: 'AdminError', validation: 'AdminValidationError' },
  login: { shape: '`{success: false, data: {message, code}}`', error: 'LoginError', validation: 'LoginValidationError' },
  legacy: { shape: '`{success: false, error: {code, message}}`', error: 'LegacyError', validation: 'LegacyValidationError' },
  role: { shape: '`{message, errors: [{code, message}]}`', error: 'RoleError', validation: 'MessageValidationError' },
};

const failed: JsonSchema = { const: 'failed' };
const unsuccessful: JsonSchema = { const: false };

export const SCHEMAS: Record<string, JsonSchema> = {
  FieldErrors: {
    description: 'Validation failures: field name → rule (`required`, `max`, `in`, ...) → message; the first failure of each field.',
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: text },
  },
  RestError: {
    description: "The host's own answers: 401/403 `rest_forbidden` (not logged in / lacking the permission), 403 `rest_cookie_invalid_nonce`.",
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: { code: text, message: text, data: { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } } },
  },
  TooManyRequests: {
    type: 'object',
    required: ['message'],
    properties: { message: { const: 'Too many requests. Please try again later.' } },
  },
  MessageError: {
    description: 'Orders, subscriptions, customer portal: `{message}`, with some errors adding fields.',
    type: 'object',
    required: ['message'],
    properties: { message: text },
  },
  MessageValidationError: {
    type: 'object',
    required: ['message', 'errors'],
    properties: { message: text, errors: schemaRef('FieldErrors') },
  },
  CheckoutError: {
    description: 'Checkout: `{status: "failed", message}`.',
    type: 'object',
    required: ['status', 'message'],
    properties: { status: failed, message: text },
  },
  CheckoutValidationError: {
    type: 'object',
    required: ['status', 'errors'],
    properties: { status: failed, errors: schemaRef('FieldErrors') },
  },
  AdminError: {
    description: 'Customer administration: `{code, message, data}`, `code` being the HTTP status.',
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: { code: { type: 'integer' }, message: text, data: { type: 'object' } },
  },
  AdminValidationError: {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: { code: { const: 422 }, message: text, data: schemaRef('FieldErrors') },
  },
  LoginError: {
    description: 'Login: `{success: false, data: {message, code}}`.',
    type: 'object',
    required: ['success', 'data'],
    properties: { success: unsuccessful, data: { type: 'object', required: ['message', 'code'], properties: { message: text, code: text } } },
  },
  LoginValidationError: {
    type: 'object',
    required: ['success', 'data'],
    properties: {
      success: unsuccessful,
      data: {
        type: 'object',
        required: ['message', 'code', 'errors'],
        properties: { message: text, code: { const: 'validation_error' }, errors: schemaRef('FieldErrors') },
      },
    },
  },
  LegacyError: {
    description: 'Earlier-style routes: `{success: false, error: {code, message}}`.',
    type: 'object',
    required: ['success', 'error'],
    properties: { success: unsuccessful, error: { type: 'object', required: ['code', 'message'], properties: { code: text, message: text } } },
  },
  LegacyValidationError: {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: unsuccessful,
      error: {
        type: 'object',
        required: ['code', 'message', 'errors'],
        properties: { code: { const: 'validation_error' }, message: text, errors: schemaRef('FieldErrors') },
      },
    },
  },
  RoleError: {
    description: 'Roles and permissions: `{message, errors: [{code, message}]}`, `code` being the HTTP status.',
    type: 'object',
    required: ['message', 'errors'],
    properties: {
      message: text,
      errors: {
        type: 'array',
        items: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: text } },
      },
    },
  },
};

export const SECURITY_SCHEMES = {
  applicationPassword: {
    type: 'http',
    scheme: 'basic',
    description: "An application password: `login:password` (the password's spaces are optional).",
  },
  cookieSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'store_session',
    description: 'The session cookie set by `POST /user/login`; only counts together with `restNonce`.',
  },
  restNonce: {
    type: 'apiKey',
    in: 'header',
    name: 'X-WP-Nonce',
    description: 'The REST nonce (`GET /wp-json/host/v1/nonce`, renewed by the login answer); `?_wpnonce=` works too.',
  },
} as const;

/** Either an application password, or a cookie session together with its nonce. */
export const AUTHENTICATED = [{ applicationPassword: [] }, { cookieSession: [], restNonce: [] }];

export const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Replays the first answer to the same request (same user, method, path and body) within 24 hours, with `Idempotent-Replayed: true`; ' +
      'the same key with another request, or while the first is still running, is 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  },
} as const;
