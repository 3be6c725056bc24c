// Index functions the cluster's components file informer objects under, shared so that two
// consumers of one shared informer asking for the same index get one index (the informer
// accepts a second `addIndexers` of the same name only with the same function).
import { controllerOf } from '../apimachinery/owners.js';
import type { CachedObject, IndexFunc, Informer } from './informer.js';

export { NAMESPACE_INDEX } from './informer.js';

/** Objects by the uid of their controller (`ownerReferences[].controller: true`). */
export const CONTROLLER_UID_INDEX = 'controller-uid';
export const byControllerUID: IndexFunc = (obj) => {
  const uid = controllerOf(obj)?.uid;
  return uid ? [uid] : [];
};

/** Objects without a controller, by namespace: the ones a workload controller may adopt. */
export const ORPHANS_INDEX = 'orphans';
export const orphansByNamespace: IndexFunc = (obj) => (controllerOf(obj) ? [] : [obj.metadata?.namespace ?? '']);

/** Pods by `spec.nodeName` ('' for pods not scheduled yet). */
export const NODE_NAME_INDEX = 'spec.nodeName';
export const podsByNodeName: IndexFunc = (pod) => {
  const spec = pod.spec as { nodeName?: unknown } | undefined;
  return [typeof spec?.nodeName === 'string' ? spec.nodeName : ''];
};

/**
 * What a workload controller may claim (kube's ClaimPods candidates): the objects of its
 * namespace it controls and the orphans there, without scanning the rest. The informer needs
 * the `CONTROLLER_UID_INDEX` and `ORPHANS_INDEX` indexes.
 */
export function claimCandidates(informer: Pick<Informer, 'byIndex'>, namespace: string, uid: string): CachedObject[] {
  const owned = uid ? informer.byIndex(CONTROLLER_UID_INDEX, uid).filter((o) => (o.metadata?.namespace ?? '') === namespace) : [];
  return [...owned, ...informer.byIndex(ORPHANS_INDEX, namespace)];
}

/** The indexes `claimCandidates` reads. */
export const CLAIM_INDEXERS: Readonly<Record<string, IndexFunc>> = { [CONTROLLER_UID_INDEX]: byControllerUID, [ORPHANS_INDEX]: orphansByNamespace };
