import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../apimachinery/types.js';
import { byControllerUID, CLAIM_INDEXERS, claimCandidates, orphansByNamespace, podsByNodeName } from './indexes.js';
import { Informer, keyOf } from './informer.js';
import { LoopbackClient } from '../server/loopback.js';
import { memoryTable } from '../testing/memory-table.js';

// Any kind serves: the index functions read only metadata (pods are not served by the memory table).
const CM = { group: '', version: 'v1', resource: 'configmaps' };
const admin = { username: 'admin', groups: ['system:masters'] };

function pod(ns: string, name: string, controller?: string, nodeName?: string): KubeObject {
  return {
    metadata: { namespace: ns, name, ...(controller ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: controller, controller: true }] } : {}) },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(nodeName ? { nodeName } : {}) },
  };
}

test('index functions: controller uid, orphans by namespace, pods by node', () => {
  assert.deepEqual(byControllerUID(pod('a', 'p', 'u1')), ['u1']);
  assert.deepEqual(byControllerUID(pod('a', 'p')), []);
  assert.deepEqual(orphansByNamespace(pod('a', 'p')), ['a']);
  assert.deepEqual(orphansByNamespace(pod('a', 'p', 'u1')), []);
  assert.deepEqual(podsByNodeName(pod('a', 'p', undefined, 'n1')), ['n1']);
  assert.deepEqual(podsByNodeName(pod('a', 'p')), ['']);
  assert.deepEqual(podsByNodeName({ metadata: { name: 'odd' }, spec: { nodeName: 7 } }), ['']);
});

test('claimCandidates: the objects a controller owns in its namespace and the orphans there, nothing else', async () => {
  const { table, close } = memoryTable();
  const client = new LoopbackClient(table, admin);
  for (const p of [pod('a', 'mine', 'u1'), pod('a', 'other', 'u2'), pod('a', 'orphan'), pod('b', 'orphan'), pod('b', 'stray', 'u1')]) {
    await client.create(CM, p.metadata!.namespace!, { metadata: p.metadata });
  }
  const informer = new Informer(client, CM);
  informer.addIndexers(CLAIM_INDEXERS);
  informer.start();
  try {
    await informer.waitForSync();
    assert.deepEqual(claimCandidates(informer, 'a', 'u1').map(keyOf).sort(), ['a/mine', 'a/orphan']);
    assert.deepEqual(claimCandidates(informer, 'a', '').map(keyOf).sort(), ['a/orphan']);
    assert.deepEqual(claimCandidates(informer, 'c', 'u1').map(keyOf), []);
  } finally {
    await informer.stop();
    await close();
  }
});
