// The API server: the HTTPS listener (HTTP/2 with HTTP/1.1 fallback), the filter chain
// composed in kube-apiserver's order (see README.md), the handlers it ends in (resource
// requests by verb, non-resource endpoints), health, and graceful shutdown.
import { ServerResponse as Http1Response, type IncomingMessage } from 'node:http';
import type { FeatureGate } from '../apimachinery/features.js';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { AdmissionChain } from '../admission/types.js';
import { apiVersionOf } from '../apimachinery/types.js';
import type { Authenticator, Authorizer } from '../auth/types.js';
import { SerializerSet } from '../codec/serializer.js';
import type { ResourceTable, WriteRecorder } from '../rest/index.js';
import { ConnectionGuard, defaultConnectionLimits, type ConnectionLimits } from './connections.js';
import { Discovery, type DiscoverySource } from './discovery.js';
import type { Auditor } from '../audit/index.js';
import { domainKey } from '../naming/index.js';
import { withAudit, withFailedAuthenticationAudit } from './filters/audit.js';
import { withAuthentication } from './filters/authentication.js';
import { authorize, withAuthorization } from './filters/authorization.js';
import { withCacheControl } from './filters/cache-control.js';
import { compose, isPromise, RequestAbort, required, type Handler, type Outcome, type RequestScope } from './filters/chain.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, withRequestDeadline } from './filters/deadline.js';
import { withImpersonation, type Impersonator } from './filters/impersonation.js';
import { withMaxInFlightLimit } from './filters/max-in-flight.js';
import { withPriorityAndFairness } from './filters/priority-and-fairness.js';
import type { FlowController } from '../flowcontrol/controller.js';
import { withMetrics } from './filters/metrics.js';
import { streamClosed, withPanicRecovery } from './filters/recover.js';
import { withRequestId } from './filters/request-id.js';
import { withRequestInfo } from './filters/request-info.js';
import { withStaticFiles, type StaticFiles } from './filters/static-files.js';
import { MAX_REQUEST_BODY_BYTES } from './handlers/body.js';
import type { HandlerDeps, ResourceRequest } from './handlers/request.js';
import { markUpgrade } from './handlers/connect.js';
import { checkPathNames, serveResource } from './handlers/resource.js';
import { HealthChecks } from './health.js';
import type { ServerRequest, ServerResponse } from './http.js';
import { ApiServerMetrics } from './metrics.js';
import { serveNonResource, type NonResourceDeps, type OpenApiHandler, type RawAnswer } from './non-resource.js';
import type { RequestInfo } from './request-info.js';
import type { VersionInfo } from './version.js';
import { abortController } from '../apimachinery/abort.js';

export interface ApiServerConfig {
  table: ResourceTable;
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** Applies Impersonate-* headers; throws ApiError 403/400. */
  impersonate?: Impersonator;
  admission?: AdmissionChain;
  /** Where successful writes go for the object history; none is kept without it. */
  history?: WriteRecorder;
  /** Records audit events (`--audit-policy-file` and a backend); nothing is audited without it. */
  auditor?: Auditor;
  /** Other modules' non-resource paths (OIDC discovery, JWKS); undefined when not theirs. */
  nonResource?(method: string, path: string, query: URLSearchParams): Promise<RawAnswer | undefined>;
  openapi?: OpenApiHandler;
  serializers?: SerializerSet;
  version: VersionInfo;
  tls: { cert: string | Buffer; key: string | Buffer; clientCA?: string | Buffer };
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  /** The metrics registry to report to (one is made when absent); priority and fairness registers on it first. */
  metrics?: ApiServerMetrics;
  /** API priority and fairness; when set it replaces the max-in-flight limits, as in kube-apiserver. */
  flowControl?: FlowController;
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
  /** The server's feature gates (list chunking, remaining item counts, aggregated discovery); the 1.27 defaults when absent. */
  features?: FeatureGate;
  /** The aggregation layer: group-versions served by other servers, proxied after authorization. */
  aggregation?: AggregationHook;
  /** Static files answered without credentials (the web console at /ui/); absent: those paths are API paths (404). */
  staticFiles?: StaticFiles;
}

