// The pod garbage collector (kube-controller-manager's `podgc`), Kubernetes 1.27's rules. Every
// 20 seconds, over the pods and nodes its informers hold, it force-deletes (grace period 0):
//
// - the oldest terminated pods (phase neither Pending, Running nor Unknown; by creation time,
//   then name) beyond `--terminated-pod-gc-threshold` (12500; 0 turns this rule off);
// - pods being deleted on a node that is not Ready and carries the `out-of-service` taint
//   (gate NodeOutOfServiceVolumeDetach, on by default in 1.27 and not switchable here);
// - orphans: pods bound to a node that does not exist. A missing node is quarantined for 40
//   seconds (the node informer may lag behind a new node), then confirmed by a live read;
//   its pods get the DisruptionTarget condition (reason DeletionByPodGC);
// - pods being deleted that were never scheduled (no node will ever finish them).
//
// With the PodDisruptionConditions gate on (1.27's default) a pod not yet Succeeded or Failed
// is marked Failed (with the condition, for orphans) in its status before the deletion, since
// no node agent is left to do it.
import { deepCopy } from '../../apimachinery/copy.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { defaultFeatureGate } from '../../apimachinery/features.js';
import { updatePodCondition } from '../../apis/policy/disruption.js';
import { splitKey, type Informer } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { longDomainKey } from '../../naming/index.js';
import type { ControllerDescriptor, RunningController } from '../types.js';

export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };

/** How often the rules run (kube's gcCheckPeriod). */
export const GC_CHECK_PERIOD_MS = 20_000;
/** How long a node must stay missing before its pods count as orphans (kube's quarantineTime). */
export const QUARANTINE_MS = 40_000;
/** `--terminated-pod-gc-threshold`'s default. */
export const DEFAULT_TERMINATED_POD_GC_THRESHOLD = 12_500;
/** Deletions in flight at once within one rule (kube runs one goroutine per pod). */
const PARALLEL_DELETES = 32;

/** The condition an orphaned pod gets before its deletion. */
export const ORPHAN_CONDITION = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' } as const;

/** `node.kubernetes.io/out-of-service` in the flavor of the running server. */
export function outOfServiceTaintKey(): string {
  return longDomainKey('out-of-service', 'node');
}

function phaseOf(pod: KubeObject): unknown {
  return (pod.status as { phase?: unknown } | undefined)?.phase;
}

function nodeNameOf(pod: KubeObject): string {
  const n = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
  return typeof n === 'string' ? n : '';
}

