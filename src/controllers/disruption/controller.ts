// The disruption controller (kube-controller-manager's `disruption`): keeps each
// PodDisruptionBudget's status (how many selected pods are healthy, how many must be, how
// many are expected, how many may be disrupted now, the DisruptionAllowed condition) from
// the pods' Ready conditions and the scale of the workloads owning them; forgets evictions
// in `disruptedPods` that did not lead to a deletion within two minutes; and turns a stale
// DisruptionTarget condition of a pod that was not deleted back to False.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { NAMESPACE_INDEX } from '../../client/indexes.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import {
  budgetSelects,
  conditionsAreUpToDate,
  DISRUPTION_ALLOWED,
  DISRUPTION_TARGET,
  isPodReady,
  podPhase,
  setStatusCondition,
  SYNC_FAILED,
  updateDisruptionAllowedCondition,
  updatePodCondition,
} from '../../apis/policy/disruption.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext, ControllerDescriptor, DiscoveredResource } from '../types.js';

export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const PDBS: GroupVersionResource = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };
const RCS: GroupVersionResource = { group: '', version: 'v1', resource: 'replicationcontrollers' };
const REPLICASETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };
const DEPLOYMENTS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
const STATEFULSETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'statefulsets' };

/** How long an eviction's entry in `disruptedPods` waits for the pod's deletion (Kubernetes' DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000;
/** How long a DisruptionTarget condition may stand on a pod that is not being deleted. */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

type OwnerRef = NonNullable<NonNullable<KubeObject['metadata']>['ownerReferences']>[number];

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function statusOf(o: KubeObject): Record<string, unknown> {
  return o.status !== null && typeof o.status === 'object' ? (o.status as Record<string, unknown>) : {};
}

function controllerOf(o: KubeObject): OwnerRef | undefined {
  return o.metadata?.ownerReferences?.find((r) => r.controller === true);
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * A count or a percentage of `total`, percentages rounded up (intstr's
 * GetScaledValueFromIntOrPercent with roundUp).
 */
export function scaledValue(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^[0-9]+%$/.test(value)) return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
  throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
}

export interface DisruptionControllerOptions {
  client: ApiClient;
  pods: Informer;
  pdbs: Informer;
  replicationControllers: Informer;
  replicaSets: Informer;
  deployments: Informer;
  statefulSets: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  /** The served resources, to find the scale of other controllers' kinds. */
  discover: () => Promise<DiscoveredResource[]>;
  onError: (err: unknown) => void;
}

interface Expected {
  expectedCount: number;
  desiredHealthy: number;
  unmanaged: string[];
}

const PDB_PREFIX = 'pdb:';
const POD_PREFIX = 'pod:';

