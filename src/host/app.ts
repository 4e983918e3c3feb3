import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import express, { type NextFunction, type Request, type Response } from 'express';
import session from 'express-session';
import type { Knex } from 'knex';
import qs from 'qs';
import { AppPasswordStore } from './app-passwords';
import { authenticate, REST_NONCE_ACTION } from './auth';
import { systemClock } from './clock';
import { ConfigError, type HostConfig } from './config';
import type { CliCommand, Clock, Host, HostUser, HttpMethod, Logger, PluginManifest, RestRequest, RestResponse, RestSession, Site } from './contract';
import { openDatabase } from './database';
import { HookBus } from './hooks/bus';
import { JobQueue } from './jobs';
import { createLogger } from './logger';
import { HostMailer } from './mailer';
import { HOST_MIGRATIONS, migrateDirectory } from './migrate';
import { NonceService } from './nonce';
import { OptionStore } from './options';
import { codeRoot, findPackageRoot } from './paths';
import { loadEntry, readManifest } from './plugin-loader';
import { registerHostRoles } from './roles';
import { RouteTable } from './router';
import { KnexSessionStore } from './session-store';
import { UserStore } from './users';

declare module 'express-session' {
  interface SessionData {
    userId?: number;
    /** Set for a guest who asked for a nonce, so the session (and the nonce bound to it) persists. */
    guest?: boolean;
  }
}

const REMEMBER_MS = 14 * 24 * 60 * 60 * 1000;
const BODY_LIMIT = '2mb';
const SESSION_COOKIE = 'store_session';

export interface HostRuntime {
  host: Host;
  app: express.Express;
  db: Knex;
  jobs: JobQueue;
  routes: RouteTable;
  /** Runs the plugin's migrations and calls its `register(host)`. */
  loadPlugin(): Promise<void>;
  listen(): Promise<http.Server>;
  close(): Promise<void>;
}

export interface HostOverrides {
  clock?: Clock;
  logger?: Logger;
  db?: Knex;
}

export function wpError(status: number, code: string, message: string): RestResponse {
  return { status, body: { code, message, data: { status } } };
}

async function loadSecret(options: OptionStore, configured: string | null): Promise<string> {
  if (configured) return configured;
  const stored = await options.get('host_secret');
  if (stored) return stored;
  const created = crypto.randomBytes(32).toString('hex');
  await options.set('host_secret', created);
  return created;
}

declare module './contract' {
  interface OptionMap {
    host_secret: string;
  }
  interface JobMap {
    'host/jobs/prune': Record<string, never>;
  }
}

