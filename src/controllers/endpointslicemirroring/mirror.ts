// The EndpointSlices that mirror a user-managed Endpoints (a Service without a selector):
// a pure plan, pairing each wanted slice with an existing one of the same address type and
// ports, written only where it differs.
import { deepEqual } from '../../apimachinery/equality.js';
import { newControllerRef } from '../../apimachinery/owners.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { familyOf } from '../../apis/core/service-ip.js';
import { domain, longDomainKey } from '../../naming/index.js';
import { portsKey, type EndpointPort } from '../endpoint/util.js';
import { managedByKey, serviceNameKey, sliceApiVersion, type SlicePlan } from '../endpointslice/reconcile.js';

type JsonMap = Record<string, unknown>;

export const mirroringControllerName = (): string => `endpointslicemirroring-controller.${domain()}`;
export const skipMirrorKey = (): string => longDomainKey('skip-mirror', 'endpointslice');

/** Whether a Service's Endpoints are the user's to mirror: it exists without a selector and the Endpoints does not opt out. */
export function shouldMirror(endpoints: KubeObject, svc: KubeObject | undefined, hasSelector: boolean): boolean {
  return svc !== undefined && !hasSelector && endpoints.metadata?.labels?.[skipMirrorKey()] !== 'true';
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function toEndpoint(addr: JsonMap, ready: boolean): JsonMap {
  const ep: JsonMap = { addresses: [str(addr.ip)], conditions: { ready } };
  if (str(addr.hostname)) ep.hostname = addr.hostname;
  if (str(addr.nodeName)) ep.nodeName = addr.nodeName;
  if (addr.targetRef && typeof addr.targetRef === 'object') ep.targetRef = addr.targetRef;
  return ep;
}

interface Group {
  addressType: 'IPv4' | 'IPv6';
  ports: EndpointPort[];
  endpoints: JsonMap[];
}

/** The wanted slices' contents: per subset, at most `maxPerSubset` addresses (ready first), split by IP family. */
export function mirroredGroups(endpoints: KubeObject, maxPerSubset: number): Group[] {
  const groups = new Map<string, Group>();
  const subsets = Array.isArray(endpoints.subsets) ? (endpoints.subsets as JsonMap[]) : [];
  for (const subset of subsets) {
    const ports: EndpointPort[] = (Array.isArray(subset?.ports) ? (subset.ports as JsonMap[]) : []).map((p) => ({
      ...(str(p?.name) ? { name: str(p.name) } : {}),
      port: typeof p?.port === 'number' ? p.port : 0,
      protocol: str(p?.protocol) || 'TCP',
      ...(str(p?.appProtocol) ? { appProtocol: str(p.appProtocol) } : {}),
    }));
    const all = [
      ...(Array.isArray(subset?.addresses) ? (subset.addresses as JsonMap[]) : []).map((a) => toEndpoint(a, true)),
      ...(Array.isArray(subset?.notReadyAddresses) ? (subset.notReadyAddresses as JsonMap[]) : []).map((a) => toEndpoint(a, false)),
    ].slice(0, maxPerSubset);
    for (const ep of all) {
      const family = familyOf(str((ep.addresses as string[])[0]));
      if (!family) continue; // not an IP: nothing a slice can carry
      const key = `${family}|${portsKey(ports)}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { addressType: family, ports, endpoints: [] }));
      g.endpoints.push(ep);
    }
  }
  return [...groups.values()];
}

export function mirroredMetadata(endpoints: KubeObject): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels: Record<string, string> = { ...(endpoints.metadata?.labels ?? {}) };
  labels[serviceNameKey()] = endpoints.metadata?.name ?? '';
  labels[managedByKey()] = mirroringControllerName();
  const annotations: Record<string, string> = {};
  const skip = [longDomainKey('last-change-trigger-time', 'endpoints'), longDomainKey('last-applied-configuration', 'kubectl')];
  for (const [k, v] of Object.entries(endpoints.metadata?.annotations ?? {})) if (!skip.includes(k)) annotations[k] = v;
  return { labels, annotations };
}

/** The changes that make `existing` (the slices mirroring this Endpoints) mirror it. */
export function reconcileMirror(endpoints: KubeObject, existing: readonly KubeObject[], maxPerSubset: number): SlicePlan {
  const { labels, annotations } = mirroredMetadata(endpoints);
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const pool = new Map<string, KubeObject[]>();
  for (const s of existing) {
    const k = `${str(s.addressType)}|${portsKey(Array.isArray(s.ports) ? (s.ports as EndpointPort[]) : [])}`;
    pool.set(k, [...(pool.get(k) ?? []), s]);
  }
  const wanted: KubeObject[] = [];
  for (const g of mirroredGroups(endpoints, maxPerSubset)) {
    const want: KubeObject = {
      apiVersion: sliceApiVersion(),
      kind: 'EndpointSlice',
      metadata: {
        generateName: `${endpoints.metadata?.name ?? ''}-`,
        namespace: endpoints.metadata?.namespace ?? '',
        labels,
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        ownerReferences: [newControllerRef(endpoints, 'v1', 'Endpoints')],
      },
      addressType: g.addressType,
      endpoints: g.endpoints,
      ports: g.ports,
    };
    const k = `${g.addressType}|${portsKey(g.ports)}`;
    const old = pool.get(k)?.shift();
    if (!old) {
      wanted.push(want);
      continue;
    }
    const same =
      deepEqual(old.endpoints ?? [], want.endpoints) &&
      deepEqual(old.ports ?? [], want.ports) &&
      deepEqual(old.metadata?.labels ?? {}, labels) &&
      deepEqual(old.metadata?.annotations ?? {}, annotations);
    if (!same) {
      const metadata: NonNullable<KubeObject['metadata']> = { ...old.metadata, labels, annotations };
      if (Object.keys(annotations).length === 0) delete metadata.annotations;
      plan.update.push({ ...old, metadata, endpoints: want.endpoints, ports: want.ports });
    }
  }
  const leftovers = [...pool.values()].flat();
  // A slice left over of the same address type takes a new group's place rather than a delete and a create.
  for (const w of wanted) {
    const i = leftovers.findIndex((s) => s.addressType === w.addressType);
    if (i >= 0) {
      const [old] = leftovers.splice(i, 1);
      const metadata: NonNullable<KubeObject['metadata']> = { ...old!.metadata, labels, annotations };
      if (Object.keys(annotations).length === 0) delete metadata.annotations;
      plan.update.push({ ...w, metadata });
    } else plan.create.push(w);
  }
  plan.delete.push(...leftovers);
  return plan;
}
