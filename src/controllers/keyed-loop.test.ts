import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../apimachinery/clock.js';
import { KeyedLoop } from './keyed-loop.js';

test('idle() is false from the moment a key is added, even one handed straight to a waiting worker', async () => {
  const loop = new KeyedLoop(new FakeClock(), 'keyed_loop_test');
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const synced: string[] = [];
  loop.run(
    async (key) => {
      await gate;
      synced.push(key);
    },
    1,
    (err) => assert.fail(String(err)),
  );
  try {
    // The worker is now waiting for a key.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loop.idle(), true);
    loop.add('a');
    assert.equal(loop.idle(), false, 'a key given to the waiting worker is not synced yet');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loop.idle(), false, 'its sync runs');
    release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(synced, ['a']);
    assert.equal(loop.idle(), true);
  } finally {
    release();
    await loop.stop();
  }
});
