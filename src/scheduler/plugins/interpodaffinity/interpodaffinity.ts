// InterPodAffinity: required pod affinity and anti-affinity (the incoming pod's, and existing
// pods' anti-affinity against it) filter; preferred terms score. A term applies to the pods of
// its `namespaces` (the pod's own by default; an empty `namespaceSelector` means all; a
// non-empty one, which needs namespace labels, is read as the pod's own namespace).
import { labelSelectorAsSelector, type LabelSelector, type LabelSelectorObject } from '../../../apimachinery/labels.js';
import { isPlainObject } from '../../../apimachinery/types.js';
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

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

const KEY = 'InterPodAffinity';

interface Term {
  topologyKey: string;
  matches(p: PodInfo): boolean;
  weight: number;
}

function termsOf(owner: PodInfo, kind: 'podAffinity' | 'podAntiAffinity', which: 'required' | 'preferred'): Term[] {
  const affinity = isPlainObject(owner.spec.affinity) ? owner.spec.affinity : {};
  const section = isPlainObject(affinity[kind]) ? affinity[kind] : {};
  const list = section[which === 'required' ? 'requiredDuringSchedulingIgnoredDuringExecution' : 'preferredDuringSchedulingIgnoredDuringExecution'];
  if (!Array.isArray(list)) return [];
  const out: Term[] = [];
  for (const entry of list.filter(isPlainObject)) {
    const term = which === 'preferred' ? (isPlainObject(entry.podAffinityTerm) ? entry.podAffinityTerm : undefined) : entry;
    if (!term || typeof term.topologyKey !== 'string') continue;
    let selector: LabelSelector;
    try {
      selector = labelSelectorAsSelector(isPlainObject(term.labelSelector) ? (term.labelSelector as LabelSelectorObject) : undefined);
    } catch {
      continue;
    }
    const listed = Array.isArray(term.namespaces) ? term.namespaces.filter((n): n is string => typeof n === 'string') : [];
    const nsSelector = isPlainObject(term.namespaceSelector) ? term.namespaceSelector : undefined;
    const allNamespaces = nsSelector !== undefined && Object.keys(nsSelector).every((k) => {
      const v = nsSelector[k];
      return Array.isArray(v) ? v.length === 0 : isPlainObject(v) ? Object.keys(v).length === 0 : v === undefined;
    });
    const namespaces = new Set(listed.length > 0 ? listed : [owner.namespace]);
    out.push({
      topologyKey: term.topologyKey,
      weight: which === 'preferred' && typeof entry.weight === 'number' ? entry.weight : 1,
      matches: (p) => (allNamespaces || namespaces.has(p.namespace)) && selector.matches(p.labels),
    });
  }
  return out;
}

interface State {
  /** `key=value` pairs where an existing pod's required anti-affinity forbids the pod. */
  existingAnti: Set<string>;
  affinity: Term[];
  anti: Term[];
  /** Per term of the pod's required affinity / anti-affinity: matching pods per `key=value`. */
  affinityCounts: Map<string, number>[];
  antiCounts: Map<string, number>[];
  /** No pod anywhere matches the affinity terms, and the pod matches its own: the first of its group may go anywhere. */
  affinityBootstrap: boolean;
}

function pair(key: string, node: NodeInfo): string | undefined {
  const v = node.labels[key];
  return v === undefined ? undefined : `${key}=${v}`;
}

