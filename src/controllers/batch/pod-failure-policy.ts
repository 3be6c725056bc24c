// A Job's `podFailurePolicy` applied to one failed pod, as Kubernetes 1.27 does: the rules in
// order, the first whose `onExitCodes` (a terminated container, non-zero exit code, In or
// NotIn the values, of the named container when one is named) or `onPodConditions` (a pod
// condition of that type and status, e.g. DisruptionTarget True) matches decides: FailJob
// (the Job fails, with a message naming the pod), Ignore (the failure does not count towards
// backoffLimit), Count (as without a policy).
import type { KubeObject } from '../../apimachinery/types.js';

export type PodFailurePolicyAction = 'FailJob' | 'Ignore' | 'Count';

export interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: { containerName?: string | null; operator?: string; values?: number[] } | null;
  onPodConditions?: { type?: string; status?: string }[] | null;
}

export interface PodFailurePolicy {
  rules?: PodFailurePolicyRule[];
}

export interface PolicyMatch {
  /** The rule's action; undefined when no rule matched. */
  action?: PodFailurePolicyAction;
  /** Whether the failure counts towards `backoffLimit` (not for Ignore). */
  countFailed: boolean;
  /** For FailJob: why the Job fails. */
  failJobMessage?: string;
}

interface ContainerStatus {
  name?: string;
  state?: { terminated?: { exitCode?: number } };
}

/** The Failed condition's reason (and the FailureTarget's) when a FailJob rule matched. */
export const POD_FAILURE_POLICY_REASON = 'PodFailurePolicy';

function exitCodeMatches(code: number, operator: string | undefined, values: readonly number[]): boolean {
  if (operator === 'In') return values.includes(code);
  if (operator === 'NotIn') return !values.includes(code);
  return false;
}

/** The first terminated container (regular, then init) whose non-zero exit code matches. */
function matchingContainer(pod: KubeObject, req: NonNullable<PodFailurePolicyRule['onExitCodes']>): { name: string; exitCode: number } | undefined {
  const status = (pod.status ?? {}) as { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] };
  for (const list of [status.containerStatuses, status.initContainerStatuses]) {
    for (const c of Array.isArray(list) ? list : []) {
      const code = c?.state?.terminated?.exitCode;
      if (typeof code !== 'number' || code === 0) continue;
      if (req.containerName && req.containerName !== c.name) continue;
      if (exitCodeMatches(code, req.operator, Array.isArray(req.values) ? req.values : [])) return { name: String(c.name ?? ''), exitCode: code };
    }
  }
  return undefined;
}

function matchingCondition(pod: KubeObject, patterns: readonly { type?: string; status?: string }[]): string | undefined {
  const conditions = (pod.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions;
  for (const c of Array.isArray(conditions) ? conditions : []) {
    if (c === null || typeof c !== 'object' || typeof c.type !== 'string') continue;
    if (patterns.some((p) => p !== null && typeof p === 'object' && p.type === c.type && p.status === c.status)) return c.type;
  }
  return undefined;
}

export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined | null, pod: KubeObject): PolicyMatch {
  if (!policy || typeof policy !== 'object') return { countFailed: true };
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const rules = Array.isArray(policy.rules) ? policy.rules : [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    // The API validates policies; a malformed one matches nothing rather than stalling the Job.
    if (rule === null || typeof rule !== 'object') continue;
    const action = rule.action;
    if (action !== 'FailJob' && action !== 'Ignore' && action !== 'Count') continue;
    let failJobMessage: string | undefined;
    if (rule.onExitCodes && typeof rule.onExitCodes === 'object') {
      const c = matchingContainer(pod, rule.onExitCodes);
      if (!c) continue;
      failJobMessage = `Container ${c.name} for pod ${ns}/${name} failed with exit code ${c.exitCode} matching ${action} rule at index ${index}`;
    } else if (Array.isArray(rule.onPodConditions)) {
      const type = matchingCondition(pod, rule.onPodConditions);
      if (type === undefined) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${type} matching ${action} rule at index ${index}`;
    } else continue;
    if (action === 'Ignore') return { action, countFailed: false };
    if (action === 'Count') return { action, countFailed: true };
    return { action, countFailed: true, failJobMessage };
  }
  return { countFailed: true };
}
