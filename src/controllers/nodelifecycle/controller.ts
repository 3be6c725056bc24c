// The node lifecycle controller (kube-controller-manager's `nodelifecycle`): a node whose
// Lease and status stop changing for the grace period becomes `Ready=Unknown` and its pods
// not ready; unhealthy conditions and cordons become NoSchedule taints, a node not ready or
// unreachable gets the NoExecute taint, and pods that do not tolerate it are evicted once
// their `tolerationSeconds` run out (the taint manager's part).
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { nodeCondition, nodeConditions, type NodeCondition } from '../../apis/core/helpers/node.js';
import { isPodTerminal, podConditions, podNodeName, withPodCondition } from '../../apis/core/helpers/pod.js';
import { nodeTaints, podTolerations, toleratesTaint, type Taint } from '../../apis/core/helpers/taints.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { NODE_NAME_INDEX, podsByNodeName } from '../../client/indexes.js';
import type { ApiClient } from '../../client/types.js';
import { systemNamespace } from '../../naming/index.js';
import type { Clock } from '../../apimachinery/clock.js';
import { KeyedLoop } from '../keyed-loop.js';
import { leasesResource } from '../leader-election.js';
import type { ControllerDescriptor } from '../types.js';
import { desiredNoExecuteTaint, desiredNoScheduleTaints, reconcileTaints } from './taints.js';

export const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
/** The conditions a node agent reports, set Unknown when it goes silent. */
const AGENT_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

export interface NodeLifecycleOptions {
  client: ApiClient;
  nodes: Informer;
  leases: Informer;
  pods: Informer;
  clock: Clock;
  recorder: EventRecorder;
  /** `--node-monitor-grace-period` (40 s). */
  gracePeriodMs: number;
  /** `--node-monitor-period` (5 s). */
  monitorPeriodMs: number;
  onError: (err: unknown) => void;
}

interface Health {
  /** Clock time the node was last seen alive (its Lease or status changed). */
  probe: number;
  signature: string;
}

export class NodeLifecycleController extends KeyedLoop {
  private readonly health = new Map<string, Health>();

  constructor(private readonly opts: NodeLifecycleOptions) {
    super(opts.clock, 'node_lifecycle_controller');
  }

  start(): this {
    const leaseNamespace = systemNamespace('node-lease');
    this.onStop(
      this.opts.nodes.addEventHandler({
        onAdd: (n) => this.add(n.metadata?.name ?? ''),
        onUpdate: (_o, n) => this.add(n.metadata?.name ?? ''),
        onDelete: (n) => {
          this.health.delete(n.metadata?.name ?? '');
          this.cancelWake(n.metadata?.name ?? '');
        },
      }),
    );
    this.onStop(
      this.opts.leases.addEventHandler({
        onAdd: (l) => l.metadata?.namespace === leaseNamespace && this.add(l.metadata?.name ?? ''),
        onUpdate: (_o, l) => l.metadata?.namespace === leaseNamespace && this.add(l.metadata?.name ?? ''),
      }),
    );
    // A node's pods come from the pods informer's spec.nodeName index.
    this.opts.pods.addIndexers({ [NODE_NAME_INDEX]: podsByNodeName });
    const bound = (p: KubeObject): void => {
      const node = podNodeName(p);
      if (node === '') return;
      // A pod bound to a node with a NoExecute taint is checked at once.
      const n = this.opts.nodes.get('', node);
      if (n && nodeTaints(n as KubeObject).some((t) => t.effect === 'NoExecute')) this.add(node);
    };
    this.onStop(
      this.opts.pods.addEventHandler({
        onAdd: bound,
        onUpdate: (o, p) => {
          if (podNodeName(o) !== podNodeName(p)) bound(p);
        },
      }),
    );
    void this.synced(this.opts.nodes, this.opts.leases, this.opts.pods).then((ok) => {
      if (ok) this.run((name) => this.sync(name), 1, this.opts.onError);
    });
    return this;
  }

  private now(): number {
    return this.opts.clock.now().getTime();
  }

  async sync(name: string): Promise<void> {
    const node = this.opts.nodes.get('', name);
    if (!node) return;
    if (await this.monitorHealth(node)) return; // its status write brings it back here
    const now = rfc3339(this.opts.clock.now());
    const next = reconcileTaints(nodeTaints(node), desiredNoScheduleTaints(node), desiredNoExecuteTaint(node), now);
    if (next) {
      await this.opts.client.patch(NODES, '', name, { spec: { taints: next } });
      return; // the update event brings it back for evictions
    }
    await this.evict(node);
    this.wakeAfter(name, this.opts.monitorPeriodMs);
  }

