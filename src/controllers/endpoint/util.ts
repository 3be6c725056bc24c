// What the endpoint controllers share about Services and the pods they select: pure
// functions (kube's endpoint utilities), used by the endpoint and endpointslice controllers.
import type { KubeObject } from '../../apimachinery/types.js';
import { familyOf } from '../../apis/core/service-ip.js';
import { podPhase } from '../../apis/core/helpers/pod.js';

type JsonMap = Record<string, unknown>;

export const SERVICES = { group: '', version: 'v1', resource: 'services' };
export const PODS = { group: '', version: 'v1', resource: 'pods' };
export const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints' };
export const NODES = { group: '', version: 'v1', resource: 'nodes' };

/** The most addresses one Endpoints object holds (kube's maxCapacity). */
export const MAX_ENDPOINTS_CAPACITY = 1000;

export const specOf = (o: KubeObject): JsonMap => (o.spec && typeof o.spec === 'object' ? (o.spec as JsonMap) : {});
export const statusOf = (o: KubeObject): JsonMap => (o.status && typeof o.status === 'object' ? (o.status as JsonMap) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The Service's selector, or undefined for a Service without one (its endpoints are the user's). */
export function serviceSelector(svc: KubeObject): Record<string, string> | undefined {
  const sel = specOf(svc).selector;
  if (!sel || typeof sel !== 'object' || Array.isArray(sel)) return undefined;
  // Own properties only, whatever the keys are named (`__proto__` included).
  const out: Record<string, string> = Object.fromEntries(Object.entries(sel as JsonMap).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Equality-based selection, as a Service selector is. */
export function selectorMatches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(selector)) if (!labels || !Object.hasOwn(labels, k) || labels[k] !== v) return false;
  return true;
}

/** The pods of the Service's namespace it selects. */
export function selectedPods(svc: KubeObject, pods: readonly KubeObject[]): KubeObject[] {
  const sel = serviceSelector(svc);
  if (!sel) return [];
  const ns = svc.metadata?.namespace ?? '';
  return pods.filter((p) => (p.metadata?.namespace ?? '') === ns && selectorMatches(sel, p.metadata?.labels));
}

export function isHeadless(svc: KubeObject): boolean {
  return specOf(svc).clusterIP === 'None';
}

export function publishNotReady(svc: KubeObject): boolean {
  return specOf(svc).publishNotReadyAddresses === true;
}

/** The pod's IPs, primary first. */
export function podIPs(pod: KubeObject): string[] {
  const st = statusOf(pod);
  const ips = Array.isArray(st.podIPs) ? (st.podIPs as JsonMap[]).map((p) => str(p?.ip)).filter((s) => s !== '') : [];
  if (ips.length === 0 && str(st.podIP) !== '') ips.push(str(st.podIP));
  return ips;
}

/** The Service's IP families as its spec names them, or from its cluster IP; empty when neither tells. */
export function serviceFamilies(svc: KubeObject): ('IPv4' | 'IPv6')[] {
  const spec = specOf(svc);
  const fams = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as unknown[]).filter((f): f is 'IPv4' | 'IPv6' => f === 'IPv4' || f === 'IPv6') : [];
  if (fams.length > 0) return fams;
  const ip = str(spec.clusterIP);
  const fam = ip && ip !== 'None' ? familyOf(ip) : undefined;
  return fam ? [fam] : [];
}

/** The pod's address of `family`, or (no family asked) its primary one. */
export function podIPOfFamily(pod: KubeObject, family: 'IPv4' | 'IPv6' | undefined): string | undefined {
  const ips = podIPs(pod);
  if (!family) return ips[0];
  return ips.find((ip) => familyOf(ip) === family);
}

