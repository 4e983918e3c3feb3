import type { Knex } from 'knex';
import type { AppPasswords, Clock, Hooks, HostUser, NewUser, UserPatch, Users } from './contract';
import { sqlTimestamp } from './clock';
import { hashPassword, randomPassword, verifyPassword } from './passwords';
import { ADMINISTRATOR, Roles } from './roles';

const ROLES_META = 'roles';

interface UserRow {
  id: number;
  login: string;
  email: string;
  password_hash: string;
  display_name: string;
  nicename: string;
  first_name: string;
  last_name: string;
  url: string;
  registered: string;
  email_verified_at: string | null;
  roles_json: string | null;
}

/** Mails the signed verification link (see email-verification.ts). */
export interface VerificationMailer {
  send(user: HostUser): Promise<void>;
}

/** A login's URL-safe form, as WordPress derives `user_nicename`. */
export function nicenameOf(login: string): string {
  return (
    login
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 50) || 'user'
  );
}

/** `users.display_name` holds 250 characters; a name built from a first and a last name (255 each) is cut to fit. */
const DISPLAY_NAME_MAX = 250;
const fitDisplayName = (name: string) => Array.from(name).slice(0, DISPLAY_NAME_MAX).join('').trimEnd();

export class UserError extends Error {
  constructor(
    readonly code: 'existing_user_login' | 'existing_user_email' | 'invalid_user' | 'invalid_role',
    message: string,
  ) {
    super(message);
  }
}

export class UserStore implements Users {
  readonly roles = new Roles();
  appPasswords!: AppPasswords & { forgetUser(userId: number): void };
  verificationMailer!: VerificationMailer;

  constructor(
    private readonly db: Knex,
    private readonly hooks: Hooks,
    private readonly clock: Clock,
  ) {}

  /** The user query with the role list joined in, so one query yields a whole `HostUser`. */
  selectUsers(db: Knex | Knex.Transaction = this.db): Knex.QueryBuilder {
    return db('users')
      .leftJoin('usermeta as role_meta', (join) => {
        join.on('role_meta.user_id', '=', 'users.id').andOnVal('role_meta.meta_key', '=', ROLES_META);
      })
      .select('users.*', 'role_meta.meta_value as roles_json');
  }

  toUser(row: UserRow): HostUser {
    return {
      id: Number(row.id),
      login: row.login,
      email: row.email,
      display_name: row.display_name,
      nicename: row.nicename,
      first_name: row.first_name,
      last_name: row.last_name,
      url: row.url,
      registered: row.registered,
      email_verified_at: row.email_verified_at ?? null,
      roles: row.roles_json ? (JSON.parse(row.roles_json) as string[]) : [],
    };
  }

  async findById(id: number): Promise<HostUser | null> {
    const row = (await this.selectUsers().where('users.id', id).first()) as UserRow | undefined;
    return row ? this.toUser(row) : null;
  }

  async findByLogin(loginOrEmail: string): Promise<HostUser | null> {
    const row = await this.findRow(loginOrEmail);
    return row ? this.toUser(row) : null;
  }

  async findByEmail(email: string): Promise<HostUser | null> {
    const row = (await this.selectUsers().where('users.email', email.trim().toLowerCase()).first()) as UserRow | undefined;
    return row ? this.toUser(row) : null;
  }

  async create(input: NewUser): Promise<HostUser> {
    const login = input.login.trim();
    const email = input.email.trim().toLowerCase();
    if (!login) throw new UserError('invalid_user', 'A user needs a login.');
    if (await this.db('users').where({ login }).first('id')) throw new UserError('existing_user_login', 'Sorry, that username already exists!');
    if (await this.db('users').where({ email }).first('id')) throw new UserError('existing_user_email', 'Sorry, that email address is already used!');
    for (const role of input.roles ?? []) this.assertRole(role);
    const password_hash = await hashPassword(input.password ?? randomPassword(32));
    const now = sqlTimestamp(this.clock.now());
    const id = await this.db.transaction(async (trx) => {
      const [insertedId] = await trx('users').insert({
        login,
        email,
        password_hash,
        display_name: fitDisplayName(input.display_name ?? ([input.first_name, input.last_name].filter(Boolean).join(' ') || login)),
        nicename: nicenameOf(login),
        first_name: input.first_name ?? '',
        last_name: input.last_name ?? '',
        url: input.url ?? '',
        registered: now,
        email_verified_at: input.email_verified ? now : null,
      });
      if (input.roles?.length) await this.writeMeta(trx, Number(insertedId), ROLES_META, [...new Set(input.roles)]);
      return Number(insertedId);
    });
    return (await this.findById(id)) as HostUser;
  }

