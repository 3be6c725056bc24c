// PriorityClasses: the user range of priorities and their immutable value.
import { requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { meta, num, setDefault } from '../util.js';
import { oneOf } from '../validation.js';

/** The highest priority a user-defined class may have; higher ones are the system's. */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;

/** The classes the system creates; only they may use the `system-` prefix and the range above. */
const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

function isKnownSystemClass(name: string, value: unknown, globalDefault: unknown): boolean {
  return SYSTEM_PRIORITY_CLASSES[name] === value && globalDefault !== true;
}

const priorityClasses: KindSpec = {
  defaults(o) {
    setDefault(o as Record<string, unknown>, 'preemptionPolicy', 'PreemptLowerPriority');
  },
  validate(o) {
    const errs: FieldError[] = [];
    const name = meta(o).name ?? '';
    if (typeof o.value !== 'number') errs.push(requiredField('value'));
    if (isKnownSystemClass(name, o.value, o.globalDefault)) {
      // The system's own classes, with their exact values.
    } else if (name.startsWith('system-')) {
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: ${JSON.stringify(name)}: priority class names with 'system-' prefix are reserved for system use only` });
    } else if (typeof o.value === 'number' && o.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
      errs.push({ type: 'FieldValueForbidden', field: 'value', detail: `Forbidden: maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}` });
    }
    errs.push(...oneOf(o.preemptionPolicy, ['PreemptLowerPriority', 'Never'], 'preemptionPolicy'));
    return errs;
  },
  validateUpdate(o, old) {
    return o.value === old.value ? [] : [{ type: 'FieldValueForbidden', field: 'value', detail: 'Forbidden: may not be changed in an update.' }];
  },
  table: {
    columns: [
      nameColumn,
      column('Value', 'integer', 'The value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
      column('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class.'),
      ageColumn,
    ],
    cells: (o, now) => [meta(o).name ?? '', num(o.value) ?? 0, o.globalDefault === true, since(meta(o).creationTimestamp, now)],
  },
};

export const schedulingKinds: Record<string, KindSpec> = {
  PriorityClass: priorityClasses,
};
