import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compactRuleString, describeSubject, nonResourceURLMatches, resourceMatches, subjectMatches, uncoveredRules, type PolicyRule } from './rules.js';
import { reconcileBinding, reconcileRole } from './reconcile.js';
import { aggregatedRules } from './aggregation.js';
import { labelSelectorMatches } from './selector.js';

describe('RBAC rules', () => {
  it('matches resources, subresources and */subresource', () => {
    const rule = (...resources: string[]): PolicyRule => ({ verbs: ['get'], apiGroups: [''], resources });
    assert.equal(resourceMatches(rule('pods'), 'pods', ''), true);
    assert.equal(resourceMatches(rule('pods'), 'pods', 'log'), false);
    assert.equal(resourceMatches(rule('pods/log'), 'pods', 'log'), true);
    assert.equal(resourceMatches(rule('*/scale'), 'deployments', 'scale'), true);
    assert.equal(resourceMatches(rule('*/scale'), 'deployments', ''), false);
    assert.equal(resourceMatches(rule('*'), 'anything', 'sub'), true);
  });

  it('matches non-resource URLs exactly or by trailing *', () => {
    const r: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] };
    assert.equal(nonResourceURLMatches(r, '/healthz'), true);
    assert.equal(nonResourceURLMatches(r, '/healthz/etcd'), false);
    assert.equal(nonResourceURLMatches(r, '/logs/a/b'), true);
    assert.equal(nonResourceURLMatches(r, '/logs'), false);
  });

  it('matches subjects; service accounts default to the binding namespace', () => {
    const sa = { username: 'system:serviceaccount:ns:robot', groups: [] };
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, sa, 'ns'), true);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, sa, 'other'), false);
    assert.equal(subjectMatches({ kind: 'User', name: 'Robot' }, { username: 'robot', groups: [] }, ''), false);
    assert.equal(subjectMatches({ kind: 'Group', name: 'g' }, { username: 'x', groups: ['g'] }, ''), true);
  });

  it('names subjects as RBAC reasons do', () => {
    assert.equal(describeSubject({ kind: 'ServiceAccount', name: 'robot' }, 'ns'), 'ServiceAccount "robot/ns"');
    assert.equal(describeSubject({ kind: 'ServiceAccount', name: 'robot', namespace: 'other' }, 'ns'), 'ServiceAccount "robot/other"');
    assert.equal(describeSubject({ kind: 'Group', name: 'g' }, 'ns'), 'Group "g"');
  });

  it('computes coverage for escalation checks', () => {
    const owner: PolicyRule[] = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] },
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
    ];
    assert.deepEqual(uncoveredRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), []);
    assert.deepEqual(uncoveredRules(owner, [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] }]), []);
    assert.deepEqual(uncoveredRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }]), []);
    assert.equal(uncoveredRules(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]).length, 1);
    assert.equal(uncoveredRules(owner, [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }]).length, 1);
    assert.equal(uncoveredRules(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]).length, 1);
    assert.equal(compactRuleString({ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }), '{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}');
  });

  it('reconciles default roles by adding, never removing, and honours autoupdate=false', () => {
    const wanted = { metadata: { name: 'r', labels: { a: '1' }, annotations: { 'rbac.authorization.orch.io/autoupdate': 'true' } }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
    const existing = { metadata: { name: 'r', labels: { mine: 'x' } }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] };
    const out = reconcileRole(existing, wanted)!;
    assert.deepEqual(out['rules'], [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    assert.deepEqual(out.metadata?.labels, { a: '1', mine: 'x' });
    assert.equal(reconcileRole(out, wanted), undefined);
    const pinned = { ...existing, metadata: { name: 'r', annotations: { 'rbac.authorization.orch.io/autoupdate': 'false' } } };
    assert.equal(reconcileRole(pinned, wanted), undefined);
    const b = reconcileBinding(
      { metadata: { name: 'b' }, roleRef: { apiGroup: 'g', kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'User', name: 'x' }] },
      { metadata: { name: 'b' }, roleRef: { apiGroup: 'g', kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'Group', name: 'system:masters' }] },
    );
    assert.deepEqual(b?.object['subjects'], [{ kind: 'User', name: 'x' }, { kind: 'Group', name: 'system:masters' }]);
    assert.equal(reconcileBinding({ metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'other' } }, { metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'r' } })?.recreate, true);
  });

  it('aggregates matching roles once, sorted by name, excluding itself', () => {
    const agg = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { to: 'agg' } }] } };
    const r = (name: string, labels: Record<string, string>, resources: string[]) => ({ metadata: { name, labels }, rules: [{ verbs: ['get'], apiGroups: [''], resources }] });
    const rules = aggregatedRules(agg, [agg, r('b', { to: 'agg' }, ['pods']), r('a', { to: 'agg' }, ['secrets']), r('c', { to: 'agg' }, ['pods']), r('d', {}, ['nodes'])]);
    assert.deepEqual(rules.map((x) => x.resources), [['secrets'], ['pods']]);
    // Plain string order, as the aggregation controller sorts: 'Z' before 's', '-' before ':'.
    const ordered = aggregatedRules(agg, [r('system-b', { to: 'agg' }, ['b']), r('system:a', { to: 'agg' }, ['a']), r('Zed', { to: 'agg' }, ['z'])]);
    assert.deepEqual(ordered.map((x) => x.resources), [['z'], ['b'], ['a']]);
  });

  it('matches label selectors with expressions', () => {
    const labels = { tier: 'web', env: 'prod' };
    assert.equal(labelSelectorMatches({}, labels), true);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'db'] }] }, labels), true);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, labels), false);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, labels), true);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, labels), false);
    assert.equal(labelSelectorMatches({ matchExpressions: [{ key: 'x', operator: 'Bogus' }] }, labels), false);
  });
});
