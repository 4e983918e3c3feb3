/**
 * The one interface through which a plugin sees the host runtime.
 * Plugin code imports types from this file only, never a host implementation file.
 */
import type { Knex } from 'knex';

/* ------------------------------------------------------------------ hooks */

/**
 * Action names and their argument tuples. Modules add entries by declaration merging:
 * `declare module '<path>/src/host/contract' { interface ActionMap { 'store/x/created': [x: X] } }`.
 */
export interface ActionMap {
  /** A user logged in through the cookie login. */
  'host/user/logged_in': [user: HostUser];
  /** A user's cookie session was ended. */
  'host/user/logged_out': [userId: number];
  /** A user's email address was verified (the mailed link was confirmed, or an administrator vouched for it). */
  'host/user/email_verified': [user: HostUser];
}

/** Filter names and their tuples: the first element is the filtered value, the rest are context. */
export interface FilterMap {
  /** The capability verdict for a user; the last say on every `can()` check. */
  'host/user/can': [allowed: boolean, context: { user: HostUser; capability: string }];
}

export type ActionName = keyof ActionMap;
export type FilterName = keyof FilterMap;
export type FilterValue<N extends FilterName> = FilterMap[N][0];
export type FilterArgs<N extends FilterName> = FilterMap[N] extends [unknown, ...infer R] ? R : never;

export interface HookOptions {
  /** Lower runs first; default 10; equal priorities run in insertion order. */
  priority?: number;
  /** Lets an extension remove all of its listeners at once with `removeNamespace`. */
  namespace?: string;
}

export type Unsubscribe = () => void;

export interface Hooks {
  addAction<N extends ActionName>(name: N, listener: (...args: ActionMap[N]) => void | Promise<void>, options?: HookOptions): Unsubscribe;
  addFilter<N extends FilterName>(
    name: N,
    listener: (value: FilterValue<N>, ...args: FilterArgs<N>) => FilterValue<N> | Promise<FilterValue<N>>,
    options?: HookOptions,
  ): Unsubscribe;
  /** Runs listeners in order; a failing listener is logged and skipped; async listeners are not awaited. */
  doAction<N extends ActionName>(name: N, ...args: ActionMap[N]): void;
  /** Runs listeners in order, awaiting each; a failing listener is logged and skipped. */
  doActionAsync<N extends ActionName>(name: N, ...args: ActionMap[N]): Promise<void>;
  /** Synchronous filter: listeners returning a promise are an error (logged, value kept). */
  applyFilters<N extends FilterName>(name: N, value: FilterValue<N>, ...args: FilterArgs<N>): FilterValue<N>;
  applyFiltersAsync<N extends FilterName>(name: N, value: FilterValue<N>, ...args: FilterArgs<N>): Promise<FilterValue<N>>;
  removeNamespace(namespace: string): number;
  hasListeners(name: ActionName | FilterName): boolean;
  /** How many times an action or filter has run. */
  did(name: ActionName | FilterName): number;
  /** Whether the hook is running now; without a name, whether any hook is running. */
  doing(name?: ActionName | FilterName): boolean;
}

/** A veto is a filter over a verdict: listeners may turn `{ok: true}` into a refusal. */
export type Verdict = { ok: true } | { ok: false; status: number; code: string; message: string };

/* ------------------------------------------------------------------ users */

export interface HostUser {
  id: number;
  login: string;
  email: string;
  display_name: string;
  nicename: string;
  first_name: string;
  last_name: string;
  url: string;
  registered: string;
  roles: string[];
  /** When the user proved they receive mail at `email`; null until then, and again after the email changes. */
  email_verified_at: string | null;
}

export interface NewUser {
  login: string;
  email: string;
  password?: string;
  display_name?: string;
  first_name?: string;
  last_name?: string;
  url?: string;
  roles?: string[];
  /** The creator vouches for the address (an administrator, the CLI): the user starts verified. Default false. */
  email_verified?: boolean;
}

/** A new `email` clears `email_verified_at`; verification itself goes through `markEmailVerified`. */
export type UserPatch = Partial<Omit<HostUser, 'id' | 'registered' | 'roles' | 'email_verified_at'>> & { password?: string };

export interface RoleDefinition {
  title: string;
  description?: string;
  capabilities: string[];
  /** Built-in roles cannot be deleted. */
  builtin?: boolean;
}

export interface RoleRegistry {
  register(key: string, role: RoleDefinition): void;
  unregister(key: string): boolean;
  get(key: string): RoleDefinition | undefined;
  list(): Array<RoleDefinition & { key: string }>;
}

export interface AppPasswordRecord {
  id: number;
  user_id: number;
  name: string;
  uuid: string;
  created_at: string;
  last_used_at: string | null;
}