/** Builds the host: database, services, the Express app with the REST router, ready for the plugin. */
export async function createHost(config: HostConfig, overrides: HostOverrides = {}): Promise<HostRuntime> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = overrides.db ?? (await openDatabase(config.databaseUrl));
  await migrateDirectory(db, HOST_MIGRATIONS, 'host_migrations');

  const options = new OptionStore(db, clock);
  const secret = await loadSecret(options, config.secret);
  const hooks = new HookBus(logger);
  const users = new UserStore(db, hooks, clock);
  users.appPasswords = new AppPasswordStore(db, users, clock, secret);
  registerHostRoles(users.roles);
  const nonces = new NonceService(secret, clock);
  const jobs = new JobQueue(db, clock, logger);
  const routes = new RouteTable();
  const sessions = new KnexSessionStore(db, clock);
  const site: Site = {
    url: config.siteUrl,
    title: await options.get('site_title', 'My Store'),
    admin_email: await options.get('admin_email', 'admin@example.com'),
    timezone: await options.get('timezone', 'UTC'),
  };
  const packageRoot = findPackageRoot();
  const manifest: PluginManifest = readManifest(packageRoot);
  const mailer = new HostMailer(site, config.smtpUrl, path.join(config.dataDir, 'mail'));

  const commands = new Map<string, CliCommand>();
  const host: Host = {
    router: routes,
    commands: {
      register(name, command) {
        if (commands.has(name)) throw new Error(`CLI command "${name}" is registered twice`);
        commands.set(name, command);
      },
      get: (name) => commands.get(name),
      list: () => [...commands],
    },
    hooks,
    users,
    nonces,
    db,
    options,
    jobs,
    mailer,
    clock,
    logger,
    site,
    paths: { pluginRoot: packageRoot, dataDir: config.dataDir },
    manifest,
  };

  jobs.define('host/sessions/prune', async () => {
    await sessions.prune();
  });
  jobs.define('host/jobs/prune', async () => {
    const cutoff = new Date(clock.now().getTime() - 7 * 24 * 60 * 60 * 1000).toISOString().slice(0, 19).replace('T', ' ');
    await db('jobs').whereIn('status', ['done', 'failed']).andWhere('finished_at', '<', cutoff).delete();
  });
  jobs.schedule('host/sessions/prune', '17 * * * *', {});
  jobs.schedule('host/jobs/prune', '23 3 * * *', {});
  registerHostEndpoints(routes, nonces);

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', (text: string) => qs.parse(text, { depth: 5, arrayLimit: 5000 }));
  const sessionMiddleware = session({
    store: sessions,
    secret,
    name: SESSION_COOKIE,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto' },
  });
  const rawBody = express.raw({ type: () => true, limit: BODY_LIMIT });

  app.use('/wp-json', (req, res, next) => (req.headers.authorization ? next() : sessionMiddleware(req, res, next)));
  app.use('/wp-json', (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? next() : rawBody(req, res, next)));
  app.use('/wp-json', (req, res, next) => {
    dispatch(req, res).catch(next);
  });
  app.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.too.large') return send(res, wpError(413, 'rest_request_too_large', 'The request body is too large.'));
    logger.error({ err }, 'unhandled error');
    send(res, wpError(500, 'internal_server_error', 'An internal error occurred.'));
  });
  app.use((_req, res) => send(res, wpError(404, 'rest_no_route', 'No route was found matching the URL and request method.')));

  async function dispatch(req: Request, res: Response): Promise<void> {
    const query = req.query as Record<string, unknown>;
    const method = (req.method === 'HEAD' ? 'GET' : req.method) as HttpMethod;
    const subPath = req.path;
    if (method === 'GET' && (subPath === '/' || subPath === '')) return send(res, { body: index() });
    const trimmed = subPath.replace(/\/+$/, '');
    if (method === 'GET' && routes.hasNamespace(trimmed.slice(1))) {
      const namespace = trimmed.slice(1);
      return send(res, { body: { namespace, routes: routes.routes(namespace) } });
    }
    const matched = routes.match(method, trimmed);
    if (!matched) return send(res, wpError(404, 'rest_no_route', 'No route was found matching the URL and request method.'));

    const who = await authenticate(req, query, users, nonces);
    if (!who.ok) return send(res, wpError(who.status, who.code, who.message));
    const { body, bodyError } = parseBody(req);
    const request: RestRequest = {
      method,
      path: matched.path,
      namespace: matched.namespace,
      params: matched.params,
      query,
      body,
      bodyError,
      rawBody: Buffer.isBuffer(req.body) ? req.body : null,
      headers: req.headers,
      ip: req.ip ?? '',
      user: who.user,
      auth: who.auth,
      session: sessionFor(req),
    };
    const response = await matched.endpoint.handler(request);
    if (matched.deprecated) {
      response.headers = { ...response.headers, Deprecation: 'true', Link: `<${config.siteUrl}/wp-json/${manifest.namespace}>; rel="successor-version"` };
    }
    send(res, response);
  }

  function sessionFor(req: Request): RestSession {
    return {
      async login(user: HostUser, remember: boolean): Promise<string> {
        if (!req.session) throw new Error('cookie login needs a cookie session (send no Authorization header)');
        await promisify(req.session.regenerate.bind(req.session))();
        req.session.userId = user.id;
        if (remember) req.session.cookie.maxAge = REMEMBER_MS;
        await promisify(req.session.save.bind(req.session))();
        hooks.doAction('host/user/logged_in', user);
        return nonces.create(REST_NONCE_ACTION, { userId: user.id, sessionToken: req.sessionID });
      },
      async ensure(): Promise<string | null> {
        if (!req.session) return null;
        if (!req.session.userId && !req.session.guest) {
          req.session.guest = true;
          await promisify(req.session.save.bind(req.session))();
        }
        return req.sessionID;
      },
      endOthers: (userId: number) => sessions.destroyOthers(userId, req.session?.userId === userId ? req.sessionID : null),
      async logout(): Promise<void> {
        const userId = req.session?.userId;
        if (!req.session) return;
        await promisify(req.session.destroy.bind(req.session))();
        if (userId) hooks.doAction('host/user/logged_out', userId);
      },
    };
  }

  function index(): Record<string, unknown> {
    return {
      name: site.title,
      description: 'Store REST API',
      url: site.url,
      home: site.url,
      gmt_offset: 0,
      timezone_string: site.timezone,
      namespaces: routes.namespaces(),
      authentication: { 'application-passwords': { endpoints: { authorization: `${site.url}/wp-json/` } } },
      routes: routes.routes(),
    };
  }

  let server: http.Server | null = null;
  return {
    host,
    app,
    db,
    jobs,
    routes,
    async loadPlugin() {
      await migrateDirectory(db, path.join(codeRoot, manifest.migrations), 'store_migrations');
      await loadEntry(codeRoot, manifest).register(host);
      routes.alias(manifest.namespace.replace(/\/v\d+$/, '/v1'), manifest.namespace);
    },
    listen() {
      return new Promise((resolve, reject) => {
        const s = http.createServer(app);
        s.once('error', (error: NodeJS.ErrnoException) =>
          reject(error.code === 'EADDRINUSE' ? new ConfigError(`port ${config.port} on ${config.host} is already in use`) : error),
        );
        s.listen(config.port, config.host, () => {
          server = s;
          resolve(s);
        });
      });
    },
    async close() {
      await jobs.stop();
      if (server) await new Promise((resolve) => server!.close(resolve));
      if (!overrides.db) await db.destroy();
    },
  };
}

