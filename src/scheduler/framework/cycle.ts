// One scheduling cycle, pure over a snapshot: PreFilter, Filter over a sample of the nodes
// (kube's adaptive percentage, round-robin from where the last cycle stopped, the nominated
// node first), Score with the profile's weights, and the best node (ties broken at random).
import { CycleState, MAX_NODE_SCORE, SUCCESS, type ClusterSnapshot, type Status } from './interface.js';
import type { Diagnosis } from './fit-error.js';
import type { NodeInfo } from './node-info.js';
import type { PodInfo } from './pod-info.js';
import type { Profile } from './profile.js';

/** kube's adaptive `percentageOfNodesToScore`: all below 100 nodes, else 50% less 1% per 125 nodes, at least 5% and 100 nodes. */
export function numFeasibleNodesToFind(numAllNodes: number): number {
  if (numAllNodes < 100) return numAllNodes;
  const percentage = Math.max(5, 50 - numAllNodes / 125);
  return Math.max(100, Math.floor((numAllNodes * percentage) / 100));
}

export type CycleResult = { node: NodeInfo; evaluated: number; feasible: number; state: CycleState } | { diagnosis: Diagnosis; state: CycleState };

export interface CycleOptions {
  /** Where the previous cycle's search stopped (kube's nextStartNodeIndex); updated. */
  cursor: { next: number };
  /** A uniform number in [0, 1) for tie-breaking (seedable in tests). */
  random: () => number;
}

export function runFilters(profile: Profile, state: CycleState, pod: PodInfo, node: NodeInfo): Status {
  for (const f of profile.filters) {
    const s = f.filter(state, pod, node);
    if (s.code !== 'Success') return s;
  }
  return SUCCESS;
}

export function scheduleCycle(profile: Profile, pod: PodInfo, snapshot: ClusterSnapshot, opts: CycleOptions): CycleResult {
  const state = new CycleState();
  const nodes = snapshot.nodes();
  for (const p of profile.preFilters) {
    const s = p.preFilter(state, pod, snapshot);
    if (s.code !== 'Success') {
      const filtered = new Map(nodes.map((n) => [n.name, s] as const));
      return { diagnosis: { numAllNodes: nodes.length, filtered, preFilterMsg: s.reasons.join(', ') }, state };
    }
  }
  const filtered = new Map<string, Status>();
  const feasible: NodeInfo[] = [];
  // The node a preemption nominated is tried first: if it fits, no other is looked at.
  const nominated = typeof (pod.pod.status as { nominatedNodeName?: unknown } | undefined)?.nominatedNodeName === 'string'
    ? snapshot.node((pod.pod.status as { nominatedNodeName: string }).nominatedNodeName)
    : undefined;
  if (nominated && runFilters(profile, state, pod, nominated).code === 'Success') {
    return { node: nominated, evaluated: 1, feasible: 1, state };
  }
  const want = numFeasibleNodesToFind(nodes.length);
  let evaluated = 0;
  const start = nodes.length === 0 ? 0 : opts.cursor.next % nodes.length;
  for (let i = 0; i < nodes.length && feasible.length < want; i++) {
    const node = nodes[(start + i) % nodes.length];
    evaluated++;
    const s = runFilters(profile, state, pod, node);
    if (s.code === 'Success') feasible.push(node);
    else filtered.set(node.name, s);
  }
  opts.cursor.next = nodes.length === 0 ? 0 : (start + evaluated) % nodes.length;
  if (feasible.length === 0) return { diagnosis: { numAllNodes: nodes.length, filtered }, state };
  if (feasible.length === 1) return { node: feasible[0], evaluated, feasible: 1, state };
  const totals = prioritize(profile, state, pod, feasible, snapshot);
  return { node: selectHost(feasible, totals, opts.random), evaluated, feasible: feasible.length, state };
}

/** The weighted sum of every score plugin's normalized score, per feasible node. */
export function prioritize(profile: Profile, state: CycleState, pod: PodInfo, nodes: NodeInfo[], snapshot: ClusterSnapshot): number[] {
  const totals = new Array<number>(nodes.length).fill(0);
  const scores = new Array<number>(nodes.length);
  for (const { plugin, weight } of profile.scores) {
    plugin.preScore?.(state, pod, nodes, snapshot);
    for (let i = 0; i < nodes.length; i++) scores[i] = plugin.score(state, pod, nodes[i]);
    plugin.normalize?.(scores);
    for (let i = 0; i < nodes.length; i++) totals[i] += Math.min(MAX_NODE_SCORE, Math.max(0, scores[i])) * weight;
  }
  return totals;
}

/** The highest total; among equals, each is picked with the same chance (reservoir sampling). */
export function selectHost(nodes: NodeInfo[], totals: number[], random: () => number): NodeInfo {
  let best = 0;
  let ties = 1;
  for (let i = 1; i < nodes.length; i++) {
    if (totals[i] > totals[best]) {
      best = i;
      ties = 1;
    } else if (totals[i] === totals[best]) {
      ties++;
      if (random() * ties < 1) best = i;
    }
  }
  return nodes[best];
}
