// The aggregation layer (kube-aggregator's part of kube-apiserver), composed from its roles:
// autoregistration (`autoregistration.ts`), the availability controller (`availability.ts`),
// the proxy to other servers' group-versions (`proxy.ts`), their OpenAPI documents
// (`openapi.ts`) and the `extension-apiserver-authentication` ConfigMap
// (`authentication-info.ts`). This class holds the informers they share and is the
// discovery source that lists the group-versions with the resources fetched from remotes.
import { serviceUnavailable, badRequest } from '../apimachinery/errors.js';
import { realClock } from '../apimachinery/clock.js';
import type { Clock } from '../apimachinery/clock.js';
import type { KubeObject } from '../apimachinery/types.js';
import { Informer } from '../client/informer.js';
import type { ApiClient } from '../client/types.js';
import type { ResourceTable } from '../rest/index.js';
import type { RemoteOpenApiDocument } from '../schema/openapi/index.js';
import type { AggregatedGroupVersion, DiscoverySource } from '../server/discovery.js';
import type { RequestScope } from '../server/filters/chain.js';
import { parseAPIService, type APIServiceInfo } from './apiservice.js';
import { publishAuthenticationInfo } from './authentication-info.js';
import { apiServicesResource, automanagedLabel, Autoregistration, desiredLocalAPIServices } from './autoregistration.js';
import { AvailabilityController } from './availability.js';
import type { FrontProxyConfig } from './front-proxy.js';
import { RemoteOpenApi } from './openapi.js';
import { endpointFor, forwardTo, groupVersionOf, hasDotSegment } from './proxy.js';
import type { RemoteEndpoint } from './remote.js';

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

const SERVICES = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints' };

export class Aggregator implements DiscoverySource {
  private readonly apiServices: Informer;
  private readonly services: Informer;
  private readonly endpoints: Informer;
  private readonly openapi = new RemoteOpenApi();
  private readonly availability: AvailabilityController;
  private readonly autoregistration: Autoregistration;
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly opts: AggregatorOptions) {
    const clock = opts.clock ?? realClock;
    const onError = (err: unknown): void => this.log(`informer: ${err instanceof Error ? err.message : String(err)}`);
    this.apiServices = new Informer(opts.client, apiServicesResource(), { onError });
    this.services = new Informer(opts.client, SERVICES, { onError });
    this.endpoints = new Informer(opts.client, ENDPOINTS, { onError });
    this.availability = new AvailabilityController({
      client: opts.client,
      clock,
      apiServices: this.apiServices,
      services: this.services,
      endpoints: this.endpoints,
      endpointFor: (a) => this.endpointFor(a),
      openapi: this.openapi,
      changed: () => this.changed(),
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
      log: (line) => this.log(line),
    });
    this.autoregistration = new Autoregistration(opts.client, opts.table, this.apiServices, (line) => this.log(line));
    this.apiServices.addEventHandler({
      onAdd: (o) => this.apiServiceChanged(o),
      onUpdate: (old, o) => this.apiServiceChanged(o, old),
      onDelete: (o) => this.apiServiceChanged(o),
    });
    const byService = (o: KubeObject): void => {
      for (const api of this.apiServices.list()) {
        const svc = parseAPIService(api).service;
        if (svc && svc.namespace === o.metadata?.namespace && svc.name === o.metadata?.name) this.availability.enqueue(api.metadata?.name ?? '');
      }
    };
    for (const inf of [this.services, this.endpoints]) inf.addEventHandler({ onAdd: byService, onUpdate: (_o, n) => byService(n), onDelete: byService });
    opts.table.onChange(() => this.autoregistration.run());
  }

  private log(line: string): void {
    this.opts.log?.(`aggregator: ${line}`);
  }

  private apiServiceChanged(o: KubeObject, old?: KubeObject): void {
    const name = o.metadata?.name;
    if (name) this.availability.enqueue(name);
    // Discovery changes with the set, the priorities and the availability of APIServices.
    if (!old || JSON.stringify(old.spec) !== JSON.stringify(o.spec) || parseAPIService(old).available !== parseAPIService(o).available) this.changed();
    // Someone removed or altered an APIService this server keeps.
    if (o.metadata?.labels?.[automanagedLabel()] !== undefined || !old) this.autoregistration.run();
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
        entry.remote = { resources: this.availability.resources(a.name) ?? [] };
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
    return endpointFor(a, this.services.get(ref.namespace, ref.name), this.endpoints.get(ref.namespace, ref.name), this.opts.frontProxy);
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
    await forwardTo(scope, ep, user, this.opts.requestTimeoutMs ?? 60_000);
    return true;
  }

  /** For the OpenAPI handler: the remote group-versions' v3 documents. */
  openApiDocuments(): ReadonlyMap<string, RemoteOpenApiDocument> {
    return this.openapi.all();
  }

  /** Publishes the `extension-apiserver-authentication` ConfigMap (kube's start-cluster-authentication-info-controller hook). */
  async publishAuthenticationInfo(): Promise<void> {
    await publishAuthenticationInfo(this.opts.client, this.opts.frontProxy);
  }

  /** Starts the informers and the availability controller; resolves once the APIServices are listed and autoregistration has run. */
  async start(): Promise<void> {
    for (const inf of [this.apiServices, this.services, this.endpoints]) inf.start();
    await Promise.all([this.apiServices, this.services, this.endpoints].map((i) => i.waitForSync()));
    this.availability.start();
    this.autoregistration.run();
    await this.autoregistration.pending;
    this.availability.schedule(this.opts.resyncMs ?? 30_000, this.opts.discoveryRefreshMs ?? 5_000);
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
    this.autoregistration.stop();
    this.availability.stop();
    await this.autoregistration.pending;
    await Promise.all([this.apiServices, this.services, this.endpoints].map((i) => i.stop()));
    await this.availability.done();
  }
}
