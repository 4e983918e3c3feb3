import type { HttpMethod, RestEndpoint, RestRouter } from './contract';

/** A path split into literal segments and `:name` parameters. */
export type PathSegments = Array<{ literal: string } | { param: string }>;

interface CompiledEndpoint extends RestEndpoint {
  segments: PathSegments;
}

export interface RouteMatch {
  endpoint: RestEndpoint;
  namespace: string;
  path: string;
  params: Record<string, string>;
  deprecated: boolean;
}

export interface DiscoveryRoute {
  namespace: string;
  methods: HttpMethod[];
  endpoints: Array<{ methods: HttpMethod[]; args: Record<string, unknown> }>;
}

export function splitPath(path: string): string[] {
  return path.split('/').filter(Boolean);
}

export function compilePath(path: string): PathSegments {
  return splitPath(path).map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
}

/** The parameters of `parts` (a split request path) when it fits `segments`, else null. */
export function matchSegments(segments: PathSegments, parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i];
    if ('literal' in segment) {
      if (segment.literal !== parts[i]) return null;
    } else if (parts[i] === '') return null;
    else params[segment.param] = safeDecode(parts[i]);
  }
  return params;
}

/** The same shape with parameter names blanked: two paths with the same key collide. */
export function pathKey(segments: PathSegments): string {
  return segments.map((s) => ('literal' in s ? s.literal : ':')).join('/');
}

/** Literal segments beat parameters, left to right, so `/customers/add-address` wins over `/customers/:id`. */
export function specificity(a: { segments: PathSegments }, b: { segments: PathSegments }): number {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const aLiteral = 'literal' in a.segments[i];
    const bLiteral = 'literal' in b.segments[i];
    if (aLiteral !== bLiteral) return aLiteral ? -1 : 1;
  }
  return 0;
}

/** The REST route table: namespaces (`store/v2`), endpoints inside them, aliases and the discovery index. */
export class RouteTable implements RestRouter {
  private readonly table = new Map<string, CompiledEndpoint[]>();
  private readonly aliases = new Map<string, string>();

  register(namespace: string, endpoint: RestEndpoint): void {
    if (!/^[a-z0-9-]+\/v\d+$/.test(namespace)) throw new Error(`invalid REST namespace "${namespace}" (expected e.g. store/v2)`);
    const segments = compilePath(endpoint.path);
    const list = this.table.get(namespace) ?? [];
    const key = pathKey(segments);
    if (list.some((e) => e.method === endpoint.method && pathKey(e.segments) === key)) {
      throw new Error(`route ${endpoint.method} /${namespace}${endpoint.path} is registered twice`);
    }
    list.push({ ...endpoint, segments });
    list.sort(specificity);
    this.table.set(namespace, list);
  }

  alias(alias: string, namespace: string): void {
    this.aliases.set(alias, namespace);
  }

  namespaces(): string[] {
    return [...this.table.keys(), ...this.aliases.keys()];
  }

  hasNamespace(namespace: string): boolean {
    return this.table.has(namespace) || this.aliases.has(namespace);
  }

  /** Finds the endpoint for a path under `/wp-json` such as `/store/v2/customers/5`. */
  match(method: string, fullPath: string): RouteMatch | null {
    // Empty segments are kept: `/customers//orders` names no customer, so it matches no route with a parameter there.
    const parts = fullPath.split('/').slice(1);
    if (parts.length < 2) return null;
    const requested = `${parts[0]}/${parts[1]}`;
    const namespace = this.aliases.get(requested) ?? requested;
    const list = this.table.get(namespace);
    if (!list) return null;
    const rest = parts.slice(2);
    for (const endpoint of list) {
      if (endpoint.method !== method) continue;
      const params = matchSegments(endpoint.segments, rest);
      if (params) return { endpoint, namespace: requested, path: `/${rest.join('/')}`, params, deprecated: requested !== namespace };
    }
    return null;
  }

  /** Routes in the WordPress discovery format, keyed `/namespace/path` with `(?P<name>pattern)` parameters. */
  routes(onlyNamespace?: string): Record<string, DiscoveryRoute> {
    const out: Record<string, DiscoveryRoute> = {};
    const namespaces = onlyNamespace ? [onlyNamespace] : [...this.table.keys(), ...this.aliases.keys()];
    for (const requested of namespaces) {
      const namespace = this.aliases.get(requested) ?? requested;
      for (const endpoint of this.table.get(namespace) ?? []) {
        const path = endpoint.segments.map((s) => ('literal' in s ? s.literal : `(?P<${s.param}>${endpoint.paramPatterns?.[s.param] ?? '[^/]+'})`)).join('/');
        const key = `/${requested}${path ? `/${path}` : ''}`;
        const route = (out[key] ??= { namespace: requested, methods: [], endpoints: [] });
        route.methods.push(endpoint.method);
        route.endpoints.push({ methods: [endpoint.method], args: endpoint.args ?? {} });
      }
    }
    return out;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
