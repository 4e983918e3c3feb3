import type { Request } from 'express';
import qs from 'qs';
import type { InputError } from './contract';

/**
 * What the HTTP layer reads from a request (query string and body), the limits it holds them to, and the 4xx answers
 * it refuses them with. Every refusal becomes an `InputError`, which the matched route answers in its own envelope,
 * never an exception that would end as a 500.
 */

/** The largest body, after decompression. */
export const BODY_LIMIT = '2mb';
/** The deepest nesting of objects and arrays in a body, JSON or form (`{"a": [1]}` is 2 deep). */
export const MAX_BODY_DEPTH = 32;

type QsLimits = { depth: number; parameters: number; arrayItems: number };

/** Query strings: bracket nesting (`a[b][c]` is 2), parameters and array elements. */
export const QUERY_LIMITS: QsLimits = { depth: 5, parameters: 1000, arrayItems: 500 };
/** Form bodies: brackets nest at most `MAX_BODY_DEPTH - 1` deep (the body itself is the first level). */
export const FORM_LIMITS: QsLimits = { depth: MAX_BODY_DEPTH - 1, parameters: 10_000, arrayItems: 1000 };

const refusal = (status: number, code: InputError['code'], message: string): InputError => ({ status, code, message });

const BAD_PERCENT_ENCODING = refusal(400, 'rest_invalid_request', 'The URL or form body has a malformed percent-encoding (a % not followed by UTF-8 hex).');
const NOT_UTF8 = refusal(415, 'rest_invalid_request', 'The request body must be UTF-8 (send charset=utf-8 or no charset).');

/** `decodeURIComponent` that refuses malformed escapes instead of passing them on as literal text (qs' default). */
const strictDecoder = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '));

/**
 * Deeper brackets are refused rather than kept as a literal key (qs' default turns `a[b][c][d][e][f][g]` into the key
 * `[g]`, silently changing what was sent); so are limits exceeded, rather than dropping what lies beyond them.
 */
function qsOptions(limits: QsLimits): qs.IParseOptions & { decoder: typeof strictDecoder } {
  return {
    depth: limits.depth,
    strictDepth: true,
    parameterLimit: limits.parameters,
    arrayLimit: limits.arrayItems,
    throwOnLimitExceeded: true,
    decoder: strictDecoder,
  };
}

const QUERY_OPTIONS = qsOptions(QUERY_LIMITS);
const FORM_OPTIONS = qsOptions(FORM_LIMITS);

/** The `query parser` of the app: throws (a URIError or qs' RangeError) on a query string it refuses; see `readQuery`. */
export function parseQuery(text: string): Record<string, unknown> {
  return qs.parse(text, QUERY_OPTIONS);
}

/** What refusing a form body or query string answers: bad percent-encoding, or one of qs' limits (its RangeErrors). */
function qsRefusal(error: unknown, what: string, limits: QsLimits): InputError {
  if (error instanceof URIError) return BAD_PERCENT_ENCODING;
  const text = error instanceof Error ? error.message : '';
  const message = text.startsWith('Parameter limit')
    ? `The ${what} has more than ${limits.parameters} parameters.`
    : text.startsWith('Array limit')
      ? `The ${what} has an array of more than ${limits.arrayItems} elements.`
      : `The ${what} nests brackets more than ${limits.depth} deep.`;
  return refusal(400, 'rest_invalid_request', message);
}

/** Reads `req.query` (Express parses it on access), or the refusal of a malformed one. */
export function readQuery(req: Request): { query: Record<string, unknown>; error: InputError | null } {
  try {
    return { query: req.query as Record<string, unknown>, error: null };
  } catch (error) {
    return { query: {}, error: qsRefusal(error, 'query string', QUERY_LIMITS) };
  }
}

/** The refusal of a path with malformed percent-encoding (`/orders/%E0%A4%A`), or null. */
export function pathError(path: string): InputError | null {
  try {
    decodeURIComponent(path);
    return null;
  } catch {
    return BAD_PERCENT_ENCODING;
  }
}

/**
 * Whether JSON text nests objects and arrays deeper than `limit`, read in one pass over the text before it is parsed,
 * so a hostile body (2 MB of `[`) is refused before any structure is built or walked.
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** The body (JSON or form-encoded, UTF-8) the raw body parser read, or why it is refused. */
export function readBody(req: Request): { body: unknown; form: boolean; error: InputError | null } {
  const raw = req.body as unknown;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { body: undefined, form: false, error: null };
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const charset = CHARSET.exec(type)?.[1];
  if (charset && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') {
    return { body: undefined, form: false, error: NOT_UTF8 };
  }
  if (type.includes('multipart/form-data')) {
    return {
      body: undefined,
      form: false,
      error: refusal(415, 'rest_invalid_request', 'Multipart bodies are not supported: send JSON or a form-encoded body.'),
    };
  }
  const text = raw.toString('utf8');
  if (type.includes('application/x-www-form-urlencoded')) {
    try {
      return { body: qs.parse(text, FORM_OPTIONS), form: true, error: null };
    } catch (error) {
      return { body: undefined, form: false, error: qsRefusal(error, 'form body', FORM_LIMITS) };
    }
  }
  if (jsonDeeperThan(text, MAX_BODY_DEPTH)) {
    return { body: undefined, form: false, error: refusal(400, 'rest_invalid_request', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`) };
  }
  try {
    return { body: JSON.parse(text), form: false, error: null };
  } catch {
    return { body: undefined, form: false, error: refusal(400, 'rest_invalid_json', 'The request body is not valid JSON.') };
  }
}

/** Messages for the body-reading errors of body-parser / raw-body, by their `type`. */
const BODY_ERRORS = new Map<string, InputError>([
  ['entity.too.large', refusal(413, 'rest_request_too_large', 'The request body is too large (at most 2 MB, after decompression).')],
  ['encoding.unsupported', refusal(415, 'rest_invalid_request', 'The Content-Encoding of the request body is not supported: use gzip, deflate, br or none.')],
  ['charset.unsupported', NOT_UTF8],
  ['request.aborted', refusal(400, 'rest_invalid_request', 'The request was aborted before its body arrived.')],
  ['request.size.invalid', refusal(400, 'rest_invalid_request', 'The request body is not as long as its Content-Length says.')],
]);

interface HttpLayerError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  errno?: unknown;
  message?: unknown;
}

/**
 * The refusal for an error the HTTP layer raised about the client's request: a URIError from percent-decoding, or an
 * `http-errors` error with a 4xx status marked `expose` (body-parser, raw-body, Express). Null for anything else,
 * which is the server's fault (500).
 */
export function inputErrorOf(error: unknown): InputError | null {
  if (error instanceof URIError) return BAD_PERCENT_ENCODING;
  if (error === null || typeof error !== 'object') return null;
  const e = error as HttpLayerError;
  const status = Number(e.status ?? e.statusCode);
  if (!Number.isInteger(status) || status < 400 || status > 499 || e.expose !== true) return null;
  const known = typeof e.type === 'string' ? BODY_ERRORS.get(e.type) : undefined;
  if (known) return known;
  // A decompression stream's error (zlib: "incorrect header check", "unexpected end of file") carries an errno.
  if (e.type === undefined && typeof e.errno === 'number') {
    return refusal(status, 'rest_invalid_request', 'The request body could not be decompressed as its Content-Encoding says.');
  }
  return refusal(status, 'rest_invalid_request', typeof e.message === 'string' && e.message ? e.message : 'The request could not be read.');
}
