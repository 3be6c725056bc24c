// Owner references: which object controls another (`controller: true`), as the workload
// controllers, the garbage collector and the disruption controller read them.
import type { KubeObject, OwnerReference } from './types.js';

/** The owner reference with `controller: true`, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  const refs = obj.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs.find((r) => r?.controller === true) : undefined;
}

/** A controller reference to `owner` as the workload controllers set it (blocking the owner's foreground deletion). */
export function newControllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true };
}
