import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPodReady } from '../../apis/core/helpers/pod.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { eventually } from '../../testing/wait.js';
import { REPLICASETS } from '../replicaset/controller.js';
import { makeReady, podsWith, startWorkload, type WorkloadHarness } from '../replicaset/harness.test.js';
import { replicaSetControllerDescriptor } from '../replicaset/index.js';
import { computeHash, safeEncodeString } from './hash.js';
import { DEPLOYMENTS, deploymentAnnotation, deploymentControllerDescriptor } from './index.js';
import type { Condition, DeploymentStatus } from './util.js';

function deployment(name: string, replicas: number, spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...spec,
    },
  };
}

async function status(h: WorkloadHarness, name: string): Promise<DeploymentStatus> {
  return ((await h.client.get(DEPLOYMENTS, 'default', name)).status ?? {}) as DeploymentStatus;
}

function cond(s: DeploymentStatus, type: string): Condition | undefined {
  return s.conditions?.find((c) => c.type === type);
}

async function replicaSets(h: WorkloadHarness): Promise<KubeObject[]> {
  return (await h.client.list(REPLICASETS, 'default')).items;
}

/** Marks every pod Ready (as a node agent would) until `done` holds. */
async function rollUntil(h: WorkloadHarness, name: string, done: (s: DeploymentStatus) => boolean): Promise<DeploymentStatus> {
  return eventually(async () => {
    for (const p of await podsWith(h.client, (x) => !isPodReady(x) && !x.metadata?.deletionTimestamp)) {
      await makeReady(h.client, p, h.clock.now()).catch(() => undefined);
    }
    const d = await h.client.get(DEPLOYMENTS, 'default', name);
    const s = (d.status ?? {}) as DeploymentStatus;
    return s.observedGeneration === d.metadata?.generation && done(s) ? s : undefined;
  }, `${name} to roll out`);
}

const complete = (n: number) => (s: DeploymentStatus): boolean =>
  s.updatedReplicas === n && s.replicas === n && s.availableReplicas === n && cond(s, 'Progressing')?.reason === 'NewReplicaSetAvailable';

