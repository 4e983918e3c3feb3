import http from 'node:http';
import { promisify } from 'node:util';
import express, { type NextFunction, type Request, type Response } from 'express';
import session from 'express-session';
import type { Knex } from 'knex';
import { authenticate, REST_NONCE_ACTION } from './auth';
import { ConfigError, type HostConfig } from './config';
import type { Host, HostUser, HttpMethod, InputError, RestRequest, RestResponse, RestSession } from './contract';
import type { JobQueue } from './jobs';
import type { NonceService } from './nonce';
import { codeRoot } from './paths';
import { servePages } from './pages';
import { loadEntry } from './plugin-loader';
import type { RouteTable } from './router';
import { createHostServices, type HostOverrides } from './services';
import { BODY_LIMIT, inputErrorOf, parseQuery, pathError, readBody, readQuery } from './request-input';
import { KnexSessionStore } from './session-store';

export type { HostOverrides } from './services';

declare module 'express-session' {
  interface SessionData {
    userId?: number;
    /** Set for a guest who asked for a nonce, so the session (and the nonce bound to it) persists. */
    guest?: boolean;
  }
}

const REMEMBER_MS = 14 * 24 * 60 * 60 * 1000;
const SESSION_COOKIE = 'store_session';
/** A page's form body: a few fields, never an upload. */
const PAGE_BODY_LIMIT = '64kb';

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

export function wpError(status: number, code: string, message: string): RestResponse {
  return { status, body: { code, message, data: { status } } };
}

declare module './contract' {
  interface JobMap {
    'host/jobs/prune': Record<string, never>;
  }
}

/** Builds the host: its services (see services.ts) and the Express app with the REST router, ready for the plugin. */
export async function createHost(config: HostConfig, overrides: HostOverrides = {}): Promise<HostRuntime> {
  const services = await createHostServices(config, overrides);
  const { host, users, nonces, jobs, routes, pages, secret } = services;
  const { db, hooks, clock, logger, site, manifest } = host;
  const sessions = new KnexSessionStore(db, clock);

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
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', parseQuery);
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
  // A client error of the HTTP layer (unreadable body, bad encoding...) is answered by the matched route, in its envelope.
  app.use('/wp-json', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const refused = inputErrorOf(err);
    if (!refused) return next(err);
    dispatch(req, res, refused).catch((error: unknown) => serverError(res, error));
  });
  app.use(
    servePages(pages, {
      session: sessionMiddleware,
      rawBody: express.raw({ type: () => true, limit: PAGE_BODY_LIMIT }),
      userOf: async (req) => (req.session?.userId ? users.findById(req.session.userId) : null),
      sessionFor,
    }),
  );
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => serverError(res, err));
  app.use((_req, res) => send(res, wpError(404, 'rest_no_route', 'No route was found matching the URL and request method.')));

  function serverError(res: Response, err: unknown): void {
    logger.error({ err }, 'unhandled error');
    send(res, wpError(500, 'internal_server_error', 'An internal error occurred.'));
  }

  async function dispatch(req: Request, res: Response, refused: InputError | null = null): Promise<void> {
    const { query, error: queryError } = readQuery(req);
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
    const { body, form, error: bodyError } = readBody(req);
    const request: RestRequest = {
      method,
      path: matched.path,
      namespace: matched.namespace,
      params: matched.params,
      query,
      body,
      bodyIsForm: form,
      inputError: refused ?? pathError(req.path) ?? queryError ?? bodyError,
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
      await services.migratePlugin();
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
      if (server) await new Promise((resolve) => server!.close(resolve));
      await services.close();
    },
  };
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
