import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from './clock.js';

test('a fake clock runs schedules in time order as it steps, each at its own time', () => {
  const clock = new FakeClock(0);
  const seen: string[] = [];
  clock.schedule(300, () => seen.push(`c@${clock.now().getTime()}`));
  clock.schedule(100, () => {
    seen.push(`a@${clock.now().getTime()}`);
    clock.schedule(50, () => seen.push(`b@${clock.now().getTime()}`));
  });
  const cancel = clock.schedule(200, () => seen.push('cancelled'));
  cancel();
  clock.step(120);
  assert.deepEqual(seen, ['a@100']);
  clock.step(1000);
  assert.deepEqual(seen, ['a@100', 'b@150', 'c@300']);
  assert.equal(clock.now().getTime(), 1120);
  assert.equal(clock.waiting(), 0);
});
