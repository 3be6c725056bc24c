// The DaemonSet controller (kube-controller-manager's `daemonset`): one pod per node that
// should run it, each pinned to its node by a required node affinity for the scheduler to
// bind; pods on nodes that no longer should run them removed; failed pods deleted with a
// per-node back-off; rolling updates bounded by maxUnavailable and maxSurge, or OnDelete; the
// template's history as ControllerRevisions.
import { isApiError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, type LabelSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import { controllerOf, newControllerRef } from '../../apimachinery/owners.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { isPodAvailable, isPodReady, podAvailableAt } from '../../apis/core/helpers/pod.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { CLAIM_INDEXERS, claimCandidates, NAMESPACE_INDEX } from '../../client/indexes.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { computeHash } from '../deployment/hash.js';
import { ControllerExpectations } from '../expectations.js';
import { CONTROLLER_REVISION_HASH_LABEL, CONTROLLERREVISIONS, newRevision, templatePatch } from '../history/revisions.js';
import { claimRevisions, pickUpdateRevision, pruneRevisions, RevisionCollision } from '../history/sync.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext } from '../types.js';
import { nodeShouldRunDaemonPod, scaledValue, targetNodeName, withDaemonTolerations, withNodeAffinity } from './placement.js';

export const DAEMONSETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'daemonsets' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export { CONTROLLERREVISIONS };

/** The label with the DaemonSet's generation its pod was made from (kept as kube keeps it). */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/** The annotation kube's API server keeps the template generation in (`spec.templateGeneration` of the internal type). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/**
 * The generation of the DaemonSet's template: the annotation where the server keeps it, else
 * `metadata.generation` (a server that does not keep the annotation bumps both on a template change).
 */
export function templateGeneration(ds: KubeObject): number | undefined {
  const a = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  if (a !== undefined && /^[0-9]{1,15}$/.test(a)) return Number(a);
  return ds.metadata?.generation;
}

/** kube's failed-pod back-off: 1 s doubling to 15 min, per DaemonSet, generation and node. */
const FAILED_BACKOFF_INITIAL_MS = 1_000;
const FAILED_BACKOFF_MAX_MS = 15 * 60_000;

interface DaemonSetSpec {
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] }; spec?: Record<string, unknown> };
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
}

export interface DaemonSetStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
}

function dsSpec(ds: KubeObject): DaemonSetSpec {
  return (isPlainObject(ds.spec) ? ds.spec : {}) as DaemonSetSpec;
}

/** A pod is of the current template when it carries its hash (or, without one, its generation). */
export function isPodUpdated(pod: KubeObject, hash: string, generation: number | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  const podHash = labels[CONTROLLER_REVISION_HASH_LABEL];
  if (podHash !== undefined) return podHash === hash;
  return generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === String(generation);
}

