import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../apimachinery/types.js';
import { setFlavor } from '../../../naming/index.js';
import { isPodActive, isPodAvailable, isPodReady, podPhase, withPodCondition } from './pod.js';
import { findUntoleratedTaint, formatTaint, toleratesTaint, type Taint } from './taints.js';
import { podMatchesNodeSelectorAndAffinity, preferredAffinityWeight } from './node-affinity.js';
import { nodeTaintKey, withNodeCondition } from './node.js';
import { podTotals, formatAmount } from './resources.js';

const node = (labels: Record<string, string>, name = 'n1'): KubeObject => ({ metadata: { name, labels } });
const ready = (status: 'True' | 'False', at = '2026-01-01T00:00:00Z'): KubeObject => ({
  metadata: { name: 'p' },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status, lastTransitionTime: at }] },
});

test('pod readiness, availability after minReadySeconds, activity', () => {
  const at = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(isPodReady(ready('True')), true);
  assert.equal(isPodReady(ready('False')), false);
  assert.equal(isPodAvailable(ready('True'), 10, at + 9_999), false);
  assert.equal(isPodAvailable(ready('True'), 10, at + 10_000), true);
  assert.equal(isPodAvailable(ready('True'), 0, at), true);
  assert.equal(podPhase({ metadata: {} }), 'Pending');
  assert.equal(isPodActive({ metadata: {}, status: { phase: 'Succeeded' } }), false);
  assert.equal(isPodActive({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }), false);
  assert.equal(isPodActive({ metadata: {}, status: { phase: 'Running' } }), true);
});

test('a condition keeps its transition time unless its status changes', () => {
  const first = withPodCondition([], { type: 'Ready', status: 'False' }, 't1');
  const same = withPodCondition(first, { type: 'Ready', status: 'False', reason: 'X' }, 't2');
  const flipped = withPodCondition(same, { type: 'Ready', status: 'True' }, 't3');
  assert.equal(same[0].lastTransitionTime, 't1');
  assert.equal(same[0].reason, 'X');
  assert.equal(flipped[0].lastTransitionTime, 't3');
  assert.equal(flipped.length, 1);
});

test('a node condition keeps its transition time unless its status changes; the heartbeat is the new one', () => {
  const first = withNodeCondition([], { type: 'Ready', status: 'True', lastHeartbeatTime: 't1' }, 't1');
  const beat = withNodeCondition(first, { type: 'Ready', status: 'True', lastHeartbeatTime: 't2' }, 't2');
  const lost = withNodeCondition(beat, { type: 'Ready', status: 'Unknown', lastHeartbeatTime: 't2' }, 't3');
  assert.deepEqual([beat[0].lastTransitionTime, beat[0].lastHeartbeatTime], ['t1', 't2']);
  assert.deepEqual([lost[0].lastTransitionTime, lost[0].status], ['t3', 'Unknown']);
  assert.equal(withNodeCondition(first, { type: 'MemoryPressure', status: 'False' }, 't4').length, 2);
});

test('tolerations match taints by key, value, operator and effect', () => {
  const taint: Taint = { key: 'dedicated', value: 'infra', effect: 'NoSchedule' };
  assert.equal(toleratesTaint({ key: 'dedicated', value: 'infra' }, taint), true);
  assert.equal(toleratesTaint({ key: 'dedicated', value: 'other' }, taint), false);
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Exists' }, taint), true);
  assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true);
  assert.equal(toleratesTaint({ operator: 'Equal', value: 'infra' }, taint), false, 'an empty key needs Exists');
  assert.equal(toleratesTaint({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, taint), false);
  const untolerated = findUntoleratedTaint([{ key: 'a', effect: 'PreferNoSchedule' }, taint], [], (t) => t.effect !== 'PreferNoSchedule');
  assert.deepEqual(untolerated, taint);
  assert.equal(formatTaint(taint), '{dedicated: infra}');
});

test('node selector and required affinity: terms ORed, requirements ANDed, Gt/Lt numeric, empty term matches nothing', () => {
  const pod = (affinity: unknown, nodeSelector?: Record<string, string>): KubeObject => ({ spec: { nodeSelector, affinity } });
  const required = (terms: unknown[]): unknown => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
  const n = node({ zone: 'a', cores: '16' });
  assert.equal(podMatchesNodeSelectorAndAffinity(pod(undefined, { zone: 'a' }), n), true);
  assert.equal(podMatchesNodeSelectorAndAffinity(pod(undefined, { zone: 'b' }), n), false);
  assert.equal(podMatchesNodeSelectorAndAffinity(pod(undefined, { __proto__: 'x' } as Record<string, string>), n), true);
  assert.equal(podMatchesNodeSelectorAndAffinity(pod(required([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['8'] }] }])), n), true);
  assert.equal(podMatchesNodeSelectorAndAffinity(pod(required([{ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['8'] }] }])), n), false);
  assert.equal(podMatchesNodeSelectorAndAffinity(pod(required([{}])), n), false);
  assert.equal(
    podMatchesNodeSelectorAndAffinity(pod(required([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }])), n),
    true,
  );
  const preferred = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [
    { weight: 5, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
    { weight: 7, preference: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] } },
  ] } };
  assert.equal(preferredAffinityWeight(pod(preferred), n), 5);
});

test('well-known node taint keys follow the flavor when called', () => {
  setFlavor('kubernetes');
  assert.equal(nodeTaintKey('unreachable'), 'node.kubernetes.io/unreachable');
  setFlavor('orch');
  assert.notEqual(nodeTaintKey('unreachable'), 'node.kubernetes.io/unreachable');
  assert.match(nodeTaintKey('unreachable'), /\/unreachable$/);
});

test('pod requests: containers summed, at least the largest init container, plus overhead', () => {
  const spec = {
    containers: [{ resources: { requests: { cpu: '100m' } } }, { resources: { requests: { cpu: '200m', memory: '1Gi' } } }],
    initContainers: [{ resources: { requests: { cpu: '500m' } } }],
    overhead: { cpu: '10m' },
  };
  const totals = podTotals(spec, 'requests');
  assert.equal(formatAmount(totals.get('cpu')!), '510m');
  assert.equal(formatAmount(totals.get('memory')!), '1Gi');
});
