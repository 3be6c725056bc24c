// kube-scheduler over the API: pending pods of this scheduler's name from the pod informer
// into the queue, nodes and assigned pods into the cache, one cycle at a time, bindings sent
// through `pods/binding` without waiting (the pod is assumed on its node meanwhile), and a
// pod that fits nowhere marked `PodScheduled=False` with a `FailedScheduling` Event, after
// preemption had its try.
import { realClock, type Clock } from '../apimachinery/clock.js';
import { isApiError } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import { isPlainObject } from '../apimachinery/types.js';
import { rfc3339 } from '../apimachinery/time.js';
import { isPodTerminal, podConditions, podNodeName, podSchedulerName, withPodCondition, type PodCondition } from '../apis/core/helpers/pod.js';
import type { EventRecorder } from '../client/events.js';
import type { Informer } from '../client/informer.js';
import type { SharedInformerFactory } from '../client/informer-factory.js';
import type { ApiClient } from '../client/types.js';
import type { RunningController } from '../controllers/types.js';
import { SchedulerCache } from './cache/cache.js';
import { scheduleCycle } from './framework/cycle.js';
import { fitErrorMessage } from './framework/fit-error.js';
import { PodInfo } from './framework/pod-info.js';
import { defaultProfile, type Profile } from './framework/profile.js';
import { eligibleToPreempt, findPreemption } from './plugins/defaultpreemption/preemption.js';
import { SchedulingQueue, type QueuedPod } from './queue/queue.js';

export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export const NO_NODES_MESSAGE = 'no nodes available to schedule pods';
/** Bindings in flight at once; the cycle goes on while they are answered. */
const DEFAULT_BIND_CONCURRENCY = 64;
/** How long the loop runs cycles before it lets the event loop serve I/O. */
const SLICE_MS = 10;

export interface SchedulerOptions {
  client: ApiClient;
  informers: SharedInformerFactory;
  recorder: EventRecorder;
  clock?: Clock;
  profile?: Profile;
  /** Tie-breaking among equally scored nodes; seedable in tests. */
  random?: () => number;
  bindConcurrency?: number;
  onError?: (err: unknown) => void;
}

export class Scheduler implements RunningController {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  private readonly clock: Clock;
  private readonly profile: Profile;
  private readonly cursor = { next: 0 };
  private readonly random: () => number;
  private readonly pods: Informer;
  private readonly nodes: Informer;
  private readonly cleanups: (() => void)[] = [];
  private inFlight = 0;
  private readonly bindSlots: (() => void)[] = [];
  private cycling = false;
  private synced = false;
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** Bindings answered by the server, for the benchmark. */
  bound = 0;

  constructor(private readonly opts: SchedulerOptions) {
    this.clock = opts.clock ?? realClock;
    this.profile = opts.profile ?? defaultProfile();
    this.random = opts.random ?? Math.random;
    this.queue = new SchedulingQueue(this.clock);
    this.pods = opts.informers.informerFor(PODS);
    this.nodes = opts.informers.informerFor(NODES);
  }

  private responsible(pod: KubeObject): boolean {
    return podNodeName(pod) === '' && !pod.metadata?.deletionTimestamp && !isPodTerminal(pod) && podSchedulerName(pod) === this.profile.schedulerName;
  }

  /** Assigned and still holding its resources (kube's scheduler does not see terminated pods). */
  private static counted(pod: KubeObject): boolean {
    return podNodeName(pod) !== '' && !isPodTerminal(pod);
  }

  start(): this {
    this.cleanups.push(
      this.nodes.addEventHandler({
        onAdd: (n) => {
          this.cache.setNode(n);
          this.queue.moveAllToActiveOrBackoff();
        },
        onUpdate: (_old, n) => {
          this.cache.setNode(n);
          this.queue.moveAllToActiveOrBackoff();
        },
        onDelete: (n) => this.cache.removeNode(n.metadata?.name ?? ''),
      }),
      this.pods.addEventHandler({
        onAdd: (p) => this.onPod(p),
        onUpdate: (_old, p) => this.onPod(p),
        onDelete: (p) => {
          const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
          this.queue.delete(key);
          if (podNodeName(p) !== '') {
            this.cache.removePod(key);
            this.queue.moveAllToActiveOrBackoff();
          }
        },
      }),
    );
    this.loop = (async () => {
      await Promise.all([this.pods.waitForSync(), this.nodes.waitForSync()]);
      this.synced = true;
      await this.run();
    })().catch((err: unknown) => this.opts.onError?.(err));
    return this;
  }

  private onPod(p: KubeObject): void {
    const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
    if (Scheduler.counted(p)) {
      this.queue.delete(key);
      this.cache.addPod(new PodInfo(p));
    } else if (podNodeName(p) !== '') {
      // Terminated: its resources are free again.
      this.cache.removePod(key);
      this.queue.moveAllToActiveOrBackoff();
    } else if (this.responsible(p)) {
      if (this.cache.isAssumed(key)) return;
      if (this.queue.has(key)) this.queue.update(new PodInfo(p));
      else this.queue.add(new PodInfo(p));
    } else {
      this.queue.delete(key);
    }
  }

  idle(): boolean {
    return this.synced && !this.cycling && this.inFlight === 0 && this.queue.activeLength === 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.close();
    for (const c of this.cleanups) c();
    await this.loop;
    while (this.inFlight > 0) await new Promise((r) => setImmediate(r));
  }

