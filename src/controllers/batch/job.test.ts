import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { eventually } from '../../testing/wait.js';
import { JOBS, PODS } from './common.js';
import { reasons, startBatch, statusOf, type BatchHarness } from './harness.test.js';
import { completionIndexAnnotation, formatIndexes, jobControllerDescriptor, parseIndexes, trackingFinalizer } from './job.js';

interface JobStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  ready?: number;
  startTime?: string;
  completionTime?: string;
  completedIndexes?: string;
  uncountedTerminatedPods?: Record<string, string[]>;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

function job(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    metadata: { name },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }, ...spec },
  };
}

async function podsOf(h: BatchHarness, jobName: string): Promise<KubeObject[]> {
  const list = await h.client.list(PODS, 'default');
  return list.items.filter((p) => p.metadata?.ownerReferences?.some((r) => r.name === jobName));
}

async function setPhase(h: BatchHarness, pod: KubeObject, phase: string, ready = false): Promise<void> {
  const conditions = ready ? [{ type: 'Ready', status: 'True' }] : [];
  await h.client.patch(PODS, 'default', pod.metadata?.name ?? '', { status: { phase, conditions } }, 'status');
}

async function jobStatus(h: BatchHarness, name: string): Promise<JobStatus> {
  return statusOf<JobStatus>(await h.client.get(JOBS, 'default', name));
}

test('index sets are written and read as Kubernetes spells them', () => {
  assert.equal(formatIndexes([5, 1, 3, 4, 7, 0]), '0-1,3-5,7');
  assert.deepEqual([...parseIndexes('0-1,3-5,7', 5)].sort(), [0, 1, 3, 4]);
});

test('completions 3, parallelism 2: two pods at a time, Complete once three succeeded', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    await h.client.create(JOBS, 'default', job('pi', { completions: 3, parallelism: 2 }));
    const first = await eventually(async () => ((await podsOf(h, 'pi')).length === 2 ? podsOf(h, 'pi') : undefined), 'two pods');
    const created = await h.client.get(JOBS, 'default', 'pi');
    for (const p of first) {
      assert.deepEqual(p.metadata?.finalizers, [trackingFinalizer()]);
      assert.ok(p.metadata?.name?.startsWith('pi-'));
      assert.deepEqual(p.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: created.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await eventually(async () => ((await jobStatus(h, 'pi')).active === 2 ? true : undefined), 'active 2');
    assert.ok((await jobStatus(h, 'pi')).startTime);

    await setPhase(h, first[0], 'Running', true);
    await eventually(async () => ((await jobStatus(h, 'pi')).ready === 1 ? true : undefined), 'ready 1');

    await setPhase(h, first[0], 'Succeeded');
    const third = await eventually(async () => {
      const pods = await podsOf(h, 'pi');
      return pods.length === 3 ? pods : undefined;
    }, 'a third pod');
    await eventually(async () => {
      const s = await jobStatus(h, 'pi');
      return s.succeeded === 1 && s.active === 2 ? true : undefined;
    }, 'succeeded 1');
    // The counted pod is released from the finalizer.
    assert.deepEqual((await h.client.get(PODS, 'default', first[0].metadata?.name ?? '')).metadata?.finalizers, undefined);

    for (const p of third.filter((x) => x.metadata?.name !== first[0].metadata?.name)) await setPhase(h, p, 'Succeeded');
    const done = await eventually(async () => {
      const s = await jobStatus(h, 'pi');
      return s.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? s : undefined;
    }, 'Complete');
    assert.equal(done.succeeded, 3);
    assert.equal(done.active, 0);
    assert.ok(done.completionTime);
    assert.deepEqual(done.uncountedTerminatedPods, {});
    assert.equal((await podsOf(h, 'pi')).length, 3);
    for (const p of await podsOf(h, 'pi')) assert.equal(p.metadata?.finalizers, undefined);
    assert.equal(reasons(h.recorder).filter((r) => r === 'SuccessfulCreate').length, 3);
    assert.ok(reasons(h.recorder).includes('Completed'));
    assert.deepEqual(h.errors.filter((e) => !String(e).includes('Conflict') && !String(e).includes('modified')), []);
  } finally {
    await h.close();
  }
});

