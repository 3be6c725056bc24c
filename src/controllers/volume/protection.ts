// What the PVC and PV protection controllers share: when an object needs its protection
// finalizer (alive without it) and when the finalizer may be taken off (being deleted with it).
import type { KubeObject } from '../../apimachinery/types.js';

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return (obj.metadata?.finalizers ?? []).includes(finalizer);
}

/** Being deleted and still held by `finalizer`. */
export function isDeletionCandidate(obj: KubeObject, finalizer: string): boolean {
  return Boolean(obj.metadata?.deletionTimestamp) && hasFinalizer(obj, finalizer);
}

/** Not being deleted and missing `finalizer`. */
export function needToAddFinalizer(obj: KubeObject, finalizer: string): boolean {
  return !obj.metadata?.deletionTimestamp && !hasFinalizer(obj, finalizer);
}

/** A copy of `obj` (its resourceVersion kept, so the update is conditional) with `finalizer` added. */
export function withFinalizer(obj: KubeObject, finalizer: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, finalizers: [...(obj.metadata?.finalizers ?? []), finalizer] } };
}

/** A copy of `obj` with every `finalizer` entry removed. */
export function withoutFinalizer(obj: KubeObject, finalizer: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, finalizers: (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer) } };
}
