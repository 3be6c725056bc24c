// The aggregation layer (kube-aggregator's part of kube-apiserver): APIServices for the
// group-versions this server serves (autoregistration, kept in step with the resource
// table), the availability controller, the proxy that sends requests for group-versions of
// other servers there with the caller's identity in front-proxy headers, the discovery
// source that lists those group-versions with the resources fetched from them, and the
// `extension-apiserver-authentication` ConfigMap extension servers read to trust it.
import { isApiError, serviceUnavailable, badRequest } from '../apimachinery/errors.js';
import { realClock, type Clock } from '../apimachinery/clock.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import { builtinAPIServicePriority, CUSTOM_RESOURCE_PRIORITY } from '../apis/apiregistration/index.js';
import { Informer } from '../client/informer.js';
import type { ApiClient } from '../client/types.js';
import { ExponentialBackoff, runWorkers, WorkQueue } from '../client/workqueue.js';
import { group as servedGroup, longDomainKey, shortWord, systemNamespace } from '../naming/index.js';
import { proxyRequest, UpstreamError, type ProxiedRequest, type ProxiedResponse } from '../proxy/transport.js';
import type { ResourceTable } from '../rest/index.js';
import type { RemoteOpenApiDocument } from '../schema/openapi/index.js';
import { createHash } from 'node:crypto';
import type { AggregatedGroupVersion, DiscoverySource } from '../server/discovery.js';
import type { RequestScope } from '../server/filters/chain.js';
import {
  availabilityAfterCheck,
  availabilityBeforeCheck,
  parseAPIService,
  resolveEndpoint,
  sameCondition,
  withCondition,
  type APIServiceInfo,
} from './apiservice.js';
import { forwardedPath, upstreamURL } from './forward-path.js';
import { isGlobalUnicast } from '../proxy/location.js';
import { endpointURL, getJSON, resourcesOf, type RemoteEndpoint } from './remote.js';

export { parseAPIService, resolveEndpoint, availabilityBeforeCheck, availabilityAfterCheck } from './apiservice.js';

/** The front-proxy settings: the client certificate, and what the ConfigMap publishes. */
export interface FrontProxyConfig {
  clientCert: string | Buffer;
  clientKey: string | Buffer;
  /** PEM of the CA that verifies ordinary client certificates (`client-ca-file`). */
  clientCA: string;
  /** PEM of the CA that signed the front-proxy client certificate (`requestheader-client-ca-file`). */
  requestHeaderCA: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export interface AggregatorOptions {
  client: ApiClient;
  table: ResourceTable;
  frontProxy: FrontProxyConfig;
  clock?: Clock;
  /** Bound on waiting for a remote's answer headers and on the discovery check. */
  requestTimeoutMs?: number;
  /** How often every APIService is checked again (kube: 30 s). */
  resyncMs?: number;
  /** How often available remote group-versions' discovery documents are fetched again. */
  discoveryRefreshMs?: number;
  log?: (line: string) => void;
}

const apiServicesResource = () => ({ group: servedGroup('apiregistration'), version: 'v1', resource: 'apiservices' });
const SERVICES = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

/** The label autoregistered APIServices carry: `onstart` for built-in group-versions, `true` for custom resources'. */
export function automanagedLabel(): string {
  return longDomainKey('automanaged', `${shortWord()}-aggregator`);
}

/** The ConfigMap extension API servers read to authenticate this server's requests. */
export const AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

/** kube's discovery check allows this long per attempt. */
const DISCOVERY_CHECK_TIMEOUT_MS = 5_000;

/** The local APIServices the resource table calls for, by name. */
export function desiredLocalAPIServices(table: ResourceTable): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  const apiVersion = `${servedGroup('apiregistration')}/v1`;
  for (const store of table.all()) {
    const d = store.definition;
    // The core group's is `v1.`, as kube names it.
    const name = `${d.version}.${d.group}`;
    if (out.has(name)) continue;
    const priority = d.customResource ? CUSTOM_RESOURCE_PRIORITY : builtinAPIServicePriority(d.group, d.version);
    // kube registers no APIService for a built-in group-version missing from its table.
    if (!priority) continue;
    out.set(name, {
      apiVersion,
      kind: 'APIService',
      metadata: { name, labels: { [automanagedLabel()]: d.customResource ? 'true' : 'onstart' } },
      spec: { group: d.group, version: d.version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
    });
  }
  return out;
}

function specDiffers(current: KubeObject, desired: KubeObject): boolean {
  return JSON.stringify(current.spec ?? {}) !== JSON.stringify(desired.spec);
}

/** Headers the caller sent that must never reach the remote: credentials, impersonation, forged front-proxy headers. */
export function droppedHeaders(names: Iterable<string>): string[] {
  const out = ['authorization'];
  for (const n of names) {
    const lower = n.toLowerCase();
    if (lower.startsWith('impersonate-') || lower.startsWith('x-remote-')) out.push(lower);
  }
  return out;
}

/** The front-proxy headers that carry `user` (kube's fixed names; values of extra keys path-escaped). */
export function identityHeaders(user: UserInfo): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { 'x-remote-user': user.username };
  if (user.groups.length > 0) out['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) out[`x-remote-extra-${encodeURIComponent(key).toLowerCase()}`] = [...values];
  }
  return out;
}

