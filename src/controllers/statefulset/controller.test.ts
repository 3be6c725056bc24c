import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { eventually } from '../../testing/wait.js';
import { CONTROLLERREVISIONS } from '../history/revisions.js';
import { PVCS, STATEFULSETS, type StatefulSetStatus } from './controller.js';
import { podNameLabel, revisionHashLabel, statefulSetControllerDescriptor } from './index.js';
import { pod, podNames, setPodStatus, start, type Harness } from './harness.test.js';

function sts(name: string, replicas: number, extra: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name },
    spec: {
      replicas,
      serviceName: 'nginx',
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...extra,
    },
  };
}

async function statusOf(h: Harness, name = 'web'): Promise<StatefulSetStatus> {
  return ((await h.client.get(STATEFULSETS, 'default', name)).status ?? {}) as StatefulSetStatus;
}

async function waitPods(h: Harness, names: string[]): Promise<void> {
  await eventually(async () => (JSON.stringify(await podNames(h.client)) === JSON.stringify(names) ? true : undefined), `pods ${names.join(',')}`);
}

async function readyAll(h: Harness, names: string[]): Promise<void> {
  for (const n of names) await setPodStatus(h.client, n, h.clock.now());
}

test('OrderedReady: web-0 first, web-1 only once web-0 is Running and Ready; identity, claims, revision and events as kube', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    const claimTemplate = { metadata: { name: 'www', labels: { tier: 'data' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const set = await h.client.create(STATEFULSETS, 'default', sts('web', 3, { volumeClaimTemplates: [claimTemplate] }));
    await waitPods(h, ['web-0']);
    await h.settle();
    assert.deepEqual(await podNames(h.client), ['web-0'], 'web-1 waits for web-0');
    const p0 = await pod(h.client, 'web-0');
    const spec = p0.spec as { hostname: string; subdomain: string; volumes: unknown[] };
    assert.equal(spec.hostname, 'web-0');
    assert.equal(spec.subdomain, 'nginx');
    assert.deepEqual(spec.volumes, [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } }]);
    let s = await statusOf(h);
    assert.equal(p0.metadata?.labels?.['controller-revision-hash'], s.updateRevision);
    assert.equal(p0.metadata?.labels?.[podNameLabel()], 'web-0');
    assert.equal(s.currentRevision, s.updateRevision);
    assert.equal(s.replicas, 1);
    assert.equal(s.observedGeneration, 1);
    assert.ok(!('readyReplicas' in s), 'a zero optional count is left out');
    assert.equal(s.availableReplicas, 0, 'availableReplicas is always there');
    assert.deepEqual(p0.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    const claim = await h.client.get(PVCS, 'default', 'www-web-0');
    assert.deepEqual(claim.metadata?.labels, { tier: 'data', app: 'web' });
    assert.equal(claim.metadata?.ownerReferences, undefined, 'Retain keeps the claim unowned');
    const revision = await h.client.get(CONTROLLERREVISIONS, 'default', s.updateRevision ?? '');
    assert.equal(revision.revision, 1);
    assert.equal(revision.metadata?.labels?.app, 'web');
    assert.match(revision.metadata?.labels?.[revisionHashLabel()] ?? '', /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(s.updateRevision, `web-${revision.metadata?.labels?.[revisionHashLabel()]}`);
    const template = (revision.data as { spec: { template: Record<string, unknown> } }).spec.template;
    assert.equal(template.$patch, 'replace');
    assert.deepEqual((template.metadata as { labels: unknown }).labels, { app: 'web' });
    const notes = h.recorder.events.map((e) => `${e.reason}: ${e.note}`);
    assert.ok(notes.includes('SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success'), notes.join('\n'));
    assert.ok(notes.includes('SuccessfulCreate: create Pod web-0 in StatefulSet web successful'), notes.join('\n'));

    await setPodStatus(h.client, 'web-0', h.clock.now(), 'Running', false);
    await h.settle();
    assert.deepEqual(await podNames(h.client), ['web-0'], 'Running but not Ready still blocks');
    await setPodStatus(h.client, 'web-0', h.clock.now());
    await waitPods(h, ['web-0', 'web-1']);
    await setPodStatus(h.client, 'web-1', h.clock.now());
    await waitPods(h, ['web-0', 'web-1', 'web-2']);
    await setPodStatus(h.client, 'web-2', h.clock.now());
    await eventually(async () => ((s = await statusOf(h)).readyReplicas === 3 ? true : undefined), 'three ready');
    assert.equal(s.availableReplicas, 3);
    assert.equal(s.currentReplicas, 3);
    assert.equal(s.updatedReplicas, 3);
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('OrderedReady scale down removes the highest ordinal first, one at a time; Parallel creates all at once', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 3, { podManagementPolicy: 'Parallel' }));
    await waitPods(h, ['web-0', 'web-1', 'web-2']);
    await readyAll(h, ['web-0', 'web-1', 'web-2']);
    await h.client.create(STATEFULSETS, 'default', sts('db', 3));
    await waitPods(h, ['db-0', 'web-0', 'web-1', 'web-2']);
    await readyAll(h, ['db-0']);
    await waitPods(h, ['db-0', 'db-1', 'web-0', 'web-1', 'web-2']);
    await readyAll(h, ['db-1']);
    await waitPods(h, ['db-0', 'db-1', 'db-2', 'web-0', 'web-1', 'web-2']);
    await readyAll(h, ['db-2']);
    await eventually(async () => ((await statusOf(h, 'db')).readyReplicas === 3 ? true : undefined), 'db ready');

    // A finalizer keeps db-2 terminating: db-1 waits for it to be gone.
    await h.client.patch({ group: '', version: 'v1', resource: 'pods' }, 'default', 'db-2', { metadata: { finalizers: ['example.com/hold'] } });
    await h.client.patch(STATEFULSETS, 'default', 'db', { spec: { replicas: 1 } });
    await waitPods(h, ['db-0', 'db-1', 'web-0', 'web-1', 'web-2']);
    await h.settle();
    assert.deepEqual(await podNames(h.client), ['db-0', 'db-1', 'web-0', 'web-1', 'web-2'], 'db-1 waits while db-2 terminates');
    await h.client.patch({ group: '', version: 'v1', resource: 'pods' }, 'default', 'db-2', { metadata: { finalizers: null } });
    await waitPods(h, ['db-0', 'web-0', 'web-1', 'web-2']);
    const deletes = h.recorder.events.filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.note);
    assert.deepEqual(deletes, ['delete Pod db-2 in StatefulSet db successful', 'delete Pod db-1 in StatefulSet db successful']);

    // Parallel removes every condemned pod at once.
    await h.client.patch(STATEFULSETS, 'default', 'web', { spec: { replicas: 0 } });
    await waitPods(h, ['db-0']);
  } finally {
    await h.close();
  }
});

