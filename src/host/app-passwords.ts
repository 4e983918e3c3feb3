import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { AppPasswordRecord, AppPasswords, Clock, HostUser } from './contract';
import { sqlTimestamp } from './clock';
import { hashPassword, randomPassword, verifyPassword } from './passwords';
import type { UserStore } from './users';

const PASSWORD_LENGTH = 24;
const CACHE_TTL_MS = 10 * 60 * 1000;
const CACHE_MAX = 5000;
const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;
/**
 * How long a verified credential is trusted before its row is read again. Changes made through this process
 * (revoking the password, changing the user or their roles) apply at once; changes made by another process
 * apply within this window.
 */
const REVALIDATE_MS = 1000;

interface CachedVerification {
  appPasswordId: number;
  /** The stored hash that was verified; a revoked or replaced password no longer matches it. */
  passwordHash: string;
  expiresAt: number;
  user: HostUser | null;
  checkedAt: number;
}

/** `abcd efgh ijkl …`: the display format WordPress uses; spaces are ignored when checking. */
function chunked(password: string): string {
  return password.match(/.{1,4}/g)!.join(' ');
}

/**
 * Application passwords: stored as scrypt hashes. A successful verification is cached in memory under an
 * HMAC of the credentials (never the password itself) together with the verified hash, so the KDF runs once
 * per credential and process. The row (and the user with their roles) is re-read at most once per
 * `REVALIDATE_MS`, so a revocation made elsewhere takes effect within a second; one made here at once.
 */
export class AppPasswordStore implements AppPasswords {
  private readonly verified = new Map<string, CachedVerification>();

  constructor(
    private readonly db: Knex,
    private readonly users: UserStore,
    private readonly clock: Clock,
    private readonly secret: string,
  ) {}

  async create(userId: number, name: string): Promise<{ password: string; record: AppPasswordRecord }> {
    const password = randomPassword(PASSWORD_LENGTH);
    const row = {
      user_id: userId,
      uuid: crypto.randomUUID(),
      name,
      password_hash: await hashPassword(password),
      created_at: sqlTimestamp(this.clock.now()),
    };
    const [id] = await this.db('app_passwords').insert(row);
    return {
      password: chunked(password),
      record: { id: Number(id), user_id: userId, name, uuid: row.uuid, created_at: row.created_at, last_used_at: null },
    };
  }

  async list(userId: number): Promise<AppPasswordRecord[]> {
    const rows = (await this.db('app_passwords')
      .where({ user_id: userId })
      .orderBy('id')
      .select('id', 'user_id', 'name', 'uuid', 'created_at', 'last_used_at')) as AppPasswordRecord[];
    return rows.map((r) => ({ ...r, id: Number(r.id), user_id: Number(r.user_id) }));
  }

  async revoke(id: number): Promise<boolean> {
    this.forget((entry) => entry.appPasswordId === id);
    return (await this.db('app_passwords').where({ id }).delete()) > 0;
  }

  /** Drops cached verifications of a user whose record, roles or passwords changed in this process. */
  forgetUser(userId: number): void {
    this.forget((entry) => entry.user?.id === userId);
  }

  private forget(match: (entry: CachedVerification) => boolean): void {
    for (const [key, entry] of this.verified) if (match(entry)) this.verified.delete(key);
  }

  async authenticate(login: string, password: string): Promise<HostUser | null> {
    const plain = password.replace(/\s+/g, '');
    if (!login || plain.length !== PASSWORD_LENGTH) return null;
    const key = crypto.createHmac('sha256', this.secret).update(`${login}\0${plain}`).digest('base64');
    const now = this.clock.now().getTime();
    const cached = this.verified.get(key);
    if (cached && cached.expiresAt > now) {
      if (cached.user && now - cached.checkedAt < REVALIDATE_MS) return cached.user;
      const user = await this.loadIfCurrent(cached);
      if (user) {
        cached.user = user;
        cached.checkedAt = now;
        return user;
      }
    }
    this.verified.delete(key);

    const owner = await this.users.findByLogin(login);
    if (!owner) return null;
    const candidates = (await this.db('app_passwords').where({ user_id: owner.id }).select('id', 'password_hash')) as Array<{
      id: number;
      password_hash: string;
    }>;
    for (const candidate of candidates) {
      if (await verifyPassword(plain, candidate.password_hash)) {
        this.remember(key, {
          appPasswordId: Number(candidate.id),
          passwordHash: candidate.password_hash,
          expiresAt: now + CACHE_TTL_MS,
          user: owner,
          checkedAt: now,
        });
        await this.touch(Number(candidate.id), null);
        return owner;
      }
    }
    return null;
  }

  /**
   * The hot path of every API request. The lookup is by primary key (and the roles join is unique per user), so
   * it yields at most one row without a LIMIT: knex's `.first()` would bind `limit ?`, and SQLite (3.47+)
   * re-prepares a statement whose LIMIT is a bound parameter on every execution, doubling the query's cost.
   */
  private async loadIfCurrent(cached: CachedVerification): Promise<HostUser | null> {
    const [row] = (await this.users
      .selectUsers()
      .join('app_passwords', 'app_passwords.user_id', 'users.id')
      .where('app_passwords.id', cached.appPasswordId)
      .andWhere('app_passwords.password_hash', cached.passwordHash)
      .select('app_passwords.last_used_at as ap_last_used_at')) as Array<Parameters<UserStore['toUser']>[0] & { ap_last_used_at: string | null }>;
    if (!row) return null;
    await this.touch(cached.appPasswordId, row.ap_last_used_at);
    return this.users.toUser(row);
  }

  /** Records use at most once an hour, so authentication stays a read on the hot path. */
  private async touch(id: number, lastUsed: string | null): Promise<void> {
    const now = this.clock.now();
    if (lastUsed && now.getTime() - new Date(`${lastUsed.replace(' ', 'T')}Z`).getTime() < LAST_USED_RESOLUTION_MS) return;
    await this.db('app_passwords')
      .where({ id })
      .update({ last_used_at: sqlTimestamp(now) });
  }

  private remember(key: string, entry: CachedVerification): void {
    if (this.verified.size >= CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(key, entry);
  }
}
