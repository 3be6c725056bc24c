// What the endpointslice controller changes for one Service: a pure plan of creates,
// updates and deletes that brings its EndpointSlices to the pods it selects while touching
// as few slices as possible (kube's reconciler: update slices in place, fill the slices
// being updated anyway before an unchanged one, create new slices last).
import { deepEqual } from '../../apimachinery/equality.js';
import { newControllerRef } from '../../apimachinery/owners.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { isPodReady } from '../../apis/core/helpers/pod.js';
import { nodeLabelKey } from '../../apis/core/helpers/node.js';
import { domain, group, longDomainKey } from '../../naming/index.js';
import {
  podEndpointPorts,
  podIPOfFamily,
  podTargetRef,
  portsKey,
  publishNotReady,
  serviceFamilies,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  specOf,
  type EndpointPort,
} from '../endpoint/util.js';

export type AddressType = 'IPv4' | 'IPv6';

export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  targetRef?: Record<string, unknown>;
  nodeName?: string;
  zone?: string;
}

export interface SlicePlan {
  create: KubeObject[];
  update: KubeObject[];
  delete: KubeObject[];
}

/** `endpointslice.kubernetes.io/managed-by` and this controller's value of it. */
export const managedByKey = (): string => longDomainKey('managed-by', 'endpointslice');
export const controllerName = (): string => `endpointslice-controller.${domain()}`;
export const serviceNameKey = (): string => longDomainKey('service-name');
export const sliceApiVersion = (): string => `${group('discovery')}/v1`;
export const endpointSlicesResource = (): { group: string; version: string; resource: string } => ({ group: group('discovery'), version: 'v1', resource: 'endpointslices' });

/** The address types a Service's slices carry: its IP families, its cluster IP's, or both for a headless Service without families. */
export function addressTypesFor(svc: KubeObject): AddressType[] {
  const fams = serviceFamilies(svc);
  return fams.length > 0 ? [...new Set(fams)] : ['IPv4', 'IPv6'];
}

/** The slice's labels: the Service's (but the two this controller owns), the headless marker, the Service's name and the manager. */
export function sliceLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {})) if (k !== serviceNameKey() && k !== managedByKey()) labels[k] = v;
  const clusterIP = specOf(svc).clusterIP;
  const headless = longDomainKey('headless', 'service');
  if (clusterIP === undefined || clusterIP === '' || clusterIP === 'None') labels[headless] = '';
  labels[serviceNameKey()] = svc.metadata?.name ?? '';
  labels[managedByKey()] = controllerName();
  return labels;
}

/** The pod as an endpoint of `addressType` (no addresses when it has no IP of that family). */
export function podToEndpoint(pod: KubeObject, node: KubeObject | undefined, svc: KubeObject, addressType: AddressType): SliceEndpoint {
  const serving = isPodReady(pod);
  const terminating = Boolean(pod.metadata?.deletionTimestamp);
  // Never ready while terminating, unless not-ready addresses are published.
  const ready = publishNotReady(svc) || (serving && !terminating);
  const ip = podIPOfFamily(pod, addressType);
  const ep: SliceEndpoint = { addresses: ip ? [ip] : [], conditions: { ready, serving, terminating } };
  if (shouldSetHostname(pod, svc)) ep.hostname = specOf(pod).hostname as string;
  ep.targetRef = podTargetRef(pod);
  const nodeName = specOf(pod).nodeName;
  if (typeof nodeName === 'string' && nodeName !== '') ep.nodeName = nodeName;
  const zone = node?.metadata?.labels?.[nodeLabelKey('zone')];
  if (zone) ep.zone = zone;
  return ep;
}

/** An endpoint's identity across syncs: its pod (or, without one, its addresses). */
function endpointKey(ep: unknown): string {
  const e = (ep ?? {}) as Record<string, unknown>;
  const ref = (e.targetRef ?? {}) as Record<string, unknown>;
  const addrs = Array.isArray(e.addresses) ? (e.addresses as unknown[]).join(',') : '';
  return `${String(ref.uid ?? '')}|${String(ref.name ?? '')}|${addrs}`;
}

