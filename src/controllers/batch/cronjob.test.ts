import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { FakeEventRecorder } from '../../client/events.js';
import { Informer } from '../../client/informer.js';
import { FakeClient } from '../../testing/fake-client.js';
import { eventually } from '../../testing/wait.js';
import { CRONJOBS, JOBS } from './common.js';
import { CronJobController, cronJobControllerDescriptor, jobFromTemplate } from './cronjob.js';
import { reasons, startBatch, statusOf, type BatchHarness } from './harness.test.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2024, 0, 1, 0, 0, 30);
/** To the first minute, and past the 100 ms the controller waits after an activation. */
const FIRST = 30_100;

interface CronStatus {
  active?: { name: string; uid: string; kind: string }[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

function cronJob(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name },
    spec: {
      schedule: '* * * * *',
      jobTemplate: { metadata: { labels: { app: name } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      ...spec,
    },
  };
}

async function jobNames(h: BatchHarness): Promise<string[]> {
  return (await h.client.list(JOBS, 'default')).items.map((j) => j.metadata?.name ?? '').sort();
}

async function waitJobs(h: BatchHarness, names: string[]): Promise<void> {
  await eventually(async () => (JSON.stringify(await jobNames(h)) === JSON.stringify([...names].sort()) ? true : undefined), `jobs ${names.join(',')}`);
}

/** The name of the Job of the activation `minutes` after midnight of the test day. */
function nameAt(cron: string, minutes: number): string {
  return `${cron}-${Math.floor(Date.UTC(2024, 0, 1) / MINUTE) + minutes}`;
}

async function complete(h: BatchHarness, name: string, type = 'Complete'): Promise<void> {
  const now = new Date(h.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  await h.client.patch(
    JOBS,
    'default',
    name,
    { status: { startTime: now, ...(type === 'Complete' ? { completionTime: now } : {}), conditions: [{ type, status: 'True', lastTransitionTime: now, lastProbeTime: now }] } },
    'status',
  );
}

async function cronStatus(h: BatchHarness, name: string): Promise<CronStatus> {
  return statusOf<CronStatus>(await h.client.get(CRONJOBS, 'default', name));
}

test('a * * * * * CronJob creates one Job on each minute, named by the minute and controlled by the CronJob', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    const cj = await h.client.create(CRONJOBS, 'default', cronJob('tick'));
    await h.settle();
    assert.deepEqual(await jobNames(h), []);
    await h.step(FIRST);
    await waitJobs(h, [nameAt('tick', 1)]);
    await h.step(MINUTE);
    await waitJobs(h, [nameAt('tick', 1), nameAt('tick', 2)]);
    const job = await h.client.get(JOBS, 'default', nameAt('tick', 1));
    assert.deepEqual(job.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: cj.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(job.metadata?.labels?.app, 'tick');
    const s = await eventually(async () => {
      const st = await cronStatus(h, 'tick');
      return st.active?.length === 2 ? st : undefined;
    }, 'two active');
    assert.equal(s.lastScheduleTime, '2024-01-01T00:02:00Z');
    assert.deepEqual(s.active?.map((r) => r.name).sort(), [nameAt('tick', 1), nameAt('tick', 2)]);
    assert.equal(reasons(h.recorder).filter((r) => r === 'SuccessfulCreate').length, 2);
    const created = h.recorder.events.find((e) => e.reason === 'SuccessfulCreate');
    assert.equal(created?.note, `Created job ${nameAt('tick', 1)}`);

    // A finished Job leaves the active list and sets lastSuccessfulTime.
    await complete(h, nameAt('tick', 1));
    const after = await eventually(async () => {
      const st = await cronStatus(h, 'tick');
      return st.active?.length === 1 && st.lastSuccessfulTime ? st : undefined;
    }, 'one active');
    assert.equal(after.lastSuccessfulTime, '2024-01-01T00:02:00Z', 'the completion time the test wrote');
    assert.ok(h.recorder.events.some((e) => e.reason === 'SawCompletedJob' && e.note === `Saw completed job: ${nameAt('tick', 1)}, status: Complete`));
  } finally {
    await h.close();
  }
});

test('Forbid skips an activation while a Job runs and starts it once the Job finishes', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    await h.client.create(CRONJOBS, 'default', cronJob('solo', { concurrencyPolicy: 'Forbid' }));
    await h.step(FIRST);
    await waitJobs(h, [nameAt('solo', 1)]);
    await eventually(async () => ((await cronStatus(h, 'solo')).active?.length === 1 ? true : undefined), 'active');
    await h.step(MINUTE);
    await eventually(() => (reasons(h.recorder).includes('JobAlreadyActive') ? true : undefined), 'JobAlreadyActive');
    assert.deepEqual(await jobNames(h), [nameAt('solo', 1)]);
    await complete(h, nameAt('solo', 1));
    await waitJobs(h, [nameAt('solo', 1), nameAt('solo', 2)]);
  } finally {
    await h.close();
  }
});