test('OrderedReady does not scale down while a pod is unhealthy', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 2));
    await waitPods(h, ['web-0']);
    await readyAll(h, ['web-0']);
    await waitPods(h, ['web-0', 'web-1']);
    await readyAll(h, ['web-1']);
    await eventually(async () => ((await statusOf(h)).readyReplicas === 2 ? true : undefined), 'ready');
    await setPodStatus(h.client, 'web-0', h.clock.now(), 'Running', false);
    await h.client.patch(STATEFULSETS, 'default', 'web', { spec: { replicas: 1 } });
    await h.settle();
    assert.deepEqual(await podNames(h.client), ['web-0', 'web-1']);
    await readyAll(h, ['web-0']);
    await waitPods(h, ['web-0']);
  } finally {
    await h.close();
  }
});

test('RollingUpdate with a partition updates from the highest ordinal down, one at a time, after each is Ready; undo renumbers the old revision', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 3, { podManagementPolicy: 'Parallel' }));
    await waitPods(h, ['web-0', 'web-1', 'web-2']);
    await readyAll(h, ['web-0', 'web-1', 'web-2']);
    await eventually(async () => ((await statusOf(h)).readyReplicas === 3 ? true : undefined), 'ready');
    const first = (await statusOf(h)).updateRevision;
    await h.client.patch(STATEFULSETS, 'default', 'web', {
      spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } }, template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } },
    });
    const second = await eventually(async () => {
      const s = await statusOf(h);
      return s.updateRevision !== first ? s.updateRevision : undefined;
    }, 'a new revision');
    const image = async (n: string): Promise<string> => ((await pod(h.client, n)).spec as { containers: { image: string }[] }).containers[0].image;
    await eventually(async () => ((await podNames(h.client)).length === 3 && (await image('web-2').catch(() => '')) === 'nginx:2' ? true : undefined), 'web-2 updated');
    await h.settle();
    assert.equal(await image('web-1'), 'nginx:1', 'web-1 waits for web-2 to be Ready');
    assert.equal((await pod(h.client, 'web-2')).metadata?.labels?.['controller-revision-hash'], second);
    await readyAll(h, ['web-2']);
    await eventually(async () => ((await image('web-1').catch(() => '')) === 'nginx:2' ? true : undefined), 'web-1 updated');
    await readyAll(h, ['web-1']);
    await h.settle();
    assert.equal(await image('web-0'), 'nginx:1', 'below the partition stays');
    let s = await statusOf(h);
    assert.equal(s.currentRevision, first);
    assert.equal(s.updatedReplicas, 2);
    assert.equal(s.currentReplicas, 1);

    // Partition 0 finishes the rollout; the current revision follows.
    await h.client.patch(STATEFULSETS, 'default', 'web', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
    await eventually(async () => ((await image('web-0').catch(() => '')) === 'nginx:2' ? true : undefined), 'web-0 updated');
    await readyAll(h, ['web-0']);
    await eventually(async () => ((s = await statusOf(h)).currentRevision === second && s.readyReplicas === 3 ? true : undefined), 'rollout complete');

    // Back to the first template: its revision is renumbered, no third one is made.
    await h.client.patch(STATEFULSETS, 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } } });
    await eventually(async () => ((await statusOf(h)).updateRevision === first ? true : undefined), 'first revision again');
    const revisions = (await h.client.list(CONTROLLERREVISIONS, 'default')).items.map((r) => [r.metadata?.name, r.revision]).sort();
    assert.deepEqual(revisions, [[first, 3], [second, 2]].sort());
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('OnDelete leaves pods alone until deleted; a failed pod is replaced', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 1, { updateStrategy: { type: 'OnDelete' } }));
    await waitPods(h, ['web-0']);
    await readyAll(h, ['web-0']);
    const before = (await pod(h.client, 'web-0')).metadata?.uid;
    await h.client.patch(STATEFULSETS, 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
    await h.settle();
    assert.equal((await pod(h.client, 'web-0')).metadata?.uid, before);
    const s = await statusOf(h);
    assert.notEqual(s.updateRevision, s.currentRevision);
    await setPodStatus(h.client, 'web-0', h.clock.now(), 'Failed', false);
    await eventually(async () => {
      const p = await pod(h.client, 'web-0').catch(() => undefined);
      return p && p.metadata?.uid !== before ? p : undefined;
    }, 'a new web-0');
    assert.equal(((await pod(h.client, 'web-0')).spec as { containers: { image: string }[] }).containers[0].image, 'nginx:2');
    assert.ok(h.recorder.events.some((e) => e.reason === 'RecreatingFailedPod' && e.type === 'Warning' && e.note === 'StatefulSet default/web is recreating failed Pod web-0'));
  } finally {
    await h.close();
  }
});

