// The remote client: the same `ApiClient` over HTTPS (or plain HTTP), from a kubeconfig.
// JSON in and out; a watch is one streamed response of concatenated JSON documents; a
// failure answer is decoded into the ApiError its `Status` body describes. A user with a
// credential plugin gets its token or certificate per request (see exec.ts).
import http from 'node:http';
import https from 'node:https';
import { ApiError, type Status } from '../apimachinery/errors.js';
import { isPlainObject, type GroupVersionResource, type KubeList, type KubeObject, type WatchEvent } from '../apimachinery/types.js';
import type { DeleteOptions, ListOptions } from '../rest/index.js';
import { ExecAuthenticator, type ExecCredentials } from './exec.js';
import type { CollectionDeleter } from './extended.js';
import { JsonStreamSplitter } from './json-stream.js';
import { readKubeconfig, type ClientConfig } from './kubeconfig.js';
import { listQuery, resourcePath } from './paths.js';
import type { ApiClient } from './types.js';

export interface HttpClientOptions {
  userAgent?: string;
  /** Per-request timeout for non-watch calls (default 60 s). */
  timeoutMs?: number;
}

export interface RawResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function isStatus(value: unknown): value is Status {
  return isPlainObject(value) && value.kind === 'Status' && typeof value.code === 'number';
}

/** The ApiError a failed response stands for: its Status body, or one made from the code. */
export function errorFromResponse(statusCode: number, body: Buffer): ApiError {
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isStatus(parsed)) {
    return new ApiError(parsed.code || statusCode, parsed.reason ?? REASONS[statusCode] ?? 'Unknown', parsed.message ?? '', parsed.details);
  }
  const reason = REASONS[statusCode] ?? 'Unknown';
  const message = text.trim() || `the server responded with the status code ${statusCode} but did not return more information`;
  return new ApiError(statusCode, reason, message);
}

export class HttpClient implements ApiClient, CollectionDeleter {
  private readonly base: URL;
  private agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly exec?: ExecAuthenticator;
  /** The plugin certificate the current agent presents; another one needs new connections. */
  private agentCert?: string;

  constructor(
    private readonly config: ClientConfig,
    private readonly options: HttpClientOptions = {},
  ) {
    this.base = new URL(config.server);
    this.transport = this.base.protocol === 'https:' ? https : http;
    this.agent = this.newAgent(config.clientCertPem, config.clientKeyPem);
    if (config.exec) this.exec = new ExecAuthenticator(config.exec, config);
  }

  static fromKubeconfig(path: string, options: HttpClientOptions = {}): HttpClient {
    return new HttpClient(readKubeconfig(path), options);
  }