/** `/apis/<group>/<version>[/...]` split, or undefined for other paths. */
export function groupVersionOf(pathname: string): { group: string; version: string } | undefined {
  const m = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(pathname);
  if (!m) return undefined;
  return { group: m[1]!, version: m[2]! };
}

/** Whether a raw path has a `.` or `..` segment, plain or percent-encoded. */
export function hasDotSegment(pathname: string): boolean {
  return pathname.split('/').some((seg) => {
    let s = seg;
    try {
      s = decodeURIComponent(seg);
    } catch {
      return false;
    }
    return s === '.' || s === '..';
  });
}

export class Aggregator implements DiscoverySource {
  private readonly clock: Clock;
  private readonly apiServices: Informer;
  private readonly services: Informer;
  private readonly endpoints: Informer;
  private readonly queue = new WorkQueue<string>(new ExponentialBackoff<string>(50, 30_000));
  private readonly resources = new Map<string, Record<string, unknown>[]>();
  /** OpenAPI v3 documents of available remote group-versions, by `apis/<group>/<version>`. */
  private readonly openapi = new Map<string, RemoteOpenApiDocument>();
  private readonly listeners: (() => void)[] = [];
  private workers: Promise<void> | undefined;
  private readonly cancels = new Map<string, () => void>();
  private stopped = false;
  private autoregisterPending: Promise<void> | undefined;
  private autoregisterAgain = false;

  constructor(private readonly opts: AggregatorOptions) {
    this.clock = opts.clock ?? realClock;
    const onError = (err: unknown): void => this.log(`informer: ${err instanceof Error ? err.message : String(err)}`);
    this.apiServices = new Informer(opts.client, apiServicesResource(), { onError });
    this.services = new Informer(opts.client, SERVICES, { onError });
    this.endpoints = new Informer(opts.client, ENDPOINTS, { onError });
    this.apiServices.addEventHandler({
      onAdd: (o) => this.apiServiceChanged(o),
      onUpdate: (old, o) => this.apiServiceChanged(o, old),
      onDelete: (o) => this.apiServiceChanged(o),
    });
    const byService = (o: KubeObject): void => {
      for (const api of this.apiServices.list()) {
        const svc = parseAPIService(api).service;
        if (svc && svc.namespace === o.metadata?.namespace && svc.name === o.metadata?.name) this.queue.add(api.metadata?.name ?? '');
      }
    };
    for (const inf of [this.services, this.endpoints]) inf.addEventHandler({ onAdd: byService, onUpdate: (_o, n) => byService(n), onDelete: byService });
    opts.table.onChange(() => this.autoregister());
  }

  private log(line: string): void {
    this.opts.log?.(`aggregator: ${line}`);
  }