/**
 * Whether a pod belongs in endpoints at all: it has an IP, is not terminal, and (unless
 * terminating pods are included) is not being deleted.
 */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  if (podIPs(pod).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  const phase = podPhase(pod);
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/** A pod's `hostname` names it in a headless Service only when its `subdomain` is that Service. */
export function shouldSetHostname(pod: KubeObject, svc: KubeObject): boolean {
  const spec = specOf(pod);
  return str(spec.hostname) !== '' && str(spec.subdomain) === (svc.metadata?.name ?? '') && (pod.metadata?.namespace ?? '') === (svc.metadata?.namespace ?? '');
}

export interface ServicePort {
  name?: string;
  port: number;
  protocol: string;
  targetPort?: number | string;
  appProtocol?: string;
}

export function servicePorts(svc: KubeObject): ServicePort[] {
  const ports = specOf(svc).ports;
  if (!Array.isArray(ports)) return [];
  return (ports as JsonMap[]).map((p) => ({
    ...(str(p?.name) ? { name: str(p.name) } : {}),
    port: typeof p?.port === 'number' ? p.port : 0,
    protocol: str(p?.protocol) || 'TCP',
    ...(typeof p?.targetPort === 'number' || typeof p?.targetPort === 'string' ? { targetPort: p.targetPort } : {}),
    ...(str(p?.appProtocol) ? { appProtocol: str(p.appProtocol) } : {}),
  }));
}

/**
 * The container port a Service port reaches on this pod: a number as it is, a name looked
 * up among the pod's containers' ports of the same protocol; undefined when the pod has none.
 */
export function findPort(pod: KubeObject, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^[0-9]+$/.test(target)) return Number(target);
  const containers = Array.isArray(specOf(pod).containers) ? (specOf(pod).containers as JsonMap[]) : [];
  for (const c of containers) {
    const ports = Array.isArray(c?.ports) ? (c.ports as JsonMap[]) : [];
    for (const p of ports) {
      if (str(p?.name) === target && (str(p?.protocol) || 'TCP') === sp.protocol && typeof p.containerPort === 'number') return p.containerPort;
    }
  }
  return undefined;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/** The pod's resolved ports of the Service, in the Service's order (ports no container names are left out). */
export function podEndpointPorts(pod: KubeObject, svc: KubeObject): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of servicePorts(svc)) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({ ...(sp.name !== undefined ? { name: sp.name } : {}), port, protocol: sp.protocol, ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
  }
  return out;
}

/** A key of a set of ports, independent of their order. */
export function portsKey(ports: readonly EndpointPort[]): string {
  return ports
    .map((p) => `${p.name ?? ''}/${p.port}/${p.protocol}/${p.appProtocol ?? ''}`)
    .sort()
    .join(',');
}

/** A reference to the pod as endpoints carry it. */
export function podTargetRef(pod: KubeObject): JsonMap {
  return { kind: 'Pod', namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' };
}

/** When the pod's readiness last changed (kube's trigger time of a pod), or '' when unknown. */
export function podTriggerTime(pod: KubeObject): string {
  const conds = Array.isArray(statusOf(pod).conditions) ? (statusOf(pod).conditions as JsonMap[]) : [];
  return str(conds.find((c) => c?.type === 'Ready')?.lastTransitionTime);
}

/**
 * kube's trigger-time tracker: per Service, the trigger times of its pods and of itself seen
 * at the last sync; a sync's last-change-trigger-time is the earliest among what changed since.
 */
export class TriggerTimeTracker {
  private readonly state = new Map<string, { pods: Map<string, string>; service: string }>();

  /** The earliest trigger time of what changed since the last call for `key` ('' when nothing known changed). */
  compute(key: string, svc: KubeObject, pods: readonly KubeObject[]): string {
    const prev = this.state.get(key);
    const next = { pods: new Map<string, string>(), service: str(svc.metadata?.creationTimestamp) };
    let min = '';
    const consider = (t: string): void => {
      if (t !== '' && (min === '' || Date.parse(t) < Date.parse(min))) min = t;
    };
    for (const pod of pods) {
      const t = podTriggerTime(pod);
      const k = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
      next.pods.set(k, t);
      if (!prev || prev.pods.get(k) !== t) consider(t);
    }
    if (!prev || prev.service !== next.service) consider(next.service);
    this.state.set(key, next);
    return min;
  }

  forget(key: string): void {
    this.state.delete(key);
  }
}