function parseBody(req: Request): { body: unknown; bodyError: string | null } {
  const raw = req.body as unknown;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { body: undefined, bodyError: null };
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const text = raw.toString('utf8');
  if (type.includes('application/x-www-form-urlencoded')) return { body: qs.parse(text, { depth: 5, arrayLimit: 5000 }), bodyError: null };
  if (type.includes('multipart/form-data')) return { body: undefined, bodyError: 'multipart bodies are not supported' };
  try {
    return { body: JSON.parse(text), bodyError: null };
  } catch {
    return { body: undefined, bodyError: 'The request body is not valid JSON.' };
  }
}

/** Writes a JSON answer directly (no ETag: REST answers change with every write and clients do not revalidate). */
function send(res: Response, response: RestResponse): void {
  const body = JSON.stringify(response.body) ?? '';
  res.statusCode = response.status ?? 200;
  if (response.headers) res.set(response.headers);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function registerHostEndpoints(routes: RouteTable, nonces: NonceService): void {
  routes.register('host/v1', {
    method: 'GET',
    path: '/nonce',
    async handler(request) {
      const sessionToken = await request.session.ensure();
      if (!sessionToken) return wpError(400, 'rest_no_session', 'A REST nonce needs a cookie session; send no Authorization header.');
      const nonce = nonces.create(REST_NONCE_ACTION, { userId: request.auth.sessionUserId ?? 0, sessionToken });
      return { body: { nonce }, headers: { 'X-WP-Nonce': nonce } };
    },
  });
  routes.register('host/v1', {
    method: 'POST',
    path: '/logout',
    async handler(request) {
      if (!request.user || request.auth.method !== 'cookie') return wpError(401, 'rest_forbidden', 'Sorry, you are not allowed to do that.');
      await request.session.logout();
      return { body: { success: true } };
    },
  });
}