/** What the aggregation layer plugs in: its discovery source and the proxy for remote group-versions. */
export interface AggregationHook {
  discovery: DiscoverySource;
  /** Serves the request when a remote APIService claims its path; false otherwise. */
  serve(scope: RequestScope): Promise<boolean>;
}

/** Go's HTTP/2 default for MAX_CONCURRENT_STREAMS, used when the flag is 0. */
const GO_HTTP2_DEFAULT_MAX_STREAMS = 250;
const DEFAULT_HTTP2_MAX_STREAMS = 1000;

/** The connection a request came on: the HTTP/2 session, or the HTTP/1.1 socket. */
function connectionOf(req: ServerRequest): object | undefined {
  const session = (req as { stream?: { session?: object } }).stream?.session;
  return session ?? (req.socket as object | undefined);
}

export class ApiServer {
  readonly health = new HealthChecks();
  readonly metrics: ApiServerMetrics;
  readonly serializers: SerializerSet;
  private readonly shutdownController = new AbortController();
  private server: Http2SecureServer | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<Http2Session>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private address = '';
  private readonly connections: ConnectionGuard;
  private readonly connectionLimits: ConnectionLimits;
  private readonly chain: Handler;

  constructor(private readonly config: ApiServerConfig) {
    this.metrics = config.metrics ?? new ApiServerMetrics();
    this.serializers = config.serializers ?? new SerializerSet();
    this.connectionLimits = { ...defaultConnectionLimits(), ...config.connections };
    this.connections = new ConnectionGuard(this.connectionLimits);
    const handlers: HandlerDeps = {
      table: config.table,
      serializers: this.serializers,
      admission: config.admission,
      maxBodyBytes: config.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES,
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds ?? 1800,
      shutdownSignal: this.shutdownController.signal,
      authorize: (info, user) => authorize(config.authorizer, info, user),
      requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      features: config.features,
      history: config.history,
    };
    const discovery = new Discovery(config.table, () => config.externalAddress ?? this.address, config.features?.enabled('AggregatedDiscoveryEndpoint') ?? true);
    if (config.aggregation) discovery.setSource(config.aggregation.discovery);
    const nonResource: NonResourceDeps = {
      table: config.table,
      discovery,
      health: this.health,
      metrics: this.metrics,
      version: config.version,
      openapi: config.openapi,
      nonResource: config.nonResource?.bind(config),
      shuttingDown: () => this.shuttingDown,
    };
    if (config.auditor) this.metrics.addRegistry(config.auditor.metrics.registry);
    // kube-apiserver's DefaultBuildHandlerChain order, outermost first (README.md says where
    // and why this differs).
    this.chain = compose(
      [
        withRequestId,
        withCacheControl,
        withMetrics(this.metrics, config.table),
        withPanicRecovery(config.log, this.serializers),
        withStaticFiles(config.staticFiles),
        withRequestInfo,
        withRequestDeadline(config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
        withFailedAuthenticationAudit(config.auditor),
        withAuthentication(config.authenticator, (conn) => this.connections.authenticated(conn)),
        withAudit(config.auditor),
        withImpersonation(config.impersonate),
        config.flowControl
          ? withPriorityAndFairness(config.flowControl, this.metrics)
          : withMaxInFlightLimit({ readOnly: config.maxRequestsInFlight ?? 400, mutating: config.maxMutatingRequestsInFlight ?? 200 }, this.metrics),
        withAuthorization(config.authorizer),
      ],
      async (scope) => {
        const info = required(scope.info, 'RequestInfo');
        if (info.isResourceRequest) checkPathNames(info);
        if (config.aggregation && (await config.aggregation.serve(scope))) return;
        if (!info.isResourceRequest) return serveNonResource(nonResource, scope, info.path);
        const deprecation = this.deprecationWarning(info, scope);
        if (deprecation) scope.warnings.push(deprecation);
        const { req, res, query, warnings, pretty, audit, abort } = scope;
        // Built as one literal (no spread): this object is made for every resource request.
        const request: ResourceRequest = {
          req,
          res,
          info,
          query,
          user: required(scope.user, 'the user'),
          // Made only when the handler asks for it.
          get signal() {
            return abort.signal;
          },
          get aborted() {
            return abort.aborted;
          },
          warnings,
          pretty,
          audit,
        };
        if (scope.watchInitialized) request.onWatchInitialized = scope.watchInitialized;
        await serveResource(handlers, request);
      },
    );
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
    server.on('connection', (raw: Socket) => {
      // Answers go out in several writes (headers, streamed chunks, the end); with Nagle's
      // algorithm on, a last small write waits for the client's delayed ACK (about 40 ms).
      // Go servers, kube-apiserver among them, set TCP_NODELAY on every connection too.
      raw.setNoDelay(true);
      this.connections.accepted(raw);
    });
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
    // HTTP/1.1 upgrades (exec, attach, port-forward, proxied WebSockets) take the same filter chain.
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
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

  /** Serves one request; never throws (a promise only when the request had to wait for something). */
  handle(req: ServerRequest, res: ServerResponse): Outcome {
    this.active++;
    const connection = connectionOf(req);
    this.connections.requestStarted(connection);
    const scope: RequestScope = {
      req,
      res,
      started: process.hrtime.bigint(),
      abort: new RequestAbort(),
      connection,
      warnings: [],
      method: (req.method ?? 'GET').toUpperCase(),
      pathname: '/',
      query: new URLSearchParams(),
      pretty: false,
    };
    const onClose = (): void => scope.abort.abort();
    res.on('close', onClose);
    const ended = (): void => {
      res.off('close', onClose);
      this.connections.requestEnded(connection);
      this.active--;
      if (this.active === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
    if (isHttp2(req)) {
      // Node runs this handler inside the frame parser, before it reads the frames that
      // follow: a RST_STREAM sent right behind the HEADERS would only be seen once all the
      // work is done. One turn of the event loop lets it arrive first (rapid reset).
      return new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => {
          if (streamClosed(req)) scope.abort.abort();
          if (scope.abort.aborted) return;
          return this.chain(scope);
        })
        .finally(ended);
    }
    let outcome: Outcome;
    try {
      // The panic recovery filter turns what the chain throws into an answer.
      outcome = this.chain(scope);
    } catch (err) {
      ended();
      return Promise.reject(err);
    }
    if (!isPromise(outcome)) return ended();
    return outcome.finally(ended);
  }

  /**
   * An HTTP/1.1 upgrade request: answered through the whole chain like any other, on a
   * response written straight to its socket (errors are a Status, then the connection
   * closes); a connect handler that upgrades takes the socket over.
   */
  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const res = new Http1Response(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => socket.end());
    markUpgrade(req, socket, head);
    void this.handle(req as unknown as ServerRequest, res as unknown as ServerResponse);
  }

  /** The warning for a request to a deprecated version, counted in the deprecated-API gauge and audited. */
  private deprecationWarning(info: RequestInfo, scope: RequestScope): string | undefined {

    const store = this.config.table.lookup({ group: info.apiGroup, version: info.apiVersion }, info.resource);
    const dep = store?.definition.deprecated;
    if (!store || !dep) return undefined;
    const d = store.definition;
    let text = `${apiVersionOf(d)} ${d.kind} is deprecated`;
    if (dep.since) text += ` in v${dep.since}+`;
    if (dep.removedIn) text += `, unavailable in v${dep.removedIn}+`;
    if (dep.replacement) text += `; use ${dep.replacement}`;
    this.metrics.deprecatedRequest(d.group, d.version, d.resource, info.subresource, dep.removedIn ?? '');
    scope.audit?.add(domainKey('deprecated'), 'true');
    if (dep.removedIn) scope.audit?.add(domainKey('removed-release'), dep.removedIn);
    return text;
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
    abortController(this.shutdownController);
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

function isHttp2(req: ServerRequest): boolean {
  return (req as { stream?: unknown }).stream !== undefined;
}
