// ResourceQuota semantics: which resource measures a quota name (hostile names included),
// what an object uses, and which pods scopes select.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { setFlavor } from '../../../naming/index.js';
import { formatAmount } from './resources.js';
import { addUsage, namesMeasuredOn, podCountsForQuota, quotaSelects, quotaUsage, resourceOfQuotaName, sumQuotaUsage, zeroAmount } from './quota.js';

afterEach(() => setFlavor('orch'));
const PODS = { group: '', resource: 'pods' };
const now = new Date('2024-01-01T00:00:00Z');
const shown = (m: Map<string, { nano: bigint; format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent' }>): Record<string, string> =>
  Object.fromEntries([...m].map(([k, a]) => [k, formatAmount(a)]));

test('quota names map to the resource that measures them, in both flavors', () => {
  assert.deepEqual(resourceOfQuotaName('count/deployments.apps'), { group: 'apps', resource: 'deployments' });
  assert.deepEqual(resourceOfQuotaName('count/widgets.stable.example.com'), { group: 'stable.example.com', resource: 'widgets' });
  assert.deepEqual(resourceOfQuotaName('count/pods'), PODS);
  assert.deepEqual(resourceOfQuotaName('requests.example.com/gpu'), PODS);
  assert.deepEqual(resourceOfQuotaName('services.nodeports'), { group: '', resource: 'services' });
  assert.deepEqual(resourceOfQuotaName('requests.storage'), { group: '', resource: 'persistentvolumeclaims' });
  assert.deepEqual(resourceOfQuotaName('gold.storageclass.storage.orch.io/requests.storage'), { group: '', resource: 'persistentvolumeclaims' });
  assert.equal(resourceOfQuotaName('gold.storageclass.storage.k8s.io/requests.storage'), undefined);
  setFlavor('kubernetes');
  assert.deepEqual(resourceOfQuotaName('gold.storageclass.storage.k8s.io/persistentvolumeclaims'), { group: '', resource: 'persistentvolumeclaims' });
  // Hostile names measure nothing.
  for (const name of ['__proto__', 'count/__proto__', 'count/', 'count/../pods', 'count/Pods', 'constructor', 'x'.repeat(10_000), 'gold.storageclass.storage.k8s.io/__proto__']) {
    assert.equal(resourceOfQuotaName(name), undefined, name);
  }
  assert.deepEqual(namesMeasuredOn(PODS, ['configmaps', 'pods', 'cpu', '__proto__', 'limits.memory']), ['cpu', 'limits.memory', 'pods']);
});

test('pod usage: compute of live pods, the object count of all; a zero takes the notation added to it', () => {
  const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', resources: { requests: { cpu: '250m', memory: '64Mi', 'example.com/gpu': '1' }, limits: { memory: '128Mi' } } }] } };
  assert.deepEqual(shown(quotaUsage(PODS, pod, now)), {
    'count/pods': '1',
    pods: '1',
    'requests.cpu': '250m',
    cpu: '250m',
    'requests.memory': '64Mi',
    memory: '64Mi',
    'requests.example.com/gpu': '1',
    'limits.memory': '128Mi',
  });
  assert.deepEqual(shown(quotaUsage(PODS, { ...pod, status: { phase: 'Failed' } }, now)), { 'count/pods': '1' });
  const deleting = { ...pod, metadata: { name: 'p', deletionTimestamp: '2023-12-31T23:59:00Z', deletionGracePeriodSeconds: 30 } };
  assert.equal(podCountsForQuota(deleting, now), false);
  assert.equal(podCountsForQuota(deleting, new Date('2023-12-31T23:59:10Z')), true);
  const total = new Map([['memory', zeroAmount()]]);
  addUsage(total, 'memory', { nano: 64n * 1024n * 1024n * 1_000_000_000n, format: 'BinarySI' });
  assert.deepEqual(shown(total), { memory: '64Mi' });
});

test('scopes select pods only, by deadline, best effort and priority class', () => {
  const scoped = (spec: Record<string, unknown>) => ({ metadata: { name: 'q' }, spec });
  const bestEffort = { metadata: { name: 'b' }, spec: { containers: [{ name: 'a' }] } };
  const deadline = { metadata: { name: 'd' }, spec: { activeDeadlineSeconds: 10, priorityClassName: 'high', containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] } };
  assert.equal(quotaSelects(scoped({ scopes: ['BestEffort'] }), PODS, bestEffort), true);
  assert.equal(quotaSelects(scoped({ scopes: ['BestEffort'] }), PODS, deadline), false);
  assert.equal(quotaSelects(scoped({ scopes: ['Terminating', 'NotBestEffort'] }), PODS, deadline), true);
  assert.equal(quotaSelects(scoped({ scopes: ['BestEffort'] }), { group: '', resource: 'configmaps' }, bestEffort), false);
  const high = scoped({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
  assert.equal(quotaSelects(high, PODS, deadline), true);
  assert.equal(quotaSelects(high, PODS, bestEffort), false);
  assert.deepEqual(shown(sumQuotaUsage(scoped({ scopes: ['NotTerminating'] }), PODS, ['pods', 'requests.cpu'], [bestEffort, deadline], now)), { pods: '1', 'requests.cpu': '0' });
});
