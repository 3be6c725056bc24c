// Which pods a ReplicaSet removes first when it scales down, in kube-controller-manager's
// order (with its default LogarithmicScaleDown and PodDeletionCost): pods that cost least to
// lose go first. Pure: the caller passes the time and the co-location ranks.
import type { KubeObject } from '../../apimachinery/types.js';
import { isPodReady, podCondition, podNodeName, podPhase } from '../../apis/core/helpers/pod.js';
import { longDomainKey } from '../../naming/index.js';

/** `controller.kubernetes.io/pod-deletion-cost`: lower goes first. */
export function podDeletionCostAnnotation(): string {
  return longDomainKey('pod-deletion-cost', 'controller');
}

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(pod: KubeObject): number {
  const text = pod.metadata?.annotations?.[podDeletionCostAnnotation()];
  if (text === undefined || !/^-?\d+$/.test(text)) return 0;
  const n = Number(text);
  return n >= -2147483648 && n <= 2147483647 ? n : 0;
}

function maxRestarts(pod: KubeObject): number {
  const statuses = (pod.status as { containerStatuses?: { restartCount?: number }[] } | undefined)?.containerStatuses;
  return Array.isArray(statuses) ? Math.max(0, ...statuses.map((s) => (typeof s?.restartCount === 'number' ? s.restartCount : 0))) : 0;
}

function readySince(pod: KubeObject): number | undefined {
  const t = podCondition(pod, 'Ready')?.lastTransitionTime;
  const ms = t ? Date.parse(t) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

function createdAt(pod: KubeObject): number | undefined {
  const t = pod.metadata?.creationTimestamp;
  const ms = t ? Date.parse(t) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** log2 of the age in nanoseconds, as whole buckets: -1 for no age; ages in one bucket tie. */
function ageBucket(at: number | undefined, nowMs: number): number {
  if (at === undefined) return -1;
  const ns = (nowMs - at) * 1e6;
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
}

/** Negative when `a` should be deleted before `b`. */
function compareTimes(a: KubeObject, b: KubeObject, ta: number | undefined, tb: number | undefined, nowMs: number): number {
  if (ta === tb) return 0;
  // No time goes first, then the youngest (smallest age bucket); a tie goes by uid.
  const diff = ageBucket(ta, nowMs) - ageBucket(tb, nowMs);
  if (diff !== 0) return diff;
  const ua = a.metadata?.uid ?? '';
  const ub = b.metadata?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * Sorts `pods` (a copy) in deletion order. `ranks[i]` is how many related pods share pod i's
 * node (more goes first: spreading survives).
 */
export function rankPodsForDeletion(pods: readonly KubeObject[], ranks: readonly number[], nowMs: number): KubeObject[] {
  const items = pods.map((pod, i) => ({ pod, rank: ranks[i] ?? 0 }));
  items.sort((x, y) => {
    const a = x.pod;
    const b = y.pod;
    // 1. Unscheduled before scheduled.
    const sa = podNodeName(a) !== '';
    const sb = podNodeName(b) !== '';
    if (sa !== sb) return sa ? 1 : -1;
    // 2. Pending < Unknown < Running.
    const pa = PHASE_ORDER[podPhase(a)] ?? 0;
    const pb = PHASE_ORDER[podPhase(b)] ?? 0;
    if (pa !== pb) return pa - pb;
    // 3. Not ready before ready.
    const ra = isPodReady(a);
    const rb = isPodReady(b);
    if (ra !== rb) return ra ? 1 : -1;
    // 4. Lower deletion cost first.
    const ca = deletionCost(a);
    const cb = deletionCost(b);
    if (ca !== cb) return ca - cb;
    // 5. Doubled up on a node before alone.
    if (x.rank !== y.rank) return y.rank - x.rank;
    // 6. Ready for less time first.
    if (ra && rb) {
      const c = compareTimes(a, b, readySince(a), readySince(b), nowMs);
      if (c !== 0) return c;
    }
    // 7. More restarts first.
    const rsa = maxRestarts(a);
    const rsb = maxRestarts(b);
    if (rsa !== rsb) return rsb - rsa;
    // 8. Newer first.
    return compareTimes(a, b, createdAt(a), createdAt(b), nowMs);
  });
  return items.map((i) => i.pod);
}

/** For each pod, how many of `related` (active pods of the same owner family) run on its node. */
export function colocationRanks(pods: readonly KubeObject[], related: readonly KubeObject[]): number[] {
  const perNode = new Map<string, number>();
  for (const p of related) {
    const node = podNodeName(p);
    if (node) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  return pods.map((p) => {
    const node = podNodeName(p);
    return node ? (perNode.get(node) ?? 0) : 0;
  });
}
