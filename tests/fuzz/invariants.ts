import type { HttpResponse } from './http-client';
import type { HttpRequest } from './requests';
import type { FuzzTarget } from './route-targets';
import type { TableChange } from './table-watch';

/** Everything known about one request once it has been answered. */
export interface Observation {
  target: FuzzTarget;
  request: HttpRequest;
  response: HttpResponse | { error: string };
  /** Tables whose rows differ from before the request. */
  changed: TableChange[];
  /** Errors the server logged while answering: `Name: message (at src/file.ts)`. */
  logged: string[];
  /** Whether the request carried valid credentials (see `credentialsOf`), and the caller and twists for the report. */
  credentials: { state: 'valid' | 'none' | 'unclear'; how: string };
}

export type ViolationKind = 'server-error' | 'no-answer' | 'envelope' | 'leak' | 'state-changed' | 'auth-bypass';

export interface Violation {
  kind: ViolationKind;
  detail: string;
  /** Failures with one cause share a key: a 500's is the error the server logged, a state change's the columns it changed. */
  key: string;
}

type Body = Record<string, unknown>;

function isObject(value: unknown): value is Body {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The answers any endpoint may give: the host's own `{code: 'rest_…', message, data: {status}}` (no route, not
 * logged in, no permission, bad cookie nonce), and the two the spec makes flat whatever the route's envelope
 * (`envelopes.ts`): 429 `{message}` and a failed nonce check `{message, code: 'invalid_nonce'}`.
 */
function hostShape(body: Body, status: number): boolean {
  if (status === 429) return typeof body.message === 'string' && Object.keys(body).length === 1;
  if (body.code === 'invalid_nonce') return typeof body.message === 'string';
  return (
    typeof body.code === 'string' && body.code.startsWith('rest_') && typeof body.message === 'string' && isObject(body.data) && body.data.status === status
  );
}

function envelopeViolation(target: FuzzTarget, response: HttpResponse): Violation | null {
  // Node's HTTP parser refuses request heads over 16 KB itself, before the app sees them, with no body.
  if (response.status === 431 && response.text === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return {
      kind: 'envelope',
      detail: `${response.status} with a body that is not JSON`,
      key: `envelope: not JSON ${response.status} ${target.method} ${target.path}`,
    };
  }
  if ((isObject(body) && hostShape(body, response.status)) || target.errors.accepts(body)) return null;
  return {
    kind: 'envelope',
    detail: `${response.status} is not one of the route's documented error bodies (${target.errors.names.join(', ') || 'none: a host endpoint'})`,
    key: `envelope: ${response.status} ${target.method} ${target.path}`,
  };
}