  private apiServiceChanged(o: KubeObject, old?: KubeObject): void {
    const name = o.metadata?.name;
    if (name) this.queue.add(name);
    // Discovery changes with the set, the priorities and the availability of APIServices.
    if (!old || JSON.stringify(old.spec) !== JSON.stringify(o.spec) || parseAPIService(old).available !== parseAPIService(o).available) this.changed();
    // Someone removed or altered an APIService this server keeps.
    if (o.metadata?.labels?.[automanagedLabel()] !== undefined || !old) this.autoregister();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The discovery source: every APIService, remote ones only when available and with their resources. */
  groupVersions(): AggregatedGroupVersion[] {
    const out: AggregatedGroupVersion[] = [];
    for (const o of this.apiServices.list()) {
      const a = parseAPIService(o);
      const entry: AggregatedGroupVersion = { group: a.group, version: a.version, groupPriorityMinimum: a.groupPriorityMinimum, versionPriority: a.versionPriority };
      if (a.service) {
        if (!a.available) continue;
        entry.remote = { resources: this.resources.get(a.name) ?? [] };
      }
      out.push(entry);
    }
    return out;
  }

  /** The remote APIService that claims `group/version`, if any. */
  private remoteFor(group: string, version: string): APIServiceInfo | undefined {
    const o = this.apiServices.get('', `${version}.${group}`);
    if (!o) return undefined;
    const a = parseAPIService(o);
    return a.service && a.group === group && a.version === version ? a : undefined;
  }

  private endpointFor(a: APIServiceInfo): RemoteEndpoint | string {
    const ref = a.service!;
    const service = this.services.get(ref.namespace, ref.name);
    const endpoints = this.endpoints.get(ref.namespace, ref.name);
    const r = resolveEndpoint(ref, service, endpoints, (n) => Math.floor(Math.random() * n));
    if (!r.ok) return r.message;
    // Never the server's own host or a link-local service, even from an Endpoints object written before validation refused it.
    if (!isGlobalUnicast(r.host)) return `address not allowed: ${r.host}`;
    const fp = this.opts.frontProxy;
    return {
      host: r.host,
      port: r.port,
      serverName: `${ref.name}.${ref.namespace}.svc`,
      ...(a.caBundle ? { ca: a.caBundle } : {}),
      insecureSkipTLSVerify: a.insecureSkipTLSVerify,
      clientCert: fp.clientCert,
      clientKey: fp.clientKey,
    };
  }

  /**
   * Serves a request under `/apis/<group>/<version>` of a remote APIService by proxying it;
   * false when no remote APIService claims the path. Runs after authentication and
   * authorization, so the caller's rights were checked here first.
   */
  async serve(scope: RequestScope): Promise<boolean> {
    const gv = groupVersionOf(scope.pathname);
    if (!gv) return false;
    const a = this.remoteFor(gv.group, gv.version);
    if (!a) return false;
    if (hasDotSegment(scope.pathname)) throw badRequest(`invalid path: ${JSON.stringify(scope.pathname)}`);
    if (!a.available) throw serviceUnavailable('service unavailable');
    const ep = this.endpointFor(a);
    if (typeof ep === 'string') {
      this.log(`error resolving ${a.service!.namespace}/${a.service!.name}: ${ep}`);
      throw serviceUnavailable('service unavailable');
    }
    const user = scope.user;
    if (!user) throw serviceUnavailable('service unavailable');
    const rawUrl = scope.req.url ?? scope.pathname;
    const q = rawUrl.indexOf('?');
    // Forward the path exactly as it was authorized, never as a URL parser would resolve it.
    const path = forwardedPath(scope.pathname);
    const url = path === undefined ? undefined : upstreamURL(endpointURL(ep, ''), path, q >= 0 ? rawUrl.slice(q + 1).split('#')[0]! : '');
    if (!url) throw badRequest(`invalid path: ${JSON.stringify(scope.pathname)}`);
    try {
      await proxyRequest(scope.req as unknown as ProxiedRequest, scope.res as unknown as ProxiedResponse, {
        url,
        tls: {
          serverName: ep.serverName,
          insecureSkipVerify: ep.insecureSkipTLSVerify,
          ...(ep.ca ? { ca: ep.ca } : {}),
          ...(ep.clientCert ? { cert: ep.clientCert } : {}),
          ...(ep.clientKey ? { key: ep.clientKey } : {}),
        },
        setHeaders: identityHeaders(user),
        dropHeaders: droppedHeaders(Object.keys(scope.req.headers)),
      }, { signal: scope.abort.signal, responseHeaderTimeoutMs: this.opts.requestTimeoutMs ?? 60_000 });
    } catch (err) {
      if (err instanceof UpstreamError) {
        if (scope.abort.signal.aborted) throw err;
        throw serviceUnavailable(err.message);
      }
      throw err;
    }
    return true;
  }

  /** One availability pass over one APIService (kube's AvailableConditionController.sync). */
  private async sync(name: string): Promise<void> {
    const o = this.apiServices.get('', name);
    if (!o) {
      if (this.resources.delete(name)) this.changed();
      return;
    }
    const a = parseAPIService(o);
    const ref = a.service;
    let result = availabilityBeforeCheck(a, ref ? this.services.get(ref.namespace, ref.name) : undefined, ref ? this.endpoints.get(ref.namespace, ref.name) : undefined);
    if (!result) {
      const ep = this.endpointFor(a);
      const path = `/apis/${a.group}/${a.version}`;
      if (typeof ep === 'string') {
        result = availabilityAfterCheck(`https://${ref!.name}.${ref!.namespace}.svc${path}`, ep);
      } else {
        const url = endpointURL(ep, path);
        let error: string | undefined;
        try {
          const answer = await getJSON(ep, path, Math.min(DISCOVERY_CHECK_TIMEOUT_MS, this.opts.requestTimeoutMs ?? DISCOVERY_CHECK_TIMEOUT_MS));
          if (answer.status < 200 || answer.status >= 300) error = `bad status from ${url}: ${answer.status}`;
          else {
            this.setResources(name, resourcesOf(answer.body, `${a.group}/${a.version}`));
            await this.fetchOpenApi(ep, a);
          }
        } catch (err) {
          error = err instanceof Error ? err.message : String(err);
        }
        result = availabilityAfterCheck(url, error);
      }
    }
    if (result.status !== 'True') {
      this.openapi.delete(`apis/${a.group}/${a.version}`);
      if (this.resources.delete(name)) this.changed();
    }
    if (sameCondition(o, result)) return;
    try {
      await this.opts.client.update(apiServicesResource(), '', withCondition(o, result, this.clock.now()), 'status');
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) {
        if (err.code === 409) this.queue.addAfter(name, 100);
        return;
      }
      throw err;
    }
  }

