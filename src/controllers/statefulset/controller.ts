// The StatefulSet controller (kube-controller-manager's `statefulset`): pods with stable names
// `<set>-<ordinal>`, created in order and each after the previous one is Running and Ready
// (OrderedReady) or all at once (Parallel), removed from the highest ordinal down; claims from
// `volumeClaimTemplates` made before their pod and kept unless the retention policy says
// otherwise; rolling updates from the highest ordinal down to `partition`, one pod at a time;
// the template's history as ControllerRevisions.
import { isApiError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, type LabelSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import { controllerOf, newControllerRef } from '../../apimachinery/owners.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { isPodAvailable, podAvailableAt } from '../../apis/core/helpers/pod.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { CLAIM_INDEXERS, claimCandidates, NAMESPACE_INDEX } from '../../client/indexes.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { CONTROLLERREVISIONS, hashOfData, newRevision, templateOfRevision, templatePatch } from '../history/revisions.js';
import { claimRevisions, pickUpdateRevision, pruneRevisions, RevisionCollision } from '../history/sync.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext } from '../types.js';
import { longDomainKey } from '../../naming/index.js';
import {
  claimOwners,
  isFailed,
  isHealthy,
  isMemberOf,
  isParallel,
  newClaim,
  newMemberPod,
  parentAndOrdinal,
  partitionOf,
  podName,
  reconcileClaimOwners,
  replicasOf,
  revisionOf,
  setSpec,
  startOrdinal,
  type StatefulSetSpec,
} from './identity.js';

export const STATEFULSETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'statefulsets' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const PVCS: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  availableReplicas: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
}

/** The label kube puts on a StatefulSet's revisions with their hash (`controller.kubernetes.io/hash`). */
export function revisionHashLabel(): string {
  return longDomainKey('hash', 'controller');
}

/**
 * The status the set's member pods give (kube's counts: every pod counts in `replicas`, the
 * rolling update is complete once every pod is updated and ready).
 */
export function computeStatus(set: KubeObject, pods: readonly KubeObject[], currentRevision: string, updateRevision: string, collisionCount: number | undefined, nowMs: number): StatefulSetStatus {
  const minReady = setSpec(set).minReadySeconds ?? 0;
  let ready = 0;
  let available = 0;
  let current = 0;
  let updated = 0;
  for (const p of pods) {
    if (isHealthy(p)) {
      ready++;
      if (isPodAvailable(p, minReady, nowMs)) available++;
    }
    if (p.metadata?.deletionTimestamp) continue;
    if (revisionOf(p) === currentRevision) current++;
    if (revisionOf(p) === updateRevision) updated++;
  }
  const rolling = setSpec(set).updateStrategy?.type !== 'OnDelete';
  // A rolling update is complete once every pod is updated and ready.
  const complete = rolling && updated === pods.length && ready === pods.length;
  // The optional counts are left out at zero, as the API's JSON omits them.
  const count = (k: 'readyReplicas' | 'currentReplicas' | 'updatedReplicas', n: number): Partial<StatefulSetStatus> => (n > 0 ? { [k]: n } : {});
  return {
    ...(set.metadata?.generation ? { observedGeneration: set.metadata.generation } : {}),
    replicas: pods.length,
    ...count('readyReplicas', ready),
    ...count('currentReplicas', complete ? updated : current),
    ...count('updatedReplicas', updated),
    availableReplicas: available,
    currentRevision: complete ? updateRevision : currentRevision,
    updateRevision,
    ...(collisionCount !== undefined ? { collisionCount } : {}),
  };
}

function sameStatus(a: unknown, b: StatefulSetStatus): boolean {
  const s = (isPlainObject(a) ? a : {}) as Partial<StatefulSetStatus>;
  const keys: (keyof StatefulSetStatus)[] = ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'currentRevision', 'updateRevision', 'collisionCount'];
  return keys.every((k) => (s[k] ?? 0) === (b[k] ?? 0));
}

export interface StatefulSetControllerOptions {
  client: ApiClient;
  sets: Informer;
  pods: Informer;
  revisions: Informer;
  claims: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  onError: (err: unknown) => void;
}

