import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RuleWithOperations } from './config.js';
import { ruleMatches, type RuleTarget } from './rules.js';

const rule = (r: Partial<RuleWithOperations>): RuleWithOperations => ({
  operations: ['*'],
  apiGroups: ['*'],
  apiVersions: ['*'],
  resources: ['*'],
  scope: '*',
  ...r,
});

const pods = (subresource = '', operation: RuleTarget['operation'] = 'CREATE', namespace = 'team'): RuleTarget => ({
  operation,
  resource: { group: '', version: 'v1', resource: 'pods' },
  subresource,
  namespace,
});

test('resources: * is every resource without subresources, */* every resource and subresource', () => {
  assert.equal(ruleMatches(rule({ resources: ['*'] }), pods()), true);
  assert.equal(ruleMatches(rule({ resources: ['*'] }), pods('status')), false);
  assert.equal(ruleMatches(rule({ resources: ['*/*'] }), pods('status')), true);
  assert.equal(ruleMatches(rule({ resources: ['*/*'] }), pods()), true);
  assert.equal(ruleMatches(rule({ resources: ['pods/*'] }), pods('exec')), true);
  assert.equal(ruleMatches(rule({ resources: ['pods/*'] }), pods()), true);
  assert.equal(ruleMatches(rule({ resources: ['pods/*'] }), { ...pods(), resource: { group: '', version: 'v1', resource: 'services' } }), false);
  assert.equal(ruleMatches(rule({ resources: ['*/status'] }), pods('status')), true);
  assert.equal(ruleMatches(rule({ resources: ['*/status'] }), pods('binding')), false);
  assert.equal(ruleMatches(rule({ resources: ['pods', 'pods/status'] }), pods('status')), true);
  assert.equal(ruleMatches(rule({ resources: ['services'] }), pods()), false);
});

test('operations, groups and versions match exactly or by *', () => {
  assert.equal(ruleMatches(rule({ operations: ['UPDATE'] }), pods('', 'CREATE')), false);
  assert.equal(ruleMatches(rule({ operations: ['UPDATE', 'CREATE'] }), pods('', 'CREATE')), true);
  assert.equal(ruleMatches(rule({ apiGroups: [''] }), pods()), true);
  assert.equal(ruleMatches(rule({ apiGroups: ['apps'] }), pods()), false);
  assert.equal(ruleMatches(rule({ apiVersions: ['v1beta1'] }), pods()), false);
  assert.equal(ruleMatches(rule({ apiVersions: ['v1'] }), pods()), true);
});

test('scope: a Namespace object is cluster-scoped; namespaced means a namespace on the request', () => {
  const ns: RuleTarget = { operation: 'UPDATE', resource: { group: '', version: 'v1', resource: 'namespaces' }, subresource: '', namespace: 'team' };
  const node: RuleTarget = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'nodes' }, subresource: '', namespace: '' };
  assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), pods()), true);
  assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), ns), false);
  assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), node), false);
  assert.equal(ruleMatches(rule({ scope: 'Cluster' }), ns), true);
  assert.equal(ruleMatches(rule({ scope: 'Cluster' }), node), true);
  assert.equal(ruleMatches(rule({ scope: 'Cluster' }), pods()), false);
  assert.equal(ruleMatches(rule({ scope: '*' }), node), true);
});

// Each rule with requests (resource and subresource) it covers and requests it does not.
// Kubernetes splits an entry at its first slash and lets `*` stand for either half, so
// `pods/*` also covers pods itself (the empty subresource), as kube-apiserver's own tests pin.
const RESOURCE_TABLE: Array<{ resources: string[]; match: string[]; noMatch: string[] }> = [
  { resources: ['*'], match: ['pods', 'services', 'namespaces'], noMatch: ['pods/exec', 'pods/status', 'services/proxy', 'deployments/scale'] },
  { resources: ['*/*'], match: ['pods', 'pods/exec', 'pods/status', 'services/proxy', 'deployments/scale', 'namespaces/finalize'], noMatch: [] },
  { resources: ['pods/*'], match: ['pods', 'pods/exec', 'pods/status', 'pods/log', 'pods/eviction'], noMatch: ['services', 'services/status', 'podtemplates'] },
  { resources: ['*/status'], match: ['pods/status', 'deployments/status', 'namespaces/status'], noMatch: ['pods', 'pods/exec', 'deployments/scale'] },
  { resources: ['pods/*', 'services'], match: ['pods', 'pods/exec', 'services'], noMatch: ['services/proxy', 'nodes'] },
  { resources: ['*/proxy', '*/exec'], match: ['pods/exec', 'services/proxy', 'nodes/proxy'], noMatch: ['pods', 'services', 'deployments/scale'] },
  { resources: ['pods', 'pods/status'], match: ['pods', 'pods/status'], noMatch: ['pods/exec', 'services/status'] },
  { resources: ['pods/status/extra'], match: [], noMatch: ['pods', 'pods/status'] },
  { resources: [], match: [], noMatch: ['pods', 'pods/status'] },
];

test('resources: the wildcard table', () => {
  const target = (path: string): RuleTarget => {
    const [resource, subresource = ''] = path.split('/');
    return { operation: 'UPDATE', resource: { group: '', version: 'v1', resource }, subresource, namespace: 'team' };
  };
  for (const { resources, match, noMatch } of RESOURCE_TABLE) {
    for (const m of match) assert.equal(ruleMatches(rule({ resources }), target(m)), true, `${resources.join(',')} should cover ${m}`);
    for (const m of noMatch) assert.equal(ruleMatches(rule({ resources }), target(m)), false, `${resources.join(',')} should not cover ${m}`);
  }
});