  private async run(): Promise<void> {
    let sliceStart = Date.now();
    for (;;) {
      const q = await this.queue.pop();
      if (!q || this.stopped) return;
      this.cycling = true;
      try {
        await this.scheduleOne(q);
      } catch (err) {
        this.opts.onError?.(err);
      } finally {
        this.cycling = false;
      }
      if (Date.now() - sliceStart > SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        sliceStart = Date.now();
      }
    }
  }

  /** One pod: a cycle over the cache, then an assumed binding or the failure path. */
  async scheduleOne(q: QueuedPod): Promise<void> {
    const current = this.pods.get(q.pod.namespace, q.pod.name);
    if (!current || !this.responsible(current) || this.cache.isAssumed(q.pod.key)) return;
    const pod = current === q.pod.pod ? q.pod : new PodInfo(current);
    if (this.cache.nodeCount === 0) {
      await this.recordFailure(pod, 'Unschedulable', NO_NODES_MESSAGE);
      this.queue.addUnschedulable({ ...q, pod });
      return;
    }
    const result = scheduleCycle(this.profile, pod, this.cache, { cursor: this.cursor, random: this.random });
    if ('node' in result) {
      this.cache.assume(pod, result.node.name);
      await this.acquireBindSlot();
      void this.bind(pod, result.node.name, q);
      return;
    }
    const diagnosis = result.diagnosis;
    let nominated: string | undefined;
    const ineligible = eligibleToPreempt(pod, this.cache);
    if (ineligible) diagnosis.postFilterMsg = `preemption: ${ineligible}`;
    else {
      const preemption = findPreemption(this.profile, result.state, pod, this.cache, diagnosis.filtered);
      if ('message' in preemption) diagnosis.postFilterMsg = `preemption: ${preemption.message}`;
      else {
        nominated = preemption.candidate.nodeName;
        await this.preempt(pod, nominated, preemption.candidate.victims);
      }
    }
    await this.recordFailure(pod, 'Unschedulable', fitErrorMessage(diagnosis), nominated);
    this.queue.addUnschedulable({ ...q, pod });
  }

  private async acquireBindSlot(): Promise<void> {
    const limit = this.opts.bindConcurrency ?? DEFAULT_BIND_CONCURRENCY;
    if (this.inFlight < limit) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve) => this.bindSlots.push(resolve));
    this.inFlight++;
  }

  private releaseBindSlot(): void {
    this.inFlight--;
    this.bindSlots.shift()?.();
  }

  private async bind(pod: PodInfo, nodeName: string, q: QueuedPod): Promise<void> {
    try {
      await this.opts.client.create(
        PODS,
        pod.namespace,
        { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod.name, namespace: pod.namespace, uid: pod.uid }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
        { name: pod.name, subresource: 'binding' },
      );
      this.bound++;
      this.opts.recorder.eventf(pod.pod, undefined, 'Normal', 'Scheduled', 'Binding', `Successfully assigned ${pod.namespace}/${pod.name} to ${nodeName}`);
    } catch (err) {
      this.cache.forget(pod.key);
      if (isApiError(err) && err.status.code === 404) return;
      const message = `binding rejected: ${err instanceof Error ? err.message : String(err)}`;
      await this.recordFailure(pod, 'SchedulerError', message).catch((e: unknown) => this.opts.onError?.(e));
      this.queue.addBackoff({ ...q, pod });
    } finally {
      this.releaseBindSlot();
    }
  }

  /** The victims get the `DisruptionTarget` condition, then are deleted (gracefully, as kube). */
  private async preempt(pod: PodInfo, nodeName: string, victims: PodInfo[]): Promise<void> {
    const now = rfc3339(this.clock.now());
    await Promise.all(
      victims.map(async (v) => {
        try {
          const conditions = withPodCondition(
            podConditions(v.pod),
            { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler', message: `${this.profile.schedulerName}: preempting to accommodate a higher priority pod` },
            now,
          );
          await this.opts.client.patch(PODS, v.namespace, v.name, { status: { conditions } }, 'status');
          await this.opts.client.delete(PODS, v.namespace, v.name, {});
          this.opts.recorder.eventf(v.pod, pod.pod, 'Normal', 'Preempted', 'Preempting', `Preempted by pod ${pod.uid} on node ${nodeName}`);
        } catch (err) {
          if (!(isApiError(err) && err.status.code === 404)) this.opts.onError?.(err);
        }
      }),
    );
  }

  /** The `PodScheduled=False` condition (written only when it changes) and a `FailedScheduling` Event. */
  private async recordFailure(pod: PodInfo, reason: string, message: string, nominatedNodeName?: string): Promise<void> {
    this.opts.recorder.eventf(pod.pod, undefined, 'Warning', 'FailedScheduling', 'Scheduling', message);
    const existing = podConditions(pod.pod).find((c) => c.type === 'PodScheduled');
    const status = isPlainObject(pod.pod.status) ? pod.pod.status : {};
    const sameNomination = nominatedNodeName === undefined || status.nominatedNodeName === nominatedNodeName;
    if (existing?.status === 'False' && existing.reason === reason && existing.message === message && sameNomination) return;
    const condition: PodCondition = { type: 'PodScheduled', status: 'False', lastProbeTime: null, reason, message };
    const patch: Record<string, unknown> = { conditions: withPodCondition(podConditions(pod.pod), condition, rfc3339(this.clock.now())) };
    if (nominatedNodeName !== undefined) patch.nominatedNodeName = nominatedNodeName;
    try {
      await this.opts.client.patch(PODS, pod.namespace, pod.name, { status: patch }, 'status');
    } catch (err) {
      if (!(isApiError(err) && err.status.code === 404)) this.opts.onError?.(err);
    }
  }
}