const slicePorts = (slice: KubeObject): EndpointPort[] => (Array.isArray(slice.ports) ? (slice.ports as EndpointPort[]) : []);
const sliceEndpoints = (slice: KubeObject): unknown[] => (Array.isArray(slice.endpoints) ? (slice.endpoints as unknown[]) : []);

function newSlice(svc: KubeObject, addressType: AddressType, ports: EndpointPort[]): KubeObject {
  return {
    apiVersion: sliceApiVersion(),
    kind: 'EndpointSlice',
    metadata: {
      generateName: `${svc.metadata?.name ?? ''}-`,
      namespace: svc.metadata?.namespace ?? '',
      labels: sliceLabels(svc),
      ownerReferences: [newControllerRef(svc, 'v1', 'Service')],
    },
    addressType,
    endpoints: [],
    ports,
  };
}

/** Whether the slice is owned (as its controller) by this very Service. */
export function ownedBy(slice: KubeObject, svc: KubeObject): boolean {
  return (slice.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.kind === 'Service' && r.uid === svc.metadata?.uid);
}

export interface ReconcileInput {
  service: KubeObject;
  pods: readonly KubeObject[];
  /** The slices this controller manages for the Service. */
  existing: readonly KubeObject[];
  node(name: string): KubeObject | undefined;
  maxEndpointsPerSlice: number;
}

/** The changes that bring the Service's slices to its pods. */
export function reconcileSlices(input: ReconcileInput): SlicePlan {
  const types = addressTypesFor(input.service);
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  for (const s of input.existing) if (!types.includes(s.addressType as AddressType)) plan.delete.push(s);
  for (const t of types) {
    const p = reconcileAddressType(input, t, input.existing.filter((s) => s.addressType === t));
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
  }
  return plan;
}

function reconcileAddressType(input: ReconcileInput, addressType: AddressType, existing: KubeObject[]): SlicePlan {
  const { service: svc, maxEndpointsPerSlice: max } = input;
  const create: KubeObject[] = [];
  const update: KubeObject[] = [];
  const del: KubeObject[] = [];
  const existingByPorts = new Map<string, KubeObject[]>();
  for (const s of existing) {
    if (!ownedBy(s, svc)) {
      del.push(s);
      continue;
    }
    const k = portsKey(slicePorts(s));
    existingByPorts.set(k, [...(existingByPorts.get(k) ?? []), s]);
  }
  // The endpoints wanted, by their set of ports.
  const desired = new Map<string, { ports: EndpointPort[]; endpoints: Map<string, SliceEndpoint> }>();
  for (const pod of input.pods) {
    // Terminating pods are listed, with their conditions saying so.
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = podEndpointPorts(pod, svc);
    const k = portsKey(ports);
    let d = desired.get(k);
    if (!d) desired.set(k, (d = { ports, endpoints: new Map() }));
    const nodeName = specOf(pod).nodeName;
    const ep = podToEndpoint(pod, typeof nodeName === 'string' && nodeName ? input.node(nodeName) : undefined, svc, addressType);
    if (ep.addresses.length > 0) d.endpoints.set(endpointKey(ep), ep);
  }
  const labels = sliceLabels(svc);
  for (const [k, d] of desired) {
    const p = reconcilePorts(existingByPorts.get(k) ?? [], d.endpoints, () => newSlice(svc, addressType, d.ports), labels, max);
    create.push(...p.create);
    update.push(...p.update);
    del.push(...p.delete);
  }
  for (const [k, slices] of existingByPorts) if (!desired.has(k)) del.push(...slices);
  // A Service with no endpoints still has one (empty) slice of each address type.
  if (existing.length === del.length && create.length === 0) {
    const placeholder = newSlice(svc, addressType, []);
    const only = del[0];
    if (del.length === 1 && only && isSamePlaceholder(only, placeholder)) del.length = 0;
    else create.push(placeholder);
  }
  // A slice about to be deleted is reused for one about to be created.
  while (create.length > 0) {
    const i = del.findIndex((s) => s.addressType === addressType && ownedBy(s, svc));
    if (i < 0) break;
    const [old] = del.splice(i, 1);
    const fresh = create.pop()!;
    update.push({ ...fresh, metadata: { ...old!.metadata, labels: fresh.metadata?.labels ?? {}, ownerReferences: fresh.metadata?.ownerReferences ?? [] } });
  }
  return { create, update, delete: del };
}

