import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../../testing/apis.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

describe('priority classes', () => {
  const s = strategyOf('scheduling.orch.io', 'priorityclasses');
  it('default the preemption policy and keep user values below the system range', () => {
    const pc: KubeObject = { metadata: { name: 'high' }, value: 1000 };
    s.defaults(pc);
    assert.equal(pc.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(s.validate(pc), []);
    assert.deepEqual(rendered(s.validate({ metadata: { name: 'system-x' }, value: 2000000000 })), [
      `metadata.name: Invalid value: "system-x": priority class names with 'system-' prefix are reserved for system use only`,
    ]);
    assert.deepEqual(rendered(s.validate({ metadata: { name: 'huge' }, value: 2000000000 })), [
      'value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ]);
    // The system's own classes are valid only with their exact values and not as the default.
    assert.deepEqual(s.validate({ metadata: { name: 'system-node-critical' }, value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' }), []);
    assert.deepEqual(s.validate({ metadata: { name: 'system-cluster-critical' }, value: 2000000000, preemptionPolicy: 'PreemptLowerPriority' }), []);
    assert.equal(s.validate({ metadata: { name: 'system-cluster-critical' }, value: 2000000001, preemptionPolicy: 'PreemptLowerPriority' }).length, 1);
    assert.equal(s.validate({ metadata: { name: 'system-cluster-critical' }, value: 2000000000, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' }).length, 1);
    assert.deepEqual(rendered(s.validateUpdate({ ...pc, value: 5 }, pc)), ['value: Forbidden: may not be changed in an update.']);
  });
});
