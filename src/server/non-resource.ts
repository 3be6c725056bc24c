// Non-resource requests: discovery, /version, health, /metrics, OpenAPI, other modules'
// paths (OIDC discovery, JWKS), and the root listing of paths.
import { encodeJson } from '../codec/serializer.js';
import type { ResourceTable } from '../rest/index.js';
import { notModified, type Discovery, type DiscoveryAnswer } from './discovery.js';
import type { HealthChecks, HealthEndpoint } from './health.js';
import { genericNotFound, headerValue, methodNotAllowed, writeBody, type ServerResponse } from './http.js';
import type { ApiServerMetrics } from './metrics.js';
import type { RequestScope } from './filters/chain.js';
import type { VersionInfo } from './version.js';

export interface RawAnswer {
  code: number;
  contentType: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/** Serves `/openapi/v2`, `/openapi/v3` and `/openapi/v3/...`; undefined for a 404. */
export type OpenApiHandler = (path: string, query: URLSearchParams, accept: string | undefined, ifNoneMatch?: string) => Promise<RawAnswer | undefined>;

export interface NonResourceDeps {
  table: ResourceTable;
  discovery: Discovery;
  health: HealthChecks;
  metrics: ApiServerMetrics;
  version: VersionInfo;
  openapi?: OpenApiHandler;
  /** Other modules' non-resource paths; undefined when not theirs. */
  nonResource?(method: string, path: string, query: URLSearchParams): Promise<RawAnswer | undefined>;
  shuttingDown(): boolean;
}

export async function serveNonResource(deps: NonResourceDeps, scope: RequestScope, path: string): Promise<void> {
  const { req, res, method, query, pretty } = scope;
  const parts = path.split('/').filter((p) => p !== '');
  const head = method === 'HEAD';
  const readOnly = method === 'GET' || method === 'HEAD';
  const json = (body: unknown, contentType = 'application/json'): void => {
    res.setHeader('Vary', 'Accept');
    writeBody(res, 200, contentType, encodeJson(body as Record<string, unknown>, pretty), head);
  };
  const requireGet = (): void => {
    if (!readOnly) throw methodNotAllowed();
  };
  const accept = headerValue(req, 'accept');
  const discovered = (a: DiscoveryAnswer): void => {
    for (const [name, value] of Object.entries(a.headers ?? {})) res.setHeader(name, value);
    if (notModified(a, headerValue(req, 'if-none-match'))) {
      res.setHeader('Vary', 'Accept');
      res.statusCode = 304;
      res.end();
      return;
    }
    json(a.body, a.contentType);
  };

  // Discovery.
  if (parts[0] === 'api' && parts.length <= 2) {
    requireGet();
    if (parts.length === 1) {
      return discovered(deps.discovery.legacyRoot(accept));
    }
    const a = deps.discovery.resourceList('', parts[1]!);
    if (!a) throw genericNotFound();
    return json(a.body, a.contentType);
  }
  if (parts[0] === 'apis' && parts.length <= 3) {
    requireGet();
    const a = parts.length === 1 ? deps.discovery.groupList(accept) : parts.length === 2 ? deps.discovery.group(parts[1]!) : deps.discovery.resourceList(parts[1]!, parts[2]!);
    if (!a) throw genericNotFound();
    return discovered(a);
  }
  if (path === '/version') {
    requireGet();
    return json(deps.version);
  }
  if (parts[0] === 'livez' || parts[0] === 'readyz' || parts[0] === 'healthz') {
    requireGet();
    const answer = await deps.health.answer(parts[0] as HealthEndpoint, parts.length > 1 ? parts.slice(1).join('/') : undefined, query);
    if (!answer) throw genericNotFound();
    // While shutting down, readiness fails with 503 so that load balancers drain the server.
    const code = answer.code === 500 && parts[0] === 'readyz' && deps.shuttingDown() ? 503 : answer.code;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    writeBody(res, code, 'text/plain; charset=utf-8', answer.body, head);
    return;
  }
  if (path === '/metrics') {
    requireGet();
    const m = await deps.metrics.text();
    writeBody(res, 200, m.contentType, m.body, head);
    return;
  }
  if (parts[0] === 'openapi') {
    requireGet();
    const a = deps.openapi ? await deps.openapi(path, query, accept, headerValue(req, 'if-none-match')) : undefined;
    if (!a) throw genericNotFound();
    return writeRaw(res, a, head);
  }
  if (deps.nonResource) {
    const a = await deps.nonResource(method, scope.pathname, query);
    if (a) return writeRaw(res, a, head);
  }
  if (path === '/') {
    requireGet();
    return json({ paths: rootPaths(deps) });
  }
  throw genericNotFound();
}

function writeRaw(res: ServerResponse, a: RawAnswer, head: boolean): void {
  for (const [k, v] of Object.entries(a.headers ?? {})) res.setHeader(k, v);
  writeBody(res, a.code, a.contentType, a.body, head);
}

function rootPaths(deps: NonResourceDeps): string[] {
  const paths = new Set<string>(['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/metrics', '/version', '/openapi/v2', '/openapi/v3']);
  for (const s of deps.table.all()) {
    const d = s.definition;
    if (d.group) {
      paths.add(`/apis/${d.group}`);
      paths.add(`/apis/${d.group}/${d.version}`);
    }
  }
  for (const c of deps.health.names('livez')) paths.add(`/livez/${c}`);
  for (const c of deps.health.names('readyz')) paths.add(`/readyz/${c}`);
  return [...paths].sort();
}