test('Replace deletes the running Job before starting the next', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    await h.client.create(CRONJOBS, 'default', cronJob('swap', { concurrencyPolicy: 'Replace' }));
    await h.step(FIRST);
    await waitJobs(h, [nameAt('swap', 1)]);
    await eventually(async () => ((await cronStatus(h, 'swap')).active?.length === 1 ? true : undefined), 'active');
    await h.step(MINUTE);
    await waitJobs(h, [nameAt('swap', 2)]);
    const s = await eventually(async () => {
      const st = await cronStatus(h, 'swap');
      return st.active?.length === 1 && st.active[0].name === nameAt('swap', 2) ? st : undefined;
    }, 'the new Job active');
    assert.equal(s.active?.[0].kind, 'Job');
    assert.ok(h.recorder.events.some((e) => e.reason === 'SuccessfulDelete' && e.note === `Deleted job ${nameAt('swap', 1)}`));
  } finally {
    await h.close();
  }
});

test('startingDeadlineSeconds: activations older than the deadline are not started late', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    await h.client.create(CRONJOBS, 'default', cronJob('late', { suspend: true, startingDeadlineSeconds: 10 }));
    await h.client.create(CRONJOBS, 'default', cronJob('eager', { suspend: true }));
    await h.step(5 * MINUTE);
    await h.client.patch(CRONJOBS, 'default', 'late', { spec: { suspend: false } });
    await h.client.patch(CRONJOBS, 'default', 'eager', { spec: { suspend: false } });
    // Without a deadline the most recent missed activation (00:05) starts now; with one it does not.
    await waitJobs(h, [nameAt('eager', 5)]);
    await h.settle();
    assert.deepEqual(await jobNames(h), [nameAt('eager', 5)]);
    // On time (within the deadline) for the next activation, 00:06.
    await h.step(FIRST);
    await waitJobs(h, [nameAt('eager', 5), nameAt('eager', 6), nameAt('late', 6)]);
  } finally {
    await h.close();
  }
});

test('more than 100 missed activations: the TooManyMissedTimes Event, and only the latest starts', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    await h.client.create(CRONJOBS, 'default', cronJob('behind', { suspend: true }));
    await h.step(200 * MINUTE);
    await h.client.patch(CRONJOBS, 'default', 'behind', { spec: { suspend: false } });
    await waitJobs(h, [nameAt('behind', 200)]);
    const ev = h.recorder.events.find((e) => e.reason === 'TooManyMissedTimes');
    assert.equal(ev?.type, 'Warning');
    assert.equal(ev?.note, 'too many missed start times: 200. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
  } finally {
    await h.close();
  }
});

test('timeZone: the schedule is read in the zone', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    // 09:00 in Tokyo is midnight UTC.
    await h.client.create(CRONJOBS, 'default', cronJob('tokyo', { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }));
    await h.step(23 * 60 * MINUTE);
    assert.deepEqual(await jobNames(h), []);
    await h.step(60 * MINUTE);
    await waitJobs(h, [nameAt('tokyo', 24 * 60)]);
    assert.equal((await cronStatus(h, 'tokyo')).lastScheduleTime, '2024-01-02T00:00:00Z');
  } finally {
    await h.close();
  }
});