test('the pod-template-hash is kube-encoded, stable, and moves with the collision count', () => {
  assert.equal(safeEncodeString('0123456789'), 'bcdfghjklm'.split('').map((_, i) => 'bcdfghjklmnpqrstvwxz2456789'[(48 + i) % 27]).join(''));
  const t = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const same = { spec: { containers: [{ image: 'nginx', name: 'c' }] }, metadata: { labels: { app: 'web' } } };
  assert.equal(computeHash(t), computeHash(same));
  assert.match(computeHash(t), /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  assert.notEqual(computeHash(t, 1), computeHash(t));
  assert.notEqual(computeHash(t, 1), computeHash(t, 2));
});

for (const flavor of ['kubernetes', 'orch'] as const) {
  test(`a Deployment rolls out a ReplicaSet <name>-<hash> with revision 1 and completes (${flavor} flavor)`, async () => {
    setFlavor(flavor);
    const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
    try {
      await h.client.create(DEPLOYMENTS, 'default', deployment('web', 3));
      const [rs] = await eventually(async () => {
        const l = await replicaSets(h);
        return l.length === 1 ? l : undefined;
      }, 'a ReplicaSet');
      const hash = rs.metadata?.labels?.['pod-template-hash'] ?? '';
      assert.equal(rs.metadata?.name, `web-${hash}`);
      const spec = rs.spec as { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } };
      assert.deepEqual(spec.selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
      assert.deepEqual(spec.template.metadata.labels, { app: 'web', 'pod-template-hash': hash });
      assert.equal(spec.replicas, 3);
      const ann = rs.metadata?.annotations ?? {};
      const prefix = flavor === 'kubernetes' ? 'deployment.kubernetes.io' : 'deployment.orch.io';
      assert.equal(ann[`${prefix}/revision`], '1');
      assert.equal(ann[`${prefix}/desired-replicas`], '3');
      assert.equal(ann[`${prefix}/max-replicas`], '4');
      assert.ok(h.recorder.events.some((e) => e.reason === 'ScalingReplicaSet' && e.note === `Scaled up replica set web-${hash} to 3`));

      const s = await rollUntil(h, 'web', complete(3));
      assert.equal(cond(s, 'Progressing')?.message, `ReplicaSet "web-${hash}" has successfully progressed.`);
      assert.equal(cond(s, 'Available')?.status, 'True');
      assert.equal(cond(s, 'Available')?.reason, 'MinimumReplicasAvailable');
      assert.equal(s.readyReplicas, 3);
      const d = await h.client.get(DEPLOYMENTS, 'default', 'web');
      assert.equal(s.observedGeneration, d.metadata?.generation);
      assert.equal(d.metadata?.generation, 1, 'the revision annotation is written through status: no new generation');
      assert.equal(d.metadata?.annotations?.[deploymentAnnotation('revision')], '1');
      assert.deepEqual(h.errors.filter((e) => !/modified|Conflict/.test(String(e))), []);
    } finally {
      await h.close();
      setFlavor('orch');
    }
  });
}

test('RollingUpdate: a new template surges one pod at a time, never below minAvailable, then scales the old set to zero', async () => {
  setFlavor('kubernetes');
  const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
  try {
    await h.client.create(DEPLOYMENTS, 'default', deployment('web', 4, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    await rollUntil(h, 'web', complete(4));
    const [first] = await replicaSets(h);
    await h.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
    // Before any new pod is ready: 4 old + 1 new, nothing removed.
    const both = await eventually(async () => {
      const l = await replicaSets(h);
      return l.length === 2 ? l : undefined;
    }, 'a second ReplicaSet');
    await h.settle();
    const next = both.find((r) => r.metadata?.uid !== first.metadata?.uid)!;
    const sizes = async (): Promise<number[]> => {
      const l = await replicaSets(h);
      return [first, next].map((x) => (l.find((r) => r.metadata?.uid === x.metadata?.uid)?.spec as { replicas: number }).replicas);
    };
    assert.deepEqual(await sizes(), [4, 1]);
    assert.equal(next.metadata?.annotations?.[deploymentAnnotation('revision')], '2');
    const s = await rollUntil(h, 'web', complete(4));
    assert.equal(s.updatedReplicas, 4);
    assert.deepEqual(await sizes(), [0, 4]);
    assert.equal((await h.client.get(DEPLOYMENTS, 'default', 'web')).metadata?.annotations?.[deploymentAnnotation('revision')], '2');
    assert.ok(h.recorder.events.some((e) => e.note === `Scaled down replica set ${first.metadata?.name} to 3`));
  } finally {
    await h.close();
    setFlavor('orch');
  }
});

test('Recreate: old pods go before new ones are made', async () => {
  const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
  try {
    await h.client.create(DEPLOYMENTS, 'default', deployment('db', 2, { strategy: { type: 'Recreate' } }));
    await rollUntil(h, 'db', complete(2));
    const [first] = await replicaSets(h);
    await h.client.patch(DEPLOYMENTS, 'default', 'db', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
    await rollUntil(h, 'db', complete(2));
    const l = await replicaSets(h);
    assert.equal(l.length, 2);
    assert.equal((l.find((r) => r.metadata?.uid === first.metadata?.uid)?.spec as { replicas: number }).replicas, 0);
    const ups = h.recorder.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.note);
    const downAt = ups.findIndex((n) => n.startsWith(`Scaled down replica set ${first.metadata?.name}`));
    const upNew = ups.findIndex((n, i) => i > 0 && n.startsWith('Scaled up replica set') && !n.includes(first.metadata?.name ?? '?'));
    assert.ok(downAt >= 0 && upNew > downAt, ups.join('\n'));
  } finally {
    await h.close();
  }
});

test('scaling a paused Deployment mid-rollout splits the new count proportionally', async () => {
  const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
  try {
    await h.client.create(DEPLOYMENTS, 'default', deployment('web', 10, { strategy: { rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }));
    await rollUntil(h, 'web', complete(10));
    await h.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
    // New set at 5 (surge 3 + 2 unavailable let old go to 8): pause there.
    await eventually(async () => ((await replicaSets(h)).length === 2 ? true : undefined), 'two sets');
    await h.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { paused: true } });
    await h.settle();
    const before = (await replicaSets(h)).map((r) => (r.spec as { replicas: number }).replicas);
    const total = before.reduce((a, b) => a + b, 0);
    assert.equal(total, 13, `sizes ${before.join(',')}`);
    const s = await eventually(async () => {
      const st = await status(h, 'web');
      return cond(st, 'Progressing')?.reason === 'DeploymentPaused' ? st : undefined;
    }, 'paused');
    assert.equal(cond(s, 'Progressing')?.message, 'Deployment is paused');
    await h.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { replicas: 20 } });
    const after = await eventually(async () => {
      const l = (await replicaSets(h)).map((r) => (r.spec as { replicas: number }).replicas);
      return l.reduce((a, b) => a + b, 0) === 23 ? l : undefined;
    }, 'scaled to 20 + a surge of 3');
    // Each set keeps its share: of 13 before, of 23 now.
    after.forEach((n, i) => assert.ok(Math.abs(n - (before[i] * 23) / 13) <= 1, `${before.join(',')} -> ${after.join(',')}`));
    assert.ok(h.recorder.events.some((e) => e.reason === 'ScalingReplicaSet' && e.note.startsWith('Scaled up replica set web-')));
  } finally {
    await h.close();
  }
});

