// Black-box through kubectl (kubernetes flavor): a Job runs to Complete on a simulated node
// (`kubectl wait --for=condition=complete`); a podFailurePolicy FailJob rule fails a Job at
// the first matching exit code (the test writes the pod's status, as a kubelet would, with no
// nodes and no scheduler), and a Job deleted with --cascade=orphan leaves its pod without the
// tracking finalizer; a CronJob's Jobs complete on a simulated node and only the newest
// successful one is kept (`successfulJobsHistoryLimit: 1`).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock, startApiServer } from '../../src/lib/index.js';
import { eventually, Kubectl, kubectlPath, serverUnavailable, startTestServer } from './harness.js';

const binary = kubectlPath();
const skip = serverUnavailable() ?? (binary ? undefined : 'kubectl is not on PATH');

const STRICT_JOB = `apiVersion: batch/v1
kind: Job
metadata:
  name: strict
  namespace: default
spec:
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;

const CRONJOB = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: tick
  namespace: default
spec:
  schedule: "*/1 * * * *"
  successfulJobsHistoryLimit: 1
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: work
            image: busybox
`;

describe('job controller with kubectl (kubernetes flavor)', { skip }, () => {
  test('a Job runs to Complete on a simulated node: kubectl wait --for=condition=complete', async () => {
    const server = await startTestServer({ flavor: 'kubernetes', args: ['--simulated-nodes', '1'] });
    const kubectl = new Kubectl(binary!, server.kubeconfigPath);
    try {
      const created = await kubectl.run(['create', 'job', 'once', '--image=busybox', '--', 'true']);
      assert.equal(created.code, 0, created.stderr);
      const waited = await kubectl.run(['wait', '--for=condition=complete', 'job/once', '--timeout=60s']);
      assert.equal(waited.code, 0, waited.stderr);
      assert.match(waited.stdout, /job.batch\/once condition met/);
      const status = await kubectl.run(['get', 'job', 'once', '-o', 'jsonpath={.status.succeeded}|{.status.failed}|{.status.uncountedTerminatedPods}']);
      assert.match(status.stdout, /^1\|0?\|\{\}$/);
      const table = await kubectl.run(['get', 'job', 'once', '--no-headers']);
      assert.match(table.stdout, /^once\s+1\/1\s/);
      const pod = await kubectl.run(['get', 'pods', '-l', 'job-name=once', '-o', 'jsonpath={.items[*].status.phase} {.items[*].metadata.finalizers}']);
      assert.equal(pod.stdout.trim(), 'Succeeded', 'the pod Succeeded and released from the tracking finalizer');
    } finally {
      kubectl.dispose();
      await server.stop();
    }
  });

  test('podFailurePolicy FailJob: the first pod failing with exit code 42 fails the Job (reason PodFailurePolicy)', async () => {
    const server = await startTestServer({ flavor: 'kubernetes', args: ['--scheduler=false'] });
    const kubectl = new Kubectl(binary!, server.kubeconfigPath);
    try {
      const created = await kubectl.run(['apply', '-f', '-'], { input: STRICT_JOB });
      assert.equal(created.code, 0, created.stderr);
      const podName = await eventually(async () => {
        const r = await kubectl.run(['get', 'pods', '-l', 'job-name=strict', '-o', 'jsonpath={.items[*].metadata.name}']);
        return r.stdout.trim() || undefined;
      }, 'the Job pod');
      const status = {
        status: {
          phase: 'Failed',
          containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 42, reason: 'Error' } } }],
        },
      };
      // Other controllers may write the pod at the same time: a conflict is retried.
      await eventually(async () => {
        const r = await kubectl.run(['patch', 'pod', podName, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
        return r.code === 0 ? true : undefined;
      }, 'the pod Failed');
      const waited = await kubectl.run(['wait', '--for=condition=failed', 'job/strict', '--timeout=30s']);
      assert.equal(waited.code, 0, waited.stderr);
      const cond = await kubectl.run(['get', 'job', 'strict', '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}|{.status.conditions[?(@.type=="Failed")].message}|{.status.failed}']);
      assert.equal(cond.stdout, `PodFailurePolicy|Container main for pod default/${podName} failed with exit code 42 matching FailJob rule at index 0|1`);
      const pods = await kubectl.run(['get', 'pods', '-l', 'job-name=strict', '-o', 'name']);
      assert.equal(pods.stdout.trim().split('\n').length, 1, 'no second pod: backoffLimit 6 did not apply');

      // A Job deleted with --cascade=orphan leaves its running pod without the tracking finalizer.
      const kept = await kubectl.run(['create', 'job', 'kept', '--image=busybox', '--', 'sleep', '1000']);
      assert.equal(kept.code, 0, kept.stderr);
      const keptPod = await eventually(async () => {
        const r = await kubectl.run(['get', 'pods', '-l', 'job-name=kept', '-o', 'jsonpath={.items[*].metadata.name}={.items[*].metadata.finalizers}']);
        return r.stdout.includes('job-tracking') ? r.stdout.split('=')[0] : undefined;
      }, 'the pod with its tracking finalizer');
      const orphaned = await kubectl.run(['delete', 'job', 'kept', '--cascade=orphan', '--wait=true', '--timeout=30s']);
      assert.equal(orphaned.code, 0, orphaned.stderr);
      await eventually(async () => {
        const r = await kubectl.run(['get', 'pod', keptPod, '-o', 'jsonpath={.metadata.ownerReferences}|{.metadata.finalizers}']);
        return r.code === 0 && r.stdout === '|' ? true : undefined;
      }, 'the orphaned pod released');
    } finally {
      kubectl.dispose();
      await server.stop();
    }
  });

  test('a CronJob whose Jobs complete on a simulated node keeps one successful Job', async () => {
    const MINUTE = 60_000;
    const clock = new FakeClock(Date.now());
    const server = await startApiServer({ flavor: 'kubernetes', clock, simulatedNodes: 1 });
    const kubectl = new Kubectl(binary!, server.kubeconfigPath);
    // The clock moves in steps the node agent and the node lifecycle controller both follow.
    const advanceTo = async (t: number): Promise<void> => {
      while (clock.now().getTime() < t) {
        clock.setTime(Math.min(t, clock.now().getTime() + 5_000));
        await server.settled();
      }
    };
    const jobs = async (): Promise<string[]> => {
      const r = await kubectl.run(['get', 'jobs', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Complete")].status}{"\\n"}{end}']);
      return r.stdout.trim() ? r.stdout.trim().split('\n').sort() : [];
    };
    try {
      const created = await kubectl.run(['apply', '-f', '-'], { input: CRONJOB });
      assert.equal(created.code, 0, created.stderr);
      await server.settled();
      const first = Math.floor(Math.max(clock.now().getTime(), Date.now()) / MINUTE) * MINUTE + MINUTE;
      await advanceTo(first + 1_000);
      const firstJob = `tick-${first / MINUTE}`;
      await eventually(async () => ((await jobs()).includes(`${firstJob}=`) ? true : undefined), 'the first Job');
      // The node agent completes the pod after its run time.
      await advanceTo(first + 20_000);
      await eventually(async () => ((await jobs()).includes(`${firstJob}=True`) ? true : undefined), 'the first Job Complete');

      await advanceTo(first + MINUTE + 1_000);
      const secondJob = `tick-${first / MINUTE + 1}`;
      await advanceTo(first + MINUTE + 20_000);
      const kept = await eventually(async () => {
        const list = await jobs();
        return list.length === 1 && list[0] === `${secondJob}=True` ? list : undefined;
      }, 'only the second Job, Complete');
      assert.deepEqual(kept, [`${secondJob}=True`]);
      const cj = await kubectl.run(['get', 'cronjob', 'tick', '-o', 'jsonpath={.status.lastSuccessfulTime} {.status.active}']);
      assert.match(cj.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ $/);
    } finally {
      kubectl.dispose();
      await server.stop();
    }
  });
});