  async update(id: number, patch: UserPatch): Promise<HostUser> {
    const { password, ...fields } = patch;
    const changes: Record<string, unknown> = { ...fields };
    if (fields.email !== undefined) {
      changes.email = fields.email.trim().toLowerCase();
      const taken = await this.db('users').where({ email: changes.email }).whereNot({ id }).first('id');
      if (taken) throw new UserError('existing_user_email', 'Sorry, that email address is already used!');
    }
    const emailChanged = changes.email !== undefined && !(await this.db('users').where({ id, email: changes.email }).first('id'));
    if (emailChanged) changes.email_verified_at = null;
    if (fields.display_name !== undefined) changes.display_name = fitDisplayName(fields.display_name);
    if (password !== undefined) changes.password_hash = await hashPassword(password);
    if (Object.keys(changes).length) {
      const updated = await this.db('users').where({ id }).update(changes);
      if (!updated) throw new UserError('invalid_user', 'Invalid user ID.');
    }
    const user = await this.findById(id);
    if (!user) throw new UserError('invalid_user', 'Invalid user ID.');
    this.appPasswords.forgetUser(id);
    return user;
  }

  async requestEmailVerification(userId: number): Promise<void> {
    const user = await this.findById(userId);
    if (!user) throw new UserError('invalid_user', 'Invalid user ID.');
    if (!user.email_verified_at) await this.verificationMailer.send(user);
  }

  async markEmailVerified(userId: number): Promise<HostUser> {
    const marked = await this.db('users')
      .where({ id: userId })
      .whereNull('email_verified_at')
      .update({ email_verified_at: sqlTimestamp(this.clock.now()) });
    const user = await this.findById(userId);
    if (!user) throw new UserError('invalid_user', 'Invalid user ID.');
    this.appPasswords.forgetUser(userId);
    if (marked) await this.hooks.doActionAsync('host/user/email_verified', user);
    return user;
  }

  async verifyPassword(loginOrEmail: string, password: string): Promise<HostUser | null> {
    const row = await this.findRow(loginOrEmail);
    if (!row || !(await verifyPassword(password, row.password_hash))) return null;
    return this.toUser(row);
  }

  async assignRole(userId: number, role: string): Promise<void> {
    this.assertRole(role);
    const user = await this.findById(userId);
    if (!user) throw new UserError('invalid_user', 'Invalid user ID.');
    if (!user.roles.includes(role)) await this.writeMeta(this.db, userId, ROLES_META, [...user.roles, role]);
    this.appPasswords.forgetUser(userId);
  }

  async removeRole(userId: number, role: string): Promise<void> {
    const user = await this.findById(userId);
    if (!user) throw new UserError('invalid_user', 'Invalid user ID.');
    await this.writeMeta(
      this.db,
      userId,
      ROLES_META,
      user.roles.filter((r) => r !== role),
    );
    this.appPasswords.forgetUser(userId);
  }

  can(user: HostUser | null, capability: string): boolean {
    if (!user) return false;
    const held = user.roles.some((key) => key === ADMINISTRATOR || this.roles.get(key)?.capabilities.includes(capability));
    return this.hooks.applyFilters('host/user/can', held, { user, capability });
  }

  async getMeta<T = unknown>(userId: number, key: string): Promise<T | undefined> {
    const row = (await this.db('usermeta').where({ user_id: userId, meta_key: key }).first('meta_value')) as { meta_value: string | null } | undefined;
    return row?.meta_value == null ? undefined : (JSON.parse(row.meta_value) as T);
  }

  async setMeta(userId: number, key: string, value: unknown, via?: Knex.Transaction): Promise<void> {
    await this.writeMeta(via ?? this.db, userId, key, value);
    if (key !== ROLES_META) return;
    this.appPasswords.forgetUser(userId);
    // Until the transaction ends the roles may yet roll back, and a request meanwhile may cache the old ones.
    const forget = () => this.appPasswords.forgetUser(userId);
    via?.executionPromise.then(forget, forget);
  }

  async deleteMeta(userId: number, key: string): Promise<void> {
    await this.db('usermeta').where({ user_id: userId, meta_key: key }).delete();
    if (key === ROLES_META) this.appPasswords.forgetUser(userId);
  }

  private async findRow(loginOrEmail: string): Promise<UserRow | undefined> {
    const value = loginOrEmail.trim();
    if (!value) return undefined;
    const query = this.selectUsers();
    if (value.includes('@')) query.where('users.email', value.toLowerCase()).orWhere('users.login', value);
    else query.where('users.login', value);
    return (await query.first()) as UserRow | undefined;
  }

  private async writeMeta(db: Knex | Knex.Transaction, userId: number, key: string, value: unknown): Promise<void> {
    await db('usermeta')
      .insert({ user_id: userId, meta_key: key, meta_value: JSON.stringify(value) })
      .onConflict(['user_id', 'meta_key'])
      .merge(['meta_value']);
  }

  private assertRole(role: string): void {
    if (!this.roles.get(role)) throw new UserError('invalid_role', `Unknown role "${role}".`);
  }
}