test('progressDeadlineSeconds: no progress past the deadline gives ProgressDeadlineExceeded', async () => {
  const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
  try {
    await h.client.create(DEPLOYMENTS, 'default', deployment('stuck', 1, { progressDeadlineSeconds: 60 }));
    await eventually(async () => ((await status(h, 'stuck')).replicas === 1 ? true : undefined), 'a replica');
    await h.settle();
    assert.notEqual(cond(await status(h, 'stuck'), 'Progressing')?.reason, 'ProgressDeadlineExceeded');
    assert.equal(cond(await status(h, 'stuck'), 'Available')?.reason, 'MinimumReplicasUnavailable');
    await h.step(62_000);
    const s = await eventually(async () => {
      const st = await status(h, 'stuck');
      return cond(st, 'Progressing')?.reason === 'ProgressDeadlineExceeded' ? st : undefined;
    }, 'deadline exceeded');
    const rs = (await replicaSets(h))[0];
    assert.equal(cond(s, 'Progressing')?.status, 'False');
    assert.equal(cond(s, 'Progressing')?.message, `ReplicaSet "${rs.metadata?.name}" has timed out progressing.`);
  } finally {
    await h.close();
  }
});

test('revisionHistoryLimit: old ReplicaSets past the limit are deleted, lowest revision first', async () => {
  const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
  try {
    await h.client.create(DEPLOYMENTS, 'default', deployment('web', 1, { revisionHistoryLimit: 1 }));
    for (const image of ['nginx:1', 'nginx:2', 'nginx:3']) {
      await h.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } });
      await rollUntil(h, 'web', (s) => complete(1)(s) && s.observedGeneration !== undefined);
      await h.settle();
    }
    const revs = await eventually(async () => {
      const l = await replicaSets(h);
      return l.length === 2 ? l.map((r) => r.metadata?.annotations?.[deploymentAnnotation('revision')]).sort() : undefined;
    }, 'one old set kept');
    assert.deepEqual(revs, ['2', '3']);
  } finally {
    await h.close();
  }
});

test('a name taken by another ReplicaSet counts a collision and the next hash is used', async () => {
  const h = await startWorkload(deploymentControllerDescriptor, replicaSetControllerDescriptor);
  try {
    // Paused, the Deployment makes no ReplicaSet: the test takes its name first.
    const d = await h.client.create(DEPLOYMENTS, 'default', deployment('web', 1, { paused: true }));
    const template = (d.spec as { template: unknown }).template;
    const taken = `web-${computeHash(template)}`;
    await h.client.create(REPLICASETS, 'default', {
      metadata: { name: taken },
      spec: { replicas: 0, selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    await h.settle();
    assert.equal((await replicaSets(h)).length, 1);
    await h.client.patch(DEPLOYMENTS, 'default', 'web', { spec: { paused: false } });
    const s = await rollUntil(h, 'web', complete(1));
    assert.equal(s.collisionCount, 1);
    const ours = (await replicaSets(h)).find((r) => r.metadata?.name !== taken);
    assert.equal(ours?.metadata?.name, `web-${computeHash(template, 1)}`);
  } finally {
    await h.close();
  }
});