test('persistentVolumeClaimRetentionPolicy Delete: the set owns its claims, a condemned pod alone owns its claims before it goes', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    const claimTemplate = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const set = await h.client.create(
      STATEFULSETS,
      'default',
      sts('web', 2, { podManagementPolicy: 'Parallel', volumeClaimTemplates: [claimTemplate], persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }),
    );
    await waitPods(h, ['web-0', 'web-1']);
    const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata?.uid };
    assert.deepEqual((await h.client.get(PVCS, 'default', 'data-web-1')).metadata?.ownerReferences, [setRef]);
    // A finalizer keeps web-1 visible while it terminates.
    await h.client.patch({ group: '', version: 'v1', resource: 'pods' }, 'default', 'web-1', { metadata: { finalizers: ['example.com/hold'] } });
    const web1 = await pod(h.client, 'web-1');
    await h.client.patch(STATEFULSETS, 'default', 'web', { spec: { replicas: 1 } });
    await eventually(async () => ((await pod(h.client, 'web-1')).metadata?.deletionTimestamp ? true : undefined), 'web-1 terminating');
    assert.deepEqual((await h.client.get(PVCS, 'default', 'data-web-1')).metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: web1.metadata?.uid }]);
    assert.deepEqual((await h.client.get(PVCS, 'default', 'data-web-0')).metadata?.ownerReferences, [setRef]);
  } finally {
    await h.close();
  }
});

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`StatefulSet label keys (${flavor} flavor)`, () => {
    before(() => setFlavor(flavor));
    after(() => setFlavor('orch'));
    it('names the pod-name label and the revision hash label in the flavor', () => {
      const domain = flavor === 'kubernetes' ? 'kubernetes.io' : 'orch.io';
      assert.equal(podNameLabel(), `statefulset.${domain}/pod-name`);
      assert.equal(revisionHashLabel(), `controller.${domain}/hash`);
    });
  });
}

