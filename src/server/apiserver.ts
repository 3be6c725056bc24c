// The API server: the HTTPS listener (HTTP/2 with HTTP/1.1 fallback), the filter chain
// (recover, request id, authenticate, impersonate, in-flight limit, authorize), routing to
// the non-resource endpoints and the resource handlers, and graceful shutdown.
import { randomUUID } from 'node:crypto';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { AdmissionChain } from '../admission/types.js';
import { ApiError, badRequest, tooManyRequests, unauthorized } from '../apimachinery/errors.js';
import { pathSegmentName } from '../registry/index.js';
import { parseDuration } from '../apimachinery/flags.js';
import { apiVersionOf, type UserInfo } from '../apimachinery/types.js';
import { forbiddenError } from '../auth/authz/union.js';
import { distinctHeaders } from '../auth/own-keys.js';
import type { AuthenticationRequest, AuthorizationAttributes, Authenticator, Authorizer } from '../auth/types.js';
import { wantsPretty } from '../codec/negotiate.js';
import { SerializerSet, encodeJson } from '../codec/serializer.js';
import type { ResourceTable } from '../rest/index.js';
import { MAX_REQUEST_BODY_BYTES } from './body.js';
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connections.js';
import { Discovery } from './discovery.js';
import { HealthChecks, type HealthEndpoint } from './health.js';
import {
  clientCertificateChain,
  genericNotFound,
  headerValue,
  methodNotAllowed,
  remoteAddress,
  setWarnings,
  toApiError,
  writeBody,
  writeStatus,
  type ServerRequest,
  type ServerResponse,
} from './http.js';
import { ApiServerMetrics } from './metrics.js';
import { RequestInfoError, parseRequestInfo, type RequestInfo } from './request-info.js';
import { ResourceHandler, type FieldChecker, type Patchers } from './resource-handler.js';
import type { VersionInfo } from './version.js';

export interface RawAnswer {
  code: number;
  contentType: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/** Serves `/openapi/v2`, `/openapi/v3` and `/openapi/v3/...`; undefined for a 404. */
export type OpenApiHandler = (path: string, query: URLSearchParams, accept: string | undefined, ifNoneMatch?: string) => Promise<RawAnswer | undefined>;

export interface ApiServerConfig {
  table: ResourceTable;
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** Applies Impersonate-* headers; throws ApiError 403/400. */
  impersonate?(headers: Record<string, string | string[] | undefined>, user: UserInfo): Promise<UserInfo>;
  admission?: AdmissionChain;
  patchers: Patchers;
  fieldChecker?: FieldChecker;
  /** Other modules' non-resource paths (OIDC discovery, JWKS); undefined when not theirs. */
  nonResource?(method: string, path: string): Promise<RawAnswer | undefined>;
  openapi?: OpenApiHandler;
  serializers?: SerializerSet;
  version: VersionInfo;
  tls: { cert: string | Buffer; key: string | Buffer; clientCA?: string | Buffer };
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  maxBodyBytes?: number;
  minRequestTimeoutSeconds?: number;
  /** Deadline of requests other than watches (default 60 s; `?timeout=` may shorten it). */
  requestTimeoutMs?: number;
  /** How long /readyz fails before the listener closes on shutdown. */
  shutdownDelayMs?: number;
  /** `host:port` clients use (discovery's serverAddressByClientCIDRs); defaults to the listener's. */
  externalAddress?: string;
  /** HTTP/2 streams a client may open at once on one connection (kube-apiserver: 1000; 0: 250). */
  http2MaxStreamsPerConnection?: number;
  /** Connection timeouts and limits; see ConnectionLimits for the defaults. */
  connections?: Partial<ConnectionLimits>;
  log?: (msg: string) => void;
}

/** Go's HTTP/2 default for MAX_CONCURRENT_STREAMS, used when the flag is 0. */
const GO_HTTP2_DEFAULT_MAX_STREAMS = 250;
const DEFAULT_HTTP2_MAX_STREAMS = 1000;

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const AUTH_CACHE_MS = 10_000;
/** kube-apiserver's --request-timeout default, also the most a client's `timeout` may ask for. */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** The deadline of a request that is not a watch: the `timeout` query parameter, capped. */
export function requestTimeoutMs(query: URLSearchParams, max: number): number {
  const raw = query.get('timeout');
  if (raw === null || raw === '') return max;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch {
    throw badRequest(`invalid timeout specified in the request URL`);
  }
  return ms > 0 && ms < max ? ms : max;
}

/**
 * Runs the handler until its deadline; past it the request's signal aborts and the client
 * gets 504 (the handler's own late answer is then dropped).
 */
async function withDeadline(work: Promise<void>, ms: number, abort: AbortController): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {}));
    }, ms);
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}

