// Pod status semantics shared by the node agent, the scheduler and the workload controllers:
// conditions, phases, readiness and availability as kube-controller-manager reads them.
import type { KubeObject } from '../../../apimachinery/types.js';
import { isPlainObject } from '../../../apimachinery/types.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface PodCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

function statusOf(pod: KubeObject): Record<string, unknown> {
  return isPlainObject(pod.status) ? pod.status : {};
}

function specOf(pod: KubeObject): Record<string, unknown> {
  return isPlainObject(pod.spec) ? pod.spec : {};
}

export function podConditions(pod: KubeObject): PodCondition[] {
  const list = statusOf(pod).conditions;
  return Array.isArray(list) ? (list.filter((c) => isPlainObject(c) && typeof c.type === 'string') as unknown as PodCondition[]) : [];
}

export function podCondition(pod: KubeObject, type: string): PodCondition | undefined {
  // Read on every pod of a workload per sync: found in place, without the filtered copy.
  const list = statusOf(pod).conditions;
  if (!Array.isArray(list)) return undefined;
  for (const c of list) if (isPlainObject(c) && c.type === type) return c as unknown as PodCondition;
  return undefined;
}

/** `status.phase`, `Pending` when unset (as a pod just created reads). */
export function podPhase(pod: KubeObject): PodPhase {
  const phase = statusOf(pod).phase;
  return typeof phase === 'string' ? (phase as PodPhase) : 'Pending';
}

/** Succeeded or Failed: the pod's containers will not run again. */
export function isPodTerminal(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/** What the workload controllers count as a replica: not terminal and not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  return !isPodTerminal(pod) && !pod.metadata?.deletionTimestamp;
}

export function podNodeName(pod: KubeObject): string {
  const n = specOf(pod).nodeName;
  return typeof n === 'string' ? n : '';
}

export function podSchedulerName(pod: KubeObject): string {
  const n = specOf(pod).schedulerName;
  return typeof n === 'string' && n !== '' ? n : 'default-scheduler';
}

/** The `Ready` condition is `True`. */
export function isPodReady(pod: KubeObject): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/**
 * Ready for at least `minReadySeconds` at `nowMs` (kube's availability rule): a pod ready
 * without a transition time counts as available only when no wait is asked.
 */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, nowMs: number): boolean {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= nowMs;
}

/** When a ready pod becomes available (ms), for a controller's wake-up; undefined when not ready. */
export function podAvailableAt(pod: KubeObject, minReadySeconds: number): number | undefined {
  const ready = podCondition(pod, 'Ready');
  if (ready?.status !== 'True') return undefined;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isFinite(since) ? since + Math.max(0, minReadySeconds) * 1000 : undefined;
}

/**
 * The conditions with `cond` set: an existing condition of the same type keeps its
 * `lastTransitionTime` unless its status changes (kube's rule); `now` is RFC 3339.
 */
export function withPodCondition(conditions: readonly PodCondition[], cond: PodCondition, now: string): PodCondition[] {
  const out: PodCondition[] = [];
  let found = false;
  for (const c of conditions) {
    if (c.type !== cond.type) {
      out.push(c);
      continue;
    }
    found = true;
    const transition = c.status === cond.status && c.lastTransitionTime ? c.lastTransitionTime : (cond.lastTransitionTime ?? now);
    out.push({ ...cond, lastTransitionTime: transition });
  }
  if (!found) out.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? now });
  return out;
}