test('a Job of the activation that already exists (made before a restart) is taken, not duplicated', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    const cj = await h.client.create(CRONJOBS, 'default', cronJob('again'));
    // What an earlier run created before it could record it in the status.
    await h.client.create(JOBS, 'default', jobFromTemplate(cj, new Date(Date.UTC(2024, 0, 1, 0, 1))));
    await h.step(FIRST);
    const s = await eventually(async () => {
      const st = await cronStatus(h, 'again');
      return st.lastScheduleTime === '2024-01-01T00:01:00Z' ? st : undefined;
    }, 'lastScheduleTime');
    assert.deepEqual(s.active?.map((r) => r.name), [nameAt('again', 1)]);
    assert.deepEqual(await jobNames(h), [nameAt('again', 1)]);
    assert.equal(reasons(h.recorder).filter((r) => r === 'SuccessfulCreate').length, 0);
  } finally {
    await h.close();
  }
});

test('history limits: the oldest finished Jobs beyond the limits are deleted', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    await h.client.create(CRONJOBS, 'default', cronJob('hist', { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 0 }));
    await h.step(FIRST);
    await waitJobs(h, [nameAt('hist', 1)]);
    await complete(h, nameAt('hist', 1));
    await h.step(MINUTE);
    await waitJobs(h, [nameAt('hist', 1), nameAt('hist', 2)]);
    await complete(h, nameAt('hist', 2));
    await waitJobs(h, [nameAt('hist', 2)]);
    await h.step(MINUTE);
    await waitJobs(h, [nameAt('hist', 2), nameAt('hist', 3)]);
    await complete(h, nameAt('hist', 3), 'Failed');
    await waitJobs(h, [nameAt('hist', 2)]);
  } finally {
    await h.close();
  }
});

test('suspend: no Job while suspended', async () => {
  const h = await startBatch(cronJobControllerDescriptor);
  try {
    await h.client.create(CRONJOBS, 'default', cronJob('off', { suspend: true }));
    await h.step(3 * MINUTE);
    assert.deepEqual(await jobNames(h), []);
    assert.equal(h.clock.now().getTime(), T0 + 3 * MINUTE);
  } finally {
    await h.close();
  }
});

test('a time zone or schedule the controller cannot read: a Warning Event and no Job', async () => {
  // The API refuses both; a controller manager whose zone database lacks a zone still meets one.
  const client = new FakeClient();
  const recorder = new FakeEventRecorder();
  const clock = new FakeClock(T0);
  const informer = (r: typeof JOBS): Informer => new Informer(client, r);
  const controller = new CronJobController({ client, cronJobs: informer(CRONJOBS), jobs: informer(JOBS), clock, recorder, onError: (e) => assert.fail(String(e)) });
  await client.create(CRONJOBS, 'default', { ...cronJob('mars', { timeZone: 'Mars/Olympus' }), metadata: { name: 'mars', namespace: 'default', uid: 'u1' } });
  await client.create(CRONJOBS, 'default', { ...cronJob('bad', { schedule: '*/0 * * * *' }), metadata: { name: 'bad', namespace: 'default', uid: 'u2' } });
  clock.step(10 * MINUTE);
  await controller.sync('default/mars');
  await controller.sync('default/bad');
  assert.deepEqual(
    recorder.events.map((e) => [e.type, e.reason, e.note]),
    [
      ['Warning', 'UnknownTimeZone', 'invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus'],
      ['Warning', 'UnparseableSchedule', 'unparseable schedule: "*/0 * * * *" : step of range should be a positive number: */0'],
    ],
  );
  assert.deepEqual((await client.list(JOBS, 'default')).items, []);
  assert.equal(clock.waiting(), 0, 'nothing to wake up for until the CronJob changes');
});