/** Headers no authenticator reads (credentials come as Authorization, proxy or Impersonate-* headers). */
const PLAIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'kubectl-command',
  'kubectl-session',
  'te',
  'transfer-encoding',
  'user-agent',
  'x-request-id',
]);

/** The connection a request came on: the HTTP/2 session, or the HTTP/1.1 socket. */
function connectionOf(req: ServerRequest): object | undefined {
  const session = (req as { stream?: { session?: object } }).stream?.session;
  return session ?? (req.socket as object | undefined);
}

function onlyPlainHeaders(headers: Record<string, unknown>): boolean {
  for (const name of Object.keys(headers)) if (!name.startsWith(':') && !PLAIN_HEADERS.has(name)) return false;
  return true;
}
const SUPERUSER_GROUP = 'system:masters';
const ANONYMOUS_USER = 'system:anonymous';

export class ApiServer {
  readonly health = new HealthChecks();
  readonly metrics = new ApiServerMetrics();
  readonly serializers: SerializerSet;
  private readonly discovery: Discovery;
  private readonly resources: ResourceHandler;
  private readonly shutdownController = new AbortController();
  private server: Http2SecureServer | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<Http2Session>();
  private inflight = { readOnly: 0, mutating: 0 };
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private address = '';
  private readonly authCache = new WeakMap<object, { user: UserInfo; until: number }>();
  private readonly connections: ConnectionGuard;
  private readonly connectionLimits: ConnectionLimits;

