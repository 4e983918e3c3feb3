import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Host, RestRequest, RestResponse } from '../host/contract';
import type { Ctx } from './context';
import { insertedId } from './db';
import { fail } from './errors';
import { toTimestamp } from './time';

declare module '../host/contract' {
  interface JobMap {
    'store/idempotency/prune': Record<string, never>;
  }
}

/**
 * `Idempotency-Key` on the mutating store routes (POST, PUT, PATCH, DELETE; DESIGN §5):
 * - the key is claimed per user with an INSERT on the unique (user_id, key) before the route runs, so of two requests
 *   with one key only one ever runs, on every database and across processes;
 * - the same key with the same request (hash of method, path and body) within 24 hours answers the first response
 *   (status, body, headers) again with `Idempotent-Replayed: true`, without running the route;
 * - the same key with another request, or while the first is still running, is 409;
 * - every answer below 500 is kept and replayed (errors too, as Stripe does), except 429: a rate-limited request
 *   did not run and may simply be sent again after `Retry-After`. After a 5xx the key is released, so a retry runs.
 * Callers without a user (public routes) have no key space of their own: the header is ignored there.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const TABLE = 'store_idempotency_keys';
const TTL_MS = 24 * 60 * 60 * 1000;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
const UNIQUE_CONFLICTS = new Set(['ER_DUP_ENTRY', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export const KEY_INVALID_MESSAGE = 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.';
export const KEY_REUSED_MESSAGE = 'This Idempotency-Key was already used for a different request. Send a new key with a new request.';
export const KEY_IN_PROGRESS_MESSAGE = 'A request with this Idempotency-Key is still being processed. Try again once it has finished.';

interface KeyRow {
  id: number | string;
  request_hash: string;
  status: 'running' | 'completed';
  response_status: number | string | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: string;
}

/** The key sent with a mutating request of a logged-in user; null when idempotency does not apply. 422 for a bad key. */
function keyOf(ctx: Ctx, request: RestRequest): string | null {
  if (!MUTATING.has(request.method) || !ctx.user) return null;
  const raw = request.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  if (!KEY_PATTERN.test(key)) {
    throw fail('validation_error', KEY_INVALID_MESSAGE, { errors: { [IDEMPOTENCY_HEADER]: { [key.length > 255 ? 'max' : 'regex']: KEY_INVALID_MESSAGE } } });
  }
  return key;
}

/** Text written as it is by `canonical` (brackets, commas, keys), as opposed to a value still to be written. */
class Verbatim {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted, so the same body sent with its fields in another order is the same request. It works
 * from an explicit stack, never recursing, so no nesting of client input can overflow the call stack.
 */
function canonical(root: unknown): string {
  const out: string[] = [];
  const todo: unknown[] = [root];
  while (todo.length) {
    const value = todo.pop();
    if (value instanceof Verbatim) {
      out.push(value.text);
    } else if (Array.isArray(value)) {
      todo.push(new Verbatim(']'));
      for (let i = value.length - 1; i >= 0; i--) {
        todo.push(value[i]);
        if (i) todo.push(new Verbatim(','));
      }
      todo.push(new Verbatim('['));
    } else if (value && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      todo.push(new Verbatim('}'));
      for (let i = entries.length - 1; i >= 0; i--) todo.push(entries[i][1], new Verbatim(`${i ? ',' : ''}${JSON.stringify(entries[i][0])}:`));
      todo.push(new Verbatim('{'));
    } else {
      out.push(JSON.stringify(value ?? null));
    }
  }
  return out.join('');
}

/** What makes two requests "the same": method, route path (inside the canonical namespace) and body. */
export function requestHash(namespace: string, request: RestRequest): string {
  const body = request.inputError ? `raw:${request.rawBody?.toString('base64') ?? ''}` : canonical(request.body);
  return crypto.createHash('sha256').update(`${request.method} /${namespace}${request.path}\n${body}`).digest('hex');
}

function isUniqueConflict(error: unknown): boolean {
  return UNIQUE_CONFLICTS.has(String((error as { code?: unknown } | null)?.code ?? ''));
}

type Claim = { kind: 'claimed'; id: number } | { kind: 'replay'; row: KeyRow };

/**
 * Claims the key for this request, or finds what an earlier request with it left. An expired record (older than 24
 * hours, not yet pruned) is removed and the claim tried again; its conditional delete lets only one of two racing
 * requests remove it, and the unique key then lets only one of them claim.
 */
async function claim(db: Knex, userId: number, key: string, hash: string, now: Date): Promise<Claim> {
  const cutoff = toTimestamp(new Date(now.getTime() - TTL_MS));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const result = await db(TABLE).insert({ user_id: userId, idempotency_key: key, request_hash: hash, status: 'running', created_at: toTimestamp(now) });
      return { kind: 'claimed', id: insertedId(result) };
    } catch (error) {
      if (!isUniqueConflict(error)) throw error;
    }
    const row = (await db(TABLE).where({ user_id: userId, idempotency_key: key }).first()) as KeyRow | undefined;
    if (!row) continue;
    if (row.created_at < cutoff) {
      await db(TABLE).where({ id: row.id, created_at: row.created_at }).delete();
      continue;
    }
    if (row.request_hash !== hash) throw fail('conflict', KEY_REUSED_MESSAGE);
    if (row.status !== 'completed') throw fail('conflict', KEY_IN_PROGRESS_MESSAGE);
    return { kind: 'replay', row };
  }
  throw fail('conflict', KEY_IN_PROGRESS_MESSAGE);
}

