import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  PageError,
  type HostUser,
  type Logger,
  type PageDefinition,
  type PageRequest,
  type PageResponse,
  type Pages,
  type RestSession,
  type Views,
} from './contract';
import { inputErrorOf, readBody, readQuery } from './request-input';
import { compilePath, matchSegments, pathKey, specificity, splitPath, type PathSegments } from './router';

type PageMethod = 'GET' | 'POST';

interface CompiledPage {
  page: PageDefinition;
  methods: PageMethod[];
  segments: PathSegments;
}

/**
 * Set on every page, after the handler's own headers: no script or style but the site's own files, no framing, no
 * referrer (page URLs carry secrets such as the receipt's order hash), no MIME sniffing.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** What the error page says when its own template cannot be rendered: fixed text, nothing from the request. */
const FALLBACK_ERROR = (status: number) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error ${status}</title></head><body><h1>Error ${status}</h1><p>An internal error occurred.</p></body></html>`;

const INTERNAL = 'An internal error occurred.';

/** The plugin's HTML pages and the host's error page. */
export class PageTable implements Pages {
  private readonly pages: CompiledPage[] = [];

  constructor(
    private readonly views: Views,
    private readonly logger: Logger,
  ) {}

  register(page: PageDefinition): void {
    const segments = compilePath(page.path);
    if (segments[0] && 'literal' in segments[0] && segments[0].literal === 'wp-json') throw new Error(`page ${page.path} lies under /wp-json`);
    const methods = page.methods ?? ['GET'];
    const key = pathKey(segments);
    if (this.pages.some((p) => pathKey(p.segments) === key && p.methods.some((m) => methods.includes(m)))) {
      throw new Error(`page ${page.path} is registered twice`);
    }
    this.pages.push({ page, methods, segments });
    this.pages.sort(specificity);
  }

  match(method: string, path: string): { page: PageDefinition; params: Record<string, string> } | null {
    const parts = splitPath(path);
    for (const compiled of this.pages) {
      if (!compiled.methods.includes(method as PageMethod)) continue;
      const params = matchSegments(compiled.segments, parts);
      if (params) return { page: compiled.page, params };
    }
    return null;
  }

  error(status: number, message: string): PageResponse {
    try {
      return { status, html: this.views.render('pages/error', { status, message }) };
    } catch (error) {
      this.logger.error({ err: error }, 'the error page could not be rendered');
      return { status, html: FALLBACK_ERROR(status) };
    }
  }

  /** The answer for whatever a handler threw: its own error page for a `PageError`, otherwise a logged 500. */
  failure(error: unknown): PageResponse {
    if (error instanceof PageError && error.status >= 400 && error.status <= 599) return this.error(error.status, error.message);
    this.logger.error({ err: error }, 'page failed');
    return this.error(500, INTERNAL);
  }
}

export interface PageServing {
  /** The cookie session middleware (the REST API's own). */
  session: RequestHandler;
  /** Reads a POST body into `req.body` as a Buffer. */
  rawBody: RequestHandler;
  userOf(req: Request): Promise<HostUser | null>;
  sessionFor(req: Request): RestSession;
}

function use(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void handler(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
  });
}

/** The first value of each form field, as text. */
function formFields(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[name] = first;
  }
  return fields;
}

/** The Express middleware that answers registered pages; any other URL goes on to the host's 404. */
export function servePages(table: PageTable, serving: PageServing): RequestHandler {
  async function answer(req: Request, res: Response, page: PageDefinition, params: Record<string, string>): Promise<PageResponse> {
    const method = req.method === 'POST' ? 'POST' : 'GET';
    try {
      await use(serving.session, req, res);
      if (method === 'POST') await use(serving.rawBody, req, res);
    } catch (error) {
      const refused = inputErrorOf(error);
      if (refused) return table.error(refused.status, refused.message);
      throw error;
    }
    const { query, error: queryError } = readQuery(req);
    if (queryError) return table.error(queryError.status, queryError.message);
    const { body, form, error: bodyError } = method === 'POST' ? readBody(req) : { body: undefined, form: false, error: null };
    if (bodyError) return table.error(bodyError.status, bodyError.message);
    const request: PageRequest = {
      method,
      path: req.path,
      params,
      query,
      form: form ? formFields(body) : {},
      user: await serving.userOf(req),
      session: serving.sessionFor(req),
      headers: req.headers,
      ip: req.ip ?? '',
    };
    try {
      return await page.handler(request);
    } catch (error) {
      return table.failure(error);
    }
  }

  return (req: Request, res: Response, next: NextFunction) => {
    const matched = table.match(req.method === 'HEAD' ? 'GET' : req.method, req.path);
    if (!matched) return next();
    answer(req, res, matched.page, matched.params)
      .catch((error: unknown) => table.failure(error))
      .then((response) => send(res, response))
      .catch(next);
  };
}

function send(res: Response, response: PageResponse): void {
  res.statusCode = response.status ?? 200;
  res.set({ 'Cache-Control': 'no-store', ...response.headers, ...SECURITY_HEADERS });
  if ('redirect' in response) {
    res.setHeader('Location', response.redirect);
    res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  res.setHeader('Content-Length', Buffer.byteLength(response.html));
  res.end(res.req.method === 'HEAD' ? undefined : response.html);
}