  constructor(private readonly config: ApiServerConfig) {
    this.serializers = config.serializers ?? new SerializerSet();
    this.connectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...config.connections };
    this.connections = new ConnectionGuard(this.connectionLimits);
    this.discovery = new Discovery(config.table, () => config.externalAddress ?? this.address);
    this.resources = new ResourceHandler({
      table: config.table,
      serializers: this.serializers,
      patchers: config.patchers,
      admission: config.admission,
      fieldChecker: config.fieldChecker,
      maxBodyBytes: config.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES,
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds ?? 1800,
      shutdownSignal: this.shutdownController.signal,
      authorize: (info, user) => this.authorize(info, user),
    });
    this.health.add(['livez', 'readyz', 'healthz'], { name: 'ping', check: () => {} });
    this.health.add(['livez', 'readyz', 'healthz'], { name: 'log', check: () => {} });
    this.health.add(['readyz'], {
      name: 'shutdown',
      last: true,
      check: () => {
        if (this.shuttingDown) throw new Error('process is shutting down');
      },
    });
  }

  /** Starts listening; resolves with the bound port. */
  async listen(port: number, host: string): Promise<number> {
    const tls = this.config.tls;
    const limits = this.connectionLimits;
    const streams = this.config.http2MaxStreamsPerConnection ?? DEFAULT_HTTP2_MAX_STREAMS;
    const server = createSecureServer(
      {
        cert: tls.cert,
        key: tls.key,
        ca: tls.clientCA,
        requestCert: true,
        rejectUnauthorized: false,
        allowHTTP1: true,
        settings: { maxConcurrentStreams: streams > 0 ? streams : GO_HTTP2_DEFAULT_MAX_STREAMS },
        handshakeTimeout: limits.headerTimeoutMs,
      },
      (req, res) => void this.handle(req as unknown as ServerRequest, res as unknown as ServerResponse),
    );
    // Later HTTP/1.1 requests on a kept-alive connection: Node's own header deadline, checked often enough to hold.
    const http1 = server as unknown as { headersTimeout: number; connectionsCheckingInterval: number };
    http1.headersTimeout = limits.headerTimeoutMs;
    http1.connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(limits.headerTimeoutMs / 4)));
    server.on('connection', (raw: Socket) => this.connections.accepted(raw));
    // Runs before the HTTP/2 layer's own listener, which emits 'session' synchronously.
    server.prependListener('secureConnection', (s: TLSSocket) => this.connections.beforeSecure(s));
    server.on('secureConnection', (s: Socket) => {
      this.connections.secured();
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('session', (session: Http2Session) => {
      this.connections.session(session);
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
    });
    // TLS handshake failures and clients that go away mid-handshake are not server errors.
    server.on('tlsClientError', () => {});
    server.on('sessionError', () => {});
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    this.address = `${h.includes(':') ? `[${h}]` : h}:${bound}`;
    return bound;
  }

  /** The request pipeline; never throws. */
  async handle(req: ServerRequest, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    this.active++;
    const conn = connectionOf(req);
    this.connections.requestStarted(conn);
    const requestAbort = new AbortController();
    const onClose = (): void => requestAbort.abort();
    res.on('close', onClose);
    let pathname = '/';
    res.setHeader('Audit-Id', randomUUID());
    // As kube-apiserver: API answers are per user and must not be cached on the way.
    res.setHeader('Cache-Control', 'no-cache, private');
    let info: RequestInfo | undefined;
    let query = new URLSearchParams();
    const warnings: string[] = [];
    let mutatingSlot = false;
    let readOnlySlot = false;
    try {
      if (isHttp2(req)) {
        // Node runs this handler inside the frame parser, before it reads the frames that
        // follow: a RST_STREAM sent right behind the HEADERS would only be seen once all the
        // work is done. One turn of the event loop lets it arrive first (rapid reset).
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (streamClosed(req)) requestAbort.abort();
        if (requestAbort.signal.aborted) return;
      }
      const target = parseRequestTarget(req.url ?? '/');
      pathname = target.pathname;
      query = target.query;
      const method = (req.method ?? 'GET').toUpperCase();
      try {
        info = parseRequestInfo(method, pathname, query);
      } catch (e) {
        if (e instanceof RequestInfoError) throw genericNotFound();
        throw e;
      }
      const pretty = wantsPretty(query, headerValue(req, 'user-agent'));

      // Repeatable headers (groups, extras) are read occurrence by occurrence, never joined.
      const headers = req.rawHeaders ? distinctHeaders(req.rawHeaders) : req.headers;
      const user = await this.authenticate(req, headers, warnings);
      if (user.username !== ANONYMOUS_USER) this.connections.authenticated(conn);
      const actingUser = this.config.impersonate ? await this.config.impersonate(headers, user) : user;

      // Max in flight: long-running requests (watch) and superusers are not limited.
      const longRunning = info.isResourceRequest && info.verb === 'watch';
      if (!longRunning && !actingUser.groups.includes(SUPERUSER_GROUP) && !user.groups.includes(SUPERUSER_GROUP)) {
        if (MUTATING.has(method)) {
          if (this.inflight.mutating >= (this.config.maxMutatingRequestsInFlight ?? 200)) throw tooManyRequests('Too many requests, please try again later.', 1);
          this.inflight.mutating++;
          mutatingSlot = true;
          this.metrics.setInflight('mutating', this.inflight.mutating);
        } else {
          if (this.inflight.readOnly >= (this.config.maxRequestsInFlight ?? 400)) throw tooManyRequests('Too many requests, please try again later.', 1);
          this.inflight.readOnly++;
          readOnlySlot = true;
          this.metrics.setInflight('readOnly', this.inflight.readOnly);
        }
      }

      await this.authorize(info, actingUser);
      // The client went away (an HTTP/2 reset) while it was authenticated: nothing to do.
      if (requestAbort.signal.aborted) return;

      if (info.isResourceRequest) {
        checkPathNames(info);
        const deprecation = this.deprecationWarning(info);
        if (deprecation) warnings.push(deprecation);
        const work = this.resources.handle({ req, res, info, query, user: actingUser, signal: requestAbort.signal, warnings, pretty });
        if (longRunning) await work;
        else await withDeadline(work, requestTimeoutMs(query, this.config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS), requestAbort);
      } else {
        await this.nonResource(req, res, info, method, pathname, query, pretty);
      }
    } catch (err) {
      const apiErr = toApiError(err);
      // Method and path only: query values may carry secrets (tokens, field selectors).
      if (apiErr.code >= 500 && !(err instanceof ApiError)) this.config.log?.(`internal error on ${logSafe(req.method ?? '')} ${logSafe(pathname)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (requestAbort.signal.aborted && streamClosed(req)) {
        // Nobody to answer.
      } else if (!res.headersSent) {
        setWarnings(res, warnings);
        writeStatus(res, apiErr);
      } else if (!res.writableEnded) res.end();
    } finally {
      if (mutatingSlot) this.metrics.setInflight('mutating', --this.inflight.mutating);
      if (readOnlySlot) this.metrics.setInflight('readOnly', --this.inflight.readOnly);
      res.off('close', onClose);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.observe(this.servedInfo(info), req.method ?? 'GET', res.statusCode, seconds, query.getAll('dryRun').includes('All'));
      this.connections.requestEnded(conn);
      this.active--;
      if (this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /**
   * Authenticates the request. Parsing and verifying the client certificate dominates the
   * cost of small requests, and it cannot change within a TLS connection: when a request
   * carries no header an authenticator could read, the connection's last answer is reused
   * for a few seconds.
   */
  private async authenticate(req: ServerRequest, headers: AuthenticationRequest['headers'], warnings: string[]): Promise<UserInfo> {
    const socket = connectionOf(req);
    const cacheable = socket !== undefined && onlyPlainHeaders(req.headers);
    if (cacheable) {
      const hit = this.authCache.get(socket);
      if (hit && hit.until > Date.now()) return hit.user;
    }
    const result = await this.config.authenticator.authenticate({
      headers,
      clientCertificateChain: clientCertificateChain(req),
      remoteAddress: remoteAddress(req),
    });
    if (!result) throw unauthorized();
    if (result.warnings) warnings.push(...result.warnings);
    if (cacheable) this.authCache.set(socket, { user: result.user, until: Date.now() + AUTH_CACHE_MS });
    return result.user;
  }

  private async authorize(info: RequestInfo, user: UserInfo): Promise<void> {
    const attrs: AuthorizationAttributes = {
      user,
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      path: info.path,
      apiGroup: info.apiGroup,
      apiVersion: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    };
    const result = await this.config.authorizer.authorize(attrs);
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
  }

  /**
   * The request as metrics may label it: a group, version, resource or subresource the server
   * does not serve is blanked, so that made-up paths cannot add series.
   */
  private servedInfo(info: RequestInfo | undefined): RequestInfo | undefined {
    if (!info?.isResourceRequest) return info;
    const store = this.config.table.lookup({ group: info.apiGroup, version: info.apiVersion }, info.resource);
    if (!store) return { ...info, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '' };
    if (info.subresource && !store.definition.subresources.some((s) => s.name === info.subresource)) return { ...info, subresource: '' };
    return info;
  }

  /** The warning for a request to a deprecated version, counted in the deprecated-API gauge. */
  private deprecationWarning(info: RequestInfo): string | undefined {
    const store = this.config.table.lookup({ group: info.apiGroup, version: info.apiVersion }, info.resource);
    const dep = store?.definition.deprecated;
    if (!store || !dep) return undefined;
    const d = store.definition;
    let text = `${apiVersionOf(d)} ${d.kind} is deprecated`;
    if (dep.since) text += ` in v${dep.since}+`;
    if (dep.removedIn) text += `, unavailable in v${dep.removedIn}+`;
    if (dep.replacement) text += `; use ${dep.replacement}`;
    this.metrics.deprecatedRequest(d.group, d.version, d.resource, info.subresource, dep.removedIn ?? '');
    return text;
  }

  private async nonResource(
    req: ServerRequest,
    res: ServerResponse,
    info: RequestInfo,
    method: string,
    pathname: string,
    query: URLSearchParams,
    pretty: boolean,
  ): Promise<void> {
    const path = info.path;
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

    // Discovery.
    if (parts[0] === 'api' && parts.length <= 2) {
      requireGet();
      if (parts.length === 1) {
        const a = this.discovery.legacyRoot(accept);
        return json(a.body, a.contentType);
      }
      const a = this.discovery.resourceList('', parts[1]!);
      if (!a) throw genericNotFound();
      return json(a.body, a.contentType);
    }
    if (parts[0] === 'apis' && parts.length <= 3) {
      requireGet();
      const a = parts.length === 1 ? this.discovery.groupList(accept) : parts.length === 2 ? this.discovery.group(parts[1]!) : this.discovery.resourceList(parts[1]!, parts[2]!);
      if (!a) throw genericNotFound();
      return json(a.body, a.contentType);
    }
    if (path === '/version') {
      requireGet();
      return json(this.config.version);
    }
    if (parts[0] === 'livez' || parts[0] === 'readyz' || parts[0] === 'healthz') {
      requireGet();
      const answer = await this.health.answer(parts[0] as HealthEndpoint, parts.length > 1 ? parts.slice(1).join('/') : undefined, query);
      if (!answer) throw genericNotFound();
      // While shutting down, readiness fails with 503 so that load balancers drain the server.
      const code = answer.code === 500 && parts[0] === 'readyz' && this.shuttingDown ? 503 : answer.code;
      res.setHeader('X-Content-Type-Options', 'nosniff');
      writeBody(res, code, 'text/plain; charset=utf-8', answer.body, head);
      return;
    }
    if (path === '/metrics') {
      requireGet();
      const m = await this.metrics.text();
      writeBody(res, 200, m.contentType, m.body, head);
      return;
    }
    if (parts[0] === 'openapi') {
      requireGet();
      const a = this.config.openapi ? await this.config.openapi(path, query, accept, headerValue(req, 'if-none-match')) : undefined;
      if (!a) throw genericNotFound();
      return this.writeRaw(res, a, head);
    }
    if (this.config.nonResource) {
      const a = await this.config.nonResource(method, pathname);
      if (a) return this.writeRaw(res, a, head);
    }
    if (path === '/') {
      requireGet();
      return json({ paths: this.rootPaths() });
    }
    throw genericNotFound();
  }

  private writeRaw(res: ServerResponse, a: RawAnswer, head: boolean): void {
    for (const [k, v] of Object.entries(a.headers ?? {})) res.setHeader(k, v);
    writeBody(res, a.code, a.contentType, a.body, head);
  }

  private rootPaths(): string[] {
    const paths = new Set<string>(['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/metrics', '/version', '/openapi/v2', '/openapi/v3']);
    for (const s of this.config.table.all()) {
      const d = s.definition;
      if (d.group) {
        paths.add(`/apis/${d.group}`);
        paths.add(`/apis/${d.group}/${d.version}`);
      }
    }
    for (const c of this.health.names('livez')) paths.add(`/livez/${c}`);
    for (const c of this.health.names('readyz')) paths.add(`/readyz/${c}`);
    return [...paths].sort();
  }

  /**
   * Graceful shutdown: /readyz fails at once; after the delay the listener stops taking
   * connections, watches end, in-flight requests finish (bounded), connections close.
   */
  async shutdown(opts: { drainTimeoutMs?: number } = {}): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    const delay = this.config.shutdownDelayMs ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const server = this.server;
    const closed = server ? new Promise<void>((r) => server.close(() => r())) : Promise.resolve();
    for (const s of this.sessions) s.close();
    this.shutdownController.abort();
    if (this.active > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, opts.drainTimeoutMs ?? 30_000);
        this.idleWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    for (const s of this.sockets) s.destroy();
    for (const s of this.sessions) s.destroy();
    this.connections.destroyAll();
    await closed;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}

/**
 * Splits an origin-form request target into its path and query, taking the path as sent:
 * no dot-segment removal and no merging of slashes (`new URL()` would turn
 * `configmaps/..` into the namespace). Segments are percent-decoded later, one by one.
 */
export function parseRequestTarget(raw: string): { pathname: string; query: URLSearchParams } {
  if (!raw.startsWith('/')) throw badRequest('malformed request URL');
  const q = raw.indexOf('?');
  const pathname = q < 0 ? raw : raw.slice(0, q);
  let query = q < 0 ? '' : raw.slice(q + 1);
  // A fragment is never sent; if one is, it is not part of the query.
  const hash = query.indexOf('#');
  if (hash >= 0) query = query.slice(0, hash);
  return { pathname, query: new URLSearchParams(query) };
}

/**
 * Names and namespaces taken from the path must be usable as a single path segment, as the
 * generic registry's key functions require: `Name parameter invalid: "..": may not be '..'`.
 */
function checkPathNames(info: RequestInfo): void {
  if (info.name && !info.collection) {
    const problems = pathSegmentName(info.name, false);
    if (problems.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(info.name)}: ${problems.join(';')}`);
  }
  if (info.namespace) {
    const problems = pathSegmentName(info.namespace, false);
    if (problems.length > 0) throw badRequest(`Namespace parameter invalid: ${JSON.stringify(info.namespace)}: ${problems.join(';')}`);
  }
}

/** For log lines: request-derived text, bounded and without control characters. */
function logSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\x00-\x1f\x7f]/g, '?');
  return clean.length > 256 ? `${clean.slice(0, 256)}...` : clean;
}

function isHttp2(req: ServerRequest): boolean {
  return (req as { stream?: unknown }).stream !== undefined;
}

/** True when the request's HTTP/2 stream is already closed (reset by the client). */
function streamClosed(req: ServerRequest): boolean {
  const stream = (req as { stream?: { closed?: boolean; destroyed?: boolean } }).stream;
  return stream !== undefined && (stream.closed === true || stream.destroyed === true);
}