/** Terminated as podgc counts it: any phase but Pending, Running and Unknown (an unset phase too). */
export function isPodTerminated(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

function isTerminating(pod: KubeObject): boolean {
  return Boolean(pod.metadata?.deletionTimestamp);
}

/** Oldest first by creation time, then by name. */
export function byCreationTimestamp(a: KubeObject, b: KubeObject): number {
  const ta = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function nodeIsReady(node: KubeObject): boolean {
  const conditions = (node.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return false;
  return conditions.some((c: { type?: unknown; status?: unknown } | null) => c?.type === 'Ready' && c.status === 'True');
}

function hasTaintKey(node: KubeObject, key: string): boolean {
  const taints = (node.spec as { taints?: unknown } | undefined)?.taints;
  return Array.isArray(taints) && taints.some((t: { key?: unknown } | null) => t?.key === key);
}

/**
 * The informer's objects themselves, not copies (a pass reads them and writes only copies of
 * what it changes): copying every pod each 20 s would cost as much as the pass.
 */
function cached(informer: Informer): KubeObject[] {
  const out: KubeObject[] = [];
  for (const key of informer.listKeys()) {
    const { namespace, name } = splitKey(key);
    const obj = informer.get(namespace, name);
    if (obj) out.push(obj as KubeObject);
  }
  return out;
}

async function inBatches<T>(items: readonly T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

export interface PodGCOptions {
  client: ApiClient;
  pods: Informer;
  nodes: Informer;
  clock: Clock;
  /** `--terminated-pod-gc-threshold`; 0 or less keeps every terminated pod. */
  terminatedPodThreshold: number;
  /** Gate PodDisruptionConditions: mark pods Failed (orphans with the condition) before deleting them. */
  podDisruptionConditions: boolean;
  onError: (err: unknown) => void;
  log?: (line: string) => void;
}

export class PodGCController implements RunningController {
  /** Quarantined node names and when (clock ms) their quarantine ends. */
  private readonly quarantine = new Map<string, number>();
  private cancelNext: (() => void) | undefined;
  private pass: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: PodGCOptions) {}

  /** Waits for both informers, then runs the rules at once and every period after each pass ends. */
  start(): void {
    void Promise.all([this.opts.pods.waitForSync(), this.opts.nodes.waitForSync()]).then(() => {
      if (!this.stopped) this.runPass();
    });
  }

  private runPass(): void {
    this.pass = this.gc()
      .catch((err: unknown) => this.opts.onError(err))
      .finally(() => {
        this.pass = undefined;
        if (!this.stopped) this.cancelNext = this.opts.clock.schedule(GC_CHECK_PERIOD_MS, () => this.runPass());
      });
  }

  /** One pass of every rule over the informers' pods and nodes. */
  async gc(): Promise<void> {
    const pods = cached(this.opts.pods);
    const nodes = cached(this.opts.nodes);
    if (this.opts.terminatedPodThreshold > 0) await this.gcTerminated(pods);
    await this.gcTerminatingOutOfService(pods);
    await this.gcOrphaned(pods, nodes);
    await this.gcUnscheduledTerminating(pods);
  }

  private async gcTerminated(pods: KubeObject[]): Promise<void> {
    const terminated = pods.filter(isPodTerminated);
    const excess = terminated.length - this.opts.terminatedPodThreshold;
    if (excess <= 0) return;
    this.opts.log?.(`garbage collecting ${excess} terminated pods`);
    terminated.sort(byCreationTimestamp);
    await inBatches(terminated.slice(0, excess), PARALLEL_DELETES, (pod) => this.markFailedAndDelete(pod));
  }

  private async gcTerminatingOutOfService(pods: KubeObject[]): Promise<void> {
    const key = outOfServiceTaintKey();
    const doomed = pods.filter((pod) => {
      if (!isTerminating(pod)) return false;
      const node = this.opts.nodes.get('', nodeNameOf(pod));
      return node !== undefined && !nodeIsReady(node) && hasTaintKey(node, key);
    });
    doomed.sort(byCreationTimestamp);
    await inBatches(doomed, PARALLEL_DELETES, (pod) => this.markFailedAndDelete(pod));
  }

  private async gcOrphaned(pods: KubeObject[], nodes: KubeObject[]): Promise<void> {
    const existing = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    const now = this.opts.clock.now().getTime();
    // A node seen missing again keeps the end of its first quarantine.
    for (const pod of pods) {
      const node = nodeNameOf(pod);
      if (node !== '' && !existing.has(node) && !this.quarantine.has(node)) this.quarantine.set(node, now + QUARANTINE_MS);
    }
    const deleted = new Set<string>();
    for (const [node, until] of [...this.quarantine]) {
      if (until > now) continue;
      this.quarantine.delete(node);
      if (existing.has(node)) continue;
      try {
        await this.opts.client.get(NODES, '', node);
      } catch (err) {
        if (isApiError(err) && err.code === 404) deleted.add(node);
        // Any other failure: the node is quarantined again on a later pass if its pods remain.
        else this.opts.onError(err);
      }
    }
    if (deleted.size === 0) return;
    const orphans = pods.filter((pod) => deleted.has(nodeNameOf(pod)));
    await inBatches(orphans, PARALLEL_DELETES, async (pod) => {
      this.opts.log?.(`deleting pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}: its node ${nodeNameOf(pod)} no longer exists`);
      await this.markFailedAndDelete(pod, ORPHAN_CONDITION);
    });
  }

  private async gcUnscheduledTerminating(pods: KubeObject[]): Promise<void> {
    const doomed = pods.filter((pod) => isTerminating(pod) && nodeNameOf(pod) === '');
    await inBatches(doomed, PARALLEL_DELETES, (pod) => this.markFailedAndDelete(pod));
  }

  /** Failed (and the condition) in the pod's status when the gate is on, then deleted with no grace period. */
  private async markFailedAndDelete(pod: KubeObject, condition?: typeof ORPHAN_CONDITION): Promise<void> {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    try {
      if (this.opts.podDisruptionConditions) await this.markFailed(pod, condition);
      await this.opts.client.delete(PODS, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } });
    } catch (err) {
      // Gone already, or replaced by another pod of the same name (the uid precondition): nothing to collect.
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      this.opts.onError(err);
    }
  }

  private async markFailed(cached: KubeObject, condition?: typeof ORPHAN_CONDITION): Promise<void> {
    const terminal = (p: KubeObject): boolean => phaseOf(p) === 'Succeeded' || phaseOf(p) === 'Failed';
    if (terminal(cached) && !condition) return;
    let pod = cached;
    for (let attempt = 0; ; attempt++) {
      // A copy: `pod` may be the informer's own object.
      const next = deepCopy(pod);
      next.status ??= {};
      if (condition) updatePodCondition(next, condition, this.opts.clock.now());
      if (!terminal(next)) (next.status as { phase?: string }).phase = 'Failed';
      try {
        await this.opts.client.update(PODS, pod.metadata?.namespace ?? '', next, 'status');
        return;
      } catch (err) {
        // The informer's copy was stale: once more on the stored pod.
        if (attempt > 0 || !isApiError(err) || err.code !== 409) throw err;
        pod = await this.opts.client.get(PODS, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
        if (pod.metadata?.uid !== cached.metadata?.uid) return;
      }
    }
  }

  idle(): boolean {
    return this.pass === undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelNext?.();
    await this.pass;
  }
}

export const podGCControllerDescriptor: ControllerDescriptor = {
  name: 'podgc',
  requires: [
    { group: '', resource: 'pods' },
    { group: '', resource: 'nodes' },
  ],
  start(ctx) {
    const controller = new PodGCController({
      client: ctx.client,
      pods: ctx.informers.informerFor(PODS),
      nodes: ctx.informers.informerFor(NODES),
      clock: ctx.clock,
      terminatedPodThreshold: ctx.options.terminatedPodGCThreshold,
      podDisruptionConditions: (ctx.features ?? defaultFeatureGate()).enabled('PodDisruptionConditions'),
      onError: ctx.onError,
      log: ctx.log,
    });
    controller.start();
    return controller;
  },
};
