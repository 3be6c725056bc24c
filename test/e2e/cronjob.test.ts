// Black-box through kubectl, both flavors: a `*/1 * * * *` CronJob creates a Job at the next
// minute. The server runs in-process with a FakeClock driving its controllers, so the minute
// comes when the test says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock, startApiServer, type Flavor } from '../../src/lib/index.js';
import { eventually, Kubectl, kubectlPath } from './harness.js';

const binary = kubectlPath();
const skip = binary ? undefined : 'kubectl is not on PATH';

const MINUTE = 60_000;

for (const flavor of ['kubernetes', 'orch'] as Flavor[]) {
  test(`a */1 CronJob creates its Job at the minute, seen by kubectl get jobs (${flavor} flavor)`, { skip }, async () => {
    // The fake time starts at the wall clock's, as creation timestamps are the server's own time.
    const clock = new FakeClock(Date.now());
    const server = await startApiServer({ flavor, clock });
    const kubectl = new Kubectl(binary!, server.kubeconfigPath);
    try {
      const created = await kubectl.run(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/1 * * * *', '--', 'date']);
      assert.equal(created.code, 0, created.stderr);
      await server.settled();
      const none = await kubectl.run(['get', 'jobs', '-o', 'name']);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(none.stdout, '', 'no Job before the minute');

      // To one second past the next minute after both the fake time and the creation (wall clock).
      const next = Math.floor(Math.max(clock.now().getTime(), Date.now()) / MINUTE) * MINUTE + MINUTE;
      clock.setTime(next + 1000);
      const jobName = `tick-${next / MINUTE}`;
      const names = await eventually(async () => {
        const res = await kubectl.run(['get', 'jobs', '-o', 'name']);
        return res.stdout.trim() ? res.stdout.trim().split('\n') : undefined;
      }, 'a Job');
      assert.deepEqual(names, [`job.batch/${jobName}`]);
      const job = JSON.parse((await kubectl.run(['get', 'job', jobName, '-o', 'json'])).stdout) as {
        metadata: { ownerReferences?: { kind: string; name: string; controller?: boolean }[]; annotations?: Record<string, string> };
      };
      assert.deepEqual(job.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [['CronJob', 'tick', true]]);
      const cj = await eventually(async () => {
        const res = JSON.parse((await kubectl.run(['get', 'cronjob', 'tick', '-o', 'json'])).stdout) as { status?: { lastScheduleTime?: string; active?: { name: string }[] } };
        return res.status?.lastScheduleTime ? res : undefined;
      }, 'the CronJob status');
      assert.equal(cj.status?.lastScheduleTime, new Date(next).toISOString().replace('.000Z', 'Z'));
      assert.deepEqual(cj.status?.active?.map((a) => a.name), [jobName]);

      // No second Job for the same minute; the next minute brings the next one.
      await server.settled();
      assert.equal((await kubectl.run(['get', 'jobs', '-o', 'name'])).stdout.trim().split('\n').length, 1);
      clock.setTime(next + MINUTE + 1000);
      await eventually(async () => {
        const res = await kubectl.run(['get', 'jobs', '-o', 'name']);
        return res.stdout.includes(`tick-${next / MINUTE + 1}`) || undefined;
      }, 'the next minute\'s Job');
    } finally {
      kubectl.dispose();
      await server.stop();
    }
  });
}