export interface AppPasswords {
  /** Returns the plain password once, formatted in groups of four; only its hash is stored. */
  create(userId: number, name: string): Promise<{ password: string; record: AppPasswordRecord }>;
  list(userId: number): Promise<AppPasswordRecord[]>;
  revoke(id: number): Promise<boolean>;
  /** Resolves `login:password` Basic credentials to the user, or null. */
  authenticate(login: string, password: string): Promise<HostUser | null>;
}

export interface Users {
  findById(id: number): Promise<HostUser | null>;
  /** Finds by login, or by email when the argument contains `@`. */
  findByLogin(loginOrEmail: string): Promise<HostUser | null>;
  findByEmail(email: string): Promise<HostUser | null>;
  create(input: NewUser): Promise<HostUser>;
  update(id: number, patch: UserPatch): Promise<HostUser>;
  /** Checks a login password (not an application password). */
  verifyPassword(loginOrEmail: string, password: string): Promise<HostUser | null>;
  assignRole(userId: number, role: string): Promise<void>;
  removeRole(userId: number, role: string): Promise<void>;
  /** Capability check; administrators hold every capability. Passes through `host/user/can`. */
  can(user: HostUser | null, capability: string): boolean;
  getMeta<T = unknown>(userId: number, key: string): Promise<T | undefined>;
  /**
   * `via`: the transaction to write in (a change of the user's `roles` then reaches this process's cached credentials
   * once the transaction has ended).
   */
  setMeta(userId: number, key: string, value: unknown, via?: Knex.Transaction): Promise<void>;
  deleteMeta(userId: number, key: string): Promise<void>;
  /**
   * Mails the user a signed link (48 hours; void once the email changes) to the host page `/verify-email/`, where
   * confirming marks the address verified. A user already verified gets no mail.
   */
  requestEmailVerification(userId: number): Promise<void>;
  /** Marks the user's current email verified (once) and fires `host/user/email_verified`, awaiting its listeners. */
  markEmailVerified(userId: number): Promise<HostUser>;
  roles: RoleRegistry;
  appPasswords: AppPasswords;
}

/* ------------------------------------------------------------------ nonces */

export interface NonceIdentity {
  userId: number;
  sessionToken: string;
}

export interface Nonces {
  create(action: string, identity: NonceIdentity): string;
  /** 1 = this tick, 2 = previous tick, false = invalid. */
  verify(nonce: string, action: string, identity: NonceIdentity): 1 | 2 | false;
}

/** MACs under the host secret (`STORE_SECRET`), one derived key per purpose: for the signed tokens a plugin hands out. */
export interface Signer {
  /** HMAC-SHA256 of `message` under the purpose's key, base64url. */
  sign(purpose: string, message: string): string;
  /** Whether `mac` is `sign(purpose, message)` (compared in constant time). */
  verify(purpose: string, message: string, mac: string): boolean;
}

/* ------------------------------------------------------------------ REST */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestAuth {
  /** How the caller authenticated. */
  method: 'app-password' | 'cookie' | null;
  /** The session the request carries (logged in or not), used to bind nonces. */
  sessionToken: string | null;
  /** The user the cookie session belongs to, whether or not a nonce was sent. */
  sessionUserId: number | null;
  /** The nonce sent (header `X-WP-Nonce` or `_wpnonce`), or null. */
  nonce: string | null;
  /** Whether that nonce is valid for the current identity and the `wp_rest` action. */
  nonceValid: boolean;
}

export interface RestSession {
  /** Starts a logged-in cookie session (a new session id); returns the fresh REST nonce. */
  login(user: HostUser, remember: boolean): Promise<string>;
  logout(): Promise<void>;
  /** Persists the cookie session (a guest's too) and returns its token; null for requests without a cookie session. */
  ensure(): Promise<string | null>;
  /** Ends every cookie session of the user except this request's own (after a password change, as WordPress does). */
  endOthers(userId: number): Promise<number>;
}

/** Why the HTTP layer refused a request's input: a 4xx status, a stable code and a message for the caller. */
export interface InputError {
  status: number;
  code: 'rest_invalid_json' | 'rest_invalid_request' | 'rest_request_too_large';
  message: string;
}

export interface RestRequest {
  method: HttpMethod;
  /** The route path inside the namespace, e.g. `/customers/5`. */
  path: string;
  namespace: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed body (JSON or form); undefined when none was sent. */
  body: unknown;
  /** The body was form-encoded: its values are text, so the route coerces them to the schema's types as it does a query. */
  bodyIsForm: boolean;
  /**
   * Set when the HTTP layer could not read the request (a body that is not JSON, too large or too deep, an unsupported
   * Content-Encoding, malformed percent-encoding, a query string over its limits): the route answers this 4xx in its
   * own envelope (what could not be read is left empty).
   */
  inputError: InputError | null;
  rawBody: Buffer | null;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  user: HostUser | null;
  auth: RestAuth;
  session: RestSession;
}