  /** Marks a silent node's conditions Unknown and its pods not ready; true when it wrote. */
  private async monitorHealth(node: KubeObject): Promise<boolean> {
    const name = node.metadata?.name ?? '';
    const lease = this.opts.leases.get(systemNamespace('node-lease'), name) as KubeObject | undefined;
    const ready = nodeCondition(node, 'Ready');
    const renew = (lease?.spec as { renewTime?: string } | undefined)?.renewTime ?? '';
    const signature = `${renew}|${ready?.lastHeartbeatTime ?? ''}|${ready?.status ?? ''}`;
    const now = this.now();
    const h = this.health.get(name);
    if (!h || h.signature !== signature) {
      this.health.set(name, { probe: now, signature });
      return false;
    }
    if (now - h.probe <= this.opts.gracePeriodMs || ready?.status === 'Unknown') return false;
    const at = rfc3339(this.opts.clock.now());
    const conditions: NodeCondition[] = nodeConditions(node).filter((c) => !AGENT_CONDITIONS.includes(c.type));
    for (const type of AGENT_CONDITIONS) {
      const old = nodeCondition(node, type);
      conditions.push(
        old
          ? { ...old, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: at }
          : { type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: rfc3339(new Date(h.probe)), lastTransitionTime: at },
      );
    }
    await this.opts.client.patch(NODES, '', name, { status: { conditions } }, 'status');
    this.opts.recorder.eventf(node, undefined, 'Normal', 'NodeNotReady', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
    await this.markPodsNotReady(name, at);
    return true;
  }

  private async markPodsNotReady(nodeName: string, at: string): Promise<void> {
    for (const key of this.opts.pods.indexKeys(NODE_NAME_INDEX, nodeName)) {
      const [ns, name] = key.split('/');
      const pod = this.opts.pods.get(ns, name);
      if (!pod || isPodTerminal(pod)) continue;
      const ready = podConditions(pod).find((c) => c.type === 'Ready');
      if (ready?.status === 'False') continue;
      const conditions = withPodCondition(podConditions(pod), { type: 'Ready', status: 'False', lastProbeTime: null }, at);
      await this.opts.client.patch(PODS, ns, name, { status: { conditions } }, 'status').catch((err: unknown) => this.ignoreNotFound(err));
    }
  }

  /** Pods that do not tolerate the node's NoExecute taints long enough are deleted when their time is up. */
  private async evict(node: KubeObject): Promise<void> {
    const name = node.metadata?.name ?? '';
    const taints = nodeTaints(node).filter((t) => t.effect === 'NoExecute');
    if (taints.length === 0) return;
    const now = this.now();
    let nextDue = Infinity;
    for (const key of this.opts.pods.indexKeys(NODE_NAME_INDEX, name)) {
      const [ns, podName] = key.split('/');
      const pod = this.opts.pods.get(ns, podName);
      if (!pod || pod.metadata?.deletionTimestamp || isPodTerminal(pod)) continue;
      const due = evictionTime(taints, podTolerations(pod));
      if (due === undefined) continue;
      if (due > now) {
        nextDue = Math.min(nextDue, due);
        continue;
      }
      const at = rfc3339(this.opts.clock.now());
      const conditions = withPodCondition(podConditions(pod), { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' }, at);
      try {
        await this.opts.client.patch(PODS, ns, podName, { status: { conditions } }, 'status');
        this.opts.recorder.eventf(pod, undefined, 'Normal', 'TaintManagerEviction', 'Deleting', `Marking for deletion Pod ${ns}/${podName}`);
        await this.opts.client.delete(PODS, ns, podName, {});
      } catch (err) {
        this.ignoreNotFound(err);
      }
    }
    if (Number.isFinite(nextDue)) this.wakeAfter(name, Math.max(0, nextDue - now));
  }

  private ignoreNotFound(err: unknown): void {
    if (!(isApiError(err) && err.status.code === 404)) throw err;
  }
}

/**
 * When a pod must leave a node with these NoExecute taints: at once when one is not
 * tolerated, at the earliest `timeAdded + tolerationSeconds` when tolerated for a while,
 * never (undefined) when every taint is tolerated forever.
 */
export function evictionTime(taints: readonly Taint[], tolerations: ReturnType<typeof podTolerations>): number | undefined {
  let due: number | undefined;
  for (const t of taints) {
    const matching = tolerations.filter((tol) => toleratesTaint(tol, t));
    if (matching.length === 0) return -Infinity;
    const bounded = matching.filter((tol) => typeof tol.tolerationSeconds === 'number');
    if (bounded.length < matching.length) continue; // one tolerates it forever
    const seconds = Math.max(0, Math.min(...bounded.map((tol) => tol.tolerationSeconds!)));
    const added = t.timeAdded ? Date.parse(t.timeAdded) : NaN;
    const at = (Number.isFinite(added) ? added : 0) + seconds * 1000;
    due = due === undefined ? at : Math.min(due, at);
  }
  return due;
}

export const nodeLifecycleControllerDescriptor: ControllerDescriptor = {
  name: 'nodelifecycle',
  requires: [
    { group: '', resource: 'nodes' },
    { group: '', resource: 'pods' },
  ],
  start(ctx) {
    return new NodeLifecycleController({
      client: ctx.client,
      nodes: ctx.informers.informerFor(NODES),
      leases: ctx.informers.informerFor(leasesResource(), { namespace: systemNamespace('node-lease') }),
      pods: ctx.informers.informerFor(PODS),
      clock: ctx.clock,
      recorder: ctx.eventRecorder('node-controller'),
      gracePeriodMs: ctx.options.nodeMonitorGracePeriodMs,
      monitorPeriodMs: ctx.options.nodeMonitorPeriodMs,
      onError: ctx.onError,
    }).start();
  },
};