export class StatefulSetController extends KeyedLoop {
  constructor(private readonly opts: StatefulSetControllerOptions) {
    super(opts.clock, 'statefulset');
    opts.pods.addIndexers(CLAIM_INDEXERS);
    const enqueue = (o: KubeObject): void => this.add(keyOf(o));
    this.onStop(opts.sets.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
    const byPod = (pod: KubeObject): void => {
      const ref = controllerOf(pod);
      if (ref?.kind === 'StatefulSet') this.add(`${pod.metadata?.namespace ?? ''}/${ref.name}`);
      else if (!ref) this.enqueueMatching(pod);
    };
    this.onStop(opts.pods.addEventHandler({ onAdd: byPod, onUpdate: (_o, n) => byPod(n), onDelete: byPod }));
    const byRevision = (r: KubeObject): void => {
      const ref = controllerOf(r);
      if (ref?.kind === 'StatefulSet') this.add(`${r.metadata?.namespace ?? ''}/${ref.name}`);
    };
    this.onStop(opts.revisions.addEventHandler({ onAdd: byRevision, onDelete: byRevision }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  private enqueueMatching(pod: KubeObject): void {
    const ns = pod.metadata?.namespace ?? '';
    const { parent } = parentAndOrdinal(pod);
    if (parent && this.opts.sets.get(ns, parent)) this.add(`${ns}/${parent}`);
  }

  private inNamespace(informer: Informer, ns: string): Readonly<KubeObject>[] {
    return informer.byIndex(NAMESPACE_INDEX, ns);
  }

  async sync(key: string): Promise<void> {
    if (!(await this.synced(this.opts.sets, this.opts.pods, this.opts.revisions, this.opts.claims))) return;
    const { namespace, name } = splitKey(key);
    const set = this.opts.sets.get(namespace, name);
    if (!set) return;
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector((set.spec as { selector?: LabelSelectorObject } | undefined)?.selector);
    } catch (err) {
      this.opts.onError(err);
      return;
    }
    const uid = set.metadata?.uid;
    const pods: KubeObject[] = [];
    for (const p of claimCandidates(this.opts.pods, namespace, uid ?? '')) {
      const ref = controllerOf(p);
      if (ref) {
        if (ref.uid !== uid || !isMemberOf(set, p)) continue;
        if (selector.matches(p.metadata?.labels)) pods.push(p as KubeObject);
        // A pod relabelled out of the selector is released (kube's ClaimPods), and replaced.
        else if (!set.metadata?.deletionTimestamp) await this.release(p, uid ?? '');
        continue;
      }
      // An orphan member the selector matches is adopted (kube's ClaimPods).
      if (!set.metadata?.deletionTimestamp && !p.metadata?.deletionTimestamp && isMemberOf(set, p) && selector.matches(p.metadata?.labels)) {
        const adopted = await this.opts.client
          .patch(PODS, namespace, p.metadata?.name ?? '', { metadata: { ownerReferences: [...(p.metadata?.ownerReferences ?? []), newControllerRef(set, 'apps/v1', 'StatefulSet')], uid: p.metadata?.uid } })
          .catch(() => undefined);
        if (adopted) pods.push(adopted);
      }
    }
    const owned = await claimRevisions(this.opts.client, set, 'apps/v1', 'StatefulSet', selector, this.inNamespace(this.opts.revisions, namespace) as KubeObject[]);

    // The update revision: the template now.
    const status = (isPlainObject(set.status) ? set.status : {}) as Partial<StatefulSetStatus>;
    let collisionCount = status.collisionCount;
    const data = templatePatch(set);
    const hash = hashOfData(data, collisionCount);
    const candidate = newRevision({
      owner: set,
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      data,
      revision: 0,
      hash,
      labels: { ...(setSpec(set).template?.metadata?.labels ?? {}), [revisionHashLabel()]: hash },
    });
    let pick;
    try {
      pick = await pickUpdateRevision(this.opts.client, owned, candidate);
    } catch (err) {
      if (!(err instanceof RevisionCollision)) throw err;
      collisionCount = (collisionCount ?? 0) + 1;
      await this.opts.client.patch(STATEFULSETS, namespace, name, { status: { collisionCount } }, 'status');
      throw err;
    }
    const updateRevision = pick.update;
    const currentRevision = pick.revisions.find((r) => r.metadata?.name === status.currentRevision) ?? updateRevision;
    const current = { name: currentRevision.metadata?.name ?? '', template: templateOfRevision(currentRevision) as StatefulSetSpec['template'] };
    const update = { name: updateRevision.metadata?.name ?? '', template: setSpec(set).template };

    if (!set.metadata?.deletionTimestamp) await this.manage(set, pods, current, update);

    const now = this.opts.clock.now().getTime();
    const fresh = claimCandidates(this.opts.pods, namespace, uid ?? '').filter((p) => controllerOf(p)?.uid === uid && isMemberOf(set, p) && selector.matches(p.metadata?.labels)) as KubeObject[];
    const next = computeStatus(set, fresh, current.name, update.name, collisionCount, now);
    if (!sameStatus(set.status, next)) {
      await this.opts.client.update(STATEFULSETS, namespace, { ...set, status: next }, 'status').catch(async (err: unknown) => {
        if (!(isApiError(err) && err.code === 409)) throw err;
        this.add(key);
      });
    }
    const inUse = new Set([current.name, update.name, ...fresh.map((p) => revisionOf(p) ?? '')]);
    await pruneRevisions(this.opts.client, pick.revisions, inUse, setSpec(set).revisionHistoryLimit ?? 10);
    const minReady = setSpec(set).minReadySeconds ?? 0;
    if (minReady > 0) {
      const next = fresh.map((p) => podAvailableAt(p, minReady)).filter((t): t is number => t !== undefined && t > now);
      if (next.length > 0) this.wakeAfter(key, Math.min(...next) - now);
    }
  }

  private async release(pod: Readonly<KubeObject>, uid: string): Promise<void> {
    const refs = (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
    await this.opts.client
      .patch(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', { metadata: { ownerReferences: refs.length > 0 ? refs : null, uid: pod.metadata?.uid, resourceVersion: pod.metadata?.resourceVersion } })
      .catch((err: unknown) => {
        if (!(isApiError(err) && (err.code === 404 || err.code === 409))) throw err;
      });
  }

  /** One step of the set toward its spec: creations, deletions of condemned or failed pods, one rolling update. */
  private async manage(set: KubeObject, pods: KubeObject[], current: { name: string; template: StatefulSetSpec['template'] }, update: { name: string; template: StatefulSetSpec['template'] }): Promise<void> {
    const start = startOrdinal(set);
    const end = start + replicasOf(set);
    const ordered = !isParallel(set);
    const partition = partitionOf(set);
    const rolling = setSpec(set).updateStrategy?.type !== 'OnDelete';
    const byOrdinal = new Map<number, KubeObject>();
    const condemned: KubeObject[] = [];
    for (const p of pods) {
      const { ordinal } = parentAndOrdinal(p);
      if (ordinal >= start && ordinal < end) byOrdinal.set(ordinal, p);
      else condemned.push(p);
    }
    condemned.sort((a, b) => parentAndOrdinal(b).ordinal - parentAndOrdinal(a).ordinal);

    for (let ordinal = start; ordinal < end; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (pod && isFailed(pod) && !pod.metadata?.deletionTimestamp) {
        this.opts.recorder.eventf(set, pod, 'Warning', 'RecreatingFailedPod', 'Delete', `StatefulSet ${set.metadata?.namespace ?? ''}/${set.metadata?.name ?? ''} is recreating failed Pod ${pod.metadata?.name ?? ''}`);
        await this.deletePod(set, pod);
        if (ordered) return;
        continue;
      }
      if (!pod) {
        // Pods below the partition are made at the current revision, the others at the update revision.
        const atCurrent = rolling && ordinal < start + partition;
        const rev = atCurrent ? current : update;
        await this.createMember(set, newMemberPod(set, rev.template, ordinal, rev.name), ordinal);
        if (ordered) return;
        continue;
      }
      await this.ensureClaims(set, pod, ordinal, false);
      // OrderedReady makes no progress past a pod that is not Running and Ready for minReadySeconds.
      if (ordered && !(isHealthy(pod) && isPodAvailable(pod, setSpec(set).minReadySeconds ?? 0, this.opts.clock.now().getTime()))) return;
    }

    for (const pod of condemned) {
      const { ordinal } = parentAndOrdinal(pod);
      if (pod.metadata?.deletionTimestamp) {
        if (ordered) return;
        continue;
      }
      // OrderedReady removes one pod at a time, and only while every other pod is healthy.
      if (ordered && pods.some((p) => p !== pod && !isHealthy(p))) return;
      await this.ensureClaims(set, pod, ordinal, true);
      await this.deletePod(set, pod);
      if (ordered) return;
    }

    if (!rolling) return;
    // The partition counts from the first ordinal.
    for (let ordinal = end - 1; ordinal >= start + partition; ordinal--) {
      const pod = byOrdinal.get(ordinal);
      if (!pod) return;
      if (revisionOf(pod) !== update.name && !pod.metadata?.deletionTimestamp) {
        await this.deletePod(set, pod);
        return;
      }
      if (!isHealthy(pod)) return;
    }
  }

  private async createMember(set: KubeObject, pod: KubeObject, ordinal: number): Promise<void> {
    const ns = set.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    await this.ensureClaims(set, pod, ordinal, false);
    try {
      const created = await this.opts.client.create(PODS, ns, pod);
      this.opts.recorder.eventf(set, created, 'Normal', 'SuccessfulCreate', 'Create', `create Pod ${name} in StatefulSet ${set.metadata?.name ?? ''} successful`);
    } catch (err) {
      // The cache lags our own create: the pod is there.
      if (isApiError(err) && err.code === 409) return;
      this.opts.recorder.eventf(set, pod, 'Warning', 'FailedCreate', 'Create', `create Pod ${name} in StatefulSet ${set.metadata?.name ?? ''} failed error: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Creates the pod's missing claims and sets their owner references as the retention policy says. */
  private async ensureClaims(set: KubeObject, pod: KubeObject, ordinal: number, condemned: boolean): Promise<void> {
    const ns = set.metadata?.namespace ?? '';
    const name = podName(set, ordinal);
    for (const template of setSpec(set).volumeClaimTemplates ?? []) {
      const claim = newClaim(set, template, ordinal, claimOwners(set, pod, condemned));
      const claimName = claim.metadata?.name ?? '';
      const existing = this.opts.claims.get(ns, claimName);
      if (existing) {
        const refs = reconcileClaimOwners(existing, set, name, claimOwners(set, pod, condemned));
        if (refs) {
          await this.opts.client
            .patch(PVCS, ns, claimName, { metadata: { ownerReferences: refs.length > 0 ? refs : null, resourceVersion: existing.metadata?.resourceVersion } })
            .catch((err: unknown) => {
              if (!(isApiError(err) && (err.code === 404 || err.code === 409))) throw err;
            });
        }
        continue;
      }
      try {
        await this.opts.client.create(PVCS, ns, claim);
        this.opts.recorder.eventf(set, claim, 'Normal', 'SuccessfulCreate', 'Create', `create Claim ${claimName} Pod ${name} in StatefulSet ${set.metadata?.name ?? ''} success`);
      } catch (err) {
        if (isApiError(err) && err.code === 409) continue;
        this.opts.recorder.eventf(set, claim, 'Warning', 'FailedCreate', 'Create', `create Claim ${claimName} for Pod ${name} in StatefulSet ${set.metadata?.name ?? ''} failed error: ${(err as Error).message}`);
        throw err;
      }
    }
  }

  private async deletePod(set: KubeObject, pod: KubeObject): Promise<void> {
    const name = pod.metadata?.name ?? '';
    try {
      await this.opts.client.delete(PODS, pod.metadata?.namespace ?? '', name, { preconditions: { uid: pod.metadata?.uid } });
      this.opts.recorder.eventf(set, pod, 'Normal', 'SuccessfulDelete', 'Delete', `delete Pod ${name} in StatefulSet ${set.metadata?.name ?? ''} successful`);
    } catch (err) {
      // Gone already, or a new pod of the same name (the cache lags).
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      this.opts.recorder.eventf(set, pod, 'Warning', 'FailedDelete', 'Delete', `delete Pod ${name} in StatefulSet ${set.metadata?.name ?? ''} failed error: ${(err as Error).message}`);
      throw err;
    }
  }
}

export { CONTROLLERREVISIONS };
