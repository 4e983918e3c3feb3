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

interface CachedVerification {
  appPasswordId: number;
  /** The stored hash that was verified; a revoked or replaced password no longer matches it. */
  passwordHash: string;
  expiresAt: number;
}

/** `abcd efgh ijkl …`: the display format WordPress uses; spaces are ignored when checking. */
function chunked(password: string): string {
  return password.match(/.{1,4}/g)!.join(' ');
}

/**
 * Application passwords: stored as scrypt hashes. A successful verification is cached in memory under an
 * HMAC of the credentials (never the password itself) together with the verified hash, and every request
 * still reads that row, so revoking a password takes effect at once in every process.
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
    return (await this.db('app_passwords').where({ id }).delete()) > 0;
  }

  async authenticate(login: string, password: string): Promise<HostUser | null> {
    const plain = password.replace(/\s+/g, '');
    if (!login || plain.length !== PASSWORD_LENGTH) return null;
    const key = crypto.createHmac('sha256', this.secret).update(`${login}\0${plain}`).digest('base64');
    const now = this.clock.now().getTime();
    const cached = this.verified.get(key);
    if (cached && cached.expiresAt > now) {
      const user = await this.loadIfCurrent(cached);
      if (user) return user;
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
        this.remember(key, { appPasswordId: Number(candidate.id), passwordHash: candidate.password_hash, expiresAt: now + CACHE_TTL_MS });
        await this.touch(Number(candidate.id), null);
        return owner;
      }
    }
    return null;
  }

  private async loadIfCurrent(cached: CachedVerification): Promise<HostUser | null> {
    const row = (await this.users
      .selectUsers()
      .join('app_passwords', 'app_passwords.user_id', 'users.id')
      .where('app_passwords.id', cached.appPasswordId)
      .andWhere('app_passwords.password_hash', cached.passwordHash)
      .select('app_passwords.last_used_at as ap_last_used_at')
      .first()) as (Parameters<UserStore['toUser']>[0] & { ap_last_used_at: string | null }) | undefined;
    if (!row) return null;
    await this.touch(cached.appPasswordId, row.ap_last_used_at);
    return this.users.toUser(row);
  }

  /** Records use at most once an hour, so authentication stays a read on the hot path. */
  private async touch(id: number, lastUsed: string | null): Promise<void> {
    const now = this.clock.now();
    if (lastUsed && now.getTime() - new Date(`${lastUsed.replace(' ', 'T')}Z`).getTime() < LAST_USED_RESOLUTION_MS) return;
    await this.db('app_passwords').where({ id }).update({ last_used_at: sqlTimestamp(now) });
  }

  private remember(key: string, entry: CachedVerification): void {
    if (this.verified.size >= CACHE_MAX) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(key, entry);
  }
}