function replay(row: KeyRow): RestResponse {
  const headers = JSON.parse(row.response_headers ?? '{}') as Record<string, string>;
  return {
    status: Number(row.response_status),
    body: JSON.parse(row.response_body ?? 'null') as unknown,
    headers: { ...headers, [REPLAYED_HEADER]: 'true' },
  };
}

/** Whether an answer is kept for replays (see the module comment). */
const keeps = (status: number) => status < 500 && status !== 429;

/**
 * Runs a route's work under the request's `Idempotency-Key` (when it has one): claims the key, runs `work` once,
 * stores its answer, or replays the stored answer of an earlier run. Conflicts throw 409 `AppError`s.
 */
export async function withIdempotency(ctx: Ctx, namespace: string, request: RestRequest, work: () => Promise<RestResponse>): Promise<RestResponse> {
  const key = keyOf(ctx, request);
  if (key === null || !ctx.user) return work();
  const { db } = ctx;
  const claimed = await claim(db, ctx.user.id, key, requestHash(namespace, request), ctx.clock.now());
  if (claimed.kind === 'replay') return replay(claimed.row);
  let response: RestResponse;
  try {
    response = await work();
  } catch (error) {
    await db(TABLE).where({ id: claimed.id }).delete();
    throw error;
  }
  const status = response.status ?? 200;
  try {
    if (keeps(status)) {
      await db(TABLE)
        .where({ id: claimed.id })
        .update({
          status: 'completed',
          response_status: status,
          response_body: JSON.stringify(response.body ?? null),
          response_headers: JSON.stringify(response.headers ?? {}),
          completed_at: toTimestamp(ctx.clock.now()),
        });
    } else {
      await db(TABLE).where({ id: claimed.id }).delete();
    }
  } catch (error) {
    // The work is done and its answer goes out; the key stays claimed ("in progress"), so it can never run twice.
    ctx.host.logger.error({ err: error, key }, 'could not store the idempotent response');
  }
  return response;
}

/** Deletes the records older than 24 hours (they are ignored from then on anyway); returns how many went. */
export async function pruneIdempotencyKeys(db: Knex, now: Date): Promise<number> {
  return db(TABLE)
    .where('created_at', '<', toTimestamp(new Date(now.getTime() - TTL_MS)))
    .delete();
}

/** The hourly prune job. */
export function registerIdempotencyJobs(host: Host): void {
  host.jobs.define('store/idempotency/prune', async () => {
    await pruneIdempotencyKeys(host.db, host.clock.now());
  });
  host.jobs.schedule('store/idempotency/prune', '41 * * * *', {});
}
