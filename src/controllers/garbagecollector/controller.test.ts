import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../apimachinery/clock.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { LoopbackClient } from '../../server/loopback.js';
import { coreDefinitions, memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import type { DiscoveredResource } from '../types.js';
import { GarbageCollector } from './controller.js';
import { testControllerContext } from '../../testing/controllers.js';

const CM = { group: '', version: 'v1', resource: 'configmaps' };
const NS = { group: '', version: 'v1', resource: 'namespaces' };
const admin = { username: 'admin', groups: ['system:masters'] };
const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const served: DiscoveredResource[] = [
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs },
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, verbs },
];

async function setup() {
  const mt = memoryTable(coreDefinitions('namespaces', 'configmaps'));
  const client = new LoopbackClient(mt.table, admin);
  const clock = new FakeClock();
  const ctx = testControllerContext(client, { clock, discover: () => Promise.resolve(served) });
  const { informers, events, errors } = ctx;
  const gc = new GarbageCollector(ctx);
  await gc.start();
  informers.start();
  await informers.waitForSync();
  const settled = async (what: string, probe: () => Promise<boolean>) => eventually(async () => (await probe()) && gc.idle(), what);
  return {
    client,
    gc,
    clock,
    events,
    errors,
    settled,
    async close() {
      await gc.stop();
      await informers.stop();
      await mt.close();
    },
  };
}

async function exists(client: LoopbackClient, ns: string, name: string): Promise<boolean> {
  try {
    await client.get(CM, ns, name);
    return true;
  } catch (e) {
    if (isApiError(e) && e.code === 404) return false;
    throw e;
  }
}