const LEAKS: Array<[string, RegExp]> = [
  ['a stack trace', /\n\s+at |\bat (?:async )?[\w$.<>]+ \([^)]*:\d+:\d+\)/],
  ['a file path', /\/work\/|node_modules|\.ts:\d|\.js:\d/],
  // knex quotes identifiers with backticks on SQLite and MariaDB alike; prose ("select a method from the list") does not.
  [
    'SQL text',
    /\bselect\s+(?:\*|`|distinct\b|count\()[\s\S]{0,300}?\bfrom\b|\bfrom\s+`\w+`|\b(?:insert\s+into|delete\s+from|update)\s+`\w+`|sqlite_master|information_schema/i,
  ],
  ['a driver error code', /SQLITE_[A-Z]+|\bER_[A-Z_]{3,}|\bsqlMessage\b|\bsqlState\b|\berrno\b/],
];

/** What the request itself carried, decoded: a response may echo it back without leaking anything. */
function sentText(request: HttpRequest): string {
  let path = request.path;
  try {
    path = decodeURIComponent(request.path);
  } catch {
    // A broken escape is sent on purpose; the raw text is what may be echoed.
  }
  const body = request.body?.toString('utf8') ?? '';
  let parsed = '';
  try {
    parsed = JSON.stringify(JSON.parse(body));
  } catch {
    // Not JSON: the raw text is all there is.
  }
  return `${path}\n${body}\n${parsed}\n${Object.values(request.headers).join('\n')}`;
}

/** Every key and string value of a JSON value, unescaped (a stack trace's newlines are newlines again). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (isObject(value)) return Object.entries(value).flatMap(([key, v]) => [key, ...strings(v)]);
  return [];
}

function leakViolations(observation: Observation, response: HttpResponse): Violation[] {
  const sent = sentText(observation.request);
  let readable = response.text;
  try {
    readable = strings(JSON.parse(response.text)).join('\n');
  } catch {
    // Not JSON (reported as an envelope violation when refused): search the raw text.
  }
  const out: Violation[] = [];
  for (const [what, pattern] of LEAKS) {
    const match = pattern.exec(readable);
    if (match && !sent.includes(match[0]) && !sent.toLowerCase().includes(match[0].toLowerCase())) {
      out.push({
        kind: 'leak',
        detail: `the body carries ${what}: ${JSON.stringify(match[0])}`,
        key: `leak: ${what} ${observation.target.method} ${observation.target.path}`,
      });
    }
  }
  return out;
}

/** What changed, by column: `store_customers.user_id` for an updated row, `store_orders (rows added)` otherwise. */
function changedColumns({ table, removed, added }: TableChange): string[] {
  const rows = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const before = new Map(rows(removed).map((row) => [String(row.id), row]));
  const out = new Set<string>();
  for (const row of rows(added)) {
    const old = before.get(String(row.id));
    if (row.id === undefined || !old) out.add(`${table} (rows added)`);
    else for (const column of Object.keys(row)) if (JSON.stringify(row[column]) !== JSON.stringify(old[column])) out.add(`${table}.${column}`);
    before.delete(String(row.id));
  }
  if (before.size) out.add(`${table} (rows removed)`);
  return [...out];
}

function describeChanges(changes: TableChange[]): string {
  const cut = (row: string) => (row.length > 300 ? `${row.slice(0, 300)}…` : row);
  return changes
    .map(({ table, removed, added }) =>
      [
        `${table} (${removed.length} row(s) gone, ${added.length} new or changed)`,
        ...removed.slice(0, 2).map((r) => `  - ${cut(r)}`),
        ...added.slice(0, 2).map((r) => `  + ${cut(r)}`),
      ].join('\n'),
    )
    .join('\n');
}

/**
 * The invariants of every request: no 5xx, refusals in the route's envelope, nothing leaked, a refusal changes nothing,
 * and a route that needs credentials answers no request without valid ones.
 */
export function violations(observation: Observation): Violation[] {
  const { target, response } = observation;
  const route = `${target.method} /${target.namespace}${target.path}`;
  if ('error' in response) return [{ kind: 'no-answer', detail: response.error, key: `no-answer: ${route}` }];
  const out: Violation[] = [];
  if (response.status >= 500) {
    const cause = observation.logged[0] ?? 'nothing logged';
    out.push({
      kind: 'server-error',
      detail: `${response.status}; the server logged: ${observation.logged.join(' | ') || 'nothing'}`,
      key: `${response.status}: ${cause}`,
    });
  }
  if (response.status >= 400 && response.status < 500) {
    const envelope = envelopeViolation(target, response);
    if (envelope) out.push(envelope);
  }
  out.push(...leakViolations(observation, response));
  if (response.status >= 400 && response.status < 500 && observation.changed.length) {
    out.push({
      kind: 'state-changed',
      detail: `refused with ${response.status} but changed ${describeChanges(observation.changed)}`,
      key: `state-changed: ${observation.changed.flatMap(changedColumns).sort().join(', ')}`,
    });
  }
  const { credentials } = observation;
  if (credentials.state === 'none' && !target.anonymous && response.status < 300) {
    out.push({
      kind: 'auth-bypass',
      detail: `${response.status} to a request without valid credentials (${credentials.how}) on a route that needs them`,
      key: `auth-bypass: ${credentials.how.split(', ').slice(1).join(', ') || 'anonymous'}`,
    });
  }
  return out;
}
