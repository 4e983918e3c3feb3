import type { Static, TSchema } from '@sinclair/typebox';
import type { Host, HttpMethod, RestArgSchema, RestRequest, RestResponse } from '../host/contract';
import { createCtx, type Ctx } from './context';
import { ENVELOPES, renderError, type Envelope } from './envelopes';
import { AppError, fail } from './errors';
import { withIdempotency } from './idempotency';
import { isPermission, type Permission } from './permissions';
import { POLICIES, type Policy, type RoutePermission } from './policies';
import type { RateLimitRule, RateLimits } from './ratelimit';
import { compileValidator, type RouteSchemas } from './validate';

type StaticOr<T, Fallback> = T extends TSchema ? Static<T> : Fallback;

export interface RouteInputOf<S extends RouteSchemas> {
  params: StaticOr<S['params'], Record<string, string>>;
  query: StaticOr<S['query'], Record<string, unknown>>;
  body: StaticOr<S['body'], unknown>;
  /** The request as it arrived, for the routes that must see its exact bytes (signed gateway webhooks). */
  raw: { body: Buffer | null; headers: Record<string, string | string[] | undefined> };
}

/** A success answer with a status or headers other than the default 200. */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface RouteAnswer {
  description: string;
  schema: TSchema;
}

/** One endpoint, declared as data: it reads like a row of the spec's tables. */
export interface RouteDef<S extends RouteSchemas = RouteSchemas> {
  method: HttpMethod;
  /** Path inside the namespace, `:name` for parameters. */
  path: string;
  policy: Policy;
  permission: RoutePermission;
  schema?: S;
  envelope: Envelope;
  rateLimit?: RateLimitRule | RateLimitRule[];
  /** Answers the handler gives itself as a `Reply` outside the envelope (the spec's own shapes), by status: documented in OpenAPI. */
  answers?: Partial<Record<number, RouteAnswer>>;
  handler(ctx: Ctx, input: RouteInputOf<S>): Promise<unknown>;
}

/** Declares a route with its input types inferred from the schemas. */
export function route<S extends RouteSchemas>(def: RouteDef<S>): RouteDef {
  return def as unknown as RouteDef;
}

/** The route declarations mounted through `mountRoutes`, by namespace: what the OpenAPI document is generated from. */
export class RouteRegistry {
  private readonly mounted = new Map<string, RouteDef[]>();

  add(namespace: string, defs: readonly RouteDef[]): void {
    this.mounted.set(namespace, [...(this.mounted.get(namespace) ?? []), ...defs]);
  }

  routes(namespace: string): readonly RouteDef[] {
    return this.mounted.get(namespace) ?? [];
  }
}

export interface MountDeps {
  limits: RateLimits;
  /** Where the mounted declarations are recorded for the OpenAPI document; routes mounted without one are not documented. */
  registry?: RouteRegistry;
  /** Runs before each request is authorized, to bring what the policies read up to date (the role registry). */
  refresh?: () => Promise<void>;
}

function forbidden(status: 401 | 403): RestResponse {
  return { status, body: { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.', data: { status } } };
}

/** Fails closed: a route without a known policy, or whose permission does not fit it, stops start-up. */
function checkDeclaration(def: RouteDef): Permission[] {
  const where = `${def.method} ${def.path}`;
  if (!def.policy || !POLICIES.includes(def.policy)) throw new Error(`route ${where} has no policy`);
  if (!ENVELOPES.includes(def.envelope)) throw new Error(`route ${where} has no envelope`);
  if (typeof def.handler !== 'function') throw new Error(`route ${where} has no handler`);
  const { requires } = def.policy;
  if (requires === 'public' || requires === 'authenticated') {
    if (def.permission !== requires) throw new Error(`route ${where} under ${def.policy.name} must declare permission '${requires}'`);
    return [];
  }
  const permissions = ([] as string[]).concat(def.permission ?? []);
  if (!permissions.length || permissions.some((p) => p === 'public' || p === 'authenticated')) {
    throw new Error(`route ${where} under ${def.policy.name} must name a permission`);
  }
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length) throw new Error(`route ${where} names unknown permission(s) ${unknown.join(', ')}`);
  return permissions as Permission[];
}

function discoveryArgs(schemas: RouteSchemas): RestArgSchema {
  const args: RestArgSchema = {};
  for (const part of ['query', 'body'] as const) {
    const schema = schemas[part] as { properties?: Record<string, { type?: string; description?: string; enum?: unknown[] }>; required?: string[] } | undefined;
    for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
      args[name] = {
        type: prop.type,
        required: schema?.required?.includes(name) ?? false,
        ...(prop.description ? { description: prop.description } : {}),
        ...(prop.enum ? { enum: prop.enum } : {}),
      };
    }
  }
  return args;
}