export class DisruptionController extends KeyedLoop {
  constructor(private readonly opts: DisruptionControllerOptions) {
    super(opts.clock, 'disruption');
    const enqueueBudget = (pdb: KubeObject): void => this.add(PDB_PREFIX + keyOf(pdb));
    this.onStop(opts.pdbs.addEventHandler({ onAdd: enqueueBudget, onUpdate: (_o, n) => enqueueBudget(n), onDelete: enqueueBudget }));
    const onPod = (pod: KubeObject, checkStale: boolean): void => {
      for (const pdb of this.budgetsFor(pod)) enqueueBudget(pdb);
      if (checkStale && this.staleDisruptionWait(pod) !== undefined) this.add(POD_PREFIX + keyOf(pod));
    };
    this.onStop(opts.pods.addEventHandler({ onAdd: (p) => onPod(p, true), onUpdate: (_o, n) => onPod(n, true), onDelete: (p) => onPod(p, false) }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  /** The budgets in the pod's namespace whose selector selects it. */
  private budgetsFor(pod: KubeObject): KubeObject[] {
    const ns = pod.metadata?.namespace ?? '';
    return this.opts.pdbs.byIndex(NAMESPACE_INDEX, ns).filter((b) => budgetSelects(b, pod.metadata?.labels));
  }

  async sync(key: string): Promise<void> {
    if (!(await this.synced(this.opts.pods, this.opts.pdbs, this.opts.replicationControllers, this.opts.replicaSets, this.opts.deployments, this.opts.statefulSets))) return;
    if (key.startsWith(POD_PREFIX)) return this.syncStalePodDisruption(key.slice(POD_PREFIX.length));
    const pdb = this.opts.pdbs.getByKey(key.slice(PDB_PREFIX.length));
    if (!pdb) return;
    try {
      await this.trySync(key, pdb);
    } catch (err) {
      // A conflict is retried as it is; anything else closes the budget (fail safe) until
      // something changes.
      if (isApiError(err) && err.code === 409) throw err;
      this.opts.onError(err);
      await this.failSafe(pdb, err);
    }
  }

  private async trySync(key: string, pdb: KubeObject): Promise<void> {
    const ns = pdb.metadata?.namespace ?? '';
    const pods = this.opts.pods.byIndex(NAMESPACE_INDEX, ns).filter((p) => budgetSelects(pdb, p.metadata?.labels));
    if (pods.length === 0) this.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
    let expected: Expected;
    try {
      expected = await this.expectedPodCount(pdb, pods);
    } catch (err) {
      this.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    if (expected.unmanaged.length > 0) {
      this.event(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${JSON.stringify(pdb.spec && (pdb.spec as Record<string, unknown>).selector)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    }
    const now = this.opts.clock.now();
    const { disrupted, recheckAt } = this.disruptedPodMap(pods, pdb, now);
    const currentHealthy = countHealthy(pods, disrupted, now);
    await this.updateStatus(pdb, currentHealthy, expected.desiredHealthy, expected.expectedCount, disrupted);
    if (recheckAt !== undefined) this.wakeAfter(key, recheckAt - now.getTime());
  }

  /** expectedPods and desiredHealthy from minAvailable / maxUnavailable (counts or percentages of the controllers' scale). */
  private async expectedPodCount(pdb: KubeObject, pods: KubeObject[]): Promise<Expected> {
    const spec = (pdb.spec ?? {}) as Record<string, unknown>;
    const set = (v: unknown): boolean => v !== undefined && v !== null;
    if (set(spec.maxUnavailable)) {
      const { expectedCount, unmanaged } = await this.expectedScale(pods);
      const maxUnavailable = scaledValue(spec.maxUnavailable, expectedCount);
      return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable), unmanaged };
    }
    if (set(spec.minAvailable)) {
      if (typeof spec.minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: spec.minAvailable, unmanaged: [] };
      const { expectedCount, unmanaged } = await this.expectedScale(pods);
      return { expectedCount, desiredHealthy: scaledValue(spec.minAvailable, expectedCount), unmanaged };
    }
    return { expectedCount: 0, desiredHealthy: 0, unmanaged: [] };
  }

  /** The sum of the scales of the controllers owning the pods; pods without one are unmanaged. */
  private async expectedScale(pods: KubeObject[]): Promise<{ expectedCount: number; unmanaged: string[] }> {
    const scales = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        unmanaged.push(pod.metadata?.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = await this.controllerScale(ref, pod.metadata?.namespace ?? '');
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? '')}`);
      scales.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const s of scales.values()) expectedCount += s;
    return { expectedCount, unmanaged };
  }

  /** The owning controller and its replicas: a ReplicationController, a Deployment through its ReplicaSet, a ReplicaSet, a StatefulSet, or anything with a scale subresource. */
  private async controllerScale(ref: OwnerRef, namespace: string): Promise<{ uid: string; scale: number } | undefined> {
    const group = groupOf(ref.apiVersion);
    const replicas = (o: KubeObject): number => {
      const r = (o.spec as Record<string, unknown> | undefined)?.replicas;
      return typeof r === 'number' ? r : 1;
    };
    const owned = (inf: Informer, r: OwnerRef): KubeObject | undefined => {
      const o = inf.get(namespace, r.name);
      return o && o.metadata?.uid === r.uid ? o : undefined;
    };
    if (ref.kind === 'ReplicationController' && group === '') {
      const rc = owned(this.opts.replicationControllers, ref);
      if (rc) return { uid: rc.metadata?.uid ?? '', scale: replicas(rc) };
    }
    if (ref.kind === 'ReplicaSet' && (group === 'apps' || group === 'extensions')) {
      const rs = owned(this.opts.replicaSets, ref);
      if (rs) {
        const up = controllerOf(rs);
        if (up?.kind === 'Deployment' && (groupOf(up.apiVersion) === 'apps' || groupOf(up.apiVersion) === 'extensions')) {
          const d = owned(this.opts.deployments, up);
          if (d) return { uid: d.metadata?.uid ?? '', scale: replicas(d) };
        } else if (up?.kind !== 'Deployment') return { uid: rs.metadata?.uid ?? '', scale: replicas(rs) };
      }
    }
    if (ref.kind === 'StatefulSet' && group === 'apps') {
      const ss = owned(this.opts.statefulSets, ref);
      if (ss) return { uid: ss.metadata?.uid ?? '', scale: replicas(ss) };
    }
    return this.scaleSubresource(ref, namespace, group);
  }

  private async scaleSubresource(ref: OwnerRef, namespace: string, group: string): Promise<{ uid: string; scale: number } | undefined> {
    const mapping = (await this.opts.discover()).find((r) => r.group === group && r.kind === ref.kind);
    if (!mapping) throw new Error(`no matches for kind ${JSON.stringify(ref.kind)} in version ${JSON.stringify(ref.apiVersion)}`);
    const gvr = { group: mapping.group, version: mapping.version, resource: mapping.resource };
    let scale: KubeObject;
    try {
      scale = await this.opts.client.get(gvr, namespace, ref.name, 'scale');
    } catch (err) {
      if (!isApiError(err) || err.code !== 404) throw err;
      // A 404 is a missing object or a kind without the subresource; only the latter is an error.
      try {
        await this.opts.client.get(gvr, namespace, ref.name);
      } catch {
        return undefined;
      }
      throw new Error(`${mapping.resource}${mapping.group ? '.' + mapping.group : ''} does not implement the scale subresource`);
    }
    if (scale.metadata?.uid !== ref.uid) return undefined;
    return { uid: ref.uid, scale: num((scale.spec as Record<string, unknown> | undefined)?.replicas) };
  }

  /** The entries of `disruptedPods` still waiting for their pod's deletion, and when the first one expires. */
  private disruptedPodMap(pods: KubeObject[], pdb: KubeObject, now: Date): { disrupted: Record<string, string>; recheckAt?: number } {
    const old = statusOf(pdb).disruptedPods;
    const disrupted: Record<string, string> = {};
    let recheckAt: number | undefined;
    if (old === null || typeof old !== 'object') return { disrupted };
    const entries = old as Record<string, unknown>;
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp) continue;
      const name = pod.metadata?.name ?? '';
      if (!Object.hasOwn(entries, name)) continue;
      const at = typeof entries[name] === 'string' ? Date.parse(entries[name] as string) : NaN;
      if (Number.isNaN(at)) continue;
      const expires = at + DELETION_TIMEOUT_MS;
      if (expires < now.getTime()) {
        this.event(pod, 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata?.namespace ?? ''}/${pdb.metadata?.name ?? ''} to be deleted but it wasn't`);
      } else {
        if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
        disrupted[name] = entries[name] as string;
      }
    }
    return { disrupted, recheckAt };
  }

