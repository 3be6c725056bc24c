// A StatefulSet's members as pure functions: ordinal names, the pod an ordinal gets (identity,
// storage, revision), its claims, and the owner references the claims' retention policy asks for
// (1.27's StatefulSetAutoDeletePVC, on by default).
import type { KubeObject, OwnerReference } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { newControllerRef } from '../../apimachinery/owners.js';
import { isPodReady } from '../../apis/core/helpers/pod.js';
import { longDomainKey } from '../../naming/index.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../history/revisions.js';

/** `statefulset.kubernetes.io/pod-name` in the kubernetes flavor, read when called. */
export function podNameLabel(): string {
  return longDomainKey('pod-name', 'statefulset');
}

export interface StatefulSetSpec {
  replicas?: number;
  serviceName?: string;
  podManagementPolicy?: string;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  ordinals?: { start?: number };
  selector?: { matchLabels?: Record<string, string> };
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] }; spec?: Record<string, unknown> };
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
  volumeClaimTemplates?: KubeObject[];
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
}

export function setSpec(set: KubeObject): StatefulSetSpec {
  return (isPlainObject(set.spec) ? set.spec : {}) as StatefulSetSpec;
}

export function replicasOf(set: KubeObject): number {
  const n = setSpec(set).replicas;
  return typeof n === 'number' && n >= 0 ? n : 1;
}

/** `spec.ordinals.start` (1.27 beta StatefulSetStartOrdinal, on by default), 0 when unset. */
export function startOrdinal(set: KubeObject): number {
  const n = setSpec(set).ordinals?.start;
  return typeof n === 'number' && n >= 0 ? n : 0;
}

export function isParallel(set: KubeObject): boolean {
  return setSpec(set).podManagementPolicy === 'Parallel';
}

export function partitionOf(set: KubeObject): number {
  const us = setSpec(set).updateStrategy;
  if (us?.type === 'OnDelete') return 0;
  const p = us?.rollingUpdate?.partition;
  return typeof p === 'number' && p > 0 ? p : 0;
}

const MEMBER = /^(.*)-([0-9]+)$/;

/** The parent name and ordinal a pod's name spells, ordinal -1 when it spells none. */
export function parentAndOrdinal(pod: KubeObject): { parent: string; ordinal: number } {
  const m = MEMBER.exec(pod.metadata?.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return Number.isSafeInteger(n) && n <= 2 ** 31 - 1 ? { parent: m[1], ordinal: n } : { parent: '', ordinal: -1 };
}

export function isMemberOf(set: KubeObject, pod: KubeObject): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return ordinal >= 0 && parent === set.metadata?.name;
}

export function podName(set: KubeObject, ordinal: number): string {
  return `${set.metadata?.name ?? ''}-${ordinal}`;
}

export function claimName(template: KubeObject, set: KubeObject, ordinal: number): string {
  return `${template.metadata?.name ?? ''}-${set.metadata?.name ?? ''}-${ordinal}`;
}

/** Running and Ready (kube's isRunningAndReady), and not terminating. */
export function isHealthy(pod: KubeObject): boolean {
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  return phase === 'Running' && isPodReady(pod) && !pod.metadata?.deletionTimestamp;
}

export function isFailed(pod: KubeObject): boolean {
  return isPlainObject(pod.status) && pod.status.phase === 'Failed';
}

export function revisionOf(pod: KubeObject): string | undefined {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
}

/**
 * The pod of `ordinal` from `template` (the set's or a revision's), named and labelled as a
 * member: hostname and subdomain from `serviceName`, a volume per claim template.
 */
export function newMemberPod(set: KubeObject, template: StatefulSetSpec['template'], ordinal: number, revisionName: string): KubeObject {
  const meta = template?.metadata ?? {};
  const name = podName(set, ordinal);
  const spec = structuredClone(template?.spec ?? {});
  spec.hostname = name;
  const service = setSpec(set).serviceName;
  if (service) spec.subdomain = service;
  const claims = setSpec(set).volumeClaimTemplates ?? [];
  if (claims.length > 0) {
    const names = new Set(claims.map((c) => c.metadata?.name ?? ''));
    const others = Array.isArray(spec.volumes) ? spec.volumes.filter((v) => !(isPlainObject(v) && names.has(String(v.name)))) : [];
    spec.volumes = [...claims.map((c) => ({ name: c.metadata?.name ?? '', persistentVolumeClaim: { claimName: claimName(c, set, ordinal) } })), ...others];
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata?.namespace,
      labels: { ...(meta.labels ?? {}), [podNameLabel()]: name, [CONTROLLER_REVISION_HASH_LABEL]: revisionName },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [newControllerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec,
  };
}

/**
 * The owner references (not controller ones, as 1.27 sets them) the retention policy asks of a
 * claim: the set's under whenDeleted: Delete, the condemned pod's alone under whenScaled: Delete.
 */
export function claimOwners(set: KubeObject, pod: KubeObject | undefined, condemned: boolean): OwnerReference[] {
  const policy = setSpec(set).persistentVolumeClaimRetentionPolicy ?? {};
  // A condemned pod's claim goes with the pod (and no longer with the set) under whenScaled: Delete.
  if (policy.whenScaled === 'Delete' && condemned) {
    return pod?.metadata?.uid ? [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', uid: pod.metadata.uid }] : [];
  }
  return policy.whenDeleted === 'Delete' ? [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: set.metadata?.name ?? '', uid: set.metadata?.uid ?? '' }] : [];
}

/**
 * The claim's owner references with the set's and the pod's set as `wanted` says: others kept,
 * references to this set or this ordinal's pods not wanted removed. Undefined when unchanged.
 */
export function reconcileClaimOwners(claim: KubeObject, set: KubeObject, podNameOfOrdinal: string, wanted: readonly OwnerReference[]): OwnerReference[] | undefined {
  const current = claim.metadata?.ownerReferences ?? [];
  const ours = (r: OwnerReference): boolean => (r.kind === 'StatefulSet' && r.uid === set.metadata?.uid) || (r.kind === 'Pod' && r.name === podNameOfOrdinal);
  const next = [...current.filter((r) => !ours(r) || wanted.some((w) => w.uid === r.uid)), ...wanted.filter((w) => !current.some((r) => r.uid === w.uid))];
  const same = next.length === current.length && next.every((r, i) => r === current[i]);
  return same ? undefined : next;
}

/** The claim of `template` for `ordinal`: the template with the selector's labels added. */
export function newClaim(set: KubeObject, template: KubeObject, ordinal: number, owners: OwnerReference[]): KubeObject {
  const labels = { ...(template.metadata?.labels ?? {}), ...(setSpec(set).selector?.matchLabels ?? {}) };
  const meta = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: claimName(template, set, ordinal),
      namespace: set.metadata?.namespace,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(owners.length > 0 ? { ownerReferences: owners } : {}),
    },
    spec: structuredClone(isPlainObject(template.spec) ? template.spec : {}),
  };
}
