// PodDisruptionBudgets: the columns kubectl shows and the exclusive minAvailable / maxUnavailable.
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, meta, num, obj } from '../util.js';

const text = (v: unknown, empty = '<none>'): string => (v === undefined || v === null || v === '' ? empty : String(v));

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
  validate(o) {
    const spec = obj(o.spec) ?? {};
    if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
      return [{ type: 'FieldValueInvalid', field: 'spec', detail: `Invalid value: ${JSON.stringify(spec)}: minAvailable and maxUnavailable cannot be both set` }];
    }
    return [];
  },
};

export const policyKinds: Record<string, KindSpec> = {
  PodDisruptionBudget: podDisruptionBudgets,
};