  private async updateStatus(pdb: KubeObject, currentHealthy: number, desiredHealthy: number, expectedPods: number, disruptedPods: Record<string, string>): Promise<void> {
    // Nothing may be disrupted while no pods are expected: the first ones are safe before a sync.
    let disruptionsAllowed = currentHealthy - desiredHealthy;
    if (expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    const old = statusOf(pdb);
    const generation = pdb.metadata?.generation ?? 0;
    const oldDisrupted = old.disruptedPods !== null && typeof old.disruptedPods === 'object' ? old.disruptedPods : {};
    if (
      num(old.currentHealthy) === currentHealthy &&
      num(old.desiredHealthy) === desiredHealthy &&
      num(old.expectedPods) === expectedPods &&
      num(old.disruptionsAllowed) === disruptionsAllowed &&
      deepEqual(oldDisrupted, disruptedPods) &&
      num(old.observedGeneration) === generation &&
      conditionsAreUpToDate(pdb)
    ) {
      return;
    }
    const status: Record<string, unknown> = { observedGeneration: generation };
    if (Object.keys(disruptedPods).length > 0) status.disruptedPods = disruptedPods;
    Object.assign(status, { disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods });
    if (Array.isArray(old.conditions)) status.conditions = structuredClone(old.conditions);
    updateDisruptionAllowedCondition(status, this.opts.clock.now());
    await this.opts.client.update(PDBS, pdb.metadata?.namespace ?? '', { ...structuredClone(pdb), status }, 'status');
  }

  /** After a failed sync: no disruptions allowed, DisruptionAllowed False with reason SyncFailed. */
  private async failSafe(pdb: KubeObject, err: unknown): Promise<void> {
    const status = structuredClone(statusOf(pdb));
    status.disruptionsAllowed = 0;
    setStatusCondition(
      status,
      { type: DISRUPTION_ALLOWED, status: 'False', reason: SYNC_FAILED, message: err instanceof Error ? err.message : String(err), observedGeneration: num(status.observedGeneration) },
      this.opts.clock.now(),
    );
    // When even this fails, the key is retried.
    await this.opts.client.update(PDBS, pdb.metadata?.namespace ?? '', { ...structuredClone(pdb), status }, 'status');
  }

  /** How long until the pod's DisruptionTarget condition is stale, or undefined when it has none that can be. */
  private staleDisruptionWait(pod: KubeObject): number | undefined {
    if (pod.metadata?.deletionTimestamp) return undefined;
    const phase = podPhase(pod);
    if (phase === 'Succeeded' || phase === 'Failed') return undefined;
    const conditions = Array.isArray(statusOf(pod).conditions) ? (statusOf(pod).conditions as Record<string, unknown>[]) : [];
    const cond = conditions.find((c) => c?.type === DISRUPTION_TARGET);
    // The kubelet's own condition may take arbitrarily long before the pod terminates.
    if (!cond || cond.status !== 'True' || cond.reason === 'TerminationByKubelet') return undefined;
    const since = typeof cond.lastTransitionTime === 'string' ? Date.parse(cond.lastTransitionTime) : NaN;
    const elapsed = Number.isNaN(since) ? 0 : this.opts.clock.now().getTime() - since;
    return Math.max(0, STALE_POD_DISRUPTION_TIMEOUT_MS - elapsed);
  }

  private async syncStalePodDisruption(podKey: string): Promise<void> {
    const pod = this.opts.pods.getByKey(podKey);
    if (!pod) return;
    const wait = this.staleDisruptionWait(pod);
    if (wait === undefined) return;
    if (wait > 0) {
      this.wakeAfter(POD_PREFIX + podKey, wait);
      return;
    }
    const next = structuredClone(pod);
    if (!updatePodCondition(next, { type: DISRUPTION_TARGET, status: 'False' }, this.opts.clock.now())) return;
    const { namespace } = splitKey(podKey);
    await this.opts.client.update(PODS, namespace, next, 'status');
  }

  private event(regarding: KubeObject, type: 'Normal' | 'Warning', reason: string, note: string): void {
    this.opts.recorder.eventf(regarding, undefined, type, reason, reason, note);
  }
}

/** Healthy pods: Ready, not being deleted and not awaiting a deletion an eviction approved. */
function countHealthy(pods: KubeObject[], disrupted: Record<string, string>, now: Date): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const name = pod.metadata?.name ?? '';
    if (Object.hasOwn(disrupted, name)) {
      const at = Date.parse(disrupted[name] ?? '');
      if (!Number.isNaN(at) && at + DELETION_TIMEOUT_MS > now.getTime()) continue;
    }
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

export const disruptionControllerDescriptor: ControllerDescriptor = {
  name: 'disruption',
  requires: [
    { group: 'policy', resource: 'poddisruptionbudgets' },
    { group: '', resource: 'pods' },
  ],
  start(ctx) {
    const controller = new DisruptionController({
      client: ctx.client,
      pods: ctx.informers.informerFor(PODS),
      pdbs: ctx.informers.informerFor(PDBS),
      replicationControllers: ctx.informers.informerFor(RCS),
      replicaSets: ctx.informers.informerFor(REPLICASETS),
      deployments: ctx.informers.informerFor(DEPLOYMENTS),
      statefulSets: ctx.informers.informerFor(STATEFULSETS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('controllermanager'),
      discover: () => ctx.discover(),
      onError: ctx.onError,
    });
    controller.start(1);
    return controller;
  },
};
