/** Validation failures: field name → rule → message, as the spec shows them. */
export type FieldErrors = Record<string, Record<string, string>>;

/**
 * The one error type services throw. `code` is a stable machine code from the catalogue below; the route's
 * envelope decides how it is rendered.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    readonly details: { errors?: FieldErrors; data?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

/** Every error code the API answers with, its default status and message. */
export const ERRORS = {
  rest_forbidden: { status: 403, message: 'Sorry, you are not allowed to do that.' },
  rest_invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  rest_invalid_request: { status: 400, message: 'The request could not be read.' },
  rest_request_too_large: { status: 413, message: 'The request body is too large.' },
  validation_error: { status: 422, message: 'The given data was invalid.' },
  not_found: { status: 404, message: 'The requested record was not found.' },
  invalid_state: { status: 400, message: 'The request cannot be carried out in the current state.' },
  locked: { status: 423, message: 'The record is locked in its current state.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  response_too_large: { status: 413, message: 'A single record is larger than the response budget: lower max_records or select fewer columns/modules.' },
  rate_limited: { status: 429, message: 'Too many requests. Please try again later.' },
  product_unavailable: { status: 422, message: 'A product in the cart cannot be bought.' },
  invalid_nonce: { status: 403, message: 'Security check failed. Please refresh the page and try again.' },
  missing_login: { status: 400, message: 'Please enter your username or email address.' },
  missing_password: { status: 400, message: 'Please enter your password.' },
  login_failed: { status: 401, message: 'The username or password you entered is incorrect.' },
  internal_error: { status: 500, message: 'An internal error occurred.' },
  // the earlier-style codes of the customer portal's subscription actions (spec: Errors)
  subscription_not_found: { status: 404, message: 'Subscription not found' },
  invalid_subscription_status: { status: 400, message: 'This action is not available for the subscription in its current status.' },
  payment_method_invalid: { status: 400, message: 'This payment method cannot be used for the subscription.' },
  insufficient_permissions: { status: 403, message: 'You are not allowed to manage this subscription.' },
  gateway_error: { status: 502, message: 'The payment gateway could not carry out the request.' },
  // the role errors (admin spec: Errors)
  invalid_role: { status: 400, message: 'Invalid role' },
  permission_denied: { status: 403, message: 'Permission denied' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Builds an AppError from the catalogue, optionally with a more specific message or status. */
export function fail(
  code: ErrorCode,
  message?: string,
  options: { status?: number; errors?: FieldErrors; data?: Record<string, unknown>; headers?: Record<string, string> } = {},
): AppError {
  const entry = ERRORS[code];
  return new AppError(code, options.status ?? entry.status, message ?? entry.message, { errors: options.errors, data: options.data, headers: options.headers });
}

/** A single-field validation error (422). */
export function invalid(field: string, rule: string, message: string): AppError {
  return fail('validation_error', message, { errors: { [field]: { [rule]: message } } });
}

/** One 422 naming every failing field; the message is the first field's. */
export function rejected(errors: FieldErrors): AppError {
  const first = Object.values(errors)[0];
  return fail('validation_error', Object.values(first)[0], { errors });
}

export function throwIfAny(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw rejected(errors);
}
