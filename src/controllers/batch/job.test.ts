import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { eventually } from '../../testing/wait.js';
import { JOBS, PODS } from './common.js';
import { reasons, startBatch, statusOf, type BatchHarness } from './harness.test.js';
import { completionIndexAnnotation, formatIndexes, jobControllerDescriptor, parseIndexes, trackingFinalizer } from './job.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { setFlavor } from '../../naming/index.js';

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

// ---- podFailurePolicy, ownership ----

function failedPodStatus(exitCode: number, conditions: { type: string; status: string }[] = []): Record<string, unknown> {
  return {
    phase: 'Failed',
    conditions,
    containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, reason: 'Error' } } }],
  };
}

test('matchPodFailurePolicy: rules in order, exit codes (never 0) and conditions, Kubernetes messages', () => {
  const pod = (status: Record<string, unknown>): KubeObject => ({ metadata: { name: 'p', namespace: 'ns' }, status });
  const policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1] } },
    ],
  };
  const exited = (name: string, exitCode: number): Record<string, unknown> => ({ phase: 'Failed', containerStatuses: [{ name, state: { terminated: { exitCode } } }] });
  assert.deepEqual(matchPodFailurePolicy(policy, pod(exited('main', 42))), {
    action: 'FailJob',
    countFailed: true,
    failJobMessage: 'Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1',
  });
  assert.deepEqual(matchPodFailurePolicy(policy, pod(exited('side', 42))), { action: 'Count', countFailed: true });
  assert.deepEqual(matchPodFailurePolicy(policy, pod(exited('side', 1))), { countFailed: true });
  assert.deepEqual(matchPodFailurePolicy(policy, pod({ ...exited('main', 42), conditions: [{ type: 'DisruptionTarget', status: 'True' }] })), { action: 'Ignore', countFailed: false });
  // Exit code 0 is no failure, even for NotIn.
  assert.deepEqual(matchPodFailurePolicy({ rules: [{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [1] } }] }, pod(exited('x', 0))), { countFailed: true });
  // Init containers count too; conditions give their own message.
  const init = { phase: 'Failed', initContainerStatuses: [{ name: 'init', state: { terminated: { exitCode: 3 } } }] };
  assert.equal(matchPodFailurePolicy({ rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [3] } }] }, pod(init)).failJobMessage, 'Container init for pod ns/p failed with exit code 3 matching FailJob rule at index 0');
  const cond = pod({ phase: 'Failed', conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
  assert.equal(matchPodFailurePolicy({ rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] }, cond).failJobMessage, 'Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0');
  assert.deepEqual(matchPodFailurePolicy(undefined, cond), { countFailed: true });
});

test('podFailurePolicy FailJob: the Job fails at once with FailureTarget then Failed, reason PodFailurePolicy', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    const rules = [{ action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [42] } }];
    await h.client.create(JOBS, 'default', job('strict', { parallelism: 2, completions: 4, backoffLimit: 6, podFailurePolicy: { rules } }));
    const pods = await eventually(async () => ((await podsOf(h, 'strict')).length === 2 ? podsOf(h, 'strict') : undefined), 'two pods');
    await h.client.patch(PODS, 'default', pods[0].metadata?.name ?? '', { status: failedPodStatus(42) }, 'status');
    const s = await eventually(async () => {
      const st = await jobStatus(h, 'strict');
      return st.conditions?.some((c) => c.type === 'Failed') ? st : undefined;
    }, 'Failed');
    const message = `Container c for pod default/${pods[0].metadata?.name ?? ''} failed with exit code 42 matching FailJob rule at index 0`;
    assert.deepEqual(
      s.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['FailureTarget', 'True', 'PodFailurePolicy', message],
        ['Failed', 'True', 'PodFailurePolicy', message],
      ],
    );
    assert.equal(s.failed, 1);
    assert.ok(h.recorder.events.some((e) => e.reason === 'PodFailurePolicy' && e.type === 'Warning' && e.note === message));
    // The other pod was deleted.
    await h.settle();
    const left = await podsOf(h, 'strict');
    assert.ok(left.every((p) => p.metadata?.uid === pods[0].metadata?.uid || p.metadata?.deletionTimestamp !== undefined), 'the active pod is deleted');
  } finally {
    await h.close();
  }
});

test('podFailurePolicy Ignore: a disrupted pod does not count towards backoffLimit and is replaced', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    const rules = [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }];
    await h.client.create(JOBS, 'default', job('tolerant', { backoffLimit: 0, podFailurePolicy: { rules } }));
    const [p1] = await eventually(async () => ((await podsOf(h, 'tolerant')).length === 1 ? podsOf(h, 'tolerant') : undefined), 'a pod');
    await h.client.patch(PODS, 'default', p1.metadata?.name ?? '', { status: failedPodStatus(137, [{ type: 'DisruptionTarget', status: 'True' }]) }, 'status');
    const pods = await eventually(async () => ((await podsOf(h, 'tolerant')).length === 2 ? podsOf(h, 'tolerant') : undefined), 'a replacement');
    await h.settle();
    const s = await jobStatus(h, 'tolerant');
    assert.equal(s.failed ?? 0, 0);
    assert.equal(s.conditions?.some((c) => c.type === 'Failed') ?? false, false, 'backoffLimit 0 not reached');
    assert.equal((await h.client.get(PODS, 'default', p1.metadata?.name ?? '')).metadata?.finalizers, undefined, 'the ignored pod is released');
    // A failure no rule matches counts: backoffLimit 0 fails the Job.
    const p2 = pods.find((p) => p.metadata?.uid !== p1.metadata?.uid)!;
    await h.client.patch(PODS, 'default', p2.metadata?.name ?? '', { status: failedPodStatus(1) }, 'status');
    const failed = await eventually(async () => {
      const st = await jobStatus(h, 'tolerant');
      return st.conditions?.some((c) => c.type === 'Failed') ? st : undefined;
    }, 'Failed');
    assert.equal(failed.conditions?.find((c) => c.type === 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(failed.failed, 1);
  } finally {
    await h.close();
  }
});

