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
