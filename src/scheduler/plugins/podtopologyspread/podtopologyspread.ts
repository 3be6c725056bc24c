// PodTopologySpread: pods matching a constraint's selector spread over the values of its
// topology key within `maxSkew`. `DoNotSchedule` constraints filter; `ScheduleAnyway` ones
// (and, for a pod with none, kube's system defaults: zone 5, hostname 3) score. The system
// defaults count the pods of the same controller, where kube counts those selected by the
// pod's Services and controllers: the two agree for the pods of one workload.
import { labelSelectorAsSelector, type LabelSelector, type LabelSelectorObject } from '../../../apimachinery/labels.js';
import { isPlainObject } from '../../../apimachinery/types.js';
import { nodeLabelKey } from '../../../apis/core/helpers/node.js';
import { podMatchesNodeSelectorAndAffinity } from '../../../apis/core/helpers/node-affinity.js';
import {
  MAX_NODE_SCORE,
  SUCCESS,
  unresolvable,
  unschedulable,
  type ClusterSnapshot,
  type CycleState,
  type FilterPlugin,
  type PreFilterPlugin,
  type ScorePlugin,
  type Status,
} from '../../framework/interface.js';
import type { NodeInfo } from '../../framework/node-info.js';
import type { PodInfo } from '../../framework/pod-info.js';

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + ' (missing required label)';

interface Constraint {
  maxSkew: number;
  topologyKey: string;
  hard: boolean;
  minDomains: number;
  matches(pod: PodInfo): boolean;
  /** Set for the system defaults: the node counts its pods per controller, so no pod is walked. */
  controllerUid?: string;
}

interface State {
  hard: Constraint[];
  soft: Constraint[];
  /** Per constraint: matching pods per topology value, over eligible nodes. */
  counts: Map<Constraint, Map<string, number>>;
}

const KEY = 'PodTopologySpread';

function constraintsOf(pod: PodInfo): Constraint[] {
  const list = Array.isArray(pod.spec.topologySpreadConstraints) ? pod.spec.topologySpreadConstraints.filter(isPlainObject) : [];
  const out: Constraint[] = [];
  for (const c of list) {
    if (typeof c.topologyKey !== 'string' || typeof c.maxSkew !== 'number') continue;
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector(isPlainObject(c.labelSelector) ? (c.labelSelector as LabelSelectorObject) : undefined);
    } catch {
      continue;
    }
    // matchLabelKeys adds the pod's own values of those keys to the selector.
    const keys = Array.isArray(c.matchLabelKeys) ? c.matchLabelKeys.filter((k): k is string => typeof k === 'string') : [];
    const own = keys.filter((k) => Object.hasOwn(pod.labels, k)).map((k) => [k, pod.labels[k]] as const);
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      hard: c.whenUnsatisfiable !== 'ScheduleAnyway',
      minDomains: typeof c.minDomains === 'number' ? c.minDomains : 1,
      matches: (p) => p.namespace === pod.namespace && selector.matches(p.labels) && own.every(([k, v]) => p.labels[k] === v),
    });
  }
  if (list.length > 0 || pod.controllerUid === undefined) return out;
  const sameController = (p: PodInfo): boolean => p.namespace === pod.namespace && p.controllerUid === pod.controllerUid;
  return [
    { maxSkew: 3, topologyKey: nodeLabelKey('hostname'), hard: false, minDomains: 1, matches: sameController, controllerUid: pod.controllerUid },
    { maxSkew: 5, topologyKey: nodeLabelKey('zone'), hard: false, minDomains: 1, matches: sameController, controllerUid: pod.controllerUid },
  ];
}

function countPods(c: Constraint, node: NodeInfo): number {
  if (c.controllerUid !== undefined) return node.podsPerController.get(c.controllerUid) ?? 0;
  let n = 0;
  for (const p of node.pods.values()) if (!p.pod.metadata?.deletionTimestamp && c.matches(p)) n++;
  return n;
}

export const podTopologySpread: PreFilterPlugin & FilterPlugin & ScorePlugin = {
  name: KEY,
  preFilter(state: CycleState, pod: PodInfo, snapshot: ClusterSnapshot): Status {
    const all = constraintsOf(pod);
    const s: State = { hard: all.filter((c) => c.hard), soft: all.filter((c) => !c.hard), counts: new Map() };
    if (all.length > 0) {
      for (const c of all) s.counts.set(c, new Map());
      for (const node of snapshot.nodes()) {
        // Domains count only over nodes the pod could go to by its node selector and affinity.
        if (!podMatchesNodeSelectorAndAffinity(pod.pod, node.node)) continue;
        for (const c of all) {
          const value = node.labels[c.topologyKey];
          if (value === undefined) continue;
          const m = s.counts.get(c)!;
          m.set(value, (m.get(value) ?? 0) + countPods(c, node));
        }
      }
    }
    state.write(KEY, s);
    return SUCCESS;
  },
  removePod(state, pod, removed, node) {
    adjust(state, removed, node, -1);
  },
  addPod(state, pod, added, node) {
    adjust(state, added, node, 1);
  },
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const s = state.read<State>(KEY);
    if (!s || s.hard.length === 0) return SUCCESS;
    for (const c of s.hard) {
      const value = node.labels[c.topologyKey];
      if (value === undefined) return unresolvable(KEY, ERR_REASON_NODE_LABEL_NOT_MATCH);
      const counts = s.counts.get(c)!;
      let min = counts.size < c.minDomains ? 0 : Infinity;
      for (const n of counts.values()) min = Math.min(min, n);
      if (!Number.isFinite(min)) min = 0;
      const self = c.matches(pod) ? 1 : 0;
      if ((counts.get(value) ?? 0) + self - min > c.maxSkew) return unschedulable(KEY, ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }
    return SUCCESS;
  },
  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number {
    const s = state.read<State>(KEY);
    if (!s || s.soft.length === 0) return 0;
    let score = 0;
    for (const c of s.soft) {
      const value = node.labels[c.topologyKey];
      if (value === undefined) continue;
      // Larger topologies weigh more, as kube's log-scaled weights do.
      score += ((s.counts.get(c)!.get(value) ?? 0) + c.maxSkew - 1) * Math.log(s.counts.get(c)!.size + 2);
    }
    return Math.round(score);
  },
  normalize(scores: number[]): void {
    if (scores.length === 0) return;
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    for (let i = 0; i < scores.length; i++) scores[i] = max === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (max + min - scores[i])) / max);
  },
};

function adjust(state: CycleState, p: PodInfo, node: NodeInfo, delta: number): void {
  const s = state.read<State>(KEY);
  if (!s) return;
  for (const [c, counts] of s.counts) {
    const value = node.labels[c.topologyKey];
    if (value !== undefined && c.matches(p)) counts.set(value, (counts.get(value) ?? 0) + delta);
  }
}
