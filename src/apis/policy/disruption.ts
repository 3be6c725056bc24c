// What the eviction subresource and the disruption controller share about budgets: which
// pods a budget covers, pod health, and the DisruptionAllowed condition (Kubernetes'
// component-helpers poddisruptionbudget and pod condition rules).
import type { KubeObject } from '../../apimachinery/types.js';
import { labelSelectorAsSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { arr, at, obj, objs, str, type JsonObject } from '../util.js';

/** The condition a budget reports whether evictions may proceed with. */
export const DISRUPTION_ALLOWED = 'DisruptionAllowed';
export const SUFFICIENT_PODS = 'SufficientPods';
export const INSUFFICIENT_PODS = 'InsufficientPods';
export const SYNC_FAILED = 'SyncFailed';
/** The pod condition an eviction sets before deleting (gate PodDisruptionConditions). */
export const DISRUPTION_TARGET = 'DisruptionTarget';
/** The cause type of a refused eviction (policy/v1 DisruptionBudgetCause). */
export const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';

/**
 * Whether the budget's selector selects the labels. No selector selects nothing; an
 * empty one selects every pod of the namespace (policy/v1); one that does not parse
 * selects nothing.
 */
export function budgetSelects(pdb: KubeObject, labels: Record<string, string> | undefined): boolean {
  const selector = obj(at(pdb, 'spec.selector'));
  if (!selector) return false;
  try {
    return labelSelectorAsSelector(selector as LabelSelectorObject).matches(labels ?? {});
  } catch {
    return false;
  }
}

/** A pod is healthy for a budget when its Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return objs(at(pod, 'status.conditions')).some((c) => c.type === 'Ready' && c.status === 'True');
}

export function podPhase(pod: KubeObject): string {
  return str(at(pod, 'status.phase')) ?? '';
}

/**
 * Sets a metav1.Condition as apimachinery's SetStatusCondition does: a new transition time
 * only when the status changes, reason, message and observed generation always.
 */
export function setStatusCondition(status: JsonObject, condition: { type: string; status: string; reason: string; message: string; observedGeneration?: number | bigint }, now: Date): void {
  const list = arr(status.conditions).filter((c): c is JsonObject => obj(c) !== undefined);
  const i = list.findIndex((c) => c.type === condition.type);
  const old = i >= 0 ? list[i] : undefined;
  const next: JsonObject = { type: condition.type, status: condition.status };
  if (condition.observedGeneration) next.observedGeneration = condition.observedGeneration;
  next.lastTransitionTime = old && old.status === condition.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : rfc3339(now);
  next.reason = condition.reason;
  next.message = condition.message;
  if (i >= 0) list[i] = next;
  else list.push(next);
  status.conditions = list;
}

/** DisruptionAllowed from `status.disruptionsAllowed`: True/SufficientPods above zero, False/InsufficientPods otherwise. */
export function updateDisruptionAllowedCondition(status: JsonObject, now: Date): void {
  const allowed = typeof status.disruptionsAllowed === 'number' && status.disruptionsAllowed > 0;
  // An int64 written by a client may be a bigint (beyond 2^53): kept as it is.
  const g = status.observedGeneration;
  const observedGeneration = typeof g === 'number' || typeof g === 'bigint' ? g : 0;
  setStatusCondition(
    status,
    { type: DISRUPTION_ALLOWED, status: allowed ? 'True' : 'False', reason: allowed ? SUFFICIENT_PODS : INSUFFICIENT_PODS, message: '', observedGeneration },
    now,
  );
}

/** Whether the condition says what `status` says for the budget's generation. */
export function conditionsAreUpToDate(pdb: KubeObject): boolean {
  const status = obj(pdb.status) ?? {};
  const cond = objs(status.conditions).find((c) => c.type === DISRUPTION_ALLOWED);
  if (!cond) return false;
  if ((status.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false;
  const allowed = typeof status.disruptionsAllowed === 'number' && status.disruptionsAllowed > 0;
  return allowed ? cond.status === 'True' && cond.reason === SUFFICIENT_PODS : cond.status === 'False' && cond.reason === INSUFFICIENT_PODS;
}

/**
 * Sets a pod condition as the pod helpers do: returns false when nothing changed; the
 * transition time stays when the status does.
 */
export function updatePodCondition(pod: KubeObject, condition: { type: string; status: string; reason?: string; message?: string }, now: Date): boolean {
  const status = (obj(pod.status) ?? {}) as JsonObject;
  pod.status = status;
  const list = arr(status.conditions).filter((c): c is JsonObject => obj(c) !== undefined);
  const i = list.findIndex((c) => c.type === condition.type);
  const old = i >= 0 ? list[i] : undefined;
  const next: JsonObject = { type: condition.type, status: condition.status, lastProbeTime: null, lastTransitionTime: rfc3339(now) };
  if (condition.reason) next.reason = condition.reason;
  if (condition.message) next.message = condition.message;
  if (!old) {
    list.push(next);
    status.conditions = list;
    return true;
  }
  if (old.status === condition.status) next.lastTransitionTime = old.lastTransitionTime ?? null;
  const same =
    old.status === next.status &&
    (old.reason ?? '') === (condition.reason ?? '') &&
    (old.message ?? '') === (condition.message ?? '') &&
    (old.lastProbeTime ?? null) === null &&
    old.lastTransitionTime === next.lastTransitionTime;
  list[i] = next;
  status.conditions = list;
  return !same;
}
