import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExponentialBackoff, runWorkers, WorkQueue } from './workqueue.js';

test('a key is queued once, and a key re-added while processing comes back after done', async () => {
  const q = new WorkQueue<string>();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.len(), 2);
  const first = await q.get();
  assert.equal(first, 'a');
  q.add('a'); // while processing: must not be handed to another worker now
  assert.equal(await q.get(), 'b');
  assert.equal(q.len(), 0);
  q.done('a');
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  q.done('b');
  assert.equal(q.len(), 0);
});

test('a waiting get receives the next key; shutdown releases waiters', async () => {
  const q = new WorkQueue<string>();
  const waiting = q.get();
  q.add('x');
  assert.equal(await waiting, 'x');
  const pending = q.get();
  q.shutDown();
  assert.equal(await pending, undefined);
  q.add('y');
  assert.equal(await q.get(), undefined);
});

test('exponential back-off doubles per failure up to the cap, and forget resets it', () => {
  const b = new ExponentialBackoff<string>(10, 50);
  assert.deepEqual([b.when('k'), b.when('k'), b.when('k'), b.when('k')], [10, 20, 40, 50]);
  assert.equal(b.retries('k'), 4);
  assert.equal(b.when('other'), 10);
  b.forget('k');
  assert.equal(b.when('k'), 10);
});

test('workers retry failed keys with back-off until they succeed', async () => {
  const q = new WorkQueue<string>(new ExponentialBackoff<string>(1, 4));
  const attempts = new Map<string, number>();
  const errors: string[] = [];
  let finished!: () => void;
  const allDone = new Promise<void>((r) => (finished = r));
  const run = runWorkers(
    q,
    async (key) => {
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      if (key === 'flaky' && n < 3) throw new Error(`fail ${n}`);
      if (attempts.get('flaky') === 3 && attempts.has('steady')) finished();
    },
    { workers: 2, onError: (key, err) => errors.push(`${key}: ${(err as Error).message}`) },
  );
  q.add('flaky');
  q.add('steady');
  await allDone;
  q.shutDown();
  await run;
  assert.equal(attempts.get('flaky'), 3);
  assert.equal(attempts.get('steady'), 1);
  assert.deepEqual(errors, ['flaky: fail 1', 'flaky: fail 2']);
  assert.equal(q.numRequeues('flaky'), 0);
});

test('a queue with metrics reports adds, retries and the depth of waiting keys', async () => {
  const seen = { adds: 0, retries: 0, depths: [] as number[] };
  const q = new WorkQueue<string>(new ExponentialBackoff<string>(1, 1), {
    metrics: { add: () => seen.adds++, retry: () => seen.retries++, depth: (n) => seen.depths.push(n) },
  });
  q.add('a');
  q.add('a'); // already waiting: neither an add nor a depth change
  q.add('b');
  assert.equal(seen.adds, 2);
  assert.deepEqual(seen.depths, [1, 2]);
  assert.equal(await q.get(), 'a');
  assert.deepEqual(seen.depths.at(-1), 1);
  q.add('a'); // re-added while processing: waits, and counts in the depth
  assert.deepEqual(seen.depths.at(-1), 2);
  q.addRateLimited('b');
  assert.equal(seen.retries, 1);
  q.done('a');
  assert.equal(await q.get(), 'b');
  assert.equal(await q.get(), 'a');
  assert.deepEqual(seen.depths.at(-1), 0);
  q.shutDown();
  q.add('c');
  q.addRateLimited('c');
  assert.equal(seen.adds, 3);
  assert.equal(seen.retries, 1);
});