export const interPodAffinity: PreFilterPlugin & FilterPlugin & ScorePlugin = {
  name: KEY,
  preFilter(state: CycleState, pod: PodInfo, snapshot: ClusterSnapshot): Status {
    const s: State = {
      existingAnti: new Set(),
      affinity: termsOf(pod, 'podAffinity', 'required'),
      anti: termsOf(pod, 'podAntiAffinity', 'required'),
      affinityCounts: [],
      antiCounts: [],
      affinityBootstrap: false,
    };
    s.affinityCounts = s.affinity.map(() => new Map());
    s.antiCounts = s.anti.map(() => new Map());
    let anyAffinityMatch = false;
    for (const node of snapshot.nodes()) {
      for (const existing of node.podsWithAffinity) {
        for (const t of termsOf(existing, 'podAntiAffinity', 'required')) {
          const p = pair(t.topologyKey, node);
          if (p !== undefined && t.matches(pod)) s.existingAnti.add(p);
        }
      }
      if (s.affinity.length === 0 && s.anti.length === 0) continue;
      for (const existing of node.pods.values()) {
        if (s.affinity.length > 0 && s.affinity.every((t) => t.matches(existing))) {
          anyAffinityMatch = true;
          s.affinity.forEach((t, i) => bump(s.affinityCounts[i], pair(t.topologyKey, node), 1));
        }
        s.anti.forEach((t, i) => {
          if (t.matches(existing)) bump(s.antiCounts[i], pair(t.topologyKey, node), 1);
        });
      }
    }
    s.affinityBootstrap = s.affinity.length > 0 && !anyAffinityMatch && s.affinity.every((t) => t.matches(pod));
    state.write(KEY, s);
    return SUCCESS;
  },
  removePod(state, pod, removed, node) {
    adjust(state, removed, node, -1);
  },
  addPod(state, pod, added, node) {
    adjust(state, added, node, 1);
  },
  /** kube's order: the pod's affinity, its anti-affinity, then existing pods' anti-affinity. */
  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    const s = state.read<State>(KEY);
    if (!s) return SUCCESS;
    if (s.affinity.length > 0 && !s.affinityBootstrap) {
      const ok = s.affinity.every((t, i) => {
        const p = pair(t.topologyKey, node);
        return p !== undefined && (s.affinityCounts[i].get(p) ?? 0) > 0;
      });
      if (!ok) return unresolvable(KEY, ERR_REASON_AFFINITY);
    }
    for (let i = 0; i < s.anti.length; i++) {
      const p = pair(s.anti[i].topologyKey, node);
      if (p !== undefined && (s.antiCounts[i].get(p) ?? 0) > 0) return unschedulable(KEY, ERR_REASON_ANTI_AFFINITY);
    }
    if (s.existingAnti.size > 0) {
      for (const p of s.existingAnti) {
        const [key] = p.split('=', 1);
        if (pair(key, node) === p) return unschedulable(KEY, ERR_REASON_EXISTING_ANTI_AFFINITY);
      }
    }
    return SUCCESS;
  },
  preScore(state: CycleState, pod: PodInfo, _nodes, snapshot: ClusterSnapshot): void {
    // Preferred terms of the pod, weighed over the pods in each topology domain.
    const preferred = [
      ...termsOf(pod, 'podAffinity', 'preferred').map((t) => ({ t, sign: 1 })),
      ...termsOf(pod, 'podAntiAffinity', 'preferred').map((t) => ({ t, sign: -1 })),
    ];
    const scores = new Map<string, number>();
    if (preferred.length > 0) {
      for (const node of snapshot.nodes()) {
        for (const existing of node.pods.values()) {
          for (const { t, sign } of preferred) if (t.matches(existing)) bump(scores, pair(t.topologyKey, node), sign * t.weight);
        }
      }
    }
    // Existing pods' preferred terms that the pod matches count for their domains too.
    for (const node of snapshot.nodes()) {
      for (const existing of node.podsWithAffinity) {
        for (const t of termsOf(existing, 'podAffinity', 'preferred')) if (t.matches(pod)) bump(scores, pair(t.topologyKey, node), t.weight);
        for (const t of termsOf(existing, 'podAntiAffinity', 'preferred')) if (t.matches(pod)) bump(scores, pair(t.topologyKey, node), -t.weight);
      }
    }
    state.write(`${KEY}/score`, scores);
  },
  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number {
    const scores = state.read<Map<string, number>>(`${KEY}/score`);
    if (!scores || scores.size === 0) return 0;
    let total = 0;
    for (const [p, v] of scores) {
      const [key] = p.split('=', 1);
      if (pair(key, node) === p) total += v;
    }
    return total;
  },
  normalize(scores: number[]): void {
    if (scores.length === 0) return;
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    for (let i = 0; i < scores.length; i++) scores[i] = max === min ? 0 : Math.floor((MAX_NODE_SCORE * (scores[i] - min)) / (max - min));
  },
};

function bump(m: Map<string, number>, key: string | undefined, by: number): void {
  if (key !== undefined) m.set(key, (m.get(key) ?? 0) + by);
}

function adjust(state: CycleState, p: PodInfo, node: NodeInfo, delta: number): void {
  const s = state.read<State>(KEY);
  if (!s) return;
  if (s.affinity.length > 0 && s.affinity.every((t) => t.matches(p))) s.affinity.forEach((t, i) => bump(s.affinityCounts[i], pair(t.topologyKey, node), delta));
  s.anti.forEach((t, i) => {
    if (t.matches(p)) bump(s.antiCounts[i], pair(t.topologyKey, node), delta);
  });
}