function oldestFirst(a: KubeObject, b: KubeObject): number {
  const t = (p: KubeObject): string => p.metadata?.creationTimestamp ?? '';
  return t(a).localeCompare(t(b)) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** The pod a DaemonSet's template gives for `nodeName`. */
export function newDaemonPod(ds: KubeObject, hash: string, nodeName: string): KubeObject {
  const tpl = dsSpec(ds).template ?? {};
  const meta = tpl.metadata ?? {};
  const generation = templateGeneration(ds);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ds.metadata?.name ?? ''}-`,
      namespace: ds.metadata?.namespace,
      labels: {
        ...(meta.labels ?? {}),
        [CONTROLLER_REVISION_HASH_LABEL]: hash,
        ...(generation !== undefined ? { [POD_TEMPLATE_GENERATION_LABEL]: String(generation) } : {}),
      },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [newControllerRef(ds, 'apps/v1', 'DaemonSet')],
    },
    spec: withNodeAffinity(withDaemonTolerations(structuredClone(tpl.spec ?? {})), nodeName),
  };
}

interface NodePlan {
  node: KubeObject;
  shouldRun: boolean;
  shouldContinueRunning: boolean;
  /** The node's daemon pods, oldest first, terminating ones left out. */
  pods: KubeObject[];
}

/** What the DaemonSet's pods over its nodes give (kube counts the oldest pod of a node). */
export function computeStatus(ds: KubeObject, plans: readonly NodePlan[], hash: string, collisionCount: number | undefined, nowMs: number): DaemonSetStatus {
  const minReady = dsSpec(ds).minReadySeconds ?? 0;
  const generation = templateGeneration(ds);
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  for (const plan of plans) {
    const running = plan.pods.filter((p) => !(isPlainObject(p.status) && p.status.phase === 'Failed'));
    const scheduled = plan.pods.length > 0;
    if (!plan.shouldRun) {
      if (scheduled) misscheduled++;
      continue;
    }
    desired++;
    if (!scheduled) continue;
    current++;
    const pod = running[0] ?? plan.pods[0];
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, nowMs)) available++;
    }
    if (plan.pods.some((p) => isPodUpdated(p, hash, generation))) updated++;
  }
  return {
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: desired,
    numberReady: ready,
    ...(ds.metadata?.generation ? { observedGeneration: ds.metadata.generation } : {}),
    // The optional counts are left out at zero, as the API's JSON omits them.
    ...(updated > 0 ? { updatedNumberScheduled: updated } : {}),
    ...(available > 0 ? { numberAvailable: available } : {}),
    ...(desired - available > 0 ? { numberUnavailable: desired - available } : {}),
    ...(collisionCount !== undefined ? { collisionCount } : {}),
  };
}

function sameStatus(a: unknown, b: DaemonSetStatus): boolean {
  const s = (isPlainObject(a) ? a : {}) as Partial<DaemonSetStatus>;
  const keys: (keyof DaemonSetStatus)[] = [
    'currentNumberScheduled',
    'numberMisscheduled',
    'desiredNumberScheduled',
    'numberReady',
    'observedGeneration',
    'updatedNumberScheduled',
    'numberAvailable',
    'numberUnavailable',
    'collisionCount',
  ];
  return keys.every((k) => (s[k] ?? 0) === (b[k] ?? 0));
}

export interface DaemonSetControllerOptions {
  client: ApiClient;
  daemonSets: Informer;
  pods: Informer;
  nodes: Informer;
  revisions: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  onError: (err: unknown) => void;
}

export class DaemonSetController extends KeyedLoop {
  readonly expectations: ControllerExpectations;
  private readonly deleting = new Map<string, Set<string>>();
  private readonly backoff = new Map<string, { delayMs: number; at: number }>();

  constructor(private readonly opts: DaemonSetControllerOptions) {
    super(opts.clock, 'daemonset');
    opts.pods.addIndexers(CLAIM_INDEXERS);
    this.expectations = new ControllerExpectations(opts.clock);
    const enqueue = (o: KubeObject): void => this.add(keyOf(o));
    this.onStop(
      opts.daemonSets.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_o, n) => enqueue(n),
        onDelete: (o) => {
          this.expectations.forget(keyOf(o));
          this.deleting.delete(keyOf(o));
          const prefix = `${o.metadata?.uid ?? ''}/`;
          for (const k of this.backoff.keys()) if (k.startsWith(prefix)) this.backoff.delete(k);
        },
      }),
    );
    this.onStop(
      opts.pods.addEventHandler({
        onAdd: (pod) => {
          const key = this.ownerKey(pod);
          if (pod.metadata?.deletionTimestamp) return this.podGone(pod);
          if (key) {
            this.expectations.creationObserved(key);
            this.add(key);
          } else if (!controllerOf(pod)) this.enqueueMatching(pod);
        },
        onUpdate: (old, pod) => {
          if (pod.metadata?.deletionTimestamp && !old.metadata?.deletionTimestamp) return this.podGone(pod);
          const key = this.ownerKey(pod);
          if (key) this.add(key);
          else if (!controllerOf(pod)) this.enqueueMatching(pod);
        },
        onDelete: (pod) => this.podGone(pod),
      }),
    );
    // Any node change may change where the daemons should run.
    const all = (): void => {
      for (const k of opts.daemonSets.listKeys()) this.add(k);
    };
    this.onStop(opts.nodes.addEventHandler({ onAdd: all, onUpdate: (o, n) => (nodeChanged(o, n) ? all() : undefined), onDelete: all }));
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  private ownerKey(pod: KubeObject): string | undefined {
    const ref = controllerOf(pod);
    if (ref?.kind !== 'DaemonSet') return undefined;
    const ds = this.opts.daemonSets.get(pod.metadata?.namespace ?? '', ref.name);
    return ds && ds.metadata?.uid === ref.uid ? `${pod.metadata?.namespace ?? ''}/${ref.name}` : undefined;
  }

  private podGone(pod: KubeObject): void {
    const key = this.ownerKey(pod);
    if (!key) return;
    if (this.deleting.get(key)?.delete(pod.metadata?.uid ?? '')) this.expectations.deletionObserved(key);
    this.add(key);
  }

  private enqueueMatching(pod: KubeObject): void {
    const ns = pod.metadata?.namespace ?? '';
    for (const key of this.opts.daemonSets.listKeys()) {
      if (!key.startsWith(`${ns}/`)) continue;
      const ds = this.opts.daemonSets.get(ns, key.slice(ns.length + 1));
      try {
        if (ds && labelSelectorAsSelector((ds.spec as { selector?: LabelSelectorObject } | undefined)?.selector).matches(pod.metadata?.labels)) this.add(key);
      } catch {
        // An invalid selector matches nothing.
      }
    }
  }

  async sync(key: string): Promise<void> {
    // Every cache holds its first list before a decision (an empty node list would strand pods).
    if (!(await this.synced(this.opts.daemonSets, this.opts.pods, this.opts.nodes, this.opts.revisions))) return;
    const { namespace, name } = splitKey(key);
    const ds = this.opts.daemonSets.get(namespace, name);
    if (!ds) {
      this.expectations.forget(key);
      return;
    }
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector((ds.spec as { selector?: LabelSelectorObject } | undefined)?.selector);
    } catch (err) {
      this.opts.onError(err);
      return;
    }
    const status = (isPlainObject(ds.status) ? ds.status : {}) as Partial<DaemonSetStatus>;
    let collisionCount = status.collisionCount;
    const hash = computeHash(dsSpec(ds).template, collisionCount);
    const owned = await claimRevisions(this.opts.client, ds, 'apps/v1', 'DaemonSet', selector, this.list(this.opts.revisions, namespace));
    let pick;
    try {
      pick = await pickUpdateRevision(
        this.opts.client,
        owned,
        newRevision({ owner: ds, apiVersion: 'apps/v1', kind: 'DaemonSet', data: templatePatch(ds), revision: 0, hash, labels: { ...(dsSpec(ds).template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash } }),
      );
    } catch (err) {
      if (!(err instanceof RevisionCollision)) throw err;
      collisionCount = (collisionCount ?? 0) + 1;
      await this.opts.client.patch(DAEMONSETS, namespace, name, { status: { collisionCount } }, 'status');
      throw err;
    }

    const pods = await this.claimPods(ds, selector, namespace);
    const { plans, stranded } = this.plan(ds, pods);
    const now = this.opts.clock.now().getTime();
    if (!ds.metadata?.deletionTimestamp && this.expectations.satisfied(key)) {
      await this.manage(key, ds, plans, stranded, hash, now);
    }
    const next = computeStatus(ds, plans, hash, collisionCount, now);
    if (!sameStatus(ds.status, next)) {
      await this.opts.client.update(DAEMONSETS, namespace, { ...ds, status: next }, 'status').catch((err: unknown) => {
        if (!(isApiError(err) && err.code === 409)) throw err;
        this.add(key);
      });
    }
    const inUse = new Set<string>([pick.update.metadata?.name ?? '']);
    for (const p of pods) {
      const h = p.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
      if (h) inUse.add(`${name.slice(0, 223)}-${h}`);
    }
    await pruneRevisions(this.opts.client, pick.revisions, inUse, dsSpec(ds).revisionHistoryLimit ?? 10);
    const minReady = dsSpec(ds).minReadySeconds ?? 0;
    if (minReady > 0) {
      const at = pods.map((p) => podAvailableAt(p, minReady)).filter((t): t is number => t !== undefined && t > now);
      if (at.length > 0) this.wakeAfter(key, Math.min(...at) - now);
    }
  }

  private list(informer: Informer, ns: string): KubeObject[] {
    return informer.byIndex(NAMESPACE_INDEX, ns) as KubeObject[];
  }

  private async claimPods(ds: KubeObject, selector: LabelSelector, ns: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const p of claimCandidates(this.opts.pods, ns, ds.metadata?.uid ?? '') as KubeObject[]) {
      const ref = controllerOf(p);
      if (ref) {
        if (ref.uid !== ds.metadata?.uid) continue;
        if (selector.matches(p.metadata?.labels)) out.push(p);
        // A pod relabelled out of the selector is released (kube's ClaimPods).
        else if (!ds.metadata?.deletionTimestamp) {
          const refs = (p.metadata?.ownerReferences ?? []).filter((r) => r.uid !== ds.metadata?.uid);
          await this.opts.client
            .patch(PODS, ns, p.metadata?.name ?? '', { metadata: { ownerReferences: refs.length > 0 ? refs : null, uid: p.metadata?.uid, resourceVersion: p.metadata?.resourceVersion } })
            .catch((err: unknown) => {
              if (!(isApiError(err) && (err.code === 404 || err.code === 409))) throw err;
            });
        }
        continue;
      }
      if (ds.metadata?.deletionTimestamp || p.metadata?.deletionTimestamp || !selector.matches(p.metadata?.labels)) continue;
      const adopted = await this.opts.client
        .patch(PODS, ns, p.metadata?.name ?? '', { metadata: { ownerReferences: [...(p.metadata?.ownerReferences ?? []), newControllerRef(ds, 'apps/v1', 'DaemonSet')], uid: p.metadata?.uid } })
        .catch(() => undefined);
      if (adopted) out.push(adopted);
    }
    return out;
  }

  /**
   * Each node with its fit and its daemon pods, and the pods not yet bound whose node is gone
   * (kube deletes those; bound pods of a deleted node are the pod garbage collector's).
   */
  private plan(ds: KubeObject, pods: readonly KubeObject[]): { plans: NodePlan[]; stranded: KubeObject[] } {
    const byNode = new Map<string, KubeObject[]>();
    for (const p of pods) {
      if (p.metadata?.deletionTimestamp) continue;
      const node = targetNodeName(p);
      if (node === undefined) continue;
      const list = byNode.get(node) ?? [];
      list.push(p);
      byNode.set(node, list);
    }
    const template = dsSpec(ds).template?.spec ?? {};
    const plans: NodePlan[] = [];
    for (const nodeKey of this.opts.nodes.listKeys()) {
      // Read without the copy `list` makes: nodes are large and never written here.
      const node = this.opts.nodes.get('', nodeKey) as KubeObject | undefined;
      if (!node) continue;
      const fit = nodeShouldRunDaemonPod(template, node);
      const name = node.metadata?.name ?? '';
      plans.push({ node, ...fit, pods: (byNode.get(name) ?? []).sort(oldestFirst) });
      byNode.delete(name);
    }
    const stranded = [...byNode.values()].flat().filter((p) => !(isPlainObject(p.spec) && typeof p.spec.nodeName === 'string' && p.spec.nodeName !== ''));
    return { plans, stranded };
  }

  private backoffKey(ds: KubeObject, node: string): string {
    return `${ds.metadata?.uid ?? ''}/${ds.metadata?.generation ?? 0}/${node}`;
  }

  private async manage(key: string, ds: KubeObject, plans: NodePlan[], stranded: KubeObject[], hash: string, now: number): Promise<void> {
    const generation = templateGeneration(ds);
    const us = dsSpec(ds).updateStrategy;
    const rolling = us?.type !== 'OnDelete';
    const desired = plans.filter((p) => p.shouldRun).length;
    const maxSurge = rolling ? scaledValue(us?.rollingUpdate?.maxSurge ?? 0, desired) : 0;
    const toCreate: string[] = [];
    const toDelete: KubeObject[] = [...stranded];
    const isFailedPod = (p: KubeObject): boolean => isPlainObject(p.status) && p.status.phase === 'Failed';
    for (const plan of plans) {
      const nodeName = plan.node.metadata?.name ?? '';
      if (plan.shouldRun) {
        const running: KubeObject[] = [];
        for (const pod of plan.pods) {
          if (!isFailedPod(pod)) {
            running.push(pod);
            continue;
          }
          // A node that keeps failing the pod (a kubelet rejecting it) is retried with a back-off.
          const bk = this.backoffKey(ds, nodeName);
          const entry = this.backoff.get(bk);
          if (entry && now - entry.at < entry.delayMs) {
            this.wakeAfter(key, entry.delayMs - (now - entry.at));
            continue;
          }
          const delayMs = entry && now - entry.at <= 2 * FAILED_BACKOFF_MAX_MS ? Math.min(entry.delayMs * 2, FAILED_BACKOFF_MAX_MS) : FAILED_BACKOFF_INITIAL_MS;
          this.backoff.set(bk, { delayMs, at: now });
          this.opts.recorder.eventf(ds, pod, 'Warning', 'FailedDaemonPod', 'Delete', `Found failed daemon pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''} on node ${nodeName}, will try to kill it`);
          toDelete.push(pod);
        }
        if (running.length === 0) toCreate.push(nodeName);
        else if (maxSurge === 0) toDelete.push(...running.slice(1));
        else {
          // With surge, a node may hold its oldest old pod beside its oldest updated pod.
          const updated = running.filter((p) => isPodUpdated(p, hash, generation));
          const old = running.filter((p) => !isPodUpdated(p, hash, generation));
          toDelete.push(...updated.slice(1), ...old.slice(1));
        }
      } else if (!plan.shouldContinueRunning) {
        toDelete.push(...plan.pods);
      }
    }
    if (rolling) this.rollingUpdate(ds, plans, hash, desired, maxSurge, now, toCreate, toDelete);
    await this.apply(key, ds, hash, toCreate, toDelete);
  }

  /** Adds the rolling update's creates and deletes (kube's rollingUpdate, with and without surge). */
  private rollingUpdate(ds: KubeObject, plans: NodePlan[], hash: string, desired: number, maxSurge: number, now: number, toCreate: string[], toDelete: KubeObject[]): void {
    const generation = templateGeneration(ds);
    const minReady = dsSpec(ds).minReadySeconds ?? 0;
    const available = (p: KubeObject): boolean => isPodAvailable(p, minReady, now);
    const maxUnavailable = scaledValue(dsSpec(ds).updateStrategy?.rollingUpdate?.maxUnavailable ?? (maxSurge === 0 ? 1 : 0), desired);
    const deleting = new Set(toDelete);
    const live = (plan: NodePlan): KubeObject[] => plan.pods.filter((p) => !deleting.has(p) && !(isPlainObject(p.status) && p.status.phase === 'Failed'));
    if (maxSurge === 0) {
      let unavailable = 0;
      const replaceable: KubeObject[] = [];
      const candidates: KubeObject[] = [];
      for (const plan of plans) {
        if (!plan.shouldRun) continue;
        const pods = live(plan);
        const updated = pods.filter((p) => isPodUpdated(p, hash, generation));
        const old = pods.filter((p) => !isPodUpdated(p, hash, generation));
        // A node without a pod, or with both kinds or several of one, is the manage step's: unavailable.
        if (updated.length + old.length !== 1) {
          unavailable++;
          continue;
        }
        if (updated.length === 1) {
          if (!available(updated[0])) unavailable++;
          continue;
        }
        // An old pod that is not available goes at once, outside the budget (as kube does).
        if (!available(old[0])) replaceable.push(old[0]);
        else candidates.push(old[0]);
      }
      toDelete.push(...replaceable, ...candidates.slice(0, Math.max(0, maxUnavailable - unavailable)));
      return;
    }
    // With surge (kube's semantics): the new pod starts beside the old one, which goes once the new one is available.
    let surging = 0;
    const replacing: string[] = [];
    const candidates: string[] = [];
    for (const plan of plans) {
      if (!plan.shouldRun) continue;
      const pods = live(plan);
      const updated = pods.filter((p) => isPodUpdated(p, hash, generation));
      const old = pods.filter((p) => !isPodUpdated(p, hash, generation));
      if (updated.length > 1 || old.length > 1) {
        surging++;
        continue;
      }
      if (old.length === 0) continue;
      if (updated.length === 0) {
        // An old pod that is not available gets its replacement at once, outside the budget.
        if (!available(old[0])) replacing.push(plan.node.metadata?.name ?? '');
        else candidates.push(plan.node.metadata?.name ?? '');
        continue;
      }
      if (!available(updated[0])) surging++;
      else toDelete.push(old[0]);
    }
    toCreate.push(...replacing, ...candidates.slice(0, Math.max(0, maxSurge - surging)));
  }

  private async apply(key: string, ds: KubeObject, hash: string, toCreate: string[], toDelete: KubeObject[]): Promise<void> {
    if (toCreate.length === 0 && toDelete.length === 0) return;
    const pending = this.deleting.get(key) ?? new Set<string>();
    this.deleting.set(key, pending);
    for (const p of toDelete) pending.add(p.metadata?.uid ?? '');
    this.expectations.expect(key, toCreate.length, toDelete.length);
    const ns = ds.metadata?.namespace ?? '';
    const results = await Promise.allSettled([
      ...toCreate.map(async (node) => {
        try {
          const pod = await this.opts.client.create(PODS, ns, newDaemonPod(ds, hash, node));
          this.opts.recorder.eventf(ds, pod, 'Normal', 'SuccessfulCreate', 'Create', `Created pod: ${pod.metadata?.name ?? ''}`);
        } catch (err) {
          this.expectations.creationObserved(key);
          this.opts.recorder.eventf(ds, undefined, 'Warning', 'FailedCreate', 'Create', `Error creating: ${(err as Error).message}`);
          throw err;
        }
      }),
      ...toDelete.map(async (pod) => {
        try {
          await this.opts.client.delete(PODS, ns, pod.metadata?.name ?? '', { preconditions: { uid: pod.metadata?.uid } });
          this.opts.recorder.eventf(ds, pod, 'Normal', 'SuccessfulDelete', 'Delete', `Deleted pod: ${pod.metadata?.name ?? ''}`);
        } catch (err) {
          if (pending.delete(pod.metadata?.uid ?? '')) this.expectations.deletionObserved(key);
          if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
          this.opts.recorder.eventf(ds, pod, 'Warning', 'FailedDelete', 'Delete', `Error deleting: ${(err as Error).message}`);
          throw err;
        }
      }),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** A node change that can change a daemon's placement: labels, taints, unschedulable, conditions. */
function nodeChanged(a: KubeObject, b: KubeObject): boolean {
  const view = (n: KubeObject): string => JSON.stringify([n.metadata?.labels ?? {}, n.spec ?? {}]);
  return view(a) !== view(b);
}
