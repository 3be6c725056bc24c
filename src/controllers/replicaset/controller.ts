// The ReplicaSet controller (kube-controller-manager's `replicaset`, and `replicationcontroller`
// over the same logic): keeps `spec.replicas` active pods made from `spec.template`, adopting
// orphans its selector matches and releasing pods it no longer matches, creating in slow-start
// batches and deleting the pods cheapest to lose, and reports what it sees in `status`.
import { isApiError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, selectorFromSet, type LabelSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import { controllerOf, newControllerRef } from '../../apimachinery/owners.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { GroupVersionResource, KubeObject, OwnerReference } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { isPodActive, isPodAvailable, isPodReady, podAvailableAt } from '../../apis/core/helpers/pod.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { keyOf, splitKey } from '../../client/informer.js';
import { CLAIM_INDEXERS, claimCandidates, NAMESPACE_INDEX } from '../../client/indexes.js';
import type { ApiClient } from '../../client/types.js';
import { ControllerExpectations } from '../expectations.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext } from '../types.js';
import { colocationRanks, rankPodsForDeletion } from './ranking.js';

export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const REPLICASETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };
export const REPLICATIONCONTROLLERS: GroupVersionResource = { group: '', version: 'v1', resource: 'replicationcontrollers' };

/** kube's BurstReplicas: at most this many creates or deletes per sync. */
export const BURST_REPLICAS = 500;
/** kube's SlowStartInitialBatchSize. */
const SLOW_START_INITIAL_BATCH = 1;

/** What differs between a ReplicaSet and a ReplicationController. */
export interface ReplicaSetKind {
  resource: GroupVersionResource;
  apiVersion: string;
  kind: string;
  /** The queue's name in the metrics. */
  queueName: string;
  /** The selector of the owner; throws on an invalid one. */
  selectorOf(owner: KubeObject): LabelSelector;
}

export function replicaSetKind(): ReplicaSetKind {
  return {
    resource: REPLICASETS,
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    queueName: 'replicaset',
    selectorOf: (rs) => labelSelectorAsSelector((rs.spec as { selector?: LabelSelectorObject } | undefined)?.selector),
  };
}

export function replicationControllerKind(): ReplicaSetKind {
  return {
    resource: REPLICATIONCONTROLLERS,
    apiVersion: 'v1',
    kind: 'ReplicationController',
    queueName: 'replicationmanager',
    // An RC's selector is a map; an empty one selects nothing here (the API defaults it from the template).
    selectorOf: (rc) => {
      const sel = (rc.spec as { selector?: Record<string, string> } | undefined)?.selector;
      return isPlainObject(sel) && Object.keys(sel).length > 0 ? selectorFromSet(sel as Record<string, string>) : labelSelectorAsSelector(undefined);
    },
  };
}

interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec?: Record<string, unknown>;
}

interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  template?: Template;
}

export interface ReplicaSetCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

function specOf(rs: KubeObject): ReplicaSetSpec {
  return (isPlainObject(rs.spec) ? rs.spec : {}) as ReplicaSetSpec;
}

/** `spec.replicas`, 1 when unset (the API defaults it). */
export function desiredReplicas(rs: KubeObject): number {
  const n = specOf(rs).replicas;
  return typeof n === 'number' && n >= 0 ? n : 1;
}