function paramPatterns(schemas: RouteSchemas): Record<string, string> {
  const props = (schemas.params as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  return Object.fromEntries(Object.entries(props).map(([name, prop]) => [name, prop.type === 'integer' ? '[\\d]+' : '[^/]+']));
}

interface Variant {
  def: RouteDef;
  permissions: Permission[];
  validate: ReturnType<typeof compileValidator>;
}

/**
 * Registers routes with the host router. Declarations sharing a method and path become variants tried in
 * order: the first whose policy admits the caller answers (DESIGN §9, admin before portal).
 */
export function mountRoutes(host: Host, namespace: string, defs: RouteDef[], deps: MountDeps): void {
  const groups = new Map<string, Variant[]>();
  for (const def of defs) {
    const variant = { def, permissions: checkDeclaration(def), validate: compileValidator(def.schema ?? {}) };
    const key = `${def.method} ${def.path}`;
    groups.set(key, [...(groups.get(key) ?? []), variant]);
  }
  for (const variants of groups.values()) {
    const { method, path, schema = {} } = variants[0].def;
    host.router.register(namespace, {
      method,
      path,
      args: discoveryArgs(schema),
      paramPatterns: paramPatterns(schema),
      handler: (request) => handle(host, namespace, variants, request, deps),
    });
  }
  deps.registry?.add(namespace, defs);
}

async function handle(host: Host, namespace: string, variants: Variant[], request: RestRequest, deps: MountDeps): Promise<RestResponse> {
  await deps.refresh?.();
  const ctx = createCtx(host, request, deps.limits);
  let denied: 401 | 403 = 401;
  let chosen: Variant | undefined;
  for (const variant of variants) {
    const decision = variant.def.policy.authorize(ctx, variant.permissions);
    if (decision.allow) {
      chosen = variant;
      ctx.scope = decision.scope ?? null;
      break;
    }
    denied = decision.status;
  }
  if (!chosen) return forbidden(denied);

  const variant = chosen;
  try {
    return await withIdempotency(ctx, namespace, request, () => run(host, ctx, variant, request));
  } catch (error) {
    return failure(host, variant.def, error);
  }
}

async function run(host: Host, ctx: Ctx, { def, validate }: Variant, request: RestRequest): Promise<RestResponse> {
  try {
    if (request.inputError) throw fail(request.inputError.code, request.inputError.message, { status: request.inputError.status });
    for (const rule of ([] as RateLimitRule[]).concat(def.rateLimit ?? [])) await ctx.limits.consume(ctx, rule);
    const input = validate({ params: request.params, query: request.query, body: request.body, bodyIsForm: request.bodyIsForm });
    const raw = { body: request.rawBody, headers: request.headers };
    const result = await def.handler(ctx, { ...(input as Omit<RouteInputOf<RouteSchemas>, 'raw'>), raw });
    return result instanceof Reply ? { status: result.status, body: result.body, headers: result.headers } : { body: result };
  } catch (error) {
    return failure(host, def, error);
  }
}

function failure(host: Host, def: RouteDef, error: unknown): RestResponse {
  if (error instanceof AppError) return renderError(def.envelope, error);
  host.logger.error({ err: error, route: `${def.method} ${def.path}` }, 'route failed');
  return renderError(def.envelope, fail('internal_error'));
}
