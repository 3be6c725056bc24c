// Taints and tolerations (the scheduler's TaintToleration filter, the DaemonSet controller's
// eligibility, the node lifecycle controller's evictions): one matching rule for all.
import type { KubeObject } from '../../../apimachinery/types.js';
import { isPlainObject } from '../../../apimachinery/types.js';

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  /** `Equal` when unset. */
  operator?: 'Exists' | 'Equal';
  value?: string;
  /** Every effect when unset. */
  effect?: TaintEffect | '';
  /** How long a `NoExecute` taint is tolerated; forever when unset. */
  tolerationSeconds?: number;
}

export function nodeTaints(node: KubeObject): Taint[] {
  const spec = isPlainObject(node.spec) ? node.spec : {};
  return Array.isArray(spec.taints) ? (spec.taints.filter((t) => isPlainObject(t) && typeof t.key === 'string') as unknown as Taint[]) : [];
}

export function podTolerations(pod: KubeObject): Toleration[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.tolerations) ? (spec.tolerations.filter(isPlainObject) as unknown as Toleration[]) : [];
}

/**
 * Kube's rule: the effects match (an empty toleration effect matches all), the keys match (an
 * empty key with `Exists` matches every key), and `Exists` ignores the value while `Equal`
 * (the default) compares it.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  const operator = toleration.operator ?? 'Equal';
  if ((toleration.key ?? '') === '') {
    if (operator !== 'Exists') return false;
  } else if (toleration.key !== taint.key) {
    return false;
  }
  return operator === 'Exists' || (toleration.value ?? '') === (taint.value ?? '');
}

/** The first taint that passes `filter` and that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  filter: (t: Taint) => boolean = () => true,
): Taint | undefined {
  return taints.find((t) => filter(t) && !tolerations.some((tol) => toleratesTaint(tol, t)));
}

/** Kube's rendering of a taint in scheduler messages: `{key: value}`. */
export function formatTaint(t: Taint): string {
  return `{${t.key}: ${t.value ?? ''}}`;
}
