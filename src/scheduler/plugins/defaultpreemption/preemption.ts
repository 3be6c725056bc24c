// DefaultPreemption: when no node fits, find nodes where removing lower-priority pods makes the
// pod fit, keep as many of them as still allows it (higher priorities reprieved first), and pick
// the node whose victims cost least (lowest highest priority, then lowest sum, then fewest).
// Pure: the scheduler deletes the victims and nominates the node.
import { isPlainObject } from '../../../apimachinery/types.js';
import { runFilters } from '../../framework/cycle.js';
import { reasonHistogram } from '../../framework/fit-error.js';
import type { ClusterSnapshot, CycleState, Status } from '../../framework/interface.js';
import type { PodInfo } from '../../framework/pod-info.js';
import type { Profile } from '../../framework/profile.js';

export const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_VICTIMS = 'No preemption victims found for incoming pod';

export interface Candidate {
  nodeName: string;
  victims: PodInfo[];
}

export type PreemptionResult = { candidate: Candidate } | { message: string };

/** kube's eligibility rule; the message (ending in '.') when the pod may not preempt. */
export function eligibleToPreempt(pod: PodInfo, snapshot: ClusterSnapshot): string | undefined {
  if (pod.spec.preemptionPolicy === 'Never') return 'not eligible due to preemptionPolicy=Never.';
  const status = isPlainObject(pod.pod.status) ? pod.pod.status : {};
  const nominated = typeof status.nominatedNodeName === 'string' ? snapshot.node(status.nominatedNodeName) : undefined;
  if (nominated) {
    for (const p of nominated.pods.values()) {
      if (p.pod.metadata?.deletionTimestamp && p.priority < pod.priority) return 'not eligible due to a terminating pod on the nominated node.';
    }
  }
  return undefined;
}

export function findPreemption(profile: Profile, state: CycleState, pod: PodInfo, snapshot: ClusterSnapshot, filtered: ReadonlyMap<string, Status>): PreemptionResult {
  const reasons = new Map<string, Status>();
  const candidates: Candidate[] = [];
  for (const node of snapshot.nodes()) {
    const why = filtered.get(node.name);
    if (why === undefined) continue;
    if (why.code === 'UnschedulableAndUnresolvable') {
      reasons.set(node.name, { code: 'UnschedulableAndUnresolvable', reasons: [NOT_HELPFUL] });
      continue;
    }
    const copy = node.clone();
    const s = state.clone();
    const lower = [...copy.pods.values()].filter((p) => p.priority < pod.priority).sort((a, b) => b.priority - a.priority);
    for (const v of lower) {
      copy.removePod(v.key);
      for (const pf of profile.preFilters) pf.removePod?.(s, pod, v, copy);
    }
    if (lower.length === 0 || runFilters(profile, s, pod, copy).code !== 'Success') {
      reasons.set(node.name, { code: 'Unschedulable', reasons: [NO_VICTIMS] });
      continue;
    }
    const victims: PodInfo[] = [];
    for (const v of lower) {
      copy.addPod(v);
      for (const pf of profile.preFilters) pf.addPod?.(s, pod, v, copy);
      if (runFilters(profile, s, pod, copy).code !== 'Success') {
        copy.removePod(v.key);
        for (const pf of profile.preFilters) pf.removePod?.(s, pod, v, copy);
        victims.push(v);
      }
    }
    candidates.push({ nodeName: node.name, victims });
  }
  if (candidates.length === 0) {
    return { message: `0/${snapshot.nodes().length} nodes are available: ${reasonHistogram(reasons.values()).join(', ')}.` };
  }
  return { candidate: pickCandidate(candidates) };
}

function pickCandidate(candidates: Candidate[]): Candidate {
  const key = (c: Candidate): [number, number, number] => [
    c.victims.length === 0 ? -Infinity : Math.max(...c.victims.map((v) => v.priority)),
    c.victims.reduce((sum, v) => sum + v.priority, 0),
    c.victims.length,
  ];
  let best = candidates[0];
  let bestKey = key(best);
  for (const c of candidates.slice(1)) {
    const k = key(c);
    if (k[0] < bestKey[0] || (k[0] === bestKey[0] && (k[1] < bestKey[1] || (k[1] === bestKey[1] && k[2] < bestKey[2])))) {
      best = c;
      bestKey = k;
    }
  }
  return best;
}