/** The pod `owner` creates from its template. */
export function podFromTemplate(owner: KubeObject, kind: ReplicaSetKind): KubeObject {
  const tpl = specOf(owner).template ?? {};
  const meta = tpl.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${owner.metadata?.name ?? ''}-`,
      namespace: owner.metadata?.namespace,
      labels: { ...(meta.labels ?? {}) },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [newControllerRef(owner, kind.apiVersion, kind.kind)],
    },
    spec: structuredClone(tpl.spec ?? {}),
  };
}

/** The status `pods` (the owner's active pods) give, beside the owner's other conditions. */
export function computeStatus(owner: KubeObject, pods: readonly KubeObject[], nowMs: number, manageError: { reason: string; message: string } | undefined): ReplicaSetStatus {
  const spec = specOf(owner);
  const templateLabels = spec.template?.metadata?.labels ?? {};
  const minReady = spec.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const p of pods) {
    const labels = p.metadata?.labels ?? {};
    if (Object.entries(templateLabels).every(([k, v]) => labels[k] === v)) fullyLabeled++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, minReady, nowMs)) available++;
    }
  }
  const old = (owner.status as ReplicaSetStatus | undefined)?.conditions ?? [];
  let conditions = [...old];
  const failure = old.find((c) => c.type === 'ReplicaFailure');
  if (manageError && !failure) {
    conditions.push({ type: 'ReplicaFailure', status: 'True', lastTransitionTime: rfc3339(new Date(nowMs)), reason: manageError.reason, message: manageError.message });
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  return {
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    ...(owner.metadata?.generation !== undefined ? { observedGeneration: owner.metadata.generation } : {}),
    ...(conditions.length > 0 ? { conditions } : {}),
  };
}

/** The numbers of `status` as the API returns them (zero counts omitted). */
function sameStatus(a: unknown, b: ReplicaSetStatus): boolean {
  const s = (isPlainObject(a) ? a : {}) as Partial<ReplicaSetStatus>;
  const n = (v: number | undefined): number => v ?? 0;
  return (
    n(s.replicas) === b.replicas &&
    n(s.fullyLabeledReplicas) === n(b.fullyLabeledReplicas) &&
    n(s.readyReplicas) === n(b.readyReplicas) &&
    n(s.availableReplicas) === n(b.availableReplicas) &&
    s.observedGeneration === b.observedGeneration &&
    JSON.stringify(s.conditions ?? []) === JSON.stringify(b.conditions ?? [])
  );
}

export interface ReplicaSetControllerOptions {
  kind: ReplicaSetKind;
  client: ApiClient;
  owners: Informer;
  pods: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  onError: (err: unknown) => void;
  burstReplicas?: number;
}

export class ReplicaSetController extends KeyedLoop {
  readonly expectations: ControllerExpectations;
  /** Uids of pods each owner asked to delete and has not seen go: a deletion counts once. */
  private readonly deleting = new Map<string, Set<string>>();
  private readonly kind: ReplicaSetKind;

  constructor(private readonly opts: ReplicaSetControllerOptions) {
    super(opts.clock, opts.kind.queueName);
    this.kind = opts.kind;
    this.expectations = new ControllerExpectations(opts.clock);
    opts.pods.addIndexers(CLAIM_INDEXERS);
    const enqueue = (o: KubeObject): void => this.add(keyOf(o));
    this.onStop(
      opts.owners.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_o, n) => enqueue(n),
        onDelete: (o) => {
          this.expectations.forget(keyOf(o));
          this.deleting.delete(keyOf(o));
          enqueue(o);
        },
      }),
    );
    this.onStop(
      opts.pods.addEventHandler({
        onAdd: (pod) => {
          if (pod.metadata?.deletionTimestamp) return this.podGone(pod);
          const key = this.ownerKey(pod);
          if (key) {
            this.expectations.creationObserved(key);
            this.add(key);
          } else if (!controllerOf(pod)) this.enqueueMatching(pod);
        },
        onUpdate: (old, pod) => {
          if (pod.metadata?.deletionTimestamp && !old.metadata?.deletionTimestamp) this.podGone(pod);
          const oldKey = this.ownerKey(old);
          const key = this.ownerKey(pod);
          if (oldKey && oldKey !== key) this.add(oldKey);
          if (key) this.add(key);
          else if (!controllerOf(pod)) {
            this.enqueueMatching(pod);
            if (JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {})) this.enqueueMatching(old);
          }
        },
        onDelete: (pod) => this.podGone(pod),
      }),
    );
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  private ownerKey(pod: KubeObject): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== this.kind.kind || !pod.metadata?.namespace) return undefined;
    const owner = this.opts.owners.get(pod.metadata.namespace, ref.name);
    return owner && owner.metadata?.uid === ref.uid ? `${pod.metadata.namespace}/${ref.name}` : undefined;
  }

  private podGone(pod: KubeObject): void {
    const key = this.ownerKey(pod);
    if (!key) {
      if (!controllerOf(pod)) this.enqueueMatching(pod);
      return;
    }
    const pending = this.deleting.get(key);
    if (pending?.delete(pod.metadata?.uid ?? '')) this.expectations.deletionObserved(key);
    this.add(key);
  }

  /** Queues the owners whose selector matches an orphan (one of them may adopt it). */
  private enqueueMatching(pod: KubeObject): void {
    for (const owner of this.opts.owners.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')) {
      try {
        if (this.kind.selectorOf(owner).matches(pod.metadata?.labels)) this.add(keyOf(owner));
      } catch {
        // An invalid selector matches nothing.
      }
    }
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const owner = this.opts.owners.get(namespace, name);
    if (!owner) {
      this.expectations.forget(key);
      this.deleting.delete(key);
      return;
    }
    let selector: LabelSelector;
    try {
      selector = this.kind.selectorOf(owner);
    } catch (err) {
      this.opts.onError(err);
      return;
    }
    const needsSync = this.expectations.satisfied(key);
    const pods = await this.claimPods(owner, selector, claimCandidates(this.opts.pods, namespace, owner.metadata?.uid ?? ''));
    const active = pods.filter(isPodActive);
    let manageError: { reason: string; message: string } | undefined;
    if (needsSync && !owner.metadata?.deletionTimestamp) {
      try {
        await this.manageReplicas(key, owner, active);
      } catch (err) {
        manageError = { reason: active.length < desiredReplicas(owner) ? 'FailedCreate' : 'FailedDelete', message: (err as Error).message };
      }
    }
    const now = this.opts.clock.now().getTime();
    const status = computeStatus(owner, active, now, manageError);
    if (!sameStatus(owner.status, status)) await this.writeStatus(owner, status);
    // A ready pod that is not available yet becomes so at a known time: look again then.
    const minReady = specOf(owner).minReadySeconds ?? 0;
    if (minReady > 0) {
      let next: number | undefined;
      for (const p of active) {
        const at = podAvailableAt(p, minReady);
        if (at !== undefined && at > now && (next === undefined || at < next)) next = at;
      }
      if (next !== undefined) this.wakeAfter(key, next - now);
    }
    if (manageError) throw new Error(manageError.message);
  }

  /** Writes `status`; on a conflict (the cache lags this controller's own write) once more on a fresh read. */
  private async writeStatus(owner: KubeObject, status: ReplicaSetStatus): Promise<void> {
    const { resource } = this.kind;
    const ns = owner.metadata?.namespace ?? '';
    try {
      await this.opts.client.update(resource, ns, { ...owner, status }, 'status');
    } catch (err) {
      if (!(isApiError(err) && err.code === 409)) throw err;
      const fresh = await this.opts.client.get(resource, ns, owner.metadata?.name ?? '');
      if (fresh.metadata?.uid !== owner.metadata?.uid) return;
      // A newer generation gets its own sync; the counts hold for it too.
      if (!sameStatus(fresh.status, status)) await this.opts.client.update(resource, ns, { ...fresh, status: { ...status, observedGeneration: owner.metadata?.generation } }, 'status');
    }
  }

  /**
   * The pods `owner` controls once it adopts matching orphans and releases pods it no longer
   * matches (kube's ClaimPods); never touches a pod another controller owns.
   */
  private async claimPods(owner: KubeObject, selector: LabelSelector, candidates: Readonly<KubeObject>[]): Promise<KubeObject[]> {
    const uid = owner.metadata?.uid ?? '';
    const deleting = owner.metadata?.deletionTimestamp !== undefined;
    const claimed: KubeObject[] = [];
    let ownerChecked = false;
    for (const pod of candidates) {
      const ref = controllerOf(pod);
      const matches = selector.matches(pod.metadata?.labels);
      if (ref) {
        if (ref.uid !== uid) continue;
        if (matches) {
          claimed.push(pod as KubeObject);
        } else if (!deleting) {
          await this.release(owner, pod);
        }
        continue;
      }
      if (!matches || deleting || pod.metadata?.deletionTimestamp) continue;
      // Before adopting, make sure the owner still exists as cached (it may have been deleted and re-created).
      if (!ownerChecked) {
        const fresh = await this.opts.client.get(this.kind.resource, owner.metadata?.namespace ?? '', owner.metadata?.name ?? '').catch(() => undefined);
        if (!fresh || fresh.metadata?.uid !== uid || fresh.metadata?.deletionTimestamp) return claimed;
        ownerChecked = true;
      }
      const adopted = await this.adopt(owner, pod);
      if (adopted) claimed.push(adopted);
    }
    return claimed;
  }

  private async adopt(owner: KubeObject, pod: Readonly<KubeObject>): Promise<KubeObject | undefined> {
    const refs: OwnerReference[] = [...(pod.metadata?.ownerReferences ?? []), newControllerRef(owner, this.kind.apiVersion, this.kind.kind)];
    try {
      return await this.opts.client.patch(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', {
        metadata: { ownerReferences: refs, uid: pod.metadata?.uid, resourceVersion: pod.metadata?.resourceVersion },
      });
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return undefined;
      throw err;
    }
  }

  private async release(owner: KubeObject, pod: Readonly<KubeObject>): Promise<void> {
    const uid = owner.metadata?.uid;
    const refs = (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
    try {
      await this.opts.client.patch(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', {
        metadata: { ownerReferences: refs.length > 0 ? refs : null, uid: pod.metadata?.uid, resourceVersion: pod.metadata?.resourceVersion },
      });
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  /** Creates or deletes pods toward `spec.replicas`; throws the first error (after recording it). */
  private async manageReplicas(key: string, owner: KubeObject, active: KubeObject[]): Promise<void> {
    const burst = this.opts.burstReplicas ?? BURST_REPLICAS;
    const diff = active.length - desiredReplicas(owner);
    if (diff < 0) {
      const count = Math.min(-diff, burst);
      this.expectations.expect(key, count, 0);
      const template = podFromTemplate(owner, this.kind);
      let firstError: unknown;
      let done = 0;
      // Slow start: 1, 2, 4, ... at a time, stopping at the first batch with a failure, so that
      // a failing create (quota) is tried a few times rather than `count` times.
      for (let batch = Math.min(count, SLOW_START_INITIAL_BATCH); batch > 0 && firstError === undefined; ) {
        const results = await Promise.allSettled(Array.from({ length: batch }, () => this.createPod(owner, template)));
        for (const r of results) {
          if (r.status === 'rejected') {
            this.expectations.creationObserved(key);
            firstError ??= r.reason;
          }
        }
        done += batch;
        batch = Math.min(2 * batch, count - done);
      }
      // The creates never sent will never be observed.
      for (let i = done; i < count; i++) this.expectations.creationObserved(key);
      if (firstError !== undefined) throw firstError;
      return;
    }
    if (diff > 0) {
      const count = Math.min(diff, burst);
      const ranks = colocationRanks(active, active);
      const victims = rankPodsForDeletion(active, ranks, this.opts.clock.now().getTime()).slice(0, count);
      const pending = this.deleting.get(key) ?? new Set<string>();
      this.deleting.set(key, pending);
      for (const v of victims) pending.add(v.metadata?.uid ?? '');
      this.expectations.expect(key, 0, count);
      const results = await Promise.allSettled(victims.map((v) => this.deletePod(owner, v)));
      let firstError: unknown;
      results.forEach((r, i) => {
        if (r.status === 'rejected') {
          if (pending.delete(victims[i].metadata?.uid ?? '')) this.expectations.deletionObserved(key);
          firstError ??= r.reason;
        }
      });
      if (firstError !== undefined) throw firstError;
    }
  }

  private async createPod(owner: KubeObject, template: KubeObject): Promise<void> {
    try {
      const pod = await this.opts.client.create(PODS, owner.metadata?.namespace ?? '', structuredClone(template));
      this.opts.recorder.eventf(owner, pod, 'Normal', 'SuccessfulCreate', 'Create', `Created pod: ${pod.metadata?.name ?? ''}`);
    } catch (err) {
      this.opts.recorder.eventf(owner, undefined, 'Warning', 'FailedCreate', 'Create', `Error creating: ${(err as Error).message}`);
      throw err;
    }
  }

  private async deletePod(owner: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.opts.client.delete(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', { preconditions: { uid: pod.metadata?.uid } });
      this.opts.recorder.eventf(owner, pod, 'Normal', 'SuccessfulDelete', 'Delete', `Deleted pod: ${pod.metadata?.name ?? ''}`);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      this.opts.recorder.eventf(owner, pod, 'Warning', 'FailedDelete', 'Delete', `Error deleting: ${(err as Error).message}`);
      throw err;
    }
  }
}