  /** The remote's OpenAPI v3 document of its group-version; a remote without one is listed without it. */
  private async fetchOpenApi(ep: RemoteEndpoint, a: APIServiceInfo): Promise<void> {
    const key = `apis/${a.group}/${a.version}`;
    try {
      const answer = await getJSON(ep, `/openapi/v3/${key}`, DISCOVERY_CHECK_TIMEOUT_MS);
      if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null || Array.isArray(answer.body)) {
        this.openapi.delete(key);
        return;
      }
      const json = Buffer.from(JSON.stringify(answer.body));
      this.openapi.set(key, { json, hash: createHash('sha512').update(json).digest('hex').toUpperCase() });
    } catch {
      this.openapi.delete(key);
    }
  }

  /** For the OpenAPI handler: the remote group-versions' v3 documents. */
  openApiDocuments(): ReadonlyMap<string, RemoteOpenApiDocument> {
    return this.openapi;
  }

  private setResources(name: string, resources: Record<string, unknown>[]): void {
    const before = this.resources.get(name);
    if (before && JSON.stringify(before) === JSON.stringify(resources)) return;
    this.resources.set(name, resources);
    this.changed();
  }

  /** Creates, updates and deletes the automanaged APIServices to match the resource table. */
  private autoregister(): void {
    if (this.stopped || !this.apiServices.hasSynced()) return;
    if (this.autoregisterPending) {
      this.autoregisterAgain = true;
      return;
    }
    this.autoregisterPending = (async () => {
      do {
        this.autoregisterAgain = false;
        try {
          await this.autoregisterOnce();
        } catch (err) {
          this.log(`autoregistration: ${err instanceof Error ? err.message : String(err)}`);
        }
      } while (this.autoregisterAgain && !this.stopped);
    })().finally(() => {
      this.autoregisterPending = undefined;
    });
  }

  private async autoregisterOnce(): Promise<void> {
    const desired = desiredLocalAPIServices(this.opts.table);
    const label = automanagedLabel();
    const r = apiServicesResource();
    // Concurrently: on a fresh store these are some forty writes before the server is ready.
    await Promise.all(
      [...desired].map(async ([name, want]) => {
        const have = this.apiServices.get('', name);
        try {
          if (!have) await this.opts.client.create(r, '', want);
          else if (have.metadata?.labels?.[label] !== undefined && specDiffers(have, want)) await this.opts.client.update(r, '', { ...have, spec: want.spec });
        } catch (err) {
          if (!isApiError(err) || (err.code !== 409 && err.code !== 404)) throw err;
        }
      }),
    );
    for (const have of this.apiServices.list()) {
      const name = have.metadata?.name ?? '';
      if (have.metadata?.labels?.[label] === undefined || desired.has(name)) continue;
      try {
        await this.opts.client.delete(r, '', name);
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
    }
  }

  /** Publishes the `extension-apiserver-authentication` ConfigMap (kube's start-cluster-authentication-info-controller hook). */
  async publishAuthenticationInfo(): Promise<void> {
    const fp = this.opts.frontProxy;
    const data: Record<string, string> = {
      'client-ca-file': fp.clientCA,
      'requestheader-client-ca-file': fp.requestHeaderCA,
      'requestheader-allowed-names': JSON.stringify(fp.allowedNames),
      'requestheader-username-headers': JSON.stringify(fp.usernameHeaders),
      'requestheader-group-headers': JSON.stringify(fp.groupHeaders),
      'requestheader-extra-headers-prefix': JSON.stringify(fp.extraHeaderPrefixes),
    };
    const ns = systemNamespace('system');
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_CONFIGMAP, namespace: ns }, data };
    // On a restart the ConfigMap is usually in place: read first, so that nothing is written.
    let have: KubeObject | undefined;
    try {
      have = await this.opts.client.get(CONFIGMAPS, ns, AUTHENTICATION_CONFIGMAP);
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) throw err;
    }
    if (have === undefined) {
      try {
        await this.opts.client.create(CONFIGMAPS, ns, cm);
        return;
      } catch (err) {
        // Another server process on the same store created it first.
        if (!isApiError(err) || err.code !== 409) throw err;
        have = await this.opts.client.get(CONFIGMAPS, ns, AUTHENTICATION_CONFIGMAP);
      }
    }
    if (JSON.stringify(have.data) !== JSON.stringify(data)) await this.opts.client.update(CONFIGMAPS, ns, { ...have, data });
  }

  /** Starts the informers and the availability controller; resolves once the APIServices are listed and autoregistration has run. */
  async start(): Promise<void> {
    for (const inf of [this.apiServices, this.services, this.endpoints]) inf.start();
    await Promise.all([this.apiServices, this.services, this.endpoints].map((i) => i.waitForSync()));
    this.workers = runWorkers(this.queue, (name) => this.sync(name), {
      workers: 2,
      onError: (key, err) => this.log(`${key}: ${err instanceof Error ? err.message : String(err)}`),
    });
    this.autoregister();
    await this.autoregisterPending;
    const every = (id: string, ms: number, remoteOnly: boolean): void => {
      const tick = (): void => {
        if (this.stopped) return;
        for (const o of this.apiServices.list()) if (!remoteOnly || parseAPIService(o).service) this.queue.add(o.metadata?.name ?? '');
        this.cancels.set(id, this.clock.schedule(ms, tick));
      };
      this.cancels.set(id, this.clock.schedule(ms, tick));
    };
    every('resync', this.opts.resyncMs ?? 30_000, false);
    every('discovery', this.opts.discoveryRefreshMs ?? 5_000, true);
  }

  /** Whether every APIService this server keeps exists and is available. */
  autoregistrationComplete(): boolean {
    for (const name of desiredLocalAPIServices(this.opts.table).keys()) {
      const o = this.apiServices.get('', name);
      if (!o || !parseAPIService(o).available) return false;
    }
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const c of this.cancels.values()) c();
    this.cancels.clear();
    this.queue.shutDown();
    await this.autoregisterPending;
    await Promise.all([this.apiServices, this.services, this.endpoints].map((i) => i.stop()));
    await this.workers;
  }
}
