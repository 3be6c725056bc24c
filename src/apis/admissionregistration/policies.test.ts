import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../../testing/apis.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const G = 'admissionregistration.orch.io';
const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }];

describe('ValidatingAdmissionPolicy validation', () => {
  const s = strategyOf(G, 'validatingadmissionpolicies');
  const check = (spec: Record<string, unknown>): string[] => {
    const o: KubeObject = { metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: rules }, ...spec } };
    s.defaults(o);
    return rendered(s.validate(o));
  };

  const cases: { name: string; spec: Record<string, unknown>; want: string[] }[] = [
    { name: 'a valid policy', spec: { validations: [{ expression: 'object.spec.containers.size() < 3' }] }, want: [] },
    {
      name: 'neither validations nor audit annotations',
      spec: {},
      want: ['spec.validations: Required value: validations or auditAnnotations must contain at least one item', 'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item'],
    },
    { name: 'no resource rules', spec: { matchConstraints: {}, validations: [{ expression: 'true' }] }, want: ['spec.matchConstraints.resourceRules: Required value'] },
    { name: 'an empty expression', spec: { validations: [{ expression: ' ' }] }, want: ['spec.validations[0].expression: Required value: expression is not specified'] },
    { name: 'a non-bool expression', spec: { validations: [{ expression: "'x'" }] }, want: [`spec.validations[0].expression: Invalid value: "'x'": must evaluate to bool`] },
    { name: 'an unknown variable', spec: { validations: [{ expression: 'self.x' }] }, want: ["spec.validations[0].expression: Invalid value: \"self.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self.x\n | ^"] },
    { name: 'params with a paramKind', spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'params.data.x == "1"' }] }, want: [] },
    { name: 'a bad reason', spec: { validations: [{ expression: 'true', reason: 'Conflict' }] }, want: ['spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"'] },
    { name: 'a message with a line break', spec: { validations: [{ expression: 'true', message: 'a\nb' }] }, want: ['spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks'] },
    { name: 'a non-string messageExpression', spec: { validations: [{ expression: 'true', messageExpression: '1' }] }, want: ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string'] },
    { name: 'a bad failure policy', spec: { failurePolicy: 'Maybe', validations: [{ expression: 'true' }] }, want: ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"'] },
    { name: 'a paramKind without kind', spec: { paramKind: { apiVersion: 'v1' }, validations: [{ expression: 'true' }] }, want: ['spec.paramKind.kind: Required value'] },
    {
      name: 'duplicate audit annotation keys',
      spec: { auditAnnotations: [{ key: 'a', valueExpression: "'x'" }, { key: 'a', valueExpression: 'null' }] },
      want: ['spec.auditAnnotations[1].key: Duplicate value: "a"'],
    },
    { name: 'a deeply nested expression', spec: { validations: [{ expression: '('.repeat(300) + 'true' + ')'.repeat(300) }] }, want: ['spec.validations[0].expression'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = check(c.spec);
      if (c.want.length === 1 && !c.want[0].includes(':')) {
        assert.equal(got.length, 1, got.join('\n'));
        assert.ok(got[0].startsWith(`${c.want[0]}: Invalid value`), got[0]);
      } else assert.deepEqual(got, c.want);
    });
  }
});

describe('ValidatingAdmissionPolicyBinding validation', () => {
  const s = strategyOf(G, 'validatingadmissionpolicybindings');
  const check = (spec: Record<string, unknown>): string[] => {
    const o: KubeObject = { metadata: { name: 'b' }, spec };
    s.defaults(o);
    return rendered(s.validate(o));
  };
  const cases: { name: string; spec: Record<string, unknown>; want: string[] }[] = [
    { name: 'a valid binding', spec: { policyName: 'p', validationActions: ['Deny', 'Audit'] }, want: [] },
    { name: 'no policy name', spec: { validationActions: ['Deny'] }, want: ['spec.policyName: Required value'] },
    { name: 'no actions', spec: { policyName: 'p' }, want: ['spec.validationActions: Required value: at least one validation action is required'] },
    { name: 'an unknown action', spec: { policyName: 'p', validationActions: ['Log'] }, want: ['spec.validationActions[0]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"'] },
    { name: 'a repeated action', spec: { policyName: 'p', validationActions: ['Audit', 'Audit'] }, want: ['spec.validationActions[1]: Duplicate value: "Audit"'] },
    { name: 'a paramRef without name', spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { namespace: 'x' } }, want: ['spec.paramRef.name: Required value'] },
    { name: 'matchResources defaulted', spec: { policyName: 'p', validationActions: ['Deny'], matchResources: {} }, want: [] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(check(c.spec), c.want));
});