test('ownership: an orphan the selector matches is adopted, a pod it stops matching is released, an orphan nobody wants loses the finalizer', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    // The orphan is there, and seen, before the Job that selects it: a Job that is suspended
    // when it first sees the orphan would adopt it and delete it as one of its active pods.
    const labels = { app: 'stray-owner' };
    await h.client.create(PODS, 'default', { metadata: { name: 'stray', labels: { ...labels } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
    await h.settle();
    const manual = job('owner', { manualSelector: true, selector: { matchLabels: { ...labels } } });
    (manual.spec as { template: { metadata?: unknown } }).template.metadata = { labels: { ...labels } };
    const created = await h.client.create(JOBS, 'default', manual);
    const matchLabels = (created.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    const adopted = await eventually(async () => {
      const p = await h.client.get(PODS, 'default', 'stray');
      return p.metadata?.ownerReferences?.length ? p : undefined;
    }, 'adopted');
    assert.deepEqual(adopted.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'owner', uid: created.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(adopted.metadata?.finalizers, [trackingFinalizer()]);
    await h.settle();
    assert.equal((await podsOf(h, 'owner')).length, 1, 'no pod created beside the adopted one');
    assert.equal((await jobStatus(h, 'owner')).active, 1);

    // Its labels no longer match: released (owner reference and finalizer off), and replaced.
    const key = Object.keys(matchLabels)[0];
    await h.client.patch(PODS, 'default', 'stray', { metadata: { labels: { [key]: 'someone-else' } } });
    const released = await eventually(async () => {
      const p = await h.client.get(PODS, 'default', 'stray');
      return p.metadata?.ownerReferences === undefined ? p : undefined;
    }, 'released');
    assert.equal(released.metadata?.finalizers, undefined);
    await eventually(async () => ((await podsOf(h, 'owner')).length === 1 && (await jobStatus(h, 'owner')).active === 1 ? true : undefined), 'a replacement');

    // An orphan holding the finalizer that no Job selects: the finalizer comes off.
    await h.client.create(PODS, 'default', { metadata: { name: 'leftover', labels: { app: 'x' }, finalizers: [trackingFinalizer()] }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
    await eventually(async () => ((await h.client.get(PODS, 'default', 'leftover')).metadata?.finalizers === undefined ? true : undefined), 'leftover released');
    assert.deepEqual(h.errors.filter((e) => !String(e).includes('Conflict') && !String(e).includes('modified')), []);
  } finally {
    await h.close();
  }
});

test('matchPodFailurePolicy: malformed policies match nothing and never throw', () => {
  const pod: KubeObject = {
    metadata: { name: 'p', namespace: 'ns' },
    status: { phase: 'Failed', conditions: [null, { type: 'X', status: 'True' }], containerStatuses: [null, { name: 'c', state: { terminated: { exitCode: 3 } } }] },
  };
  const hostile: unknown[] = [
    'FailJob',
    { rules: 'x' },
    { rules: [null, 7, 'x'] },
    { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: { __proto__: { includes: () => true } } } }] },
    { rules: [{ action: 'FailJob', onExitCodes: 'x' }] },
    { rules: [{ action: 'FailJob', onPodConditions: { type: 'X', status: 'True' } }] },
    { rules: [{ action: 'FailJob', onPodConditions: [null] }] },
    { rules: [{ action: 'Explode', onExitCodes: { operator: 'In', values: [3] } }] },
    JSON.parse('{"rules":[{"action":"FailJob","__proto__":{"onExitCodes":{"operator":"In","values":[3]}}}]}'),
  ];
  for (const policy of hostile) assert.deepEqual(matchPodFailurePolicy(policy as never, pod), { countFailed: true }, JSON.stringify(policy));
});

test('adopted pods that already succeeded are counted; more successes than completions say so', async () => {
  const h = await startBatch(jobControllerDescriptor);
  try {
    const created = await h.client.create(JOBS, 'default', job('crowded', { suspend: true }));
    const labels = (created.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    for (const name of ['done-1', 'done-2']) {
      await h.client.create(PODS, 'default', { metadata: { name, labels: { ...labels } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
      await h.client.patch(PODS, 'default', name, { status: { phase: 'Succeeded' } }, 'status');
    }
    await h.client.patch(JOBS, 'default', 'crowded', { spec: { suspend: false } });
    const done = await eventually(async () => {
      const s = await jobStatus(h, 'crowded');
      return s.conditions?.some((c) => c.type === 'Complete') ? s : undefined;
    }, 'Complete');
    assert.equal(done.succeeded, 2);
    assert.equal((await podsOf(h, 'crowded')).length, 2, 'no pod created');
    const warning = h.recorder.events.find((e) => e.reason === 'TooManySucceededPods');
    assert.equal(warning?.type, 'Warning');
    assert.equal(warning?.note, 'Too many succeeded pods running after completion count reached');
    for (const p of await podsOf(h, 'crowded')) assert.equal(p.metadata?.finalizers, undefined, 'counted and released');
  } finally {
    await h.close();
  }
});

test('the tracking finalizer and completion index keys follow the naming flavor', () => {
  try {
    setFlavor('kubernetes');
    assert.equal(trackingFinalizer(), 'batch.kubernetes.io/job-tracking');
    assert.equal(completionIndexAnnotation(), 'batch.kubernetes.io/job-completion-index');
  } finally {
    setFlavor('orch');
  }
  assert.equal(trackingFinalizer(), 'batch.orch.io/job-tracking');
});