function ownedBy(owner: KubeObject, block = false) {
  return [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', ...(block ? { blockOwnerDeletion: true } : {}) }];
}

async function family(client: LoopbackClient, n: number, block = false) {
  const owner = await client.create(CM, 'default', { metadata: { name: 'owner' } });
  for (let i = 0; i < n; i++) await client.create(CM, 'default', { metadata: { name: `dep-${i}`, ownerReferences: ownedBy(owner, block) } });
  await client.create(CM, 'default', { metadata: { name: 'bystander' } });
  return owner;
}

test('background: dependents go after their owner, nothing else', async () => {
  const t = await setup();
  try {
    await family(t.client, 3);
    // Once the graph holds the whole family (the bystander was written last) and the queues
    // are drained, the collector has judged every dependent.
    await t.settled('the family in the graph', async () => (await t.client.list(CM, 'default')).items.every((o) => t.gc.graph.get(o.metadata?.uid ?? '')));
    for (const name of ['dep-0', 'dep-1', 'dep-2']) assert.ok(await exists(t.client, 'default', name), `an owner that exists keeps its dependent ${name}`);
    await t.client.delete(CM, 'default', 'owner');
    await t.settled('dependents gone', async () => !(await exists(t.client, 'default', 'dep-0')) && !(await exists(t.client, 'default', 'dep-2')));
    assert.ok(await exists(t.client, 'default', 'bystander'));
    assert.deepEqual(t.errors, []);
  } finally {
    await t.close();
  }
});

test('foreground: the owner waits with its finalizer until blocking dependents are gone', async () => {
  const t = await setup();
  try {
    await family(t.client, 2, true);
    const answer = await t.client.delete(CM, 'default', 'owner', { propagationPolicy: 'Foreground' });
    assert.ok(answer?.metadata?.deletionTimestamp);
    assert.deepEqual(answer?.metadata?.finalizers, ['foregroundDeletion']);
    await t.settled('owner gone', async () => !(await exists(t.client, 'default', 'owner')));
    assert.equal(await exists(t.client, 'default', 'dep-0'), false);
    assert.equal(await exists(t.client, 'default', 'dep-1'), false);
    assert.ok(await exists(t.client, 'default', 'bystander'));
  } finally {
    await t.close();
  }
});

test('orphan: dependents lose the reference and stay; the finalizer goes, then the owner', async () => {
  const t = await setup();
  try {
    await family(t.client, 2);
    const answer = await t.client.delete(CM, 'default', 'owner', { propagationPolicy: 'Orphan' });
    assert.deepEqual(answer?.metadata?.finalizers, ['orphan']);
    await t.settled('owner gone', async () => !(await exists(t.client, 'default', 'owner')));
    const dep = await t.client.get(CM, 'default', 'dep-0');
    assert.equal(dep.metadata?.ownerReferences, undefined);
    assert.ok(await exists(t.client, 'default', 'dep-1'));
  } finally {
    await t.close();
  }
});

test('legacy orphanDependents=true orphans as the Orphan policy does', async () => {
  const t = await setup();
  try {
    await family(t.client, 1);
    const answer = await t.client.delete(CM, 'default', 'owner', { orphanDependents: true });
    assert.deepEqual(answer?.metadata?.finalizers, ['orphan']);
    await t.settled('owner gone', async () => !(await exists(t.client, 'default', 'owner')));
    assert.ok(await exists(t.client, 'default', 'dep-0'));
  } finally {
    await t.close();
  }
});

test('a dependent whose owner uid does not exist is deleted; one with a live owner among dead ones loses only the dead references', async () => {
  const t = await setup();
  try {
    const live = await t.client.create(CM, 'default', { metadata: { name: 'live' } });
    const ghost = { apiVersion: 'v1', kind: 'ConfigMap', name: 'live', uid: 'not-the-live-uid' };
    await t.client.create(CM, 'default', { metadata: { name: 'orphaned', ownerReferences: [ghost] } });
    await t.client.create(CM, 'default', { metadata: { name: 'mixed', ownerReferences: [...ownedBy(live), { ...ghost, name: 'gone', uid: 'gone-uid' }] } });
    await t.settled('the dangling dependent deleted', async () => !(await exists(t.client, 'default', 'orphaned')));
    const mixed = await t.settled('the dead reference dropped', async () => (await t.client.get(CM, 'default', 'mixed')).metadata?.ownerReferences?.length === 1);
    assert.ok(mixed);
    assert.equal((await t.client.get(CM, 'default', 'mixed')).metadata?.ownerReferences?.[0]?.uid, live.metadata?.uid);
  } finally {
    await t.close();
  }
});

test('namespaced dependents of a cluster-scoped owner are fine; a cluster-scoped dependent of a namespaced owner is reported, never deleted', async () => {
  const t = await setup();
  try {
    const ns = await t.client.create(NS, '', { metadata: { name: 'team' } });
    await t.client.create(CM, 'default', { metadata: { name: 'of-ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'team', uid: ns.metadata?.uid ?? '' }] } });
    const cmOwner = await t.client.create(CM, 'default', { metadata: { name: 'cm-owner' } });
    await t.client.create(NS, '', { metadata: { name: 'bad', ownerReferences: ownedBy(cmOwner) } });
    await t.settled('the event', async () => t.events.events.some((e) => e.reason === 'OwnerRefInvalidNamespace'));
    const ev = t.events.events.find((e) => e.reason === 'OwnerRefInvalidNamespace');
    assert.equal(ev?.type, 'Warning');
    assert.equal(ev?.regarding.metadata?.name, 'bad');
    assert.equal(ev?.note, `ownerRef [v1/ConfigMap, namespace: , name: cm-owner, uid: ${cmOwner.metadata?.uid}] does not exist in namespace ""`);
    assert.ok(await exists(t.client, 'default', 'of-ns'));
    assert.ok(await t.client.get(NS, '', 'bad'));
    assert.equal(t.events.events.filter((e) => e.reason === 'OwnerRefInvalidNamespace').length, 1, 'reported once, no loop');
  } finally {
    await t.close();
  }
});

test('deletecollection goes through the policies', async () => {
  const t = await setup();
  try {
    await family(t.client, 2);
    await t.client.deleteCollection(CM, 'default', { propagationPolicy: 'Orphan' });
    await t.settled('all gone but the orphaned', async () => !(await exists(t.client, 'default', 'owner')));
    // deletecollection deleted every ConfigMap (orphaning the dependents first for the owner).
    assert.equal(await exists(t.client, 'default', 'bystander'), false);
  } finally {
    await t.close();
  }
});

test('1,000 dependents of one owner are all deleted and nothing else is touched', async () => {
  const t = await setup();
  try {
    const owner = await t.client.create(CM, 'default', { metadata: { name: 'owner' } });
    for (let i = 0; i < 1000; i++) await t.client.create(CM, 'default', { metadata: { name: `dep-${i}`, ownerReferences: ownedBy(owner) } });
    for (let i = 0; i < 20; i++) await t.client.create(CM, 'other', { metadata: { name: `keep-${i}` } });
    await t.client.delete(CM, 'default', 'owner');
    await t.settled('all dependents gone', async () => (await t.client.list(CM, 'default')).items.length === 0);
    assert.equal((await t.client.list(CM, 'other')).items.length, 20);
    assert.deepEqual(t.errors, []);
  } finally {
    await t.close();
  }
});

test('served resources are looked at again on the injected clock', async () => {
  const t = await setup();
  try {
    const waiting = t.clock.waiting();
    assert.ok(waiting >= 1);
    t.clock.step(30_000);
    await eventually(() => t.clock.waiting() >= 1, 'the next discovery');
  } finally {
    await t.close();
  }
});
