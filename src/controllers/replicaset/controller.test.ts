import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { eventually } from '../../testing/wait.js';
import { replicationControllerDescriptor } from '../replicationcontroller/index.js';
import { PODS, REPLICASETS, REPLICATIONCONTROLLERS, type ReplicaSetStatus } from './controller.js';
import { makeReady, podsWith, startWorkload, startWorkloadWith } from './harness.test.js';
import type { ApiClient } from '../../client/types.js';
import { forbidden } from '../../apimachinery/errors.js';
import { replicaSetControllerDescriptor } from './index.js';
import { podDeletionCostAnnotation, rankPodsForDeletion } from './ranking.js';

function rs(name: string, replicas: number, extra: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...extra,
    },
  };
}

const owned = (name: string) => (p: KubeObject): boolean => p.metadata?.ownerReferences?.some((r) => r.controller === true && r.name === name) === true;

async function statusOf(client: { get(...a: never[]): Promise<KubeObject> } & Record<string, unknown>, name: string): Promise<ReplicaSetStatus> {
  const o = await (client as unknown as { get(r: typeof REPLICASETS, ns: string, n: string): Promise<KubeObject> }).get(REPLICASETS, 'default', name);
  return (o.status ?? {}) as ReplicaSetStatus;
}

test('creates replicas from the template with generateName and a controller reference, and counts them', async () => {
  const h = await startWorkload(replicaSetControllerDescriptor);
  try {
    const created = await h.client.create(REPLICASETS, 'default', rs('web', 3));
    const pods = await eventually(async () => {
      const p = await podsWith(h.client, owned('web'));
      return p.length === 3 ? p : undefined;
    }, 'three pods');
    for (const p of pods) {
      assert.match(p.metadata?.name ?? '', /^web-[a-z0-9]{5}$/);
      assert.deepEqual(p.metadata?.labels, { app: 'web' });
      assert.deepEqual(p.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: created.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await h.settle();
    assert.equal(pods.length, (await podsWith(h.client)).length, 'no pod created twice');
    let s = await statusOf(h.client as never, 'web');
    assert.equal(s.replicas, 3);
    assert.equal(s.fullyLabeledReplicas, 3);
    assert.equal(s.readyReplicas ?? 0, 0);
    assert.equal(s.observedGeneration, 1);
    const creates = h.recorder.events.filter((e) => e.reason === 'SuccessfulCreate');
    assert.equal(creates.length, 3);
    assert.ok(creates.every((e) => /^Created pod: web-/.test(e.note)));

    await makeReady(h.client, pods[0], h.clock.now());
    await eventually(async () => ((s = await statusOf(h.client as never, 'web')).availableReplicas === 1 ? true : undefined), 'one available');
    assert.equal(s.readyReplicas, 1);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('scale down deletes not-ready pods before ready ones; a deleted pod is replaced', async () => {
  const h = await startWorkload(replicaSetControllerDescriptor);
  try {
    await h.client.create(REPLICASETS, 'default', rs('web', 3));
    const pods = await eventually(async () => {
      const p = await podsWith(h.client, owned('web'));
      return p.length === 3 ? p : undefined;
    }, 'three pods');
    await makeReady(h.client, pods[1], h.clock.now());
    await eventually(async () => ((await statusOf(h.client as never, 'web')).readyReplicas === 1 ? true : undefined), 'ready 1');
    await h.client.patch(REPLICASETS, 'default', 'web', { spec: { replicas: 1 } });
    const left = await eventually(async () => {
      const p = await podsWith(h.client, owned('web'));
      return p.length === 1 ? p : undefined;
    }, 'one pod left');
    assert.equal(left[0].metadata?.name, pods[1].metadata?.name, 'the ready pod stays');
    assert.equal(h.recorder.events.filter((e) => e.reason === 'SuccessfulDelete').length, 2);
    assert.ok(h.recorder.events.some((e) => e.note === `Deleted pod: ${pods[0].metadata?.name}`));

    await h.client.delete(PODS, 'default', left[0].metadata?.name ?? '');
    await eventually(async () => {
      const p = await podsWith(h.client, owned('web'));
      return p.length === 1 && p[0].metadata?.name !== left[0].metadata?.name ? true : undefined;
    }, 'a replacement');
  } finally {
    await h.close();
  }
});

test('adopts a matching orphan, releases a pod relabelled away, leaves pods of other controllers alone', async () => {
  const h = await startWorkload(replicaSetControllerDescriptor);
  try {
    await h.client.create(PODS, 'default', { metadata: { name: 'orphan', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await h.client.create(PODS, 'default', {
      metadata: { name: 'taken', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'x', uid: 'other', controller: true }] },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    const created = await h.client.create(REPLICASETS, 'default', rs('web', 2));
    await eventually(async () => ((await podsWith(h.client, owned('web'))).length === 2 ? true : undefined), 'two owned pods');
    await h.settle();
    const orphan = await h.client.get(PODS, 'default', 'orphan');
    assert.equal(orphan.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid, 'the orphan is adopted');
    assert.equal((await h.client.get(PODS, 'default', 'taken')).metadata?.ownerReferences?.[0]?.uid, 'other');
    assert.equal((await podsWith(h.client)).length, 3, 'only one pod created');

    await h.client.patch(PODS, 'default', 'orphan', { metadata: { labels: { app: 'elsewhere' } } });
    await eventually(async () => ((await h.client.get(PODS, 'default', 'orphan')).metadata?.ownerReferences === undefined ? true : undefined), 'released');
    await eventually(async () => ((await podsWith(h.client, owned('web'))).length === 2 ? true : undefined), 'replaced');
  } finally {
    await h.close();
  }
});

test('minReadySeconds: a ready pod becomes available when the clock passes it', async () => {
  const h = await startWorkload(replicaSetControllerDescriptor);
  try {
    await h.client.create(REPLICASETS, 'default', rs('slow', 1, { minReadySeconds: 10 }));
    const [pod] = await eventually(async () => {
      const p = await podsWith(h.client, owned('slow'));
      return p.length === 1 ? p : undefined;
    }, 'a pod');
    await makeReady(h.client, pod, h.clock.now());
    await eventually(async () => ((await statusOf(h.client as never, 'slow')).readyReplicas === 1 ? true : undefined), 'ready');
    await h.settle();
    assert.equal((await statusOf(h.client as never, 'slow')).availableReplicas ?? 0, 0);
    await h.step(10_000);
    await eventually(async () => ((await statusOf(h.client as never, 'slow')).availableReplicas === 1 ? true : undefined), 'available after 10 s');
  } finally {
    await h.close();
  }
});

test('a failing create sets ReplicaFailure and FailedCreate, and slow start stops after the first failing batch', async () => {
  // Every pod create is refused, as an exhausted quota would.
  let attempts = 0;
  const refuse = (client: ApiClient): ApiClient =>
    Object.assign(Object.create(client) as ApiClient, {
      create: async (r: GroupVersionResource, ns: string, obj: KubeObject) => {
        if (r.resource !== 'pods') return client.create(r, ns, obj);
        attempts++;
        throw forbidden({ group: '', resource: 'pods' }, '', 'exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0');
      },
    });
  const h = await startWorkloadWith({ wrapClient: refuse }, replicaSetControllerDescriptor);
  try {
    await h.client.create(REPLICASETS, 'default', rs('bad', 10));
    const s = await eventually(async () => {
      const st = await statusOf(h.client as never, 'bad');
      return st.conditions?.some((c) => c.type === 'ReplicaFailure') ? st : undefined;
    }, 'ReplicaFailure');
    const c = s.conditions?.find((x) => x.type === 'ReplicaFailure');
    assert.equal(c?.reason, 'FailedCreate');
    assert.equal(c?.status, 'True');
    const failures = h.recorder.events.filter((e) => e.reason === 'FailedCreate');
    assert.ok(failures.length >= 1 && /^Error creating: /.test(failures[0].note));
    // The first sync tries one create (batch of 1) and stops.
    assert.equal(failures.length, attempts);
    assert.match(c?.message ?? '', /exceeded quota/);
    assert.ok(attempts < 10, `slow start: ${attempts} creates tried`);
  } finally {
    await h.close();
  }
});

test('a ReplicationController runs the same logic over its map selector', async () => {
  const h = await startWorkload(replicationControllerDescriptor);
  try {
    const created = await h.client.create(REPLICATIONCONTROLLERS, 'default', {
      metadata: { name: 'rc' },
      spec: { replicas: 2, selector: { app: 'rc' }, template: { metadata: { labels: { app: 'rc' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const pods = await eventually(async () => {
      const p = await podsWith(h.client, owned('rc'));
      return p.length === 2 ? p : undefined;
    }, 'two pods');
    assert.deepEqual(pods[0].metadata?.ownerReferences?.[0], { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: created.metadata?.uid, controller: true, blockOwnerDeletion: true });
    await eventually(async () => ((await h.client.get(REPLICATIONCONTROLLERS, 'default', 'rc')).status as ReplicaSetStatus | undefined)?.replicas === 2 || undefined, 'status');
  } finally {
    await h.close();
  }
});

test('deletion ranking: unscheduled, pending, not ready, low cost, doubled up, recently ready, restarts, newer go first', () => {
  const now = Date.UTC(2024, 0, 1);
  const iso = (ms: number): string => new Date(ms).toISOString();
  const pod = (name: string, o: { node?: string; phase?: string; readyAt?: number; created?: number; restarts?: number; cost?: string }): KubeObject => ({
    metadata: {
      name,
      uid: name,
      creationTimestamp: iso(o.created ?? now - 3_600_000),
      ...(o.cost ? { annotations: { [podDeletionCostAnnotation()]: o.cost } } : {}),
    },
    spec: o.node ? { nodeName: o.node } : {},
    status: {
      phase: o.phase ?? 'Running',
      ...(o.readyAt !== undefined ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(o.readyAt) }] } : {}),
      ...(o.restarts ? { containerStatuses: [{ restartCount: o.restarts }] } : {}),
    },
  });
  const pods = [
    pod('old-ready', { node: 'n1', readyAt: now - 3_600_000 }),
    pod('unscheduled', { phase: 'Pending' }),
    pod('pending', { node: 'n1', phase: 'Pending' }),
    pod('not-ready', { node: 'n1' }),
    pod('new-ready', { node: 'n1', readyAt: now - 1000 }),
  ];
  const order = rankPodsForDeletion(pods, [0, 0, 0, 0, 0], now).map((p) => p.metadata?.name);
  assert.deepEqual(order, ['unscheduled', 'pending', 'not-ready', 'new-ready', 'old-ready']);
  const costly = [pod('a', { node: 'n', cost: '10' }), pod('b', { node: 'n' })];
  assert.deepEqual(rankPodsForDeletion(costly, [0, 0], now).map((p) => p.metadata?.name), ['b', 'a']);
  const doubled = [pod('alone', { node: 'n1' }), pod('crowded', { node: 'n2' })];
  assert.deepEqual(rankPodsForDeletion(doubled, [1, 3], now).map((p) => p.metadata?.name), ['crowded', 'alone']);
  const restarts = [pod('calm', { node: 'n' }), pod('crashy', { node: 'n', restarts: 4 })];
  assert.deepEqual(rankPodsForDeletion(restarts, [0, 0], now).map((p) => p.metadata?.name), ['crashy', 'calm']);
  const ages = [pod('older', { node: 'n', created: now - 86_400_000 }), pod('newer', { node: 'n', created: now - 1000 })];
  assert.deepEqual(rankPodsForDeletion(ages, [0, 0], now).map((p) => p.metadata?.name), ['newer', 'older']);
});

test('a deletion cost that is not a 32-bit integer counts as zero', () => {
  const now = Date.UTC(2024, 0, 1);
  const pod = (name: string, cost: string): KubeObject => ({
    metadata: { name, uid: name, creationTimestamp: new Date(now - 1000).toISOString(), annotations: { [podDeletionCostAnnotation()]: cost } },
    spec: { nodeName: 'n' },
    status: { phase: 'Running' },
  });
  for (const bad of ['abc', '1e3', '99999999999', '__proto__', '', ' 5']) {
    const order = rankPodsForDeletion([pod('low', '-1'), pod('bad', bad)], [0, 0], now).map((p) => p.metadata?.name);
    assert.deepEqual(order, ['low', 'bad'], `cost ${JSON.stringify(bad)}`);
  }
});
