import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../../testing/apis.js';
import { validateObjectMeta } from '../../registry/objectmeta.js';
import type { Strategy } from '../../rest/index.js';

/** The Store's ObjectMeta findings with the kind's name rule (where name errors are reported). */
function metaErrors(s: Strategy, o: KubeObject, namespaced: boolean): FieldError[] {
  return validateObjectMeta(o.metadata ?? {}, namespaced, (name, prefix) => s.validateName?.(name, prefix) ?? []);
}

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);
const G = 'rbac.authorization.orch.io';

describe('roles', () => {
  it('accept resource rules and cluster-wide non-resource rules', () => {
    const role: KubeObject = { metadata: { name: 'system:reader', namespace: 'd' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    assert.deepEqual(strategyOf(G, 'roles').validate(role), []);
    const cr: KubeObject = { metadata: { name: 'health' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] };
    assert.deepEqual(strategyOf(G, 'clusterroles').validate(cr), []);
  });

  it('reject rules without verbs, groups or resources, and non-resource URLs in namespaces', () => {
    const role: KubeObject = {
      metadata: { name: 'r', namespace: 'd' },
      rules: [{ resources: ['pods'] }, { nonResourceURLs: ['/x'], verbs: ['get'], resources: ['pods'] }],
    };
    assert.deepEqual(rendered(strategyOf(G, 'roles').validate(role)), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
      'rules[1].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
    ]);
    assert.deepEqual(rendered(metaErrors(strategyOf(G, 'roles'), { metadata: { name: 'a/b', namespace: 'd' } }, true)), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
  });
});

describe('bindings', () => {
  const rb = (roleRef: Record<string, unknown>, subjects: unknown[]): KubeObject => ({ metadata: { name: 'b', namespace: 'd' }, roleRef, subjects });

  it('accept users, groups and service accounts bound to a role', () => {
    const ok = rb({ apiGroup: G, kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'alice', apiGroup: G },
      { kind: 'Group', name: 'devs', apiGroup: G },
      { kind: 'ServiceAccount', name: 'default', namespace: 'd' },
    ]);
    assert.deepEqual(strategyOf(G, 'rolebindings').validate(ok), []);
  });

  it('check the role reference and the subjects', () => {
    const bad = rb({ apiGroup: 'x', kind: 'Thing', name: '' }, [{ kind: 'Robot', name: 'r' }, { kind: 'User', name: 'u' }]);
    assert.deepEqual(rendered(strategyOf(G, 'rolebindings').validate(bad)), [
      `roleRef.apiGroup: Unsupported value: "x": supported values: "${G}"`,
      'roleRef.kind: Unsupported value: "Thing": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      `subjects[1].apiGroup: Unsupported value: "": supported values: "${G}"`,
    ]);
    const crb: KubeObject = { metadata: { name: 'c' }, roleRef: { apiGroup: G, kind: 'Role', name: 'x' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] };
    assert.deepEqual(rendered(strategyOf(G, 'clusterrolebindings').validate(crb)), [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
    ]);
  });

  it('keep their role reference', () => {
    const s = strategyOf(G, 'rolebindings');
    const old = rb({ apiGroup: G, kind: 'Role', name: 'a' }, []);
    const now = rb({ apiGroup: G, kind: 'Role', name: 'b' }, []);
    assert.deepEqual(rendered(s.validateUpdate(now, old)).slice(-1), [`roleRef: Invalid value: {"apiGroup":"${G}","kind":"Role","name":"b"}: cannot change roleRef`]);
    assert.ok(s.allowCreateOnUpdate);
  });
});
