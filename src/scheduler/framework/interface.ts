// The scheduling framework's contract (kube-scheduler's shape): plugins at the extension
// points a pod's scheduling cycle passes through, each answering with a Status.
import type { KubeObject } from '../../apimachinery/types.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';

/**
 * `Unschedulable`: the node does not fit now, but preempting pods may help.
 * `UnschedulableAndUnresolvable`: preemption cannot help on this node.
 */
export type Code = 'Success' | 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Error' | 'Skip';

export interface Status {
  code: Code;
  /** The reasons shown in the pod's `PodScheduled` message (kube's wording). */
  reasons: string[];
  /** The plugin that answered (for a failed cycle's diagnosis). */
  plugin?: string;
}

export const SUCCESS: Status = Object.freeze({ code: 'Success', reasons: [] }) as Status;

export function unschedulable(plugin: string, ...reasons: string[]): Status {
  return { code: 'Unschedulable', reasons, plugin };
}

export function unresolvable(plugin: string, ...reasons: string[]): Status {
  return { code: 'UnschedulableAndUnresolvable', reasons, plugin };
}

/** Per-cycle scratch space shared by a plugin's PreFilter, Filter and Score. */
export class CycleState {
  private readonly data = new Map<string, unknown>();

  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  /** A copy for preemption's what-if evaluation (values are treated as immutable by plugins). */
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v);
    return c;
  }
}

/** What the plugins may read of the cluster beyond one node: every node's info. */
export interface ClusterSnapshot {
  nodes(): readonly NodeInfo[];
  node(name: string): NodeInfo | undefined;
}

export interface Plugin {
  readonly name: string;
}

export interface PreFilterPlugin extends Plugin {
  /** Computes what Filter needs once per cycle; a failure here fails every node. */
  preFilter(state: CycleState, pod: PodInfo, snapshot: ClusterSnapshot): Status;
  /** Keeps the precomputed state true when preemption removes (or adds back) a pod on a node. */
  removePod?(state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo): void;
  addPod?(state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo): void;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status;
}

export interface ScorePlugin extends Plugin {
  /** Called once before the scores of a cycle. */
  preScore?(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], snapshot: ClusterSnapshot): void;
  score(state: CycleState, pod: PodInfo, node: NodeInfo): number;
  /** Maps raw scores to 0..100 in place. */
  normalize?(scores: number[]): void;
}

export interface PostFilterResult {
  /** The node the pod is nominated to after victims were removed. */
  nominatedNodeName?: string;
  status: Status;
}

/** Runs when no node fits (preemption). */
export interface PostFilterPlugin extends Plugin {
  postFilter(state: CycleState, pod: PodInfo, filtered: ReadonlyMap<string, Status>): Promise<PostFilterResult>;
}

export const MAX_NODE_SCORE = 100;

export type { KubeObject };