function isSamePlaceholder(slice: KubeObject, placeholder: KubeObject): boolean {
  return (
    sliceEndpoints(slice).length === 0 &&
    slicePorts(slice).length === 0 &&
    slice.addressType === placeholder.addressType &&
    deepEqual(slice.metadata?.labels ?? {}, placeholder.metadata?.labels ?? {}) &&
    deepEqual(slice.metadata?.ownerReferences ?? [], placeholder.metadata?.ownerReferences ?? [])
  );
}

function reconcilePorts(
  existing: KubeObject[],
  desired: Map<string, SliceEndpoint>,
  fresh: () => KubeObject,
  labels: Record<string, string>,
  max: number,
): SlicePlan {
  const left = new Map(desired);
  const toUpdate: KubeObject[] = [];
  const unchanged: KubeObject[] = [];
  const toDelete: KubeObject[] = [];
  // 1. Keep the endpoints still wanted where they are, refreshed; drop the others.
  for (const s of existing) {
    const kept: unknown[] = [];
    let changed = false;
    for (const ep of sliceEndpoints(s)) {
      const k = endpointKey(ep);
      const want = left.get(k);
      if (!want) continue;
      kept.push(want);
      if (!deepEqual(want, ep)) changed = true;
      left.delete(k);
    }
    const labelsChanged = !deepEqual(s.metadata?.labels ?? {}, labels);
    if (changed || kept.length !== sliceEndpoints(s).length) {
      if (kept.length === 0) toDelete.push(s);
      else toUpdate.push({ ...structuredClone(s), metadata: { ...structuredClone(s.metadata), labels: { ...labels } }, endpoints: kept });
    } else if (labelsChanged) {
      toUpdate.push({ ...structuredClone(s), metadata: { ...structuredClone(s.metadata), labels: { ...labels } } });
    } else {
      unchanged.push(s);
    }
  }
  const rest = [...left.values()];
  // 2. Fill the slices written anyway, the fullest first.
  toUpdate.sort((a, b) => sliceEndpoints(b).length - sliceEndpoints(a).length);
  for (const s of toUpdate) {
    const eps = sliceEndpoints(s);
    while (rest.length > 0 && eps.length < max) eps.push(rest.shift());
    s.endpoints = eps;
  }
  // 3. What remains goes into one unchanged slice that can take all of it, else into new slices.
  const create: KubeObject[] = [];
  while (rest.length > 0) {
    let target: KubeObject | undefined;
    if (rest.length < max && unchanged.length > 0) {
      const fits = unchanged.filter((s) => sliceEndpoints(s).length + rest.length <= max).sort((a, b) => sliceEndpoints(b).length - sliceEndpoints(a).length);
      const pick = fits[0];
      if (pick) {
        unchanged.splice(unchanged.indexOf(pick), 1);
        target = { ...structuredClone(pick), endpoints: [...sliceEndpoints(pick)] };
        toUpdate.push(target);
      }
    }
    if (!target) {
      target = fresh();
      create.push(target);
    }
    const eps = sliceEndpoints(target);
    while (rest.length > 0 && eps.length < max) eps.push(rest.shift());
    target.endpoints = eps;
  }
  return { create, update: toUpdate, delete: toDelete };
}
