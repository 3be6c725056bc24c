// A node with what is placed on it: its allocatable resources and the sums of its pods'
// requests (assumed pods included, counted before their binding is answered).
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { amountsOf } from '../../apis/core/helpers/resources.js';
import { nodeTaints, type Taint } from '../../apis/core/helpers/taints.js';
import { emptyResources, resourcesOf, type PodInfo, type Resources } from './pod-info.js';

function addInto(total: Resources, r: Resources, sign: 1 | -1): void {
  total.milliCPU += sign * r.milliCPU;
  total.memory += sign * r.memory;
  total.ephemeralStorage += sign * r.ephemeralStorage;
  for (const [k, v] of r.scalar) total.scalar.set(k, (total.scalar.get(k) ?? 0) + sign * v);
}

export class NodeInfo {
  node: KubeObject;
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
  allocatable: Resources;
  /** `status.allocatable.pods`. */
  allowedPodNumber: number;
  readonly pods = new Map<string, PodInfo>();
  readonly requested: Resources = emptyResources();
  readonly nonZeroRequested = { milliCPU: 0, memory: 0 };
  /** `ip/protocol/port` of the host ports in use. */
  readonly usedPorts = new Map<string, number>();
  /** Pods with pod affinity or anti-affinity terms (InterPodAffinity reads only these). */
  readonly podsWithAffinity = new Set<PodInfo>();
  /** How many of its pods each controller (by uid) has here. */
  readonly podsPerController = new Map<string, number>();

  constructor(node: KubeObject) {
    this.node = node;
    this.name = '';
    this.labels = {};
    this.taints = [];
    this.allocatable = emptyResources();
    this.allowedPodNumber = 0;
    this.setNode(node);
  }

  setNode(node: KubeObject): void {
    this.node = node;
    this.name = node.metadata?.name ?? '';
    this.labels = node.metadata?.labels ?? {};
    this.taints = nodeTaints(node);
    const status = isPlainObject(node.status) ? node.status : {};
    const allocatable = amountsOf(status.allocatable);
    this.allocatable = resourcesOf(allocatable);
    const pods = allocatable.get('pods');
    this.allowedPodNumber = pods ? Number(pods.nano / 1_000_000_000n) : 0;
  }

  addPod(pod: PodInfo): void {
    if (this.pods.has(pod.key)) this.removePod(pod.key);
    this.pods.set(pod.key, pod);
    addInto(this.requested, pod.requests, 1);
    this.nonZeroRequested.milliCPU += pod.nonZero.milliCPU;
    this.nonZeroRequested.memory += pod.nonZero.memory;
    for (const p of pod.hostPorts) {
      const k = `${p.ip}/${p.protocol}/${p.port}`;
      this.usedPorts.set(k, (this.usedPorts.get(k) ?? 0) + 1);
    }
    if (hasPodAffinity(pod)) this.podsWithAffinity.add(pod);
    if (pod.controllerUid !== undefined) this.podsPerController.set(pod.controllerUid, (this.podsPerController.get(pod.controllerUid) ?? 0) + 1);
  }

  removePod(key: string): PodInfo | undefined {
    const pod = this.pods.get(key);
    if (!pod) return undefined;
    this.pods.delete(key);
    addInto(this.requested, pod.requests, -1);
    this.nonZeroRequested.milliCPU -= pod.nonZero.milliCPU;
    this.nonZeroRequested.memory -= pod.nonZero.memory;
    for (const p of pod.hostPorts) {
      const k = `${p.ip}/${p.protocol}/${p.port}`;
      const n = (this.usedPorts.get(k) ?? 1) - 1;
      if (n <= 0) this.usedPorts.delete(k);
      else this.usedPorts.set(k, n);
    }
    this.podsWithAffinity.delete(pod);
    if (pod.controllerUid !== undefined) {
      const n = (this.podsPerController.get(pod.controllerUid) ?? 1) - 1;
      if (n <= 0) this.podsPerController.delete(pod.controllerUid);
      else this.podsPerController.set(pod.controllerUid, n);
    }
    return pod;
  }

  /** A copy whose pods can be removed and added back (preemption's what-if). */
  clone(): NodeInfo {
    const c = new NodeInfo(this.node);
    for (const p of this.pods.values()) c.addPod(p);
    return c;
  }
}

export function hasPodAffinity(pod: PodInfo): boolean {
  const affinity = isPlainObject(pod.spec.affinity) ? pod.spec.affinity : undefined;
  return !!affinity && (isPlainObject(affinity.podAffinity) || isPlainObject(affinity.podAntiAffinity));
}
