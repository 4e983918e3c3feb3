import crypto from 'node:crypto';
import session from 'express-session';
import type { Knex } from 'knex';
import type { Clock } from './contract';

/** Browser-session cookies have no expiry of their own; the server forgets them after two days (as WordPress). */
const BROWSER_SESSION_TTL_MS = 2 * 24 * 60 * 60 * 1000;

type Callback<T = void> = (err: unknown, value?: T) => void;

/**
 * express-session store in the application's database, so sessions survive restarts and are shared by
 * every process. Session ids are stored as SHA-256 hashes: a leaked table does not yield usable cookies.
 */
export class KnexSessionStore extends session.Store {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
  ) {
    super();
  }

  override get(sid: string, callback: Callback<session.SessionData | null>): void {
    this.db('sessions')
      .where({ sid_hash: hashSid(sid) })
      .first('data', 'expires_at')
      .then((row: { data: string; expires_at: number | string } | undefined) => {
        if (!row || Number(row.expires_at) <= this.now()) return callback(null, null);
        callback(null, JSON.parse(row.data) as session.SessionData);
      })
      .catch((error: unknown) => callback(error));
  }

  override set(sid: string, data: session.SessionData, callback?: Callback): void {
    const row = { sid_hash: hashSid(sid), user_id: (data as { userId?: number }).userId ?? null, data: JSON.stringify(data), expires_at: this.expiry(data) };
    this.db('sessions')
      .insert(row)
      .onConflict('sid_hash')
      .merge(['user_id', 'data', 'expires_at'])
      .then(() => callback?.(null))
      .catch((error: unknown) => callback?.(error));
  }

  override touch(sid: string, data: session.SessionData, callback?: () => void): void {
    this.db('sessions')
      .where({ sid_hash: hashSid(sid) })
      .update({ expires_at: this.expiry(data) })
      .then(() => callback?.())
      .catch(() => callback?.());
  }

  override destroy(sid: string, callback?: Callback): void {
    this.db('sessions')
      .where({ sid_hash: hashSid(sid) })
      .delete()
      .then(() => callback?.(null))
      .catch((error: unknown) => callback?.(error));
  }

  /** Deletes the user's sessions other than `keepSid` (all of them when it is null); returns how many. */
  async destroyOthers(userId: number, keepSid: string | null): Promise<number> {
    const query = this.db('sessions').where({ user_id: userId });
    if (keepSid) query.whereNot({ sid_hash: hashSid(keepSid) });
    return query.delete();
  }

  /** Deletes expired sessions; run by a scheduled job. */
  async prune(): Promise<number> {
    return this.db('sessions').where('expires_at', '<=', this.now()).delete();
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private expiry(data: session.SessionData): number {
    const expires = data.cookie?.expires;
    return expires ? new Date(expires).getTime() : this.now() + BROWSER_SESSION_TTL_MS;
  }
}

function hashSid(sid: string): string {
  return crypto.createHash('sha256').update(sid).digest('hex');
}
