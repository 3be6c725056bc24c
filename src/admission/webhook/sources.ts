// What the dispatchers read, all from informers (never from storage per request): the
// webhook configurations, namespaces' labels (with a live read when the cache has not seen
// a namespace yet), and services with their endpoints for service references.
import { notFound } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import type { Informer } from '../../client/informer.js';
import { group, longDomainKey } from '../../naming/index.js';
import { webhooksOfAll, type ServiceReference, type Webhook, type WebhookType } from './config.js';
import type { ServiceResolver } from './client.js';

export type InformerFor = (r: GroupVersionResource) => Informer;

export const mutatingConfigurations = (): GroupVersionResource => ({ group: group('admissionregistration'), version: 'v1', resource: 'mutatingwebhookconfigurations' });
export const validatingConfigurations = (): GroupVersionResource => ({ group: group('admissionregistration'), version: 'v1', resource: 'validatingwebhookconfigurations' });
const NAMESPACES: GroupVersionResource = { group: '', version: 'v1', resource: 'namespaces' };
const SERVICES: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
const ENDPOINTS: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };

/** The webhooks of one kind of configuration, recomputed only when a configuration changes. */
export class WebhookSource {
  private cached: Webhook[] | undefined;

  constructor(
    private readonly informer: Informer,
    private readonly type: WebhookType,
  ) {
    const invalidate = (): void => {
      this.cached = undefined;
    };
    informer.addEventHandler({ onAdd: invalidate, onUpdate: invalidate, onDelete: invalidate });
  }

  webhooks(): Webhook[] {
    this.cached ??= webhooksOfAll(this.informer.list(), this.type);
    return this.cached;
  }

  /** Waits for the first list, at most `ms`; resolves with whether it happened. */
  ready(ms: number): Promise<boolean> {
    return synced(this.informer, ms);
  }
}

/** Waits for an informer's first list, at most `ms`; resolves with whether it happened. */
async function synced(informer: Informer, ms: number): Promise<boolean> {
  if (informer.hasSynced()) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([informer.waitForSync().then(() => informer.hasSynced()), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts an informer on first use and waits (boundedly) for its first list; a resource the
 * server does not serve leaves an empty cache rather than a hung request.
 */
function lazy(informerFor: InformerFor, r: GroupVersionResource, waitMs = 5000): () => Promise<Informer> {
  let informer: Informer | undefined;
  return async () => {
    if (!informer) {
      informer = informerFor(r);
      informer.start();
    }
    await synced(informer, waitMs);
    return informer;
  };
}

/** A namespace's labels: from the cache, else read live (the cache may lag a fresh namespace). Throws 404. */
export function namespaceLabelsLookup(informerFor: InformerFor, client: ApiClient): (name: string) => Promise<Record<string, string>> {
  const namespaces = lazy(informerFor, NAMESPACES);
  return async (name) => {
    const cached = (await namespaces()).get('', name);
    const ns = cached ?? (await client.get(NAMESPACES, '', name));
    return ns.metadata?.labels ?? {};
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

function pick<T>(items: T[]): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(Math.random() * items.length)];
}

/**
 * Resolves a service reference without a cluster network: to a ready address of the
 * service's Endpoints (or EndpointSlices) on the port backing the referenced service port,
 * and when there are none, to the service's clusterIP (or ExternalName host) on that port.
 * The TLS name stays `<service>.<namespace>.svc` either way.
 */
export class InformerServiceResolver implements ServiceResolver {
  private readonly services: () => Promise<Informer>;
  private readonly endpoints: () => Promise<Informer>;
  private readonly slices: () => Promise<Informer>;

  constructor(informerFor: InformerFor) {
    this.services = lazy(informerFor, SERVICES);
    this.endpoints = lazy(informerFor, ENDPOINTS);
    this.slices = lazy(informerFor, { group: group('discovery'), version: 'v1', resource: 'endpointslices' });
  }

  async resolve(ref: ServiceReference): Promise<{ host: string; port: number }> {
    const svc = (await this.services()).get(ref.namespace, ref.name);
    if (!svc) throw new Error(notFound({ group: '', resource: 'service' }, ref.name).message);
    const spec = isObject(svc.spec) ? svc.spec : {};
    if (spec.type === 'ExternalName' && typeof spec.externalName === 'string') return { host: spec.externalName, port: ref.port };
    const svcPort = objects(spec.ports).find((p) => p.port === ref.port);
    if (!svcPort) throw new Error(`no service port ${ref.port} found for service ${JSON.stringify(ref.name)}`);
    const portName = typeof svcPort.name === 'string' ? svcPort.name : '';
    const fromEndpoints = this.fromEndpoints((await this.endpoints()).get(ref.namespace, ref.name), portName);
    if (fromEndpoints) return fromEndpoints;
    const fromSlices = this.fromSlices(await this.slicesOf(ref), portName);
    if (fromSlices) return fromSlices;
    const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
    if (clusterIP && clusterIP !== 'None') return { host: clusterIP, port: ref.port };
    throw new Error(`no endpoints available for service ${JSON.stringify(ref.name)}`);
  }

  private fromEndpoints(ep: KubeObject | undefined, portName: string): { host: string; port: number } | undefined {
    if (!ep) return undefined;
    for (const subset of objects(ep.subsets)) {
      const port = objects(subset.ports).find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
      const address = pick(objects(subset.addresses).map((a) => a.ip).filter((ip): ip is string => typeof ip === 'string' && ip !== ''));
      if (port && typeof port.port === 'number' && address) return { host: address, port: port.port };
    }
    return undefined;
  }

  private async slicesOf(ref: ServiceReference): Promise<KubeObject[]> {
    const label = longDomainKey('service-name');
    return (await this.slices()).list().filter((s) => s.metadata?.namespace === ref.namespace && s.metadata?.labels?.[label] === ref.name);
  }

  private fromSlices(slices: KubeObject[], portName: string): { host: string; port: number } | undefined {
    for (const slice of slices) {
      const port = objects(slice.ports).find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
      const ready = objects(slice.endpoints).filter((e) => !isObject(e.conditions) || e.conditions.ready !== false);
      const address = pick(ready.flatMap((e) => (Array.isArray(e.addresses) ? e.addresses.filter((a): a is string => typeof a === 'string') : [])));
      if (port && typeof port.port === 'number' && address) return { host: address, port: port.port };
    }
    return undefined;
  }
}
