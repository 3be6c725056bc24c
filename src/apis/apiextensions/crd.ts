// What the CustomResourceDefinition's strategy and its controllers share: the flavor's
// names for the group, finalizer and approval annotation, and the status conditions.
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { domain, group, longDomain } from '../../naming/index.js';
import { arr, at, obj, objs, str } from '../util.js';

/** `apiextensions.orch.io` / `apiextensions.k8s.io`. */
export function apiextensionsGroup(): string {
  return group('apiextensions');
}

export function crdResource(): GroupVersionResource {
  return { group: apiextensionsGroup(), version: 'v1', resource: 'customresourcedefinitions' };
}

/** The finalizer that holds a deleted definition until its custom resources are gone. */
export function customResourceCleanupFinalizer(): string {
  return `customresourcecleanup.${apiextensionsGroup()}`;
}

/** The annotation a definition in a protected group carries: `api-approved.kubernetes.io` in Kubernetes' flavor. */
export function apiApprovedAnnotation(): string {
  return `api-approved.${longDomain()}`;
}

/** Groups reserved to the project's own APIs (`k8s.io`, `kubernetes.io` and their subdomains in Kubernetes' flavor). */
export function isProtectedCommunityGroup(g: string): boolean {
  return [domain(), longDomain()].some((d) => g === d || g.endsWith(`.${d}`));
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The names of `spec.names` / `status.acceptedNames`. */
export interface CRDNames {
  plural: string;
  singular?: string;
  shortNames?: string[];
  kind: string;
  listKind?: string;
  categories?: string[];
}

export function conditionsOf(crd: KubeObject): CRDCondition[] {
  return objs(at(crd, 'status.conditions')) as unknown as CRDCondition[];
}

export function findCondition(crd: KubeObject, type: string): CRDCondition | undefined {
  return conditionsOf(crd).find((c) => c.type === type);
}

export function isConditionTrue(crd: KubeObject, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** Same status, reason and message (the time is not compared). */
export function equivalentCondition(a: CRDCondition | undefined, b: CRDCondition | undefined): boolean {
  if (!a || !b) return a === b;
  return a.type === b.type && a.status === b.status && a.reason === b.reason && a.message === b.message;
}

/**
 * Sets a condition on the definition (in place): the transition time moves only when the
 * status changes (or none was recorded), as Kubernetes' SetCRDCondition does.
 */
export function setCondition(crd: KubeObject, next: CRDCondition, now: Date = new Date()): void {
  const status = obj(crd.status) ?? {};
  crd.status = status;
  const conditions = objs(status.conditions) as unknown as CRDCondition[];
  const stamp = rfc3339(now);
  const existing = conditions.find((c) => c.type === next.type);
  if (!existing) {
    conditions.push({ ...next, lastTransitionTime: stamp });
  } else {
    if (existing.status !== next.status || !existing.lastTransitionTime) existing.lastTransitionTime = stamp;
    existing.status = next.status;
    existing.reason = next.reason;
    existing.message = next.message;
  }
  status.conditions = conditions;
}

export function removeCondition(crd: KubeObject, type: string): void {
  const status = obj(crd.status);
  if (status) status.conditions = conditionsOf(crd).filter((c) => c.type !== type);
}

/** The version objects are stored in, when exactly one is marked. */
export function storageVersionOf(crd: KubeObject): string | undefined {
  const storage = objs(at(crd, 'spec.versions')).filter((v) => v.storage === true);
  return storage.length === 1 ? str(storage[0]?.name) : undefined;
}

export function hasFinalizer(crd: KubeObject, finalizer: string): boolean {
  return arr(crd.metadata?.finalizers).includes(finalizer);
}

/** The names as plain data (absent lists read as empty), for comparison and copying. */
export function namesOf(value: unknown): Required<CRDNames> {
  const n = obj(value) ?? {};
  return {
    plural: str(n.plural) ?? '',
    singular: str(n.singular) ?? '',
    shortNames: arr(n.shortNames).map(String),
    kind: str(n.kind) ?? '',
    listKind: str(n.listKind) ?? '',
    categories: arr(n.categories).map(String),
  };
}
