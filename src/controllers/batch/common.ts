// What the batch controllers share: the resources, Job finish state, controller references,
// and a keyed work loop whose delayed wake-ups run on the controllers' Clock.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';

export const JOBS: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'jobs' };
export const CRONJOBS: GroupVersionResource = { group: 'batch', version: 'v1', resource: 'cronjobs' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

export function conditionsOf(o: KubeObject): Condition[] {
  const status = o.status as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as Condition[]) : [];
}

/** `Complete` or `Failed` when the Job has finished, with the time it did. */
export function jobFinished(job: KubeObject): { type: 'Complete' | 'Failed'; at?: string } | undefined {
  const c = conditionsOf(job).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c ? { type: c.type as 'Complete' | 'Failed', at: c.lastTransitionTime } : undefined;
}

/** The owner reference of `owner` that marks it as the controller. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): NonNullable<KubeObject['metadata']>['ownerReferences'] {
  return [{ apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }];
}

/** The uid of `obj`'s controller when it is of `kind`. */
export function controllerUid(obj: KubeObject, kind: string): string | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === kind)?.uid;
}

export function isNotFound(err: unknown): boolean {
  return isApiError(err) && err.code === 404;
}

export function isAlreadyExists(err: unknown): boolean {
  return isApiError(err) && err.code === 409 && err.status.reason === 'AlreadyExists';
}