export interface RestResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RestArgSchema {
  [name: string]: { type?: string | string[]; required?: boolean; description?: string; enum?: unknown[]; [k: string]: unknown };
}

export interface RestEndpoint {
  method: HttpMethod;
  /** Path inside the namespace with `:name` parameters, e.g. `/customers/:customerId`. */
  path: string;
  /** Argument schemas shown by the discovery index. */
  args?: RestArgSchema;
  /** Parameter patterns shown by the discovery index, e.g. `{customerId: '\\d+'}`. */
  paramPatterns?: Record<string, string>;
  handler(request: RestRequest): Promise<RestResponse>;
}

export interface RestRouter {
  /** Registers an endpoint; throws if the same method and path is already registered. */
  register(namespace: string, endpoint: RestEndpoint): void;
  /** Serves `alias` as a deprecated copy of `namespace` (a `Deprecation` header on every answer). */
  alias(alias: string, namespace: string): void;
  namespaces(): string[];
}

/* ------------------------------------------------------------------ HTML pages */

export interface PageRequest {
  method: 'GET' | 'POST';
  /** The path as requested, e.g. `/receipt/`. */
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The fields of a form POST (`application/x-www-form-urlencoded`, first value of each name); empty otherwise. */
  form: Record<string, string>;
  /**
   * The user of the cookie session, or null. Pages need no nonce, so a page that changes something on a POST must
   * carry its own secret in the form (the session cookie is SameSite=Lax: a cross-site POST arrives without it anyway).
   */
  user: HostUser | null;
  session: RestSession;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
}

export type PageResponse =
  | { status?: number; html: string; headers?: Record<string, string> }
  | { status: 301 | 302 | 303 | 307 | 308; redirect: string; headers?: Record<string, string> };

export interface PageDefinition {
  /** Outside `/wp-json`, with `:name` parameters; matched with or without a trailing slash. */
  path: string;
  /** Default `['GET']`; HEAD is answered as GET without a body. */
  methods?: Array<'GET' | 'POST'>;
  handler(request: PageRequest): Promise<PageResponse>;
}

/**
 * HTML pages outside `/wp-json`, answered with `Content-Type: text/html; charset=utf-8`, a strict
 * Content-Security-Policy (no inline script or style), `X-Content-Type-Options: nosniff`, `Referrer-Policy:
 * no-referrer` and `Cache-Control: no-store` (a handler's headers may add to or override the last one). An unknown
 * URL keeps the host's JSON 404.
 */
export interface Pages {
  /** Throws if the path (and method) is already registered or lies under `/wp-json`. */
  register(page: PageDefinition): void;
  /** The host's error page (template `pages/error`: status and message, never a stack trace). */
  error(status: number, message: string): PageResponse;
}

/** Thrown by a page handler: the host answers its error page with this status and message. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/* ------------------------------------------------------------------ options */

/** Option names and their value types; modules add entries by declaration merging. */
export interface OptionMap {
  site_title: string;
  admin_email: string;
  timezone: string;
}

export interface Options {
  get<K extends keyof OptionMap>(name: K): Promise<OptionMap[K] | undefined>;
  /**
   * `via`: the transaction to read through when reading inside one (SQLite has a single connection, which the
   * transaction holds; a read through the pool would wait for it).
   */
  get<K extends keyof OptionMap>(name: K, fallback: OptionMap[K], via?: Knex.Transaction): Promise<OptionMap[K]>;
  /**
   * `via`: the transaction to write in (the value then commits or rolls back with it; this process reads it from the
   * database again once the transaction has ended).
   */
  set<K extends keyof OptionMap>(name: K, value: OptionMap[K], via?: Knex.Transaction): Promise<void>;
  /**
   * The stored value read from the table (never the cache) with its row locked until `trx` ends: the start of a
   * read-modify-write that must keep a concurrent save of another part of the option.
   */
  lock<K extends keyof OptionMap>(name: K, fallback: OptionMap[K], trx: Knex.Transaction): Promise<OptionMap[K]>;
  delete(name: keyof OptionMap): Promise<void>;
}

/* ------------------------------------------------------------------ jobs */

/** Job names and their payloads; modules add entries by declaration merging. */
export interface JobMap {
  'host/sessions/prune': Record<string, never>;
}

export interface JobInfo {
  id: number;
  name: string;
  /** This attempt's number, from 1; a claim whose lease expired counted as one. */
  attempts: number;
  maxAttempts: number;
  /**
   * Aborted when this worker finds it no longer holds the job (its lease expired and another worker reclaimed
   * it): a long handler should stop; whatever it then does, its outcome is not recorded.
   */
  signal: AbortSignal;
}

