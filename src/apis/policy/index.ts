// PodDisruptionBudgets: the columns kubectl shows and policy/v1's validation (exclusive
// minAvailable / maxUnavailable, each a count or a percentage up to 100%, a valid selector,
// a known unhealthy pod eviction policy; non-negative counts in the status).
import { invalidField, notSupportedField, type FieldError } from '../../apimachinery/errors.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, meta, num, obj } from '../util.js';
import { validateIntOrPercent } from '../apps/workloads.js';
import { nonNegative, validateLabelSelector } from '../validation.js';

const text = (v: unknown, empty = '<none>'): string => (v === undefined || v === null || v === '' ? empty : String(v));

/** The values of `spec.unhealthyPodEvictionPolicy` (policy/v1 UnhealthyPodEvictionPolicyType). */
export const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'] as const;

function validateSpec(o: Parameters<NonNullable<KindSpec['validate']>>[0]): FieldError[] {
  const spec = obj(o.spec) ?? {};
  const errs: FieldError[] = [];
  const min = spec.minAvailable;
  const max = spec.maxUnavailable;
  const set = (v: unknown): boolean => v !== undefined && v !== null;
  if (set(min) && set(max)) errs.push(invalidField('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  errs.push(...validateIntOrPercent(min, 'spec.minAvailable'));
  errs.push(...validateIntOrPercent(max, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (set(policy) && !(UNHEALTHY_POD_EVICTION_POLICIES as readonly unknown[]).includes(policy)) {
    errs.push(notSupportedField('spec.unhealthyPodEvictionPolicy', policy, [...UNHEALTHY_POD_EVICTION_POLICIES]));
  }
  return errs;
}

const podDisruptionBudgets: KindSpec = {
  tracksGeneration: true,
  table: {
    columns: [
      nameColumn,
      column('Min Available', 'string', 'The minimum number of pods that must be available simultaneously.'),
      column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable simultaneously.'),
      column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      ageColumn,
    ],
    cells: (o, now) => [
      meta(o).name ?? '',
      text(at(o, 'spec.minAvailable'), 'N/A'),
      text(at(o, 'spec.maxUnavailable'), 'N/A'),
      num(at(o, 'status.disruptionsAllowed')) ?? 0,
      since(meta(o).creationTimestamp, now),
    ],
  },
  prepareForCreate(o) {
    o.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  },
  validate: validateSpec,
  validateUpdate(o, old) {
    // The status counts are the disruption controller's and the eviction subresource's.
    const status = obj(o.status) ?? {};
    if (JSON.stringify(o.status) === JSON.stringify(old.status)) return [];
    return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap((k) => nonNegative(status[k], `status.${k}`));
  },
};

export const policyKinds: Record<string, KindSpec> = {
  PodDisruptionBudget: podDisruptionBudgets,
};
