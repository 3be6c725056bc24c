import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { eventually } from '../../testing/wait.js';
import { isNotFound, JOBS } from './common.js';
import { startBatch, type BatchHarness } from './harness.test.js';
import { expiresAt, ttlAfterFinishedControllerDescriptor } from './ttl-after-finished.js';

function job(name: string, ttl?: number): KubeObject {
  return {
    metadata: { name },
    spec: {
      ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }),
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
}

async function finish(h: BatchHarness, name: string, type: string): Promise<void> {
  const now = h.clock.now().toISOString().replace(/\.\d+Z$/, 'Z');
  await h.client.patch(JOBS, 'default', name, { status: { startTime: now, conditions: [{ type, status: 'True', lastTransitionTime: now, lastProbeTime: now }] } }, 'status');
}

/** Gone, or on its way (a Foreground deletion waits for the garbage collector). */
async function deleted(h: BatchHarness, name: string): Promise<boolean> {
  try {
    return Boolean((await h.client.get(JOBS, 'default', name)).metadata?.deletionTimestamp);
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

test('a finished Job is deleted ttlSecondsAfterFinished after it finished, not before', async () => {
  const h = await startBatch(ttlAfterFinishedControllerDescriptor);
  try {
    await h.client.create(JOBS, 'default', job('short', 100));
    await h.client.create(JOBS, 'default', job('failed', 0));
    await h.client.create(JOBS, 'default', job('keep'));
    await h.client.create(JOBS, 'default', job('running', 1));
    await h.step(5_000);
    await finish(h, 'short', 'Complete');
    await finish(h, 'failed', 'Failed');
    await finish(h, 'keep', 'Complete');
    await eventually(() => deleted(h, 'failed').then((d) => d || undefined), 'a TTL of 0 deletes at once');
    await h.step(99_000);
    assert.equal(await deleted(h, 'short'), false);
    await h.step(1_000);
    await eventually(() => deleted(h, 'short').then((d) => d || undefined), 'the expired Job deleted');
    await h.step(3600_000);
    assert.equal(await deleted(h, 'keep'), false, 'no TTL: kept');
    assert.equal(await deleted(h, 'running'), false, 'not finished: kept');
    assert.deepEqual(h.errors, []);
  } finally {
    await h.close();
  }
});

test('expiresAt reads the finish condition; a finished Job without its time is an error', () => {
  const j = { ...job('x', 10), status: { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
  assert.equal(expiresAt(j)?.toISOString(), '2024-01-01T00:00:10.000Z');
  assert.equal(expiresAt(job('x', 10)), undefined);
  assert.throws(() => expiresAt({ ...job('x', 10), metadata: { name: 'x', namespace: 'ns' }, status: { conditions: [{ type: 'Failed', status: 'True' }] } }), /unable to find the time when the Job ns\/x finished/);
});