export interface JobDefinitionOptions {
  maxAttempts?: number;
  /** Base delay of the exponential backoff between attempts. */
  backoffMs?: number;
  /**
   * How many jobs of this name one worker runs at once from a claimed batch (default 1: one after another), for jobs
   * that mostly wait, such as sending email. The worker loop then claims up to four times that many jobs at a time.
   */
  concurrency?: number;
}

export interface EnqueueOptions {
  /** When to run; default now. */
  runAt?: Date;
  delayMs?: number;
  /** A job with the same unique key is enqueued once. */
  uniqueKey?: string;
  maxAttempts?: number;
  /**
   * The caller's transaction: the job is written through it, so it exists if and only if that transaction commits
   * (an email for an order that was rolled back is never sent). Required when enqueueing inside a transaction on
   * SQLite, whose single connection the transaction holds. A lock conflict is not retried here: the caller retries
   * its transaction.
   */
  trx?: Knex.Transaction;
}

export interface Jobs {
  define<N extends keyof JobMap>(name: N, handler: (payload: JobMap[N], job: JobInfo) => Promise<void>, options?: JobDefinitionOptions): void;
  enqueue<N extends keyof JobMap>(name: N, payload: JobMap[N], options?: EnqueueOptions): Promise<number | null>;
  /**
   * A recurring job on a cron pattern (croner syntax, UTC), once per name. Each occurrence is enqueued once across
   * processes; occurrences missed while no process ran (or while the worker was busy) are caught up by one job,
   * for the first missed occurrence, after which the normal cadence resumes.
   */
  schedule<N extends keyof JobMap>(name: N, pattern: string, payload: JobMap[N]): void;
  /** Claims and runs due jobs once; returns how many ran. */
  runDue(limit?: number): Promise<number>;
}

/* ------------------------------------------------------------------ misc */

/** A mailbox with a display name; nodemailer quotes and encodes the name. */
export interface MailAddress {
  name: string;
  address: string;
}

export interface MailMessage {
  to: string | string[];
  subject: string;
  html?: string;
  text?: string;
  from?: string | MailAddress;
  replyTo?: string | MailAddress;
  headers?: Record<string, string>;
}

export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
}

/** The plugin's HTML templates (eta, under the manifest's `templates` folder). */
export interface Views {
  /** Renders `<templates>/<name>.eta` with `data` as `it`; interpolations are HTML-escaped. */
  render(name: string, data: Record<string, unknown>): string;
}

export interface Clock {
  now(): Date;
}

export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface Site {
  url: string;
  title: string;
  admin_email: string;
  timezone: string;
}

export interface PluginManifest {
  name: string;
  version: string;
  namespace: string;
  /** The module whose `register(host)` adds everything: routes, jobs, roles, commands. */
  entry: string;
  /**
   * A light module whose `register(host)` adds only what CLI commands need (the commands, and the roles they
   * check); the CLI loads it instead of `entry`, so a command does not load the REST API. `entry` registers it too.
   */
  commands?: string;
  migrations: string;
  templates: string;
  permissions: string[];
  hooks: string;
}

/** Thrown by a CLI command for bad or missing flags: printed with the command's usage, exit code 2. */
export class CommandUsageError extends Error {}

/** Thrown by a CLI command that refuses to act (an unknown record, a listener's veto): printed as `error: <message>`, exit code 1. */
export class CommandError extends Error {}

/** A CLI command a plugin adds to `npm run cli -- <name>`. */
export interface CliCommand {
  /** One usage line, e.g. `seed --demo | --scale N`. */
  usage: string;
  /** Flags it accepts; values arrive as strings (or true for booleans). */
  options: Record<string, { type: 'string' | 'boolean' }>;
  run(flags: Record<string, string | boolean | undefined>): Promise<string[]>;
}

export interface Commands {
  register(name: string, command: CliCommand): void;
  get(name: string): CliCommand | undefined;
  list(): Array<[string, CliCommand]>;
}

export interface Host {
  router: RestRouter;
  pages: Pages;
  commands: Commands;
  hooks: Hooks;
  users: Users;
  nonces: Nonces;
  signer: Signer;
  db: Knex;
  options: Options;
  jobs: Jobs;
  mailer: Mailer;
  views: Views;
  clock: Clock;
  logger: Logger;
  site: Site;
  /** Absolute paths the plugin may use: its package root (templates, plugin.json) and its data directory. */
  paths: { pluginRoot: string; dataDir: string };
  manifest: PluginManifest;
}

export interface Plugin {
  register(host: Host): void | Promise<void>;
}
