import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { claimOwners, newMemberPod, parentAndOrdinal, podNameLabel, reconcileClaimOwners } from './identity.js';

const set = (policy?: Record<string, string>): KubeObject => ({
  metadata: { name: 'web', namespace: 'ns', uid: 'set-uid' },
  spec: {
    serviceName: 'svc',
    volumeClaimTemplates: [{ metadata: { name: 'data' } }],
    ...(policy ? { persistentVolumeClaimRetentionPolicy: policy } : {}),
  },
});

test('ordinals come from the name only when they fit an int32', () => {
  assert.deepEqual(parentAndOrdinal({ metadata: { name: 'web-0' } }), { parent: 'web', ordinal: 0 });
  assert.deepEqual(parentAndOrdinal({ metadata: { name: 'my-db-12' } }), { parent: 'my-db', ordinal: 12 });
  assert.deepEqual(parentAndOrdinal({ metadata: { name: 'web-2147483648' } }), { parent: '', ordinal: -1 });
  assert.deepEqual(parentAndOrdinal({ metadata: { name: 'web-99999999999999999999999' } }), { parent: '', ordinal: -1 });
  assert.deepEqual(parentAndOrdinal({ metadata: { name: 'web' } }), { parent: '', ordinal: -1 });
  assert.deepEqual(parentAndOrdinal({ metadata: {} }), { parent: '', ordinal: -1 });
});

test('a member pod: the claim volume replaces a template volume of the same name; other volumes stay', () => {
  const pod = newMemberPod(
    set(),
    { metadata: { labels: { app: 'web' } }, spec: { volumes: [{ name: 'data', emptyDir: {} }, { name: 'cache', emptyDir: {} }], containers: [] } },
    3,
    'web-abc',
  );
  assert.equal(pod.metadata?.name, 'web-3');
  assert.deepEqual((pod.spec as { volumes: unknown[] }).volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-3' } }, { name: 'cache', emptyDir: {} }]);
  assert.equal((pod.spec as { subdomain: string }).subdomain, 'svc');
  assert.equal(pod.metadata?.labels?.['controller-revision-hash'], 'web-abc');
  // The pod-index label came with 1.28's PodIndexLabel; 1.27 pods carry the name label only.
  assert.deepEqual(Object.keys(pod.metadata?.labels ?? {}).sort(), ['app', 'controller-revision-hash', podNameLabel()].sort());
});

test('claim owners per retention policy (1.27: plain owner references)', () => {
  const pod: KubeObject = { metadata: { name: 'web-1', uid: 'pod-uid' } };
  const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set-uid' };
  const podRef = { apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: 'pod-uid' };
  assert.deepEqual(claimOwners(set(), pod, true), []);
  assert.deepEqual(claimOwners(set({ whenDeleted: 'Delete', whenScaled: 'Retain' }), pod, true), [setRef]);
  assert.deepEqual(claimOwners(set({ whenDeleted: 'Retain', whenScaled: 'Delete' }), pod, false), []);
  assert.deepEqual(claimOwners(set({ whenDeleted: 'Retain', whenScaled: 'Delete' }), pod, true), [podRef]);
  assert.deepEqual(claimOwners(set({ whenDeleted: 'Delete', whenScaled: 'Delete' }), pod, false), [setRef]);
  assert.deepEqual(claimOwners(set({ whenDeleted: 'Delete', whenScaled: 'Delete' }), pod, true), [podRef]);
  // Others' references stay; ours follow the policy; nothing to do gives undefined.
  const foreign = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x' };
  const claim: KubeObject = { metadata: { ownerReferences: [foreign, setRef] } };
  assert.deepEqual(reconcileClaimOwners(claim, set(), 'web-1', [podRef]), [foreign, podRef]);
  assert.equal(reconcileClaimOwners(claim, set(), 'web-1', [setRef]), undefined);
});
