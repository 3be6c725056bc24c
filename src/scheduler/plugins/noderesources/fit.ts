// NodeResourcesFit: the pod's requests must fit in what the node's pods leave of its
// allocatable resources (and its pod count); LeastAllocated scores emptier nodes higher.
import { MAX_NODE_SCORE, SUCCESS, unschedulable, type FilterPlugin, type ScorePlugin, type Status } from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

/** The reasons a node does not fit, in kube's order and wording. */
export function insufficientResources(pod: PodInfo, node: NodeInfo): string[] {
  const reasons: string[] = [];
  if (node.pods.size + 1 > node.allowedPodNumber) reasons.push('Too many pods');
  const want = pod.requests;
  const have = node.allocatable;
  const used = node.requested;
  if (want.milliCPU > 0 && want.milliCPU > have.milliCPU - used.milliCPU) reasons.push('Insufficient cpu');
  if (want.memory > 0 && want.memory > have.memory - used.memory) reasons.push('Insufficient memory');
  if (want.ephemeralStorage > 0 && want.ephemeralStorage > have.ephemeralStorage - used.ephemeralStorage) reasons.push('Insufficient ephemeral-storage');
  for (const [name, amount] of want.scalar) {
    if (amount > 0 && amount > (have.scalar.get(name) ?? 0) - (used.scalar.get(name) ?? 0)) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

function leastAllocated(requested: number, allocatable: number): number {
  if (allocatable <= 0 || requested > allocatable) return 0;
  return Math.floor(((allocatable - requested) * MAX_NODE_SCORE) / allocatable);
}

export const nodeResourcesFit: FilterPlugin & ScorePlugin = {
  name: 'NodeResourcesFit',
  filter(_state, pod: PodInfo, node: NodeInfo): Status {
    const reasons = insufficientResources(pod, node);
    return reasons.length === 0 ? SUCCESS : unschedulable('NodeResourcesFit', ...reasons);
  },
  /** LeastAllocated over cpu and memory, weight 1 each, with kube's non-zero request defaults. */
  score(_state, pod: PodInfo, node: NodeInfo): number {
    const cpu = leastAllocated(node.nonZeroRequested.milliCPU + pod.nonZero.milliCPU, node.allocatable.milliCPU);
    const memory = leastAllocated(node.nonZeroRequested.memory + pod.nonZero.memory, node.allocatable.memory);
    return Math.floor((cpu + memory) / 2);
  },
};

/** NodeResourcesBalancedAllocation: nodes whose cpu and memory use stay alike score higher. */
export const nodeResourcesBalancedAllocation: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  score(_state, pod: PodInfo, node: NodeInfo): number {
    const fraction = (requested: number, allocatable: number): number => (allocatable <= 0 ? 0 : Math.min(1, requested / allocatable));
    const cpu = fraction(node.nonZeroRequested.milliCPU + pod.nonZero.milliCPU, node.allocatable.milliCPU);
    const memory = fraction(node.nonZeroRequested.memory + pod.nonZero.memory, node.allocatable.memory);
    const std = Math.abs(cpu - memory) / 2;
    return Math.floor((1 - std) * MAX_NODE_SCORE);
  },
};