test('backoffLimit: failures past the limit fail the Job; re-creation waits for the pod back-off', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    await h.client.create(JOBS, 'default', job('flaky', { backoffLimit: 1 }));
    const [p1] = await eventually(async () => ((await podsOf(h, 'flaky')).length === 1 ? podsOf(h, 'flaky') : undefined), 'a pod');
    await setPhase(h, p1, 'Failed');
    await eventually(async () => ((await jobStatus(h, 'flaky')).failed === 1 ? true : undefined), 'failed 1');
    await h.settle();
    assert.equal((await podsOf(h, 'flaky')).length, 1, 'no replacement before the 10 s back-off');
    await h.step(10_000);
    const pods = await eventually(async () => ((await podsOf(h, 'flaky')).length === 2 ? podsOf(h, 'flaky') : undefined), 'a replacement');
    const p2 = pods.find((p) => p.metadata?.uid !== p1.metadata?.uid)!;
    await setPhase(h, p2, 'Failed');
    const failed = await eventually(async () => {
      const s = await jobStatus(h, 'flaky');
      return s.conditions?.some((c) => c.type === 'Failed') ? s : undefined;
    }, 'Failed');
    const cond = failed.conditions?.find((c) => c.type === 'Failed');
    assert.equal(cond?.reason, 'BackoffLimitExceeded');
    assert.equal(cond?.message, 'Job has reached the specified backoff limit');
    assert.equal(failed.failed, 2);
    assert.equal(failed.completionTime, undefined);
    assert.ok(reasons(h.recorder).includes('BackoffLimitExceeded'));
  } finally {
    await h.close();
  }
});

test('activeDeadlineSeconds: the Job fails at the deadline and its pods are deleted', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    await h.client.create(JOBS, 'default', job('slow', { activeDeadlineSeconds: 30, parallelism: 2, completions: 4 }));
    await eventually(async () => ((await podsOf(h, 'slow')).length === 2 ? true : undefined), 'two pods');
    await h.step(29_000);
    assert.equal((await jobStatus(h, 'slow')).conditions?.length ?? 0, 0);
    await h.step(1_000);
    const s = await eventually(async () => {
      const st = await jobStatus(h, 'slow');
      return st.conditions?.some((c) => c.type === 'Failed') ? st : undefined;
    }, 'DeadlineExceeded');
    assert.equal(s.conditions?.find((c) => c.type === 'Failed')?.reason, 'DeadlineExceeded');
    assert.equal(s.failed, 2, 'the deleted active pods count as failed');
    assert.equal((await podsOf(h, 'slow')).length, 0, 'pods deleted once released');
  } finally {
    await h.close();
  }
});

test('suspend deletes active pods and says so; resume starts them again', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    await h.client.create(JOBS, 'default', job('pausable', { parallelism: 2, completions: 2 }));
    await eventually(async () => ((await podsOf(h, 'pausable')).length === 2 ? true : undefined), 'two pods');
    await h.client.patch(JOBS, 'default', 'pausable', { spec: { suspend: true } });
    const s = await eventually(async () => {
      const st = await jobStatus(h, 'pausable');
      return st.conditions?.some((c) => c.type === 'Suspended' && c.status === 'True') && (await podsOf(h, 'pausable')).length === 0 ? st : undefined;
    }, 'Suspended');
    assert.equal(s.conditions?.find((c) => c.type === 'Suspended')?.reason, 'JobSuspended');
    assert.equal(s.active, 0);
    assert.ok(reasons(h.recorder).includes('Suspended'));
    await h.client.patch(JOBS, 'default', 'pausable', { spec: { suspend: false } });
    await eventually(async () => {
      const st = await jobStatus(h, 'pausable');
      return st.conditions?.find((c) => c.type === 'Suspended')?.reason === 'JobResumed' && st.active === 2 ? true : undefined;
    }, 'resumed');
  } finally {
    await h.close();
  }
});

test('Indexed: one pod per index with the completion index annotation, env and hostname', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    await h.client.create(JOBS, 'default', job('ix', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    const pods = await eventually(async () => ((await podsOf(h, 'ix')).length === 3 ? podsOf(h, 'ix') : undefined), 'three pods');
    const byIndex = new Map(pods.map((p) => [p.metadata?.annotations?.[completionIndexAnnotation()], p]));
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2']);
    const p1 = byIndex.get('1')!;
    assert.ok(p1.metadata?.name?.startsWith('ix-1-'));
    const spec = p1.spec as { hostname?: string; containers: { env?: { name: string; valueFrom?: unknown }[] }[] };
    assert.equal(spec.hostname, 'ix-1');
    assert.deepEqual(spec.containers[0].env?.[0], {
      name: 'JOB_COMPLETION_INDEX',
      valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${completionIndexAnnotation()}']` } },
    });
    await setPhase(h, byIndex.get('0')!, 'Succeeded');
    await setPhase(h, byIndex.get('2')!, 'Succeeded');
    await eventually(async () => ((await jobStatus(h, 'ix')).completedIndexes === '0,2' ? true : undefined), 'completed 0,2');
    await setPhase(h, p1, 'Succeeded');
    const done = await eventually(async () => {
      const s = await jobStatus(h, 'ix');
      return s.conditions?.some((c) => c.type === 'Complete') ? s : undefined;
    }, 'Complete');
    assert.equal(done.completedIndexes, '0-2');
    assert.equal(done.succeeded, 3);
  } finally {
    await h.close();
  }
});