  private newAgent(cert: string | undefined, key: string | undefined): http.Agent {
    if (this.transport === http) return new http.Agent({ keepAlive: true });
    return new https.Agent({
      keepAlive: true,
      ca: this.config.caPem,
      cert,
      key,
      rejectUnauthorized: !this.config.insecureSkipTlsVerify,
      servername: this.config.tlsServerName,
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private headers(extra: Record<string, string>, creds: ExecCredentials | undefined): Record<string, string> {
    const h: Record<string, string> = { Accept: 'application/json', ...extra };
    const token = this.config.token ?? creds?.token;
    if (token) h.Authorization = `Bearer ${token}`;
    if (this.options.userAgent) h['User-Agent'] = this.options.userAgent;
    return h;
  }

  /** The plugin's credentials for one request, with the agent switched when its certificate changed. */
  private async credentials(): Promise<ExecCredentials | undefined> {
    if (!this.exec) return undefined;
    let creds: ExecCredentials;
    try {
      creds = await this.exec.credentials();
    } catch (e) {
      throw new Error(`getting credentials: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (creds.clientCertPem !== this.agentCert) {
      // Connections made with the old certificate keep its identity: close them all.
      this.agent.destroy();
      this.agent = this.newAgent(creds.clientCertPem, creds.clientKeyPem);
      this.agentCert = creds.clientCertPem;
    }
    return creds;
  }

  /** After a 401 the plugin runs again on the next request. */
  private answered(statusCode: number | undefined, creds: ExecCredentials | undefined): void {
    if (statusCode === 401 && creds) this.exec?.unauthorized(creds);
  }

  private open(method: string, path: string, headers: Record<string, string>, creds: ExecCredentials | undefined, signal?: AbortSignal): http.ClientRequest {
    const url = new URL(path, this.base);
    return this.transport.request(url, { method, agent: this.agent, headers: this.headers(headers, creds), signal });
  }

  /** One request with the whole answer buffered; any status code resolves. */
  async request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RawResponse> {
    const creds = await this.credentials();
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const headers: Record<string, string> = payload ? { 'Content-Type': contentType, 'Content-Length': String(payload.length) } : {};
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? 60_000);
    return new Promise((resolve, reject) => {
      const req = this.open(method, path, headers, creds, signal);
      req.on('error', reject);
      req.on('response', (res) => {
        this.answered(res.statusCode, creds);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.end(payload);
    });
  }

  private async call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.request(method, path, body, contentType);
    if (res.statusCode < 200 || res.statusCode > 299) throw errorFromResponse(res.statusCode, res.body);
    try {
      return JSON.parse(res.body.toString('utf8')) as T;
    } catch {
      throw new ApiError(500, 'InternalError', `the server returned a body that is not JSON (status ${res.statusCode})`);
    }
  }

  get(r: GroupVersionResource, namespace: string, name: string, subresource?: string): Promise<KubeObject> {
    return this.call('GET', resourcePath(r, namespace, name, subresource));
  }

  list(r: GroupVersionResource, namespace: string, opts?: Omit<ListOptions, 'allowWatchBookmarks'>): Promise<KubeList> {
    return this.call('GET', resourcePath(r, namespace) + listQuery(opts));
  }

  async *watch(r: GroupVersionResource, namespace: string, opts: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent> {
    if (signal.aborted) return;
    const path = resourcePath(r, namespace) + listQuery(opts, { watch: 'true' });
    const creds = await this.credentials();
    const req = this.open('GET', path, {}, creds, signal);
    let res: http.IncomingMessage;
    try {
      res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        req.on('error', reject);
        req.on('response', resolve);
        req.end();
      });
    } catch (e) {
      if (signal.aborted) return;
      throw e;
    }
    this.answered(res.statusCode, creds);
    try {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        for await (const c of res) chunks.push(c as Buffer);
        throw errorFromResponse(res.statusCode ?? 0, Buffer.concat(chunks));
      }
      const splitter = new JsonStreamSplitter();
      for await (const chunk of res) {
        for (const doc of splitter.push(chunk as Buffer)) {
          const event = parseWatchEvent(doc);
          if (event) yield event;
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      throw e;
    } finally {
      res.destroy();
    }
  }

  create(
    r: GroupVersionResource,
    namespace: string,
    obj: KubeObject,
    subresource?: { name: string; subresource: string },
  ): Promise<KubeObject> {
    return this.call('POST', resourcePath(r, namespace, subresource?.name, subresource?.subresource), obj);
  }

  update(r: GroupVersionResource, namespace: string, obj: KubeObject, subresource?: string): Promise<KubeObject> {
    const name = obj.metadata?.name;
    if (!name) return Promise.reject(new ApiError(400, 'BadRequest', 'name is required'));
    return this.call('PUT', resourcePath(r, namespace, name, subresource), obj);
  }

  patch(r: GroupVersionResource, namespace: string, name: string, mergePatch: unknown, subresource?: string): Promise<KubeObject> {
    return this.call('PATCH', resourcePath(r, namespace, name, subresource), mergePatch, 'application/merge-patch+json');
  }

  async delete(r: GroupVersionResource, namespace: string, name: string, opts?: Partial<DeleteOptions>): Promise<KubeObject | undefined> {
    const answer = await this.call<KubeObject>('DELETE', resourcePath(r, namespace, name), deleteOptionsBody(opts));
    return answer.kind === 'Status' ? undefined : answer;
  }

  async deleteCollection(
    r: GroupVersionResource,
    namespace: string,
    opts?: Partial<DeleteOptions>,
    listOpts?: Omit<ListOptions, 'allowWatchBookmarks' | 'continue' | 'limit'>,
  ): Promise<void> {
    await this.call('DELETE', resourcePath(r, namespace) + listQuery(listOpts), deleteOptionsBody(opts));
  }
}

/** DeleteOptions as the wire carries them (`dryRun: ["All"]`); validate hooks stay local. */
function deleteOptionsBody(opts: Partial<DeleteOptions> | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (!opts) return body;
  if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
  if (opts.preconditions) body.preconditions = opts.preconditions;
  if (opts.dryRun) body.dryRun = ['All'];
  return body;
}

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

function parseWatchEvent(doc: unknown): WatchEvent | undefined {
  if (!isPlainObject(doc) || typeof doc.type !== 'string' || !EVENT_TYPES.has(doc.type) || !isPlainObject(doc.object)) {
    return undefined;
  }
  return { type: doc.type as WatchEvent['type'], object: doc.object as KubeObject };
}
