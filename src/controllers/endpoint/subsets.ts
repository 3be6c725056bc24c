// The Endpoints a Service with a selector should have: pure functions of the Service and its
// pods (kube's endpoints controller: addresses grouped into subsets by their resolved ports,
// as RepackSubsets does, and truncated at capacity).
import type { KubeObject } from '../../apimachinery/types.js';
import { isPodReady } from '../../apis/core/helpers/pod.js';
import {
  isHeadless,
  MAX_ENDPOINTS_CAPACITY,
  podEndpointPorts,
  podIPOfFamily,
  podTargetRef,
  portsKey,
  publishNotReady,
  serviceFamilies,
  servicePorts,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  specOf,
  type EndpointPort,
} from './util.js';

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: Record<string, unknown>;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

function podAddress(pod: KubeObject, svc: KubeObject, ip: string): EndpointAddress {
  const spec = specOf(pod);
  const addr: EndpointAddress = { ip };
  if (shouldSetHostname(pod, svc)) addr.hostname = spec.hostname as string;
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') addr.nodeName = spec.nodeName;
  addr.targetRef = podTargetRef(pod);
  return addr;
}

const byIP = (a: EndpointAddress, b: EndpointAddress): number =>
  a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : String(a.targetRef?.uid ?? '').localeCompare(String(b.targetRef?.uid ?? ''));

/** The subsets of the Service's Endpoints from the pods it selects. */
export function desiredSubsets(svc: KubeObject, pods: readonly KubeObject[]): EndpointSubset[] {
  const tolerate = publishNotReady(svc);
  const family = serviceFamilies(svc)[0];
  const noPorts = servicePorts(svc).length === 0;
  const groups = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, tolerate)) continue;
    const ip = podIPOfFamily(pod, family);
    if (!ip) continue;
    let ports: EndpointPort[];
    if (noPorts) {
      // A headless Service without ports still lists its pods (for DNS); others list nothing.
      if (!isHeadless(svc)) continue;
      ports = [];
    } else {
      ports = podEndpointPorts(pod, svc);
      if (ports.length === 0) continue;
    }
    const key = portsKey(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, ready: [], notReady: [] }));
    (tolerate || isPodReady(pod) ? g.ready : g.notReady).push(podAddress(pod, svc, ip));
  }
  const subsets: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const s: EndpointSubset = {};
    if (g.ready.length > 0) s.addresses = g.ready.sort(byIP);
    if (g.notReady.length > 0) s.notReadyAddresses = g.notReady.sort(byIP);
    if (g.ports.length > 0) s.ports = [...g.ports].sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.port - b.port || a.protocol.localeCompare(b.protocol));
    subsets.push(s);
  }
  const first = (s: EndpointSubset): string => (s.addresses ?? s.notReadyAddresses ?? [])[0]?.ip ?? '';
  return subsets.sort((a, b) => first(a).localeCompare(first(b)) || portsKey(a.ports ?? []).localeCompare(portsKey(b.ports ?? [])));
}

export function addressCount(subsets: readonly EndpointSubset[]): number {
  return subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
}

/** Shares `keep` among lists in proportion to their lengths (earlier lists take the remainder). */
function shares(lengths: number[], keep: number): number[] {
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total <= keep) return lengths;
  const out = lengths.map((l) => Math.floor((l * keep) / total));
  let left = keep - out.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0 && i < out.length; i++) {
    const room = (lengths[i] ?? 0) - (out[i] ?? 0);
    const add = Math.min(room, left);
    out[i] = (out[i] ?? 0) + add;
    left -= add;
  }
  return out;
}

/**
 * At most `max` addresses, ready ones first, taken from each subset in proportion to its
 * size (kube's truncation at the Endpoints' capacity).
 */
export function truncateSubsets(subsets: readonly EndpointSubset[], max = MAX_ENDPOINTS_CAPACITY): EndpointSubset[] {
  if (addressCount(subsets) <= max) return [...subsets];
  const readyLens = subsets.map((s) => s.addresses?.length ?? 0);
  const readyTotal = readyLens.reduce((a, b) => a + b, 0);
  const readyKeep = shares(readyLens, Math.min(max, readyTotal));
  const notReadyKeep = shares(
    subsets.map((s) => s.notReadyAddresses?.length ?? 0),
    Math.max(0, max - Math.min(max, readyTotal)),
  );
  const out: EndpointSubset[] = [];
  subsets.forEach((s, i) => {
    const t: EndpointSubset = {};
    const r = (s.addresses ?? []).slice(0, readyKeep[i] ?? 0);
    const n = (s.notReadyAddresses ?? []).slice(0, notReadyKeep[i] ?? 0);
    if (r.length > 0) t.addresses = r;
    if (n.length > 0) t.notReadyAddresses = n;
    if (r.length + n.length === 0) return;
    if (s.ports) t.ports = s.ports;
    out.push(t);
  });
  return out;
}