test('spec.ordinals.start numbers the pods from there, and the partition counts from it', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 2, { podManagementPolicy: 'Parallel', ordinals: { start: 5 } }));
    await waitPods(h, ['web-5', 'web-6']);
    await readyAll(h, ['web-5', 'web-6']);
    await eventually(async () => ((await statusOf(h)).readyReplicas === 2 ? true : undefined), 'ready');
    await h.client.patch(STATEFULSETS, 'default', 'web', {
      spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } }, template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } },
    });
    const image = async (n: string): Promise<string> => ((await pod(h.client, n).catch(() => ({ spec: { containers: [{ image: '' }] } }))).spec as { containers: { image: string }[] }).containers[0].image;
    await eventually(async () => ((await image('web-6')) === 'nginx:2' ? true : undefined), 'web-6 updated');
    await readyAll(h, ['web-6']);
    await h.settle();
    assert.equal(await image('web-5'), 'nginx:1', 'the first ordinal is below the partition');
  } finally {
    await h.close();
  }
});

test('a member relabelled out of the selector is released', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 1));
    await waitPods(h, ['web-0']);
    await h.client.patch({ group: '', version: 'v1', resource: 'pods' }, 'default', 'web-0', { metadata: { labels: { app: 'other' } } });
    await eventually(async () => ((await pod(h.client, 'web-0')).metadata?.ownerReferences === undefined ? true : undefined), 'released');
    await eventually(async () => ((await statusOf(h)).replicas === 0 ? true : undefined), 'not counted');
  } finally {
    await h.close();
  }
});

test('a set deleted with its dependents orphaned and made again adopts its pods and its revisions', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 1));
    await waitPods(h, ['web-0']);
    const revision = (await statusOf(h)).updateRevision ?? '';
    await h.settle();
    // No garbage collector runs here: removing the set leaves its pods and revisions orphaned once their references are cut.
    await h.client.delete(STATEFULSETS, 'default', 'web');
    await h.client.patch({ group: '', version: 'v1', resource: 'pods' }, 'default', 'web-0', { metadata: { ownerReferences: null } });
    await h.client.patch(CONTROLLERREVISIONS, 'default', revision, { metadata: { ownerReferences: null } });
    const again = await h.client.create(STATEFULSETS, 'default', sts('web', 1));
    await eventually(async () => ((await pod(h.client, 'web-0')).metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid ? true : undefined), 'pod adopted');
    await eventually(async () => ((await h.client.get(CONTROLLERREVISIONS, 'default', revision)).metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid ? true : undefined), 'revision adopted');
    await h.settle();
    const s = await statusOf(h);
    assert.equal(s.updateRevision, revision, 'the same revision, no collision');
    assert.equal(s.collisionCount ?? 0, 0);
    assert.equal((await h.client.list(CONTROLLERREVISIONS, 'default')).items.length, 1);
  } finally {
    await h.close();
  }
});

test('OrderedReady waits minReadySeconds after a pod is Ready before the next one', async () => {
  const h = await start(statefulSetControllerDescriptor);
  try {
    await h.client.create(STATEFULSETS, 'default', sts('web', 2, { minReadySeconds: 10 }));
    await waitPods(h, ['web-0']);
    await readyAll(h, ['web-0']);
    await h.settle();
    assert.deepEqual(await podNames(h.client), ['web-0'], 'not available yet');
    assert.equal((await statusOf(h)).availableReplicas, 0);
    h.clock.step(10_000);
    await waitPods(h, ['web-0', 'web-1']);
    assert.equal((await statusOf(h)).availableReplicas, 1);
  } finally {
    await h.close();
  }
});
